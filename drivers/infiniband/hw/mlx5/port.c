// SPDX-License-Identifier: GPL-2.0-only
/*
 * The RoCE port: its attributes, its netdev, and the events that change
 * its state.
 *
 * A RoCE port's state is its Ethernet link's: the port is ACTIVE when
 * the function's netdev is up with carrier.  Its speed and width follow
 * the PTYS register's operational protocol, its MTU the smaller of the
 * port's and the netdev's.
 */
#include <linux/mlx5/port.h>
#include <linux/mlx5/vport.h>
#include <net/addrconf.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_mad.h>

#define UVERBS_MODULE_NAME mlx5_ib
#include <rdma/uverbs_named_ioctl.h>
#include <rdma/mlx5_user_ioctl_cmds.h>
#include <rdma/mlx5_user_ioctl_verbs.h>

#include "mlx5_ib.h"

/*
 * An Ethernet protocol of PTYS (bit number) as the IB speed and width
 * whose product is its rate.
 */
static const struct {
	u8 proto;
	u8 speed;
	u8 width;
} mlx5_ib_eth_rates[] = {
	{ MLX5E_100BASE_TX,	IB_SPEED_SDR, IB_WIDTH_1X },
	{ MLX5E_1000BASE_CX_SGMII, IB_SPEED_SDR, IB_WIDTH_1X },
	{ MLX5E_1000BASE_KX,	IB_SPEED_SDR, IB_WIDTH_1X },
	{ MLX5E_1000BASE_T,	IB_SPEED_SDR, IB_WIDTH_1X },
	{ MLX5E_10GBASE_CX4,	IB_SPEED_QDR, IB_WIDTH_1X },
	{ MLX5E_10GBASE_KX4,	IB_SPEED_QDR, IB_WIDTH_1X },
	{ MLX5E_10GBASE_KR,	IB_SPEED_QDR, IB_WIDTH_1X },
	{ MLX5E_10GBASE_CR,	IB_SPEED_QDR, IB_WIDTH_1X },
	{ MLX5E_10GBASE_SR,	IB_SPEED_QDR, IB_WIDTH_1X },
	{ MLX5E_10GBASE_ER,	IB_SPEED_QDR, IB_WIDTH_1X },
	{ MLX5E_10GBASE_T,	IB_SPEED_QDR, IB_WIDTH_1X },
	{ MLX5E_20GBASE_KR2,	IB_SPEED_QDR, IB_WIDTH_2X },
	{ MLX5E_25GBASE_CR,	IB_SPEED_EDR, IB_WIDTH_1X },
	{ MLX5E_25GBASE_KR,	IB_SPEED_EDR, IB_WIDTH_1X },
	{ MLX5E_25GBASE_SR,	IB_SPEED_EDR, IB_WIDTH_1X },
	{ MLX5E_40GBASE_CR4,	IB_SPEED_QDR, IB_WIDTH_4X },
	{ MLX5E_40GBASE_KR4,	IB_SPEED_QDR, IB_WIDTH_4X },
	{ MLX5E_40GBASE_SR4,	IB_SPEED_QDR, IB_WIDTH_4X },
	{ MLX5E_40GBASE_LR4,	IB_SPEED_QDR, IB_WIDTH_4X },
	{ MLX5E_50GBASE_CR2,	IB_SPEED_EDR, IB_WIDTH_2X },
	{ MLX5E_50GBASE_KR2,	IB_SPEED_EDR, IB_WIDTH_2X },
	{ MLX5E_50GBASE_SR2,	IB_SPEED_EDR, IB_WIDTH_2X },
	{ MLX5E_56GBASE_R4,	IB_SPEED_FDR, IB_WIDTH_4X },
	{ MLX5E_100GBASE_CR4,	IB_SPEED_EDR, IB_WIDTH_4X },
	{ MLX5E_100GBASE_SR4,	IB_SPEED_EDR, IB_WIDTH_4X },
	{ MLX5E_100GBASE_KR4,	IB_SPEED_EDR, IB_WIDTH_4X },
	{ MLX5E_100GBASE_LR4,	IB_SPEED_EDR, IB_WIDTH_4X },
};

/* The operational protocol's rate; the fastest when several are set. */
static void mlx5_ib_port_rate(struct mlx5_core_dev *mdev,
			      struct ib_port_attr *props)
{
	u32 out[MLX5_ST_SZ_DW(ptys_reg)] = {};
	unsigned int i;
	u32 oper;

	props->active_speed = IB_SPEED_QDR;
	props->active_width = IB_WIDTH_1X;
	if (mlx5_query_port_ptys(mdev, out, sizeof(out), MLX5_PTYS_EN, 1))
		return;
	oper = MLX5_GET(ptys_reg, out, eth_proto_oper);

	for (i = 0; i < ARRAY_SIZE(mlx5_ib_eth_rates); i++) {
		if (!(oper & BIT(mlx5_ib_eth_rates[i].proto)))
			continue;
		props->active_speed = mlx5_ib_eth_rates[i].speed;
		props->active_width = mlx5_ib_eth_rates[i].width;
	}
}

/* The port's largest MTU and the one its netdev allows now. */
void mlx5_ib_port_mtu(struct mlx5_ib_dev *dev, enum ib_mtu *max,
		      enum ib_mtu *active)
{
	struct net_device *ndev;
	u16 port_mtu = 0;
	enum ib_mtu m;

	mlx5_query_port_max_mtu(dev->mdev, &port_mtu, 1);
	m = ib_mtu_int_to_enum(port_mtu);
	*max = m;
	*active = IB_MTU_256;

	ndev = mlx5_ib_get_netdev(&dev->ib_dev, MLX5_IB_PORT);
	if (ndev) {
		*active = min(m, iboe_get_mtu(ndev->mtu));
		dev_put(ndev);
	}
}

int mlx5_ib_query_port(struct ib_device *ibdev, u32 port,
		       struct ib_port_attr *props)
{
	struct mlx5_ib_dev *dev = to_mdev(ibdev);
	struct mlx5_core_dev *mdev = dev->mdev;
	struct net_device *ndev;
	u16 qkey_viol = 0;

	/* The core cleared *props. */
	props->gid_tbl_len = MLX5_CAP_ROCE(mdev, roce_address_table_size);
	props->port_cap_flags = IB_PORT_CM_SUP;
	props->pkey_tbl_len = 1;
	props->max_msg_sz = 1 << MLX5_CAP_GEN(mdev, log_max_msg);
	props->ip_gids = true;
	props->state = IB_PORT_DOWN;
	props->phys_state = IB_PORT_PHYS_STATE_DISABLED;
	if (!mlx5_query_nic_vport_qkey_viol_cntr(mdev, &qkey_viol))
		props->qkey_viol_cntr = qkey_viol;
	mlx5_ib_port_rate(mdev, props);
	mlx5_ib_port_mtu(dev, &props->max_mtu, &props->active_mtu);

	ndev = mlx5_ib_get_netdev(ibdev, port);
	if (!ndev)
		return 0;
	if (netif_running(ndev) && netif_carrier_ok(ndev)) {
		props->state = IB_PORT_ACTIVE;
		props->phys_state = IB_PORT_PHYS_STATE_LINK_UP;
	}
	dev_put(ndev);
	return 0;
}

int mlx5_ib_port_immutable(struct ib_device *ibdev, u32 port,
			   struct ib_port_immutable *immutable)
{
	struct mlx5_core_dev *mdev = to_mdev(ibdev)->mdev;
	u8 versions = MLX5_CAP_ROCE(mdev, roce_version);

	immutable->pkey_tbl_len = 1;
	immutable->gid_tbl_len = MLX5_CAP_ROCE(mdev, roce_address_table_size);
	/* The RoCE versions the device speaks: the GID types it can hold. */
	if (versions & MLX5_ROCE_VERSION_1_CAP)
		immutable->core_cap_flags |= RDMA_CORE_PORT_IBA_ROCE;
	if (versions & MLX5_ROCE_VERSION_2_CAP)
		immutable->core_cap_flags |= RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP;
	immutable->max_mad_size = IB_MGMT_MAD_SIZE;
	return 0;
}

enum rdma_link_layer mlx5_ib_link_layer(struct ib_device *ibdev, u32 port)
{
	return IB_LINK_LAYER_ETHERNET;
}

int mlx5_ib_query_pkey(struct ib_device *ibdev, u32 port, u16 index,
		       u16 *pkey)
{
	if (index)
		return -EINVAL;
	*pkey = IB_DEFAULT_PKEY_FULL;
	return 0;
}

static void mlx5_ib_port_event(struct mlx5_ib_dev *dev, enum ib_event_type type)
{
	struct ib_event ev = {
		.device = &dev->ib_dev,
		.event = type,
		.element.port_num = MLX5_IB_PORT,
	};

	ib_dispatch_event(&ev);
}

/* The port's netdev, held, or NULL; also the core's get_netdev op. */
struct net_device *mlx5_ib_get_netdev(struct ib_device *ibdev, u32 port)
{
	struct mlx5_ib_dev *dev = to_mdev(ibdev);
	struct net_device *ndev;

	spin_lock(&dev->netdev_lock);
	ndev = dev->netdev;
	dev_hold(ndev);
	spin_unlock(&dev->netdev_lock);
	return ndev;
}

/* Bind @ndev (or none) to the port: ours, then the core's. */
static void mlx5_ib_set_netdev(struct mlx5_ib_dev *dev, struct net_device *ndev)
{
	struct net_device *old;

	dev_hold(ndev);
	spin_lock(&dev->netdev_lock);
	old = dev->netdev;
	dev->netdev = ndev;
	spin_unlock(&dev->netdev_lock);
	dev_put(old);
	ib_device_set_netdev(&dev->ib_dev, ndev, MLX5_IB_PORT);
}

/* Whether @ndev is the Ethernet netdev of our function. */
static bool mlx5_ib_own_netdev(struct mlx5_ib_dev *dev, struct net_device *ndev)
{
	return ndev->dev.parent == dev->mdev->device;
}

/*
 * The function's netdev as it comes and goes, and its link, which is the
 * port's.  Runs under RTNL.
 */
static int mlx5_ib_netdev_event(struct notifier_block *nb,
				unsigned long event, void *ptr)
{
	struct mlx5_ib_dev *dev = container_of(nb, struct mlx5_ib_dev,
					       netdev_events);
	struct net_device *ndev = netdev_notifier_info_to_dev(ptr);

	if (!mlx5_ib_own_netdev(dev, ndev))
		return NOTIFY_DONE;

	switch (event) {
	case NETDEV_REGISTER:
		mlx5_ib_set_netdev(dev, ndev);
		break;
	case NETDEV_UNREGISTER:
		mlx5_ib_set_netdev(dev, NULL);
		break;
	case NETDEV_UP:
	case NETDEV_DOWN:
	case NETDEV_CHANGE:
		mlx5_ib_port_event(dev, netif_running(ndev) &&
				   netif_carrier_ok(ndev) ?
				   IB_EVENT_PORT_ACTIVE : IB_EVENT_PORT_ERR);
		break;
	default:
		break;
	}
	return NOTIFY_DONE;
}

/* Registration replays NETDEV_REGISTER (and UP) for existing netdevs. */
int mlx5_ib_netdev_init(struct mlx5_ib_dev *dev)
{
	spin_lock_init(&dev->netdev_lock);
	dev->netdev_events.notifier_call = mlx5_ib_netdev_event;
	return register_netdevice_notifier(&dev->netdev_events);
}

void mlx5_ib_netdev_cleanup(struct mlx5_ib_dev *dev)
{
	unregister_netdevice_notifier(&dev->netdev_events);
	mlx5_ib_set_netdev(dev, NULL);
}

/*
 * mlx5dv_query_port(): the function's own vport (0) and its vHCA id.  No
 * e-switch is offered, so nothing of a representor's (steering ICM
 * addresses, reg_c0) is ever set.
 */
static int UVERBS_HANDLER(MLX5_IB_METHOD_QUERY_PORT)(struct uverbs_attr_bundle *attrs)
{
	struct ib_ucontext *ucontext = ib_uverbs_get_ucontext(attrs);
	struct mlx5_ib_uapi_query_port info = {};
	struct mlx5_ib_dev *dev;
	u32 port;
	int err;

	if (IS_ERR(ucontext))
		return PTR_ERR(ucontext);
	dev = to_mdev(ucontext->device);

	err = uverbs_copy_from(&port, attrs, MLX5_IB_ATTR_QUERY_PORT_PORT_NUM);
	if (err)
		return err;
	if (port != MLX5_IB_PORT)
		return -EINVAL;
	info.flags = MLX5_IB_UAPI_QUERY_PORT_VPORT |
		     MLX5_IB_UAPI_QUERY_PORT_VPORT_VHCA_ID;
	info.vport = 0;
	info.vport_vhca_id = MLX5_CAP_GEN(dev->mdev, vhca_id);
	return uverbs_copy_to_struct_or_zero(attrs, MLX5_IB_ATTR_QUERY_PORT,
					     &info, sizeof(info));
}

DECLARE_UVERBS_NAMED_METHOD(MLX5_IB_METHOD_QUERY_PORT,
			    UVERBS_ATTR_PTR_IN(MLX5_IB_ATTR_QUERY_PORT_PORT_NUM,
					       UVERBS_ATTR_TYPE(u32), UA_MANDATORY),
			    UVERBS_ATTR_PTR_OUT(MLX5_IB_ATTR_QUERY_PORT,
						UVERBS_ATTR_STRUCT(struct mlx5_ib_uapi_query_port,
								   reg_c0),
						UA_MANDATORY));

ADD_UVERBS_METHODS(mlx5_ib_device, UVERBS_OBJECT_DEVICE,
		   &UVERBS_METHOD(MLX5_IB_METHOD_QUERY_PORT));

const struct uapi_definition mlx5_ib_port_defs[] = {
	UAPI_DEF_CHAIN_OBJ_TREE(UVERBS_OBJECT_DEVICE, &mlx5_ib_device),
	{}
};
