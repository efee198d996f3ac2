// SPDX-License-Identifier: GPL-2.0-only
/*
 * Hardware counters of port 1 (rdma statistic, ports/1/hw_counters/):
 * a Q counter set of the device's, allocated at probe and named by every
 * QP's context at RST2INIT (qp_modify.c), read with QUERY_Q_COUNTER.
 *
 * The basic set, named as stock names it; the sets stock adds for
 * capabilities (out-of-sequence, retransmission, extended error,
 * congestion counters) are not offered, and no device we model has
 * them.
 */
#include "mlx5_ib.h"

struct mlx5_ib_q_counter {
	const char *name;
	size_t offset;		/* in query_q_counter_out, bytes */
};

#define MLX5_IB_Q_COUNTER(field) \
	{ #field, MLX5_BYTE_OFF(query_q_counter_out, field) }

static const struct mlx5_ib_q_counter mlx5_ib_q_counters[] = {
	MLX5_IB_Q_COUNTER(rx_write_requests),
	MLX5_IB_Q_COUNTER(rx_read_requests),
	MLX5_IB_Q_COUNTER(rx_atomic_requests),
	MLX5_IB_Q_COUNTER(out_of_buffer),
};

static const struct rdma_stat_desc mlx5_ib_q_counter_descs[] = {
	{ .name = "rx_write_requests" },
	{ .name = "rx_read_requests" },
	{ .name = "rx_atomic_requests" },
	{ .name = "out_of_buffer" },
};

static_assert(ARRAY_SIZE(mlx5_ib_q_counters) ==
	      ARRAY_SIZE(mlx5_ib_q_counter_descs));

int mlx5_ib_counters_init(struct mlx5_ib_dev *dev)
{
	u32 out[MLX5_ST_SZ_DW(alloc_q_counter_out)] = {};
	u32 in[MLX5_ST_SZ_DW(alloc_q_counter_in)] = {};
	int err;

	if (!MLX5_CAP_GEN(dev->mdev, max_qp_cnt))
		return 0;
	MLX5_SET(alloc_q_counter_in, in, opcode, MLX5_CMD_OP_ALLOC_Q_COUNTER);
	err = mlx5_cmd_exec_inout(dev->mdev, alloc_q_counter, in, out);
	if (err)
		return err;
	dev->q_counter = MLX5_GET(alloc_q_counter_out, out, counter_set_id);
	return 0;
}

void mlx5_ib_counters_cleanup(struct mlx5_ib_dev *dev)
{
	u32 in[MLX5_ST_SZ_DW(dealloc_q_counter_in)] = {};

	if (!dev->q_counter)
		return;
	MLX5_SET(dealloc_q_counter_in, in, opcode, MLX5_CMD_OP_DEALLOC_Q_COUNTER);
	MLX5_SET(dealloc_q_counter_in, in, counter_set_id, dev->q_counter);
	mlx5_cmd_exec_in(dev->mdev, dealloc_q_counter, in);
}

struct rdma_hw_stats *
mlx5_ib_alloc_hw_port_stats(struct ib_device *ibdev, u32 port_num)
{
	if (!to_mdev(ibdev)->q_counter)
		return NULL;
	return rdma_alloc_hw_stats_struct(mlx5_ib_q_counter_descs,
					  ARRAY_SIZE(mlx5_ib_q_counter_descs),
					  RDMA_HW_STATS_DEFAULT_LIFESPAN);
}

/* Every counter of the set at once: one command reads them all. */
int mlx5_ib_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
			 u32 port, int index)
{
	struct mlx5_ib_dev *dev = to_mdev(ibdev);
	u32 in[MLX5_ST_SZ_DW(query_q_counter_in)] = {};
	u32 *out;
	int i, err;

	if (!port || !dev->q_counter)
		return -EOPNOTSUPP;
	out = kvzalloc(MLX5_ST_SZ_BYTES(query_q_counter_out), GFP_KERNEL);
	if (!out)
		return -ENOMEM;
	MLX5_SET(query_q_counter_in, in, opcode, MLX5_CMD_OP_QUERY_Q_COUNTER);
	MLX5_SET(query_q_counter_in, in, counter_set_id, dev->q_counter);
	err = mlx5_cmd_exec(dev->mdev, in, sizeof(in), out,
			    MLX5_ST_SZ_BYTES(query_q_counter_out));
	if (!err)
		for (i = 0; i < ARRAY_SIZE(mlx5_ib_q_counters); i++)
			stats->value[i] = be32_to_cpup((__be32 *)((u8 *)out +
						mlx5_ib_q_counters[i].offset));
	kvfree(out);
	return err ? mlx5_ib_cmd_status(dev, err) : stats->num_counters;
}
