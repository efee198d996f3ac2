// SPDX-License-Identifier: GPL-2.0-only
/*
 * The driver's memory registration QP: a kernel QP of the PRM's REG_UMR
 * type (no PD, never on the wire), on a CQ of its own, that may change
 * any key of the device.  ibv_rereg_mr() of a user MR's rights or PD
 * goes through it, so the key, which a peer may hold already, stays the
 * same (mr.c); the user keys are made with umr_en for it.
 *
 * One UMR at a time (@lock): post the WQE, then poll the CQ for its
 * completion, sleeping between polls (a UMR is the device's work, a
 * fraction of a millisecond on hardware, longer on the model).
 */
#include <linux/delay.h>

#include "mlx5_ib.h"
#include "wr.h"

/* How long a UMR may take before the QP is given up on. */
#define MLX5_IB_UMR_TIMEOUT_MS	10000

struct mlx5_ib_umr {
	struct mutex lock;		/* serialises UMRs; protects broken */
	bool broken;			/* a UMR timed out: no more */
	struct mlx5_ib_cq cq;
	struct mlx5_ib_qp qp;
};

/* RST -> INIT -> RTR -> RTS, with what a QP that meets no wire needs. */
static int mlx5_ib_umr_qp_up(struct mlx5_ib_dev *dev, u32 qpn)
{
	u32 in[MLX5_ST_SZ_DW(rst2init_qp_in)] = {};
	void *qpc = MLX5_ADDR_OF(rst2init_qp_in, in, qpc);
	static const u16 ops[] = {
		MLX5_CMD_OP_RST2INIT_QP, MLX5_CMD_OP_INIT2RTR_QP,
		MLX5_CMD_OP_RTR2RTS_QP,
	};
	int i, err;

	MLX5_SET(qpc, qpc, pm_state, MLX5_QP_PM_MIGRATED);
	MLX5_SET(ads, MLX5_ADDR_OF(qpc, qpc, primary_address_path),
		 vhca_port_num, MLX5_IB_PORT);
	MLX5_SET(qpc, qpc, mtu, IB_MTU_1024);
	MLX5_SET(qpc, qpc, log_msg_max, MLX5_CAP_GEN(dev->mdev, log_max_msg));
	for (i = 0; i < ARRAY_SIZE(ops); i++) {
		MLX5_SET(rst2init_qp_in, in, opcode, ops[i]);
		MLX5_SET(rst2init_qp_in, in, qpn, qpn);
		err = mlx5_cmd_exec_in(dev->mdev, rst2init_qp, in);
		if (err)
			return err;
	}
	return 0;
}

int mlx5_ib_umr_init(struct mlx5_ib_dev *dev)
{
	struct ib_qp_init_attr attr = {
		.qp_type = IB_QPT_UD,	/* sized as one: no RQ, small WQEs */
		.sq_sig_type = IB_SIGNAL_ALL_WR,
		.cap = { .max_send_wr = 16, .max_send_sge = 1 },
	};
	struct mlx5_ib_umr *umr;
	int eqn, err;

	if (MLX5_CAP_GEN(dev->mdev, umr_modify_entity_size_disabled))
		return 0;
	umr = kzalloc(sizeof(*umr), GFP_KERNEL);
	if (!umr)
		return -ENOMEM;
	mutex_init(&umr->lock);

	err = mlx5_vector2eqn(dev->mdev, 0, &eqn);
	if (err)
		goto err_free;
	umr->cq.ibcq.device = &dev->ib_dev;
	err = mlx5_ib_create_kernel_cq(dev, &umr->cq, 32, eqn);
	if (err)
		goto err_free;
	umr->cq.ibcq.cqe = 31;

	umr->qp.ibqp.device = &dev->ib_dev;
	umr->qp.ibqp.qp_type = IB_QPT_UD;
	umr->qp.ibqp.send_cq = &umr->cq.ibcq;
	umr->qp.reg_umr = true;
	attr.send_cq = &umr->cq.ibcq;
	err = mlx5_ib_create_kernel_qp(dev, &umr->qp, &attr);
	if (err)
		goto err_cq;
	refcount_set(&umr->qp.refcount, 1);
	init_completion(&umr->qp.free);
	err = mlx5_ib_cmd_status(dev, mlx5_ib_umr_qp_up(dev, umr->qp.qpn));
	if (err)
		goto err_qp;
	/* Its completions find it by number, as any kernel QP's. */
	err = xa_err(xa_store_irq(&dev->qps, umr->qp.qpn, &umr->qp, GFP_KERNEL));
	if (err)
		goto err_qp;
	dev->umr = umr;
	return 0;

err_qp:
	mlx5_ib_destroy_qp_cmd(dev, umr->qp.qpn);
	mlx5_ib_destroy_kernel_qp(dev, &umr->qp);
err_cq:
	mlx5_core_destroy_cq(dev->mdev, &umr->cq.mcq);
	mlx5_ib_destroy_kernel_cq(dev, &umr->cq);
err_free:
	kfree(umr);
	return err;
}

void mlx5_ib_umr_cleanup(struct mlx5_ib_dev *dev)
{
	struct mlx5_ib_umr *umr = dev->umr;

	if (!umr)
		return;
	mlx5_ib_destroy_qp_cmd(dev, umr->qp.qpn);
	xa_erase_irq(&dev->qps, umr->qp.qpn);
	mlx5_ib_qp_put(&umr->qp);
	wait_for_completion(&umr->qp.free);
	mlx5_ib_destroy_kernel_qp(dev, &umr->qp);
	mlx5_core_destroy_cq(dev->mdev, &umr->cq.mcq);
	mlx5_ib_destroy_kernel_cq(dev, &umr->cq);
	kfree(umr);
	dev->umr = NULL;
}

/* The WQE: control, UMR control with @mask, the key's new context. */
static void mlx5_ib_umr_post(struct mlx5_ib_umr *umr, u32 mkey, u64 mask,
			     const void *mkc)
{
	struct mlx5_ib_kqp *k = umr->qp.k;
	struct mlx5_ib_wq *sq = &k->sq;
	struct mlx5_ib_wqe w = { .sq = sq, .bb = sq->head };
	struct mlx5_wqe_umr_ctrl_seg uctrl = {};
	struct mlx5_wqe_ctrl_seg *c;
	unsigned long flags;

	spin_lock_irqsave(&sq->lock, flags);
	w.p = mlx5_ib_sq_bb(sq, w.bb);
	c = mlx5_ib_wqe_ds(&w);
	uctrl.mkey_mask = cpu_to_be64(mask);
	mlx5_ib_wqe_put(&w, &uctrl, sizeof(uctrl));
	mlx5_ib_wqe_put(&w, mkc, MLX5_ST_SZ_BYTES(mkc));

	c->umr_mkey = cpu_to_be32(mkey);
	mlx5_ib_wqe_finish(&w, c, umr->qp.qpn, MLX5_OPCODE_UMR,
			   MLX5_WQE_CTRL_CQ_UPDATE, 0, IB_WC_REG_MR);
	mlx5_ib_sq_ring(k, c);
	spin_unlock_irqrestore(&sq->lock, flags);
}

/* Post, then wait for the completion: 0, -EIO or -ETIMEDOUT. */
static int mlx5_ib_umr_run(struct mlx5_ib_umr *umr, u32 mkey, u64 mask,
			   const void *mkc)
{
	unsigned long end;
	struct ib_wc wc;
	int n;

	lockdep_assert_held(&umr->lock);
	if (umr->broken)
		return -EIO;
	mlx5_ib_umr_post(umr, mkey, mask, mkc);
	end = jiffies + msecs_to_jiffies(MLX5_IB_UMR_TIMEOUT_MS);
	do {
		n = mlx5_ib_kcq_poll(&umr->cq, 1, &wc);
		if (n)
			return wc.status == IB_WC_SUCCESS ? 0 : -EIO;
		usleep_range(20, 100);
	} while (time_before(jiffies, end));
	/* The device may still complete it: the QP takes no more. */
	umr->broken = true;
	return -ETIMEDOUT;
}

/**
 * mlx5_ib_umr_rereg - change a user key's rights and PD in place
 * @dev: the device
 * @mr: a user MR, its key made with umr_en
 * @access: the new rights
 * @pdn: the new PD
 *
 * Return: 0 with the key changed, else an errno and the key as it was.
 */
int mlx5_ib_umr_rereg(struct mlx5_ib_dev *dev, struct mlx5_ib_mr *mr,
		      int access, u32 pdn)
{
	struct mlx5_ib_umr *umr = dev->umr;
	u32 mkc[MLX5_ST_SZ_DW(mkc)] = {};
	u64 mask = MLX5_MKEY_MASK_LR | MLX5_MKEY_MASK_LW | MLX5_MKEY_MASK_RR |
		   MLX5_MKEY_MASK_RW | MLX5_MKEY_MASK_A | MLX5_MKEY_MASK_PD;
	int err;

	if (!umr)
		return -EOPNOTSUPP;
	MLX5_SET(mkc, mkc, lr, 1);
	MLX5_SET(mkc, mkc, lw, !!(access & IB_ACCESS_LOCAL_WRITE));
	MLX5_SET(mkc, mkc, rr, !!(access & IB_ACCESS_REMOTE_READ));
	MLX5_SET(mkc, mkc, rw, !!(access & IB_ACCESS_REMOTE_WRITE));
	MLX5_SET(mkc, mkc, a, !!(access & IB_ACCESS_REMOTE_ATOMIC));
	MLX5_SET(mkc, mkc, pd, pdn);
	mutex_lock(&umr->lock);
	err = mlx5_ib_umr_run(umr, mr->mkey, mask, mkc);
	mutex_unlock(&umr->lock);
	return err;
}
