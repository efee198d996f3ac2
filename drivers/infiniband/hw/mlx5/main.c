// SPDX-License-Identifier: GPL-2.0-only
/*
 * mlx5_ib module entry: the auxiliary driver that binds mlx5_core's
 * "mlx5_core.rdma" device, the RDMA device it registers, and what the
 * device says of itself (query_device).
 *
 * Lifetime: mlx5_ib_probe() allocates and registers the device once the
 * function's capabilities say RoCE; mlx5_ib_remove() (driver unbind,
 * PCI removal, devlink reload, module removal) unregisters it, which
 * disassociates user contexts and destroys every object through the core
 * before the device-side resources of the driver itself go.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/mlx5/vport.h>
#include <rdma/uverbs_ioctl.h>

#include "mlx5_ib.h"

MODULE_DESCRIPTION("ConnectX RDMA driver on mlx5_core (oot-rdma)");
MODULE_LICENSE("GPL");
MODULE_VERSION(OOT_RDMA_VERSION);

/*
 * A command's failure as the verbs report it.  mlx5_cmd_exec() already
 * turns the device's status into an errno; a device gone fatal answers
 * every command with an error too, which user space reads as EIO.
 */
int mlx5_ib_cmd_status(struct mlx5_ib_dev *dev, int err)
{
	if (err && dev->mdev->state == MLX5_DEVICE_STATE_INTERNAL_ERROR)
		return -EIO;
	return err;
}

/*
 * A destroy command's failure: a dead function refuses every command but
 * reaches no memory any more, so the object is gone all the same.
 */
int mlx5_ib_destroy_status(struct mlx5_ib_dev *dev, int err)
{
	if (err && dev->mdev->state == MLX5_DEVICE_STATE_INTERNAL_ERROR)
		return 0;
	return err;
}

/*
 * The SGEs a WQE of @wqe_size bytes holds after the segments that come
 * before the data: 16-byte data segments in 64-byte basic blocks.
 */
static int mlx5_ib_max_sge(unsigned int wqe_size, unsigned int header)
{
	if (wqe_size <= header)
		return 0;
	return (wqe_size - header) / sizeof(struct mlx5_wqe_data_seg);
}

/* libmlx5 builds send WQEs of at most 8 basic blocks, whatever the device allows. */
#define MLX5_IB_MAX_SQ_DESC	512

/*
 * The Ethernet side's offloads, for raw packet QPs: what the verbs'
 * attributes say of them (checksums, VLAN stripping, WQs and RSS), with
 * the device flags flow steering and IP checksums still go by.
 */
static void mlx5_ib_query_raw_caps(struct mlx5_core_dev *mdev,
				   struct ib_device_attr *props)
{
	if (!MLX5_CAP_GEN(mdev, eth_net_offloads))
		return;
	if (MLX5_CAP_ETH(mdev, csum_cap)) {
		props->device_cap_flags |= IB_DEVICE_RAW_IP_CSUM;
		props->raw_packet_caps |= IB_RAW_PACKET_CAP_IP_CSUM;
	}
	if (MLX5_CAP_ETH(mdev, vlan_cap))
		props->raw_packet_caps |= IB_RAW_PACKET_CAP_CVLAN_STRIPPING;
	if (MLX5_CAP_ETH(mdev, scatter_fcs)) {
		props->device_cap_flags |= IB_DEVICE_RAW_SCATTER_FCS;
		props->raw_packet_caps |= IB_RAW_PACKET_CAP_SCATTER_FCS;
	}
	/* Receive steering: the rules of flow.c, in mlx5_core's tables. */
	if (MLX5_CAP_GEN(mdev, nic_flow_table) &&
	    MLX5_CAP_FLOWTABLE_NIC_RX(mdev, ft_support))
		props->device_cap_flags |= IB_DEVICE_MANAGED_FLOW_STEERING;

	props->max_wq_type_rq = 1 << MLX5_CAP_GEN(mdev, log_max_rq);
	if (MLX5_CAP_ETH(mdev, rss_ind_tbl_cap)) {
		props->rss_caps.supported_qpts = BIT(IB_QPT_RAW_PACKET);
		props->rss_caps.max_rwq_indirection_tables =
			1 << MLX5_CAP_GEN(mdev, log_max_rqt);
		props->rss_caps.max_rwq_indirection_table_size =
			1 << MLX5_CAP_GEN(mdev, log_max_rqt_size);
	}
}

/*
 * libmlx5's part of ibv_query_device_ex(): segmentation offload and the
 * fields an RSS QP may hash (Toeplitz over the outer addresses and
 * ports, rss.c); nothing of the features the driver does not offer.
 * As long as the caller's room, which older libmlx5 keeps shorter.
 */
static int mlx5_ib_query_device_resp(struct mlx5_core_dev *mdev,
				     struct ib_udata *uhw)
{
	struct mlx5_ib_query_device_resp resp = {};

	if (MLX5_CAP_GEN(mdev, eth_net_offloads) &&
	    MLX5_CAP_ETH(mdev, max_lso_cap)) {
		resp.tso_caps.max_tso = 1 << MLX5_CAP_ETH(mdev, max_lso_cap);
		resp.tso_caps.supported_qpts = BIT(IB_QPT_RAW_PACKET);
	}
	if (MLX5_CAP_GEN(mdev, eth_net_offloads) &&
	    MLX5_CAP_ETH(mdev, rss_ind_tbl_cap)) {
		resp.rss_caps.rx_hash_function = MLX5_RX_HASH_FUNC_TOEPLITZ;
		resp.rss_caps.rx_hash_fields_mask = MLX5_IB_RSS_HASH_FIELDS;
	}
	resp.response_length = min(uhw->outlen, sizeof(resp));
	return ib_copy_to_udata(uhw, &resp, resp.response_length);
}

int mlx5_ib_query_device(struct ib_device *ibdev, struct ib_device_attr *props,
			 struct ib_udata *uhw)
{
	struct mlx5_ib_dev *dev = to_mdev(ibdev);
	struct mlx5_core_dev *mdev = dev->mdev;
	unsigned int sq_header, sq_sge, rq_sge;
	u64 sys_image_guid;
	u32 vendor_id;
	int err;

	/* libmlx5's request has nothing we read: it must be empty. */
	if (uhw && (!ib_is_udata_cleared(uhw, 0, uhw->inlen)))
		return -EINVAL;

	memset(props, 0, sizeof(*props));

	err = mlx5_core_query_vendor_id(mdev, &vendor_id);
	if (err)
		return mlx5_ib_cmd_status(dev, err);
	err = mlx5_query_nic_vport_system_image_guid(mdev, &sys_image_guid);
	if (err)
		return mlx5_ib_cmd_status(dev, err);

	props->fw_ver = ((u64)fw_rev_maj(mdev) << 32) |
			(fw_rev_min(mdev) << 16) | fw_rev_sub(mdev);
	props->sys_image_guid = cpu_to_be64(sys_image_guid);
	props->vendor_id = vendor_id & 0xffffff;
	props->vendor_part_id = mdev->pdev->device;
	props->hw_ver = mdev->pdev->revision;
	props->max_mr_size = ~0ull;
	props->page_size_cap = ~(u64)(SZ_4K - 1);

	props->device_cap_flags = IB_DEVICE_CHANGE_PHY_PORT |
				  IB_DEVICE_PORT_ACTIVE_EVENT |
				  IB_DEVICE_SYS_IMAGE_GUID |
				  IB_DEVICE_RC_RNR_NAK_GEN;
	if (MLX5_CAP_GEN(mdev, pkv))
		props->device_cap_flags |= IB_DEVICE_BAD_PKEY_CNTR;
	if (MLX5_CAP_GEN(mdev, qkv))
		props->device_cap_flags |= IB_DEVICE_BAD_QKEY_CNTR;
	if (MLX5_CAP_GEN(mdev, xrc))
		props->device_cap_flags |= IB_DEVICE_XRC;
	/*
	 * Fast registration and local invalidation are UMR WQEs, which
	 * must be free to change a key's size.
	 */
	if (!MLX5_CAP_GEN(mdev, umr_modify_entity_size_disabled))
		props->device_cap_flags |= IB_DEVICE_MEM_MGT_EXTENSIONS;

	/*
	 * A send WQE with a scatter list: control, then at most a remote
	 * address (an atomic's operands replace the list).
	 */
	sq_header = sizeof(struct mlx5_wqe_ctrl_seg) +
		    sizeof(struct mlx5_wqe_raddr_seg);
	sq_sge = mlx5_ib_max_sge(min_t(unsigned int, MLX5_IB_MAX_SQ_DESC,
				       MLX5_CAP_GEN(mdev, max_wqe_sz_sq)),
				 sq_header);
	rq_sge = mlx5_ib_max_sge(MLX5_CAP_GEN(mdev, max_wqe_sz_rq), 0);

	props->max_qp = 1 << MLX5_CAP_GEN(mdev, log_max_qp);
	props->max_qp_wr = 1 << MLX5_CAP_GEN(mdev, log_max_qp_sz);
	props->max_send_sge = sq_sge;
	props->max_recv_sge = rq_sge;
	props->max_sge_rd = MLX5_MAX_SGE_RD;
	props->max_cq = 1 << MLX5_CAP_GEN(mdev, log_max_cq);
	props->max_cqe = (1 << MLX5_CAP_GEN(mdev, log_max_cq_sz)) - 1;
	props->max_mr = 1 << MLX5_CAP_GEN(mdev, log_max_mkey);
	props->max_pd = 1 << MLX5_CAP_GEN(mdev, log_max_pd);
	/* Reads a QP answers at once (responder), and sends (initiator). */
	props->max_qp_rd_atom = 1 << MLX5_CAP_GEN(mdev, log_max_ra_res_qp);
	props->max_qp_init_rd_atom = 1 << MLX5_CAP_GEN(mdev, log_max_ra_req_qp);
	props->max_res_rd_atom = props->max_qp_rd_atom * props->max_qp;
	props->max_srq = 1 << MLX5_CAP_GEN(mdev, log_max_srq);
	props->max_srq_wr = (1 << MLX5_CAP_GEN(mdev, log_max_srq_sz)) - 1;
	props->max_srq_sge = rq_sge - 1;
	props->max_fast_reg_page_list_len = 1 << MLX5_CAP_GEN(mdev, log_max_klm_list_size);
	props->local_ca_ack_delay = MLX5_CAP_GEN(mdev, local_ca_ack_delay);
	props->atomic_cap = MLX5_CAP_GEN(mdev, atomic) ? IB_ATOMIC_HCA : IB_ATOMIC_NONE;
	props->masked_atomic_cap = props->atomic_cap;
	props->max_pkeys = mlx5_to_sw_pkey_sz(MLX5_CAP_GEN(mdev, pkey_table_size));
	props->max_mcast_grp = 1 << MLX5_CAP_GEN(mdev, log_max_mcg);
	props->max_mcast_qp_attach = MLX5_CAP_GEN(mdev, max_qp_mcg);
	props->max_total_mcast_qp_attach = props->max_mcast_qp_attach *
					   props->max_mcast_grp;
	props->max_ah = INT_MAX;
	props->hca_core_clock = MLX5_CAP_GEN(mdev, device_frequency_khz);
	props->timestamp_mask = 0x7fffffffffffffffULL;
	props->max_pi_fast_reg_page_list_len = props->max_fast_reg_page_list_len / 2;
	if (MLX5_CAP_GEN(mdev, cq_moderation)) {
		props->cq_caps.max_cq_moderation_count = MLX5_MAX_CQ_COUNT;
		props->cq_caps.max_cq_moderation_period = MLX5_MAX_CQ_PERIOD;
	}
	mlx5_ib_query_raw_caps(mdev, props);

	if (uhw && uhw->outlen)
		return mlx5_ib_query_device_resp(mdev, uhw);
	return 0;
}

/*
 * The node description lives in the device's NODE_DESC register: read
 * at probe; a write (sysfs node_desc) goes to the device first.
 */
static int mlx5_ib_node_desc(struct mlx5_ib_dev *dev, const char *desc,
			     bool write)
{
	u8 in[IB_DEVICE_NODE_DESC_MAX] = {};
	u8 out[IB_DEVICE_NODE_DESC_MAX] = {};
	int err;

	if (write)
		memcpy(in, desc, sizeof(in));
	err = mlx5_core_access_reg(dev->mdev, in, sizeof(in), out, sizeof(out),
				   MLX5_REG_NODE_DESC, 0, write);
	if (err)
		return mlx5_ib_cmd_status(dev, err);
	memcpy(dev->ib_dev.node_desc, write ? in : out,
	       sizeof(dev->ib_dev.node_desc));
	return 0;
}

static int mlx5_ib_modify_device(struct ib_device *ibdev, int mask,
				 struct ib_device_modify *props)
{
	if (mask & ~IB_DEVICE_MODIFY_NODE_DESC)
		return -EOPNOTSUPP;
	if (!(mask & IB_DEVICE_MODIFY_NODE_DESC))
		return 0;
	return mlx5_ib_node_desc(to_mdev(ibdev), props->node_desc, true);
}

static const struct ib_device_ops mlx5_ib_dev_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_MLX5,
	.uverbs_abi_ver = MLX5_IB_UVERBS_ABI_VERSION,

	.add_gid = mlx5_ib_add_gid,
	.attach_mcast = mlx5_ib_mcg_attach,
	.alloc_hw_port_stats = mlx5_ib_alloc_hw_port_stats,
	.alloc_mr = mlx5_ib_alloc_mr,
	.alloc_pd = mlx5_ib_alloc_pd,
	.alloc_ucontext = mlx5_ib_alloc_ucontext,
	.alloc_xrcd = mlx5_ib_alloc_xrcd,
	.create_ah = mlx5_ib_create_ah,
	.create_user_ah = mlx5_ib_create_ah,
	.create_cq = mlx5_ib_create_cq,
	.create_flow = mlx5_ib_create_flow,
	.create_qp = mlx5_ib_create_qp,
	.create_rwq_ind_table = mlx5_ib_create_rwq_ind_table,
	.create_srq = mlx5_ib_create_srq,
	.create_wq = mlx5_ib_create_wq,
	.dealloc_pd = mlx5_ib_dealloc_pd,
	.dealloc_ucontext = mlx5_ib_dealloc_ucontext,
	.dealloc_xrcd = mlx5_ib_dealloc_xrcd,
	.del_gid = mlx5_ib_del_gid,
	.dereg_mr = mlx5_ib_dereg_mr,
	.disassociate_ucontext = mlx5_ib_disassociate_ucontext,
	.drain_rq = mlx5_ib_drain_rq,
	.drain_sq = mlx5_ib_drain_sq,
	.destroy_ah = mlx5_ib_destroy_ah,
	.destroy_cq = mlx5_ib_destroy_cq,
	.destroy_flow = mlx5_ib_destroy_flow,
	.destroy_qp = mlx5_ib_destroy_qp,
	.destroy_rwq_ind_table = mlx5_ib_destroy_rwq_ind_table,
	.destroy_srq = mlx5_ib_destroy_srq,
	.destroy_wq = mlx5_ib_destroy_wq,
	.detach_mcast = mlx5_ib_mcg_detach,
	.device_group = &mlx5_ib_dev_attr_group,
	.get_dev_fw_str = mlx5_ib_get_dev_fw_str,
	.get_hw_stats = mlx5_ib_get_hw_stats,
	.get_dma_mr = mlx5_ib_get_dma_mr,
	.get_link_layer = mlx5_ib_link_layer,
	.get_netdev = mlx5_ib_get_netdev,
	.get_port_immutable = mlx5_ib_port_immutable,
	.map_mr_sg = mlx5_ib_map_mr_sg,
	.mmap = mlx5_ib_mmap,
	.mmap_free = mlx5_ib_mmap_free,
	.modify_cq = mlx5_ib_modify_cq,
	.modify_device = mlx5_ib_modify_device,
	.modify_qp = mlx5_ib_modify_qp,
	.modify_srq = mlx5_ib_modify_srq,
	.modify_wq = mlx5_ib_modify_wq,
	.poll_cq = mlx5_ib_poll_cq,
	.post_recv = mlx5_ib_post_recv,
	.post_send = mlx5_ib_post_send,
	.process_mad = mlx5_ib_process_mad,
	.post_srq_recv = mlx5_ib_post_srq_recv,
	.query_device = mlx5_ib_query_device,
	.query_pkey = mlx5_ib_query_pkey,
	.query_port = mlx5_ib_query_port,
	.query_qp = mlx5_ib_query_qp,
	.query_srq = mlx5_ib_query_srq,
	.query_ucontext = mlx5_ib_query_ucontext,
	.reg_user_mr = mlx5_ib_reg_user_mr,
	.rereg_user_mr = mlx5_ib_rereg_user_mr,
	.req_notify_cq = mlx5_ib_req_notify_cq,
	.resize_cq = mlx5_ib_resize_cq,

	INIT_RDMA_OBJ_SIZE(ib_ah, mlx5_ib_ah, ibah),
	INIT_RDMA_OBJ_SIZE(ib_cq, mlx5_ib_cq, ibcq),
	INIT_RDMA_OBJ_SIZE(ib_pd, mlx5_ib_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_qp, mlx5_ib_qp, ibqp),
	INIT_RDMA_OBJ_SIZE(ib_rwq_ind_table, mlx5_ib_rwq_ind_table, ibtbl),
	INIT_RDMA_OBJ_SIZE(ib_srq, mlx5_ib_srq, ibsrq),
	INIT_RDMA_OBJ_SIZE(ib_ucontext, mlx5_ib_ucontext, ibuc),
	INIT_RDMA_OBJ_SIZE(ib_xrcd, mlx5_ib_xrcd, ibxrcd),
};

/* The driver's ioctl namespaces: merged by ib_uverbs at registration. */
static const struct uapi_definition mlx5_ib_uapi_defs[] = {
	UAPI_DEF_CHAIN(mlx5_ib_uar_defs),
	UAPI_DEF_CHAIN(mlx5_ib_ucontext_defs),
	UAPI_DEF_CHAIN(mlx5_ib_pd_defs),
	UAPI_DEF_CHAIN(mlx5_ib_port_defs),
	UAPI_DEF_CHAIN(mlx5_ib_flow_defs),
	{}
};

/* What mlx5_core reports of the whole function. */
static int mlx5_ib_mdev_event(struct notifier_block *nb, unsigned long event,
			      void *data)
{
	struct mlx5_ib_dev *dev = container_of(nb, struct mlx5_ib_dev,
					       mdev_events);
	struct ib_event ibev = { .device = &dev->ib_dev };

	switch (event) {
	case MLX5_DEV_EVENT_SYS_ERROR:
		/*
		 * The function is dead: tell every consumer.  Its user
		 * contexts go when mlx5_core removes the auxiliary device.
		 */
		ibev.event = IB_EVENT_DEVICE_FATAL;
		ibev.element.port_num = MLX5_IB_PORT;
		ib_dispatch_event(&ibev);
		/* Kernel consumers poll their flushes (cq_kern.c). */
		mlx5_ib_kcq_fatal(dev);
		return NOTIFY_OK;
	default:
		return NOTIFY_DONE;
	}
}

static int mlx5_ib_probe(struct auxiliary_device *adev,
			 const struct auxiliary_device_id *id)
{
	struct mlx5_adev *madev = container_of(adev, struct mlx5_adev, adev);
	struct mlx5_core_dev *mdev = madev->mdev;
	struct mlx5_ib_dev *dev;
	u64 node_guid;
	int err;

	if (MLX5_CAP_GEN(mdev, port_type) != MLX5_CAP_PORT_TYPE_ETH ||
	    !MLX5_CAP_GEN(mdev, roce)) {
		dev_info(&adev->dev, "no RoCE on this function\n");
		return -EOPNOTSUPP;
	}
	/*
	 * User space maps UARs a page each: a device UAR must be one (4 KiB
	 * UARs on larger pages would share a page between contexts).
	 */
	if (MLX5_CAP_GEN(mdev, uar_4k) && PAGE_SHIFT != MLX5_IB_ADAPTER_PAGE_SHIFT) {
		dev_info(&adev->dev, "4 KiB UARs on %lu-byte pages: not supported\n",
			 PAGE_SIZE);
		return -EOPNOTSUPP;
	}
	if (MLX5_CAP_GEN(mdev, num_ports) != 1) {
		dev_info(&adev->dev, "%u ports: only one is supported\n",
			 MLX5_CAP_GEN(mdev, num_ports));
		return -EOPNOTSUPP;
	}

	dev = ib_alloc_device(mlx5_ib_dev, ib_dev);
	if (!dev)
		return -ENOMEM;
	dev->mdev = mdev;
	xa_init_flags(&dev->qps, XA_FLAGS_LOCK_IRQ);
	mutex_init(&dev->flow_lock);
	mlx5_ib_kcq_init(dev);

	err = mlx5_query_nic_vport_node_guid(mdev, &node_guid);
	if (err)
		goto err_free;
	/* A device without the register keeps an empty description. */
	mlx5_ib_node_desc(dev, NULL, false);

	dev->ib_dev.node_type = RDMA_NODE_IB_CA;
	dev->ib_dev.node_guid = cpu_to_be64(node_guid);
	dev->ib_dev.phys_port_cnt = 1;
	dev->ib_dev.num_comp_vectors = mlx5_comp_vectors_count(mdev);
	dev->ib_dev.dev.parent = mdev->device;
	dev->ib_dev.local_dma_lkey = 0;	/* the PRM's reserved lkey */
	/* Kernel CQs' moderation may follow their load (DIM), as stock's. */
	dev->ib_dev.use_cq_dim = MLX5_CAP_GEN(mdev, cq_moderation);
	ib_set_device_ops(&dev->ib_dev, &mlx5_ib_dev_ops);
	dev->ib_dev.driver_def = mlx5_ib_uapi_defs;

	err = mlx5_nic_vport_enable_roce(mdev);
	if (err)
		goto err_free;

	err = mlx5_ib_netdev_init(dev);
	if (err)
		goto err_roce;

	err = mlx5_ib_devr_init(dev);
	if (err)
		goto err_netdev;

	err = mlx5_ib_counters_init(dev);
	if (err)
		goto err_devr;

	err = mlx5_ib_umr_init(dev);
	if (err)
		goto err_counters;

	err = mlx5_ib_qp_event_init(dev);
	if (err)
		goto err_umr;

	dev->mdev_events.notifier_call = mlx5_ib_mdev_event;
	mlx5_notifier_register(mdev, &dev->mdev_events);

	err = ib_register_device(&dev->ib_dev, "mlx5_%d", mdev->device);
	if (err)
		goto err_events;

	auxiliary_set_drvdata(adev, dev);
	return 0;

err_events:
	mlx5_notifier_unregister(mdev, &dev->mdev_events);
	mlx5_ib_qp_event_cleanup(dev);
err_umr:
	mlx5_ib_umr_cleanup(dev);
err_counters:
	mlx5_ib_counters_cleanup(dev);
err_devr:
	mlx5_ib_devr_cleanup(dev);
err_netdev:
	mlx5_ib_netdev_cleanup(dev);
err_roce:
	mlx5_nic_vport_disable_roce(mdev);
	mlx5_ib_kcq_cleanup(dev);
err_free:
	ib_dealloc_device(&dev->ib_dev);
	return err;
}

static void mlx5_ib_remove(struct auxiliary_device *adev)
{
	struct mlx5_ib_dev *dev = auxiliary_get_drvdata(adev);
	struct mlx5_core_dev *mdev = dev->mdev;

	ib_unregister_device(&dev->ib_dev);
	mlx5_notifier_unregister(mdev, &dev->mdev_events);
	mlx5_ib_qp_event_cleanup(dev);
	mlx5_ib_umr_cleanup(dev);
	mlx5_ib_counters_cleanup(dev);
	mlx5_ib_devr_cleanup(dev);
	mlx5_ib_netdev_cleanup(dev);
	mlx5_nic_vport_disable_roce(mdev);
	mlx5_ib_kcq_cleanup(dev);
	WARN_ON(!xa_empty(&dev->qps));
	ib_dealloc_device(&dev->ib_dev);
}

static const struct auxiliary_device_id mlx5_ib_id_table[] = {
	{ .name = MLX5_ADEV_NAME ".rdma", },
	{},
};
MODULE_DEVICE_TABLE(auxiliary, mlx5_ib_id_table);

static struct auxiliary_driver mlx5_ib_driver = {
	.name = "rdma",
	.probe = mlx5_ib_probe,
	.remove = mlx5_ib_remove,
	.id_table = mlx5_ib_id_table,
};

module_auxiliary_driver(mlx5_ib_driver);
