// SPDX-License-Identifier: GPL-2.0-only
/*
 * The port's performance management agent: PerfMgmt Gets answered by the
 * driver (process_mad), which the core's ports/1/counters/ files read and
 * a remote PerfMgr may ask through QP1.  Every other MAD goes on to the
 * MAD layer's agents.
 *
 *   ClassPortInfo          the extended-width capability: the data and
 *                          packet counters come from the extended set
 *   PortCountersExtended   the vport's RoCE traffic (QUERY_VPORT_COUNTER:
 *                          the IB unicast and multicast packets and
 *                          octets; data in 4-octet words)
 *   PortCounters           the error counters of the PPCNT register's
 *                          InfiniBand port counters group
 */
#include <rdma/ib_mad.h>
#include <rdma/ib_pma.h>
#include <linux/mlx5/vport.h>

#include "mlx5_ib.h"

static void mlx5_ib_pma_class_port_info(struct ib_pma_mad *out)
{
	struct ib_class_port_info *cpi = (void *)out->data;

	cpi->base_version = IB_MGMT_BASE_VERSION;
	cpi->class_version = 1;
	cpi->capability_mask = IB_PMA_CLASS_CAP_EXT_WIDTH;
}

#define MLX5_IB_VPORT_CNT(out, dir, cast, what) \
	MLX5_GET64(query_vport_counter_out, out, dir##_ib_##cast.what)

static int mlx5_ib_pma_ext(struct mlx5_ib_dev *dev, struct ib_pma_mad *out)
{
	struct ib_pma_portcounters_ext *pc = (void *)out->data;
	int outlen = MLX5_ST_SZ_BYTES(query_vport_counter_out);
	u64 tx_uc, tx_mc, rx_uc, rx_mc;
	void *cnt;
	int err;

	cnt = kvzalloc(outlen, GFP_KERNEL);
	if (!cnt)
		return -ENOMEM;
	err = mlx5_core_query_vport_counter(dev->mdev, 0, 0, MLX5_IB_PORT, cnt);
	if (err)
		goto out;

	tx_uc = MLX5_IB_VPORT_CNT(cnt, transmitted, unicast, packets);
	tx_mc = MLX5_IB_VPORT_CNT(cnt, transmitted, multicast, packets);
	rx_uc = MLX5_IB_VPORT_CNT(cnt, received, unicast, packets);
	rx_mc = MLX5_IB_VPORT_CNT(cnt, received, multicast, packets);
	pc->port_select = MLX5_IB_PORT;
	pc->port_xmit_data =
		cpu_to_be64((MLX5_IB_VPORT_CNT(cnt, transmitted, unicast, octets) +
			     MLX5_IB_VPORT_CNT(cnt, transmitted, multicast, octets)) >> 2);
	pc->port_rcv_data =
		cpu_to_be64((MLX5_IB_VPORT_CNT(cnt, received, unicast, octets) +
			     MLX5_IB_VPORT_CNT(cnt, received, multicast, octets)) >> 2);
	pc->port_xmit_packets = cpu_to_be64(tx_uc + tx_mc);
	pc->port_rcv_packets = cpu_to_be64(rx_uc + rx_mc);
	pc->port_unicast_xmit_packets = cpu_to_be64(tx_uc);
	pc->port_unicast_rcv_packets = cpu_to_be64(rx_uc);
	pc->port_multicast_xmit_packets = cpu_to_be64(tx_mc);
	pc->port_multicast_rcv_packets = cpu_to_be64(rx_mc);
out:
	kvfree(cnt);
	return err;
}

#define MLX5_IB_PPCNT_IB(cnt, field) \
	MLX5_GET(ib_port_cntrs_grp_data_layout, cnt, field)

static int mlx5_ib_pma_basic(struct mlx5_ib_dev *dev, struct ib_pma_mad *out)
{
	struct ib_pma_portcounters *pc = (void *)out->data;
	int sz = MLX5_ST_SZ_BYTES(ppcnt_reg);
	void *in, *reg, *cnt;
	int err = -ENOMEM;

	in = kvzalloc(sz, GFP_KERNEL);
	reg = kvzalloc(sz, GFP_KERNEL);
	if (!in || !reg)
		goto out;
	MLX5_SET(ppcnt_reg, in, local_port, MLX5_IB_PORT);
	MLX5_SET(ppcnt_reg, in, grp, MLX5_INFINIBAND_PORT_COUNTERS_GROUP);
	err = mlx5_core_access_reg(dev->mdev, in, sz, reg, sz, MLX5_REG_PPCNT,
				   0, 0);
	if (err)
		goto out;

	cnt = MLX5_ADDR_OF(ppcnt_reg, reg, counter_set);
	pc->port_select = MLX5_IB_PORT;
	pc->symbol_error_counter =
		cpu_to_be16(MLX5_IB_PPCNT_IB(cnt, symbol_error_counter));
	pc->link_error_recovery_counter =
		MLX5_IB_PPCNT_IB(cnt, link_error_recovery_counter);
	pc->link_downed_counter = MLX5_IB_PPCNT_IB(cnt, link_downed_counter);
	pc->port_rcv_errors = cpu_to_be16(MLX5_IB_PPCNT_IB(cnt, port_rcv_errors));
	pc->port_rcv_remphys_errors =
		cpu_to_be16(MLX5_IB_PPCNT_IB(cnt, port_rcv_remote_physical_errors));
	pc->port_rcv_switch_relay_errors =
		cpu_to_be16(MLX5_IB_PPCNT_IB(cnt, port_rcv_switch_relay_errors));
	pc->port_xmit_discards =
		cpu_to_be16(MLX5_IB_PPCNT_IB(cnt, port_xmit_discards));
	pc->port_xmit_constraint_errors =
		MLX5_IB_PPCNT_IB(cnt, port_xmit_constraint_errors);
	pc->port_rcv_constraint_errors =
		MLX5_IB_PPCNT_IB(cnt, port_rcv_constraint_errors);
	pc->link_overrun_errors = MLX5_IB_PPCNT_IB(cnt, link_overrun_errors);
	pc->vl15_dropped = cpu_to_be16(MLX5_IB_PPCNT_IB(cnt, vl_15_dropped));
	pc->port_xmit_wait = cpu_to_be32(MLX5_IB_PPCNT_IB(cnt, port_xmit_wait));
out:
	kvfree(reg);
	kvfree(in);
	return err;
}

int mlx5_ib_process_mad(struct ib_device *ibdev, int mad_flags, u32 port,
			const struct ib_wc *in_wc, const struct ib_grh *in_grh,
			const struct ib_mad *in_mad, struct ib_mad *out_mad,
			size_t *out_mad_size, u16 *out_mad_pkey_index)
{
	const struct ib_mad_hdr *hdr = &in_mad->mad_hdr;
	struct ib_pma_mad *out = (struct ib_pma_mad *)out_mad;
	struct mlx5_ib_dev *dev = to_mdev(ibdev);
	int err = 0;

	if (hdr->mgmt_class != IB_MGMT_CLASS_PERF_MGMT)
		return IB_MAD_RESULT_SUCCESS;
	if (port != MLX5_IB_PORT || *out_mad_size < sizeof(*out))
		return IB_MAD_RESULT_FAILURE;

	memset(out, 0, sizeof(*out));
	out->mad_hdr = *hdr;
	out->mad_hdr.method = IB_MGMT_METHOD_GET_RESP;
	out->mad_hdr.status = 0;
	if (hdr->method != IB_MGMT_METHOD_GET) {
		out->mad_hdr.status =
			cpu_to_be16(IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB);
		return IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY;
	}

	switch (hdr->attr_id) {
	case IB_PMA_CLASS_PORT_INFO:
		mlx5_ib_pma_class_port_info(out);
		break;
	case IB_PMA_PORT_COUNTERS_EXT:
		err = mlx5_ib_pma_ext(dev, out);
		break;
	case IB_PMA_PORT_COUNTERS:
		err = mlx5_ib_pma_basic(dev, out);
		break;
	default:
		out->mad_hdr.status =
			cpu_to_be16(IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB);
		break;
	}
	if (err)
		return IB_MAD_RESULT_FAILURE;
	return IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY;
}
