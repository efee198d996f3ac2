// SPDX-License-Identifier: GPL-2.0-only
/*
 * The control QP (CQP): every object of the PE (HMC segments, queues,
 * QPs, STags, address handles...) is made and destroyed by a command on
 * it.  The CQP is created through registers; its completions come first
 * through PFPE_CQPTAIL (polled: before CQ 0 exists) and then as entries
 * on CQ 0, the CCQ, which this file also owns.
 *
 * Commands are waited for by polling the CCQ, never by its interrupt:
 * a command takes microseconds on the device, callers in atomic context
 * (address handles for ib_cm's replies) must poll anyway, and polling
 * needs no CEQ, so the same path serves probe before the EQs exist.
 * A command that does not complete in IRDMA_CQP_TIMEOUT_MS marks the
 * CQP dead: its WQE slot may still be written by the device later, so
 * no further command is posted and the device must be reset (remove).
 *
 * Facts: the E810 scoping (Documentation/infiniband/irdma.rst): the
 * host context's fields, the register handshake (CCQPHIGH before
 * CCQPLOW, CCQPSTATUS), the WQE's valid bit and its polarity, the CCQ's
 * entry (context, return value, WQE index, major/minor status).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/iopoll.h>

#include "irdma.h"

/* 256 WQEs: commands are waited for one by one per caller. */
#define IRDMA_CQP_SIZE_CODE	7
#define IRDMA_CQP_SIZE		(2u << IRDMA_CQP_SIZE_CODE)
/* Room for a completion of every WQE, and the one the CCQ's own creation
 * leaves there.
 */
#define IRDMA_CCQ_SIZE		(2 * IRDMA_CQP_SIZE)
#define IRDMA_CQP_TIMEOUT_MS	5000
#define IRDMA_CQP_ATOMIC_US	(1000 * USEC_PER_MSEC)
/* The PE's firmware: 14 tries a second apart (as Debian's irdma). */
#define IRDMA_PE_READY_TRIES	14
/* The CQP's completion context: what the CCQ's entries echo, unused. */
#define IRDMA_CQP_COMPL_CTX	0x43515021ULL

static int irdma_pe_ready(struct irdma_dev *dev)
{
	unsigned int try, i;
	u32 db;

	for (try = 0; try < IRDMA_PE_READY_TRIES; try++) {
		for (i = 0; i < 3; i++)
			if (irdma_rd32(dev, IRDMA_GLPE_CPUSTATUS(i)) !=
			    IRDMA_CPUSTATUS_READY)
				break;
		if (i == 3)
			break;
		msleep(1000);
	}
	if (try == IRDMA_PE_READY_TRIES) {
		dev_warn(dev->dma, "protocol engine not ready\n");
		return -EBUSY;
	}
	/* The doorbell area must be 4 or 8 MiB for the user doorbell page. */
	db = FIELD_GET(IRDMA_LBARCTRL_PE_DB_SIZE,
		       irdma_rd32(dev, IRDMA_GLPCI_LBARCTRL));
	if (db != 1 && db != 2) {
		dev_warn(dev->dma, "doorbell area size code %u\n", db);
		return -ENODEV;
	}
	return 0;
}

int irdma_cqp_create(struct irdma_dev *dev)
{
	struct irdma_cqp *cqp = &dev->cqp;
	__le64 *ctx;
	u32 status;
	int err;

	spin_lock_init(&cqp->lock);
	err = irdma_pe_ready(dev);
	if (err)
		return err;

	cqp->size = IRDMA_CQP_SIZE;
	cqp->head = 0;
	cqp->polarity = true;
	cqp->busy = 0;
	cqp->dead = false;
	cqp->ccq_up = false;
	cqp->cmds = kcalloc(cqp->size, sizeof(*cqp->cmds), GFP_KERNEL);
	if (!cqp->cmds)
		return -ENOMEM;
	err = irdma_dma_alloc(dev, &cqp->sq, cqp->size * IRDMA_CQP_WQE_SIZE);
	if (err)
		goto free_cmds;
	err = irdma_dma_alloc(dev, &cqp->ctx, IRDMA_CQP_CTX_SIZE);
	if (err)
		goto free_sq;

	ctx = cqp->ctx.va;
	ctx[0] = cpu_to_le64(FIELD_PREP(IRDMA_CQPHC_SQSIZE,
					IRDMA_CQP_SIZE_CODE) |
			     FIELD_PREP(IRDMA_CQPHC_PROTOCOL,
					IRDMA_PROTOCOL_ROCE));
	ctx[1] = cpu_to_le64(cqp->sq.pa);
	ctx[2] = cpu_to_le64(FIELD_PREP(IRDMA_CQPHC_HMC_PROFILE,
					IRDMA_HMC_PROFILE_DEFAULT));
	ctx[3] = cpu_to_le64(IRDMA_CQP_COMPL_CTX);
	ctx[4] = cpu_to_le64(FIELD_PREP(IRDMA_CQPHC_HW_MAJVER,
					IRDMA_HW_MAJVER_GEN2));

	irdma_wr32(dev, IRDMA_PFPE_CQPTAIL, 0);
	irdma_wr32(dev, IRDMA_PFPE_CQPDB, 0);
	irdma_wr32(dev, IRDMA_PFPE_CCQPSTATUS, 0);
	/* The device acts on the low half: the high one goes first. */
	irdma_wr32(dev, IRDMA_PFPE_CCQPHIGH, upper_32_bits(cqp->ctx.pa));
	irdma_wr32(dev, IRDMA_PFPE_CCQPLOW, lower_32_bits(cqp->ctx.pa));
	err = readl_poll_timeout(dev->hw + IRDMA_PFPE_CCQPSTATUS, status,
				 status, 10, 10 * USEC_PER_MSEC);
	if (err || (status & IRDMA_CCQPSTATUS_ERR)) {
		dev_warn(dev->dma, "control QP not created (status 0x%x, codes 0x%x)\n",
			 status, irdma_rd32(dev, IRDMA_PFPE_CQPERRCODES));
		err = -EIO;
		goto free_ctx;
	}
	return 0;

free_ctx:
	irdma_wr32(dev, IRDMA_PFPE_CCQPHIGH, 0);
	irdma_wr32(dev, IRDMA_PFPE_CCQPLOW, 0);
	irdma_dma_free(dev, &cqp->ctx);
free_sq:
	irdma_dma_free(dev, &cqp->sq);
free_cmds:
	kfree(cqp->cmds);
	cqp->cmds = NULL;
	return err;
}

void irdma_cqp_destroy(struct irdma_dev *dev)
{
	struct irdma_cqp *cqp = &dev->cqp;
	u32 status;

	if (!cqp->cmds)
		return;
	irdma_wr32(dev, IRDMA_PFPE_CCQPHIGH, 0);
	irdma_wr32(dev, IRDMA_PFPE_CCQPLOW, 0);
	if (readl_poll_timeout(dev->hw + IRDMA_PFPE_CCQPSTATUS, status,
			       !(status & IRDMA_CCQPSTATUS_DONE), 10,
			       10 * USEC_PER_MSEC))
		dev_warn(dev->dma, "control QP still up (status 0x%x)\n",
			 status);
	irdma_dma_free(dev, &cqp->ctx);
	irdma_dma_free(dev, &cqp->sq);
	kfree(cqp->cmds);
	cqp->cmds = NULL;
}

void irdma_cqp_cmd_init(struct irdma_cqp_cmd *cmd, u8 opcode, u64 hdr)
{
	memset(cmd, 0, sizeof(*cmd));
	cmd->wqe[IRDMA_CQP_HDR] = hdr | FIELD_PREP(IRDMA_CQP_HDR_OPCODE, opcode);
}

/* Consume the CCQ's entries: the commands they name are done. */
static void irdma_ccq_poll_locked(struct irdma_dev *dev)
{
	struct irdma_cqp *cqp = &dev->cqp;
	struct irdma_ring *ccq = &cqp->ccq;
	__le64 *shadow = cqp->ccq_shadow.va;
	struct irdma_cqp_cmd *cmd;
	bool any = false;
	__le64 *cqe;
	u64 q3;
	u32 idx;

	lockdep_assert_held(&cqp->lock);
	while ((cqe = irdma_ring_peek(ccq, 3))) {
		q3 = le64_to_cpu(cqe[3]);
		idx = FIELD_GET(IRDMA_CQE_WQEIDX, q3);
		cmd = idx < cqp->size ? cqp->cmds[idx] : NULL;
		/* No command: the CCQ's own creation, polled through
		 * registers, or a command abandoned at its timeout.
		 */
		if (cmd) {
			cmd->ret = FIELD_GET(IRDMA_CQE_OP_RET,
					     le64_to_cpu(cqe[2]));
			cmd->status = q3 & IRDMA_CQE_ERROR ?
				FIELD_GET(IRDMA_CQE_MAJOR, q3) << 16 |
				FIELD_GET(IRDMA_CQE_MINOR, q3) : 0;
			cqp->cmds[idx] = NULL;
			cqp->busy--;
			WRITE_ONCE(cmd->done, true);
		}
		irdma_ring_advance(ccq);
		any = true;
	}
	if (any)
		WRITE_ONCE(shadow[0],
			   cpu_to_le64(FIELD_PREP(IRDMA_SHADOW_CQ_HEAD,
						  ccq->head)));
}

/*
 * Before the CCQ: the tail register has moved past the one command in
 * flight (probe issues them one at a time).
 */
static void irdma_cqp_poll_regs_locked(struct irdma_dev *dev)
{
	struct irdma_cqp *cqp = &dev->cqp;
	u32 idx = (cqp->head + cqp->size - 1) % cqp->size;
	struct irdma_cqp_cmd *cmd = cqp->cmds[idx];
	u32 tail;

	lockdep_assert_held(&cqp->lock);
	if (!cmd)
		return;
	tail = irdma_rd32(dev, IRDMA_PFPE_CQPTAIL);
	if (FIELD_GET(IRDMA_CQPTAIL_TAIL, tail) != cqp->head)
		return;
	cmd->status = tail & IRDMA_CQPTAIL_OP_ERR ?
		irdma_rd32(dev, IRDMA_PFPE_CQPERRCODES) : 0;
	cqp->cmds[idx] = NULL;
	cqp->busy--;
	WRITE_ONCE(cmd->done, true);
}

static void irdma_cqp_poll(struct irdma_dev *dev)
{
	struct irdma_cqp *cqp = &dev->cqp;
	unsigned long flags;

	spin_lock_irqsave(&cqp->lock, flags);
	if (cqp->ccq_up)
		irdma_ccq_poll_locked(dev);
	else
		irdma_cqp_poll_regs_locked(dev);
	spin_unlock_irqrestore(&cqp->lock, flags);
}

/* Write CMD at the SQ's head and ring the doorbell. */
static int irdma_cqp_post(struct irdma_dev *dev, struct irdma_cqp_cmd *cmd,
			  u32 *idx)
{
	struct irdma_cqp *cqp = &dev->cqp;
	unsigned long flags;
	__le64 *wqe;
	unsigned int i;
	int err = 0;

	spin_lock_irqsave(&cqp->lock, flags);
	if (!cqp->cmds) {
		err = -ENODEV;		/* destroyed, or never created */
		goto unlock;
	}
	if (cqp->ccq_up && cqp->busy >= cqp->size - 1)
		irdma_ccq_poll_locked(dev);
	if (cqp->dead) {
		err = -EIO;
	} else if (cqp->busy >= cqp->size - 1 ||
		   (!cqp->ccq_up && cqp->busy)) {
		/* Full; or, before the CCQ, a command still in flight. */
		err = -EBUSY;
	}
	if (err)
		goto unlock;

	*idx = cqp->head;
	wqe = cqp->sq.va + (size_t)cqp->head * IRDMA_CQP_WQE_SIZE;
	for (i = 0; i < 8; i++)
		if (i != IRDMA_CQP_HDR)
			wqe[i] = cpu_to_le64(cmd->wqe[i]);
	/* The device takes the WQE once it sees the valid bit. */
	dma_wmb();
	wqe[IRDMA_CQP_HDR] = cpu_to_le64(cmd->wqe[IRDMA_CQP_HDR] |
					 (cqp->polarity ?
					  IRDMA_CQP_HDR_VALID : 0));
	cqp->cmds[cqp->head] = cmd;
	cqp->busy++;
	if (++cqp->head == cqp->size) {
		cqp->head = 0;
		cqp->polarity = !cqp->polarity;
	}
	irdma_wr32(dev, IRDMA_PFPE_CQPDB, cqp->head);
unlock:
	spin_unlock_irqrestore(&cqp->lock, flags);
	return err;
}

/* CMD did not complete in time: forget it, and stop using the CQP. */
static int irdma_cqp_abandon(struct irdma_dev *dev, struct irdma_cqp_cmd *cmd,
			     u32 idx)
{
	struct irdma_cqp *cqp = &dev->cqp;
	unsigned long flags;
	bool late;

	spin_lock_irqsave(&cqp->lock, flags);
	late = READ_ONCE(cmd->done);
	if (!late) {
		cqp->cmds[idx] = NULL;
		cqp->dead = true;
	}
	spin_unlock_irqrestore(&cqp->lock, flags);
	if (late)
		return 0;
	dev_warn(dev->dma, "control QP command 0x%llx (WQE %u) timed out: control QP stopped\n",
		 FIELD_GET(IRDMA_CQP_HDR_OPCODE, cmd->wqe[IRDMA_CQP_HDR]), idx);
	return -ETIMEDOUT;
}

static int irdma_cqp_result(struct irdma_dev *dev, struct irdma_cqp_cmd *cmd)
{
	if (!cmd->status)
		return 0;
	dev_dbg(dev->dma, "control QP command 0x%llx: status 0x%x\n",
		FIELD_GET(IRDMA_CQP_HDR_OPCODE, cmd->wqe[IRDMA_CQP_HDR]),
		cmd->status);
	return -EIO;
}

int irdma_cqp_exec(struct irdma_dev *dev, struct irdma_cqp_cmd *cmd)
{
	unsigned long end = jiffies + msecs_to_jiffies(IRDMA_CQP_TIMEOUT_MS);
	u32 idx;
	int err;

	might_sleep();
	while ((err = irdma_cqp_post(dev, cmd, &idx)) == -EBUSY) {
		if (time_after(jiffies, end))
			return -ETIMEDOUT;
		irdma_cqp_poll(dev);
		usleep_range(20, 100);
	}
	if (err)
		return err;
	for (;;) {
		irdma_cqp_poll(dev);
		if (READ_ONCE(cmd->done))
			break;
		if (time_after(jiffies, end))
			return irdma_cqp_abandon(dev, cmd, idx) ?:
				irdma_cqp_result(dev, cmd);
		usleep_range(10, 50);
	}
	return irdma_cqp_result(dev, cmd);
}

int irdma_cqp_exec_atomic(struct irdma_dev *dev, struct irdma_cqp_cmd *cmd)
{
	unsigned int us;
	u32 idx;
	int err;

	for (us = 0; (err = irdma_cqp_post(dev, cmd, &idx)) == -EBUSY;
	     us += 5) {
		if (us >= IRDMA_CQP_ATOMIC_US)
			return -ETIMEDOUT;
		irdma_cqp_poll(dev);
		udelay(5);
	}
	if (err)
		return err;
	for (us = 0; ; us += 2) {
		irdma_cqp_poll(dev);
		if (READ_ONCE(cmd->done))
			break;
		if (us >= IRDMA_CQP_ATOMIC_US)
			return irdma_cqp_abandon(dev, cmd, idx) ?:
				irdma_cqp_result(dev, cmd);
		udelay(2);
	}
	return irdma_cqp_result(dev, cmd);
}

/*
 * The CCQ is CQ 0: the device writes its command completions there once
 * it exists.  Created (and destroyed) with completions polled through
 * the registers; it is never armed, as commands are polled for.
 */
static void irdma_ccq_cmd(struct irdma_dev *dev, struct irdma_cqp_cmd *cmd,
			  u8 opcode)
{
	struct irdma_cqp *cqp = &dev->cqp;

	irdma_cqp_cmd_init(cmd, opcode, FIELD_PREP(IRDMA_CQ_HDR_ID, 0) |
			   IRDMA_CQ_HDR_CHKOVERFLOW);
	cmd->wqe[0] = FIELD_PREP(IRDMA_CQ_SIZE, cqp->ccq.size);
	cmd->wqe[4] = cqp->ccq.mem.pa;
	cmd->wqe[5] = cqp->ccq_shadow.pa;
	cmd->wqe[7] = FIELD_PREP(IRDMA_CQ_VSI, dev->vsi);
}

int irdma_ccq_create(struct irdma_dev *dev)
{
	struct irdma_cqp *cqp = &dev->cqp;
	struct irdma_cqp_cmd cmd;
	int err;

	err = irdma_ring_alloc(dev, &cqp->ccq, IRDMA_CCQ_SIZE, IRDMA_CQE_SIZE);
	if (err)
		return err;
	err = irdma_dma_alloc(dev, &cqp->ccq_shadow, IRDMA_SHADOW_SIZE);
	if (err)
		goto free_ring;
	irdma_ccq_cmd(dev, &cmd, IRDMA_CQP_OP_CREATE_CQ);
	err = irdma_cqp_exec(dev, &cmd);
	if (err)
		goto free_shadow;
	spin_lock_irq(&cqp->lock);
	cqp->ccq_up = true;
	spin_unlock_irq(&cqp->lock);
	return 0;

free_shadow:
	irdma_dma_free(dev, &cqp->ccq_shadow);
free_ring:
	irdma_ring_free(dev, &cqp->ccq);
	return err;
}

void irdma_ccq_destroy(struct irdma_dev *dev)
{
	struct irdma_cqp *cqp = &dev->cqp;
	struct irdma_cqp_cmd cmd;
	int err;

	if (!cqp->ccq.mem.va)
		return;
	/* Every other command is done: back to the registers for this one,
	 * whose completion has no CCQ to go to.
	 */
	spin_lock_irq(&cqp->lock);
	irdma_ccq_poll_locked(dev);
	cqp->ccq_up = false;
	spin_unlock_irq(&cqp->lock);
	irdma_ccq_cmd(dev, &cmd, IRDMA_CQP_OP_DESTROY_CQ);
	err = irdma_cqp_exec(dev, &cmd);
	if (err)
		dev_warn(dev->dma, "CQ 0 not destroyed (%d)\n", err);
	irdma_dma_free(dev, &cqp->ccq_shadow);
	irdma_ring_free(dev, &cqp->ccq);
}

/* QUERY_RDMA_FEATURES: the firmware version, for query_device. */
int irdma_query_features(struct irdma_dev *dev)
{
	struct irdma_cqp_cmd cmd;
	struct irdma_dma buf;
	unsigned int i, n;
	__le64 *feat;
	int err;

	err = irdma_dma_alloc(dev, &buf, IRDMA_FEAT_MAX * 8);
	if (err)
		return err;
	irdma_cqp_cmd_init(&cmd, IRDMA_CQP_OP_QUERY_FEATURES,
			   FIELD_PREP(IRDMA_FEAT_HDR_LEN, buf.size));
	cmd.wqe[4] = buf.pa;
	err = irdma_cqp_exec(dev, &cmd);
	if (err)
		goto out;
	feat = buf.va;
	n = FIELD_GET(IRDMA_FEAT_COUNT, le64_to_cpu(feat[0]));
	/* Gen 2 firmware has the version and the hardware's at least. */
	if (n < 2) {
		dev_warn(dev->dma, "firmware reports %u features\n", n);
		err = -EINVAL;
		goto out;
	}
	for (i = 0; i < min_t(unsigned int, n, IRDMA_FEAT_MAX); i++) {
		u64 f = le64_to_cpu(feat[i]);

		if (FIELD_GET(IRDMA_FEAT_TYPE, f) == IRDMA_FEAT_FW_INFO)
			dev->fw_ver = FIELD_GET(IRDMA_FEAT_FW_MAJOR, f) << 32 |
				      FIELD_GET(IRDMA_FEAT_FW_MINOR, f);
	}
out:
	irdma_dma_free(dev, &buf);
	return err;
}
