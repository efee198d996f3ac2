/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The cursor that writes a send WQE of a kernel QP 16 bytes at a time,
 * stepping from basic block to basic block (wr.c, fastreg.c).
 */
#ifndef MLX5_IB_WR_H
#define MLX5_IB_WR_H

#include "mlx5_ib.h"

#define MLX5_IB_DS	MLX5_SEND_WQE_DS

/* The cursor over the blocks of the WQE being written. */
struct mlx5_ib_wqe {
	struct mlx5_ib_wq *sq;
	u32 bb;			/* the block, free-running */
	unsigned int off;	/* bytes written into it */
	void *p;		/* its start */
	unsigned int size;	/* bytes written into the WQE */
};

static inline void *mlx5_ib_sq_bb(struct mlx5_ib_wq *sq, u32 bb)
{
	return mlx5_frag_buf_get_wqe(&sq->fbc, bb & (sq->cnt - 1));
}

/* The WQE's next 16 bytes. */
static inline void *mlx5_ib_wqe_ds(struct mlx5_ib_wqe *w)
{
	void *ds;

	if (w->off == MLX5_SEND_WQE_BB) {
		w->bb++;
		w->off = 0;
		w->p = mlx5_ib_sq_bb(w->sq, w->bb);
	}
	ds = w->p + w->off;
	w->off += MLX5_IB_DS;
	w->size += MLX5_IB_DS;
	return ds;
}

/* A segment of a multiple of 16 bytes. */
static inline void mlx5_ib_wqe_put(struct mlx5_ib_wqe *w, const void *seg, size_t len)
{
	size_t i;

	for (i = 0; i < len; i += MLX5_IB_DS)
		memcpy(mlx5_ib_wqe_ds(w), seg + i, MLX5_IB_DS);
}

void mlx5_ib_wqe_finish(struct mlx5_ib_wqe *w, struct mlx5_wqe_ctrl_seg *c,
			u32 qpn, u8 opcode, u8 flags, u64 wrid,
			enum ib_wc_opcode wc_op);
void mlx5_ib_sq_ring(struct mlx5_ib_kqp *k, struct mlx5_wqe_ctrl_seg *last);
void mlx5_ib_wqe_dseg(struct mlx5_wqe_data_seg *d, const struct ib_sge *sge);

/* fastreg.c: the UMR WQEs of IB_WR_REG_MR and IB_WR_LOCAL_INV, after the ctrl segment. */
int mlx5_ib_wqe_reg_mr(struct mlx5_ib_wqe *w, struct ib_pd *pd,
		       const struct ib_reg_wr *reg);
void mlx5_ib_wqe_local_inv(struct mlx5_ib_wqe *w);

#endif /* MLX5_IB_WR_H */
