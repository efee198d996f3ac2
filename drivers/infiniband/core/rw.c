// SPDX-License-Identifier: GPL-2.0-only
/*
 * RDMA READ/WRITE contexts (<rdma/rw.h>): a storage target (nvmet-rdma,
 * isert, srpt, svcrdma) hands a scatterlist and a peer's (address, rkey)
 * and gets the chain of work requests that moves the data, sized to what
 * the QP and the transport allow.
 *
 * Two ways to reach the local memory:
 *  - SGEs with the PD's local_dma_lkey, at most qp->max_write_sge (WRITE)
 *    or qp->max_read_sge (READ) per WR, as many WRs as that takes, chained;
 *  - fast registration: per run of up to rw_pages_per_mr() entries, an MR
 *    of the QP's pool (qp->rdma_mrs) is mapped and registered (an
 *    IB_WR_LOCAL_INV first if it still holds a registration, then
 *    IB_WR_REG_MR) and one RDMA WR uses its lkey.  iWARP needs it for
 *    READs (the READ response is placed through a steering tag), devices
 *    with max_sgl_rd prefer it for READs of more entries than that, and
 *    ib_core's force_mr parameter makes every context use it (testing).
 *
 * The QP side, rdma_rw_init_qp(), rdma_rw_init_mrs() and
 * rdma_rw_cleanup_mrs() (declared in <rdma/rw.h>, not exported), sizes
 * the send queue and fills the pools of a kernel QP created with
 * cap.max_rdma_ctxs; the QP's creation and destruction call them.  They
 * are here because they make the same decisions as the contexts.
 *
 * Only public headers here, like mr_pool.c: the CRCs of the exports are
 * those of their public declarations alone, as stock's.  That includes
 * <linux/mod_devicetable.h>: stock's file sees the OF and ACPI match
 * tables (through the PCI headers), and struct device_driver, which the
 * prototypes reach, points at them, so genksyms expands them there.
 *
 * Locking: a context belongs to its caller, who serialises its use; the
 * MR pools have their own lock (mr_pool.c).
 */
#include <linux/dma-mapping.h>
#include <linux/kernel.h>
#include <linux/mod_devicetable.h>
#include <linux/moduleparam.h>
#include <linux/overflow.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>
#include <rdma/mr_pool.h>
#include <rdma/rw.h>

/*
 * What ctx->type holds.  0 is none of them: destroying a context that
 * was never set up (or whose set-up failed) is caught.
 */
enum {
	RW_CTX_SINGLE = 1,	/* ctx->single: one WR, one SGE */
	RW_CTX_MAP,		/* ctx->map: nr_ops WRs over an SGE array */
	RW_CTX_MR,		/* ctx->reg[nr_ops]: registered MRs */
	RW_CTX_SIG_MR,		/* ctx->reg[0]: one integrity MR */
};

/* The name and meaning of stock's (read at load time only: mode 0). */
static bool rw_force_mr;
module_param_named(force_mr, rw_force_mr, bool, 0);
MODULE_PARM_DESC(force_mr,
		 "Register memory for every RDMA READ/WRITE context (testing)");

/*
 * The page list of one MR of the pools.  Capped: a pool holds an MR per
 * context, and a device's maximum may be far more than an I/O needs.
 */
#define RW_MAX_PAGES_PER_MR	256

static u32 rw_pages_per_mr(struct ib_device *dev, bool integrity)
{
	u32 len = integrity ? dev->attrs.max_pi_fast_reg_page_list_len :
			      dev->attrs.max_fast_reg_page_list_len;

	return min_t(u32, len, RW_MAX_PAGES_PER_MR);
}

/* Whether contexts on this port may register: its QPs then get pools. */
static bool rw_may_register(struct ib_device *dev, u32 port_num)
{
	return rdma_protocol_iwarp(dev, port_num) || dev->attrs.max_sgl_rd ||
	       rw_force_mr;
}

/* Whether a context of @nents mapped entries registers. */
static bool rw_must_register(struct ib_device *dev, u32 port_num,
			     enum dma_data_direction dir, u32 nents)
{
	if (rw_force_mr)
		return true;
	if (dir != DMA_FROM_DEVICE)
		return false;
	return rdma_protocol_iwarp(dev, port_num) ||
	       (dev->attrs.max_sgl_rd && nents > dev->attrs.max_sgl_rd);
}

/* Whether running out of pooled MRs ends the context: nothing else works. */
static bool rw_only_registers(struct ib_device *dev, u32 port_num)
{
	return rdma_protocol_iwarp(dev, port_num) || rw_force_mr;
}

static enum ib_wr_opcode rw_opcode(enum dma_data_direction dir)
{
	return dir == DMA_TO_DEVICE ? IB_WR_RDMA_WRITE : IB_WR_RDMA_READ;
}

/* ------------------------------------------------------------------ */
/* Registered contexts                                                  */

/*
 * The WRs of one registration, @reg zeroed by the caller: the MR is
 * taken and mapped over up to rw_pages_per_mr() entries from @sg on;
 * keys are chosen when the context is posted (rdma_rw_ctx_wrs()).
 * Return: the entries used, or -EAGAIN (pool empty), -EINVAL (the
 * entries do not fit one MR).
 */
static int rw_reg_one(struct ib_qp *qp, u32 port_num,
		      struct rdma_rw_reg_ctx *reg, struct scatterlist *sg,
		      u32 nents, u32 offset, struct list_head *pool)
{
	int mapped;

	reg->mr = ib_mr_pool_get(qp, pool);
	if (!reg->mr)
		return -EAGAIN;

	mapped = ib_map_mr_sg(reg->mr, sg, nents, &offset, PAGE_SIZE);
	if (mapped < 0 || mapped != nents) {
		ib_mr_pool_put(qp, pool, reg->mr);
		reg->mr = NULL;
		return -EINVAL;
	}

	/* A registration still standing goes first (its key, before posting). */
	if (reg->mr->need_inval) {
		reg->inv_wr.opcode = IB_WR_LOCAL_INV;
		reg->inv_wr.ex.invalidate_rkey = reg->mr->lkey;
		reg->inv_wr.next = &reg->reg_wr.wr;
	}

	reg->reg_wr.wr.opcode = IB_WR_REG_MR;
	reg->reg_wr.wr.next = &reg->wr.wr;
	reg->reg_wr.mr = reg->mr;
	reg->reg_wr.access = IB_ACCESS_LOCAL_WRITE;
	/* An iWARP READ response is written through the MR's key. */
	if (rdma_protocol_iwarp(qp->device, port_num))
		reg->reg_wr.access |= IB_ACCESS_REMOTE_WRITE;

	reg->sge.addr = reg->mr->iova;
	reg->sge.length = reg->mr->length;
	reg->wr.wr.sg_list = &reg->sge;
	reg->wr.wr.num_sge = 1;
	return nents;
}

/* The first WR of a registration: its LOCAL_INV, or its REG_MR. */
static struct ib_send_wr *rw_reg_first(struct rdma_rw_reg_ctx *reg)
{
	return reg->inv_wr.next ? &reg->inv_wr : &reg->reg_wr.wr;
}

static int rw_init_reg(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
		       u32 port_num, struct scatterlist *sg, u32 sg_cnt,
		       u32 offset, u64 remote_addr, u32 rkey,
		       enum dma_data_direction dir)
{
	u32 per_mr = rw_pages_per_mr(qp->device, qp->integrity_en);
	bool read_inv = dir == DMA_FROM_DEVICE &&
			rdma_cap_read_inv(qp->device, port_num);
	struct rdma_rw_reg_ctx *reg;
	int i, n, wrs = 0, ret;
	u32 nr_regs;

	if (!per_mr)
		return -EINVAL;
	nr_regs = DIV_ROUND_UP(sg_cnt, per_mr);
	ctx->reg = kcalloc(nr_regs, sizeof(*ctx->reg), GFP_KERNEL);
	if (!ctx->reg)
		return -ENOMEM;

	for (i = 0; i < nr_regs; i++) {
		reg = &ctx->reg[i];
		n = rw_reg_one(qp, port_num, reg, sg, min(sg_cnt, per_mr),
			       offset, &qp->rdma_mrs);
		if (n < 0) {
			ret = n;
			goto put;
		}
		if (i)
			ctx->reg[i - 1].wr.wr.next = rw_reg_first(reg);

		reg->wr.remote_addr = remote_addr;
		reg->wr.rkey = rkey;
		if (read_inv) {
			/* The READ itself ends the registration (iWARP). */
			reg->wr.wr.opcode = IB_WR_RDMA_READ_WITH_INV;
			reg->wr.wr.ex.invalidate_rkey = reg->mr->lkey;
		} else {
			reg->wr.wr.opcode = rw_opcode(dir);
		}
		wrs += (reg->inv_wr.next ? 1 : 0) + 2;

		remote_addr += reg->sge.length;
		sg_cnt -= n;
		while (n--)
			sg = sg_next(sg);
		offset = 0;
	}

	ctx->nr_ops = nr_regs;
	ctx->type = RW_CTX_MR;
	return wrs;

put:
	while (--i >= 0)
		ib_mr_pool_put(qp, &qp->rdma_mrs, ctx->reg[i].mr);
	kfree(ctx->reg);
	ctx->reg = NULL;
	return ret;
}

/* ------------------------------------------------------------------ */
/* SGE contexts                                                         */

static int rw_init_map(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
		       struct scatterlist *sg, u32 sg_cnt, u32 offset,
		       u64 remote_addr, u32 rkey, enum dma_data_direction dir)
{
	u32 per_wr = dir == DMA_TO_DEVICE ? qp->max_write_sge :
					    qp->max_read_sge;
	u32 lkey = qp->pd->local_dma_lkey;
	struct ib_rdma_wr *wr;
	struct ib_sge *sge;
	u32 nr_wrs, i, n;

	if (!per_wr)
		return -EINVAL;
	nr_wrs = DIV_ROUND_UP(sg_cnt, per_wr);
	ctx->map.sges = kcalloc(sg_cnt, sizeof(*ctx->map.sges), GFP_KERNEL);
	ctx->map.wrs = kcalloc(nr_wrs, sizeof(*ctx->map.wrs), GFP_KERNEL);
	if (!ctx->map.sges || !ctx->map.wrs) {
		kfree(ctx->map.sges);
		kfree(ctx->map.wrs);
		return -ENOMEM;
	}

	sge = ctx->map.sges;
	for (i = 0; i < nr_wrs; i++) {
		wr = &ctx->map.wrs[i];
		wr->wr.opcode = rw_opcode(dir);
		wr->wr.sg_list = sge;
		wr->wr.num_sge = min(sg_cnt, per_wr);
		wr->wr.next = i + 1 < nr_wrs ? &ctx->map.wrs[i + 1].wr : NULL;
		wr->remote_addr = remote_addr;
		wr->rkey = rkey;

		for (n = 0; n < wr->wr.num_sge; n++, sge++) {
			sge->addr = sg_dma_address(sg) + offset;
			sge->length = sg_dma_len(sg) - offset;
			sge->lkey = lkey;
			remote_addr += sge->length;
			offset = 0;
			sg = sg_next(sg);
		}
		sg_cnt -= wr->wr.num_sge;
	}

	ctx->nr_ops = nr_wrs;
	ctx->type = RW_CTX_MAP;
	return nr_wrs;
}

static int rw_init_single(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
			  struct scatterlist *sg, u32 offset, u64 remote_addr,
			  u32 rkey, enum dma_data_direction dir)
{
	memset(&ctx->single, 0, sizeof(ctx->single));
	ctx->single.sge.addr = sg_dma_address(sg) + offset;
	ctx->single.sge.length = sg_dma_len(sg) - offset;
	ctx->single.sge.lkey = qp->pd->local_dma_lkey;
	ctx->single.wr.wr.opcode = rw_opcode(dir);
	ctx->single.wr.wr.sg_list = &ctx->single.sge;
	ctx->single.wr.wr.num_sge = 1;
	ctx->single.wr.remote_addr = remote_addr;
	ctx->single.wr.rkey = rkey;

	ctx->nr_ops = 1;
	ctx->type = RW_CTX_SINGLE;
	return 1;
}

/* ------------------------------------------------------------------ */
/* Contexts                                                             */

/**
 * rdma_rw_ctx_init - set up an RDMA READ or WRITE of a scatterlist
 * @ctx: the context, the caller's; filled here
 * @qp: the (connected) QP that will post it
 * @port_num: the QP's port
 * @sg: the local memory, not yet DMA-mapped: mapped here, unmapped by
 *	rdma_rw_ctx_destroy()
 * @sg_cnt: its entries
 * @sg_offset: where in @sg the data start
 * @remote_addr: the peer's address (in the space of @rkey)
 * @rkey: the peer's key
 * @dir: DMA_TO_DEVICE for an RDMA WRITE, DMA_FROM_DEVICE for a READ
 *
 * Return: the number of send queue entries the context takes when
 * posted, or -EINVAL (a direction other than those two, @sg_offset not
 * inside the data, entries that fit no MR), -EIO (nothing to map:
 * @sg_cnt 0, or the mapping failed), -EAGAIN (a registration was needed
 * and the QP's pool is empty), -ENOMEM.
 */
int rdma_rw_ctx_init(struct rdma_rw_ctx *ctx, struct ib_qp *qp, u32 port_num,
		     struct scatterlist *sg, u32 sg_cnt, u32 sg_offset,
		     u64 remote_addr, u32 rkey, enum dma_data_direction dir)
{
	struct ib_device *dev = qp->pd->device;
	struct sg_table sgt = { .sgl = sg, .orig_nents = sg_cnt };
	u32 nents;
	int ret;

	if (dir != DMA_TO_DEVICE && dir != DMA_FROM_DEVICE)
		return -EINVAL;
	if (!sg_cnt)
		return -EIO;

	ret = ib_dma_map_sgtable_attrs(dev, &sgt, dir, 0);
	if (ret)
		return ret;

	/* Start at the mapped entry @sg_offset falls into. */
	nents = sgt.nents;
	while (nents && sg_offset >= sg_dma_len(sg)) {
		sg_offset -= sg_dma_len(sg);
		sg = sg_next(sg);
		nents--;
	}
	if (!nents) {
		ret = -EINVAL;
		goto unmap;
	}

	if (rw_must_register(dev, port_num, dir, nents)) {
		ret = rw_init_reg(ctx, qp, port_num, sg, nents, sg_offset,
				  remote_addr, rkey, dir);
		/*
		 * An empty pool is final only where SGEs cannot do the
		 * READ; a device merely preferring MRs (max_sgl_rd) falls
		 * back to them.
		 */
		if (ret != -EAGAIN || rw_only_registers(dev, port_num))
			goto done;
	}

	if (nents > 1)
		ret = rw_init_map(ctx, qp, sg, nents, sg_offset, remote_addr,
				  rkey, dir);
	else
		ret = rw_init_single(ctx, qp, sg, sg_offset, remote_addr, rkey,
				     dir);
done:
	if (ret >= 0)
		return ret;
unmap:
	ib_dma_unmap_sgtable_attrs(dev, &sgt, dir, 0);
	return ret;
}
EXPORT_SYMBOL(rdma_rw_ctx_init);

/**
 * rdma_rw_ctx_signature_init - set up an RDMA READ or WRITE with T10-PI
 *	offload
 * @ctx: the context, the caller's; filled here
 * @qp: the QP that will post it, created with IB_QP_CREATE_INTEGRITY_EN
 *	and max_rdma_ctxs (its qp->sig_mrs pool)
 * @port_num: the QP's port
 * @sg: the data, mapped here
 * @sg_cnt: its entries
 * @prot_sg: the protection information, mapped here (or none)
 * @prot_sg_cnt: its entries
 * @sig_attrs: the protection of the memory and of the wire
 * @remote_addr: the peer's address
 * @rkey: the peer's key
 * @dir: DMA_TO_DEVICE for an RDMA WRITE, DMA_FROM_DEVICE for a READ
 *
 * One integrity MR covers data and protection information: a LOCAL_INV
 * if it is still registered, an IB_WR_REG_MR_INTEGRITY and the RDMA WR.
 *
 * Return: the number of send queue entries, or -EINVAL (a bad direction,
 * more entries than one MR maps, a mapping the driver refuses), -EIO,
 * -EAGAIN (no integrity MR free: also on a QP without integrity, whose
 * pool is empty, as on stock), -ENOMEM.
 */
int rdma_rw_ctx_signature_init(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
			       u32 port_num, struct scatterlist *sg,
			       u32 sg_cnt, struct scatterlist *prot_sg,
			       u32 prot_sg_cnt, struct ib_sig_attrs *sig_attrs,
			       u64 remote_addr, u32 rkey,
			       enum dma_data_direction dir)
{
	u32 per_mr = rw_pages_per_mr(qp->device, qp->integrity_en);
	struct sg_table prot = { .sgl = prot_sg, .orig_nents = prot_sg_cnt };
	struct sg_table data = { .sgl = sg, .orig_nents = sg_cnt };
	struct ib_device *dev = qp->pd->device;
	struct rdma_rw_reg_ctx *reg;
	int ret, wrs;

	if (dir != DMA_TO_DEVICE && dir != DMA_FROM_DEVICE)
		return -EINVAL;
	if (sg_cnt > per_mr || prot_sg_cnt > per_mr)
		return -EINVAL;

	ret = ib_dma_map_sgtable_attrs(dev, &data, dir, 0);
	if (ret)
		return ret;
	if (prot_sg_cnt) {
		ret = ib_dma_map_sgtable_attrs(dev, &prot, dir, 0);
		if (ret)
			goto unmap_data;
	}

	reg = kzalloc(sizeof(*reg), GFP_KERNEL);
	if (!reg) {
		ret = -ENOMEM;
		goto unmap_prot;
	}
	reg->mr = ib_mr_pool_get(qp, &qp->sig_mrs);
	if (!reg->mr) {
		ret = -EAGAIN;
		goto free;
	}

	*reg->mr->sig_attrs = *sig_attrs;
	ret = ib_map_mr_sg_pi(reg->mr, sg, data.nents, NULL,
			      prot_sg_cnt ? prot_sg : NULL,
			      prot_sg_cnt ? prot.nents : 0, NULL, SZ_4K);
	if (ret) {
		ret = ret < 0 ? ret : -EINVAL;
		goto put;
	}

	wrs = 0;
	if (reg->mr->need_inval) {
		reg->inv_wr.opcode = IB_WR_LOCAL_INV;
		reg->inv_wr.ex.invalidate_rkey = reg->mr->lkey;
		reg->inv_wr.next = &reg->reg_wr.wr;
		wrs++;
	}
	reg->reg_wr.wr.opcode = IB_WR_REG_MR_INTEGRITY;
	reg->reg_wr.wr.next = &reg->wr.wr;
	reg->reg_wr.mr = reg->mr;
	reg->reg_wr.key = reg->mr->lkey;
	reg->reg_wr.access = IB_ACCESS_LOCAL_WRITE;
	if (rdma_protocol_iwarp(qp->device, port_num))
		reg->reg_wr.access |= IB_ACCESS_REMOTE_WRITE;

	reg->sge.addr = reg->mr->iova;
	reg->sge.length = reg->mr->length;
	/* Without protection on the wire, the PI stays local. */
	if (sig_attrs->wire.sig_type == IB_SIG_TYPE_NONE)
		reg->sge.length -= reg->mr->sig_attrs->meta_length;
	reg->wr.wr.opcode = rw_opcode(dir);
	reg->wr.wr.sg_list = &reg->sge;
	reg->wr.wr.num_sge = 1;
	reg->wr.remote_addr = remote_addr;
	reg->wr.rkey = rkey;
	wrs += 2;

	ctx->reg = reg;
	ctx->nr_ops = 1;
	ctx->type = RW_CTX_SIG_MR;
	return wrs;

put:
	ib_mr_pool_put(qp, &qp->sig_mrs, reg->mr);
free:
	kfree(reg);
unmap_prot:
	if (prot_sg_cnt)
		ib_dma_unmap_sgtable_attrs(dev, &prot, dir, 0);
unmap_data:
	ib_dma_unmap_sgtable_attrs(dev, &data, dir, 0);
	return ret;
}
EXPORT_SYMBOL(rdma_rw_ctx_signature_init);

/*
 * A registration gets its new key when it is posted, not when it is set
 * up: a context set up and destroyed unposted leaves the MR's key and
 * need_inval as they were, so the next user invalidates exactly what is
 * registered.
 */
static void rw_reg_new_key(struct rdma_rw_reg_ctx *reg)
{
	struct ib_mr *mr = reg->mr;

	/* A READ with invalidate leaves nothing registered behind it. */
	mr->need_inval = reg->wr.wr.opcode != IB_WR_RDMA_READ_WITH_INV;
	ib_update_fast_reg_key(mr, ib_inc_rkey(mr->lkey));
	reg->reg_wr.key = mr->lkey;
	reg->sge.lkey = mr->lkey;
	if (reg->wr.wr.opcode == IB_WR_RDMA_READ_WITH_INV)
		reg->wr.wr.ex.invalidate_rkey = mr->lkey;
}

/**
 * rdma_rw_ctx_wrs - the WR chain of a context
 * @ctx: a context set up by rdma_rw_ctx_init() or
 *	rdma_rw_ctx_signature_init()
 * @qp: its QP
 * @port_num: its port
 * @cqe: the completion of the last RDMA WR, which is then signalled;
 *	unused with @chain_wr
 * @chain_wr: a WR (chain) of the caller's to follow the last RDMA WR
 *	(it then carries the completion), or NULL
 *
 * The registrations' keys are renewed here: call it once per posting.
 *
 * Return: the first WR, for the caller's ib_post_send().
 */
struct ib_send_wr *rdma_rw_ctx_wrs(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
				   u32 port_num, struct ib_cqe *cqe,
				   struct ib_send_wr *chain_wr)
{
	struct ib_send_wr *first, *last;
	u32 i;

	switch (ctx->type) {
	case RW_CTX_MR:
	case RW_CTX_SIG_MR:
		for (i = 0; i < ctx->nr_ops; i++)
			rw_reg_new_key(&ctx->reg[i]);
		first = rw_reg_first(&ctx->reg[0]);
		last = &ctx->reg[ctx->nr_ops - 1].wr.wr;
		break;
	case RW_CTX_MAP:
		first = &ctx->map.wrs[0].wr;
		last = &ctx->map.wrs[ctx->nr_ops - 1].wr;
		break;
	case RW_CTX_SINGLE:
		first = &ctx->single.wr.wr;
		last = first;
		break;
	default:
		WARN_ONCE(1, "%s: context of type %u\n", __func__, ctx->type);
		return NULL;
	}

	if (chain_wr) {
		last->next = chain_wr;
	} else {
		last->next = NULL;
		last->wr_cqe = cqe;
		last->send_flags |= IB_SEND_SIGNALED;
	}
	return first;
}
EXPORT_SYMBOL(rdma_rw_ctx_wrs);

/**
 * rdma_rw_ctx_post - post a context's WRs
 * @ctx: the context
 * @qp: its QP
 * @port_num: its port
 * @cqe: as for rdma_rw_ctx_wrs()
 * @chain_wr: as for rdma_rw_ctx_wrs()
 *
 * Return: 0, or ib_post_send()'s error.
 */
int rdma_rw_ctx_post(struct rdma_rw_ctx *ctx, struct ib_qp *qp, u32 port_num,
		     struct ib_cqe *cqe, struct ib_send_wr *chain_wr)
{
	struct ib_send_wr *first;

	first = rdma_rw_ctx_wrs(ctx, qp, port_num, cqe, chain_wr);
	if (!first)
		return -EINVAL;
	return ib_post_send(qp, first, NULL);
}
EXPORT_SYMBOL(rdma_rw_ctx_post);

/**
 * rdma_rw_ctx_destroy - release a context of rdma_rw_ctx_init()
 * @ctx: the context; its WRs must have completed (or been flushed)
 * @qp: its QP
 * @port_num: its port
 * @sg: the scatterlist it was set up with
 * @sg_cnt: the entries passed then
 * @dir: the direction passed then
 *
 * Gives the MRs back to the QP's pool and unmaps @sg.
 */
void rdma_rw_ctx_destroy(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
			 u32 port_num, struct scatterlist *sg, u32 sg_cnt,
			 enum dma_data_direction dir)
{
	u32 i;

	switch (ctx->type) {
	case RW_CTX_MR:
		for (i = 0; i < ctx->nr_ops; i++)
			ib_mr_pool_put(qp, &qp->rdma_mrs, ctx->reg[i].mr);
		kfree(ctx->reg);
		break;
	case RW_CTX_MAP:
		kfree(ctx->map.wrs);
		kfree(ctx->map.sges);
		break;
	case RW_CTX_SINGLE:
		break;
	default:
		WARN_ONCE(1, "%s: context of type %u\n", __func__, ctx->type);
		return;
	}
	ctx->type = 0;
	ib_dma_unmap_sg(qp->pd->device, sg, sg_cnt, dir);
}
EXPORT_SYMBOL(rdma_rw_ctx_destroy);

/**
 * rdma_rw_ctx_destroy_signature - release a context of
 *	rdma_rw_ctx_signature_init()
 * @ctx: the context; its WRs must have completed (or been flushed)
 * @qp: its QP
 * @port_num: its port
 * @sg: the data scatterlist it was set up with
 * @sg_cnt: its entries passed then
 * @prot_sg: the protection information's
 * @prot_sg_cnt: its entries passed then
 * @dir: the direction passed then
 */
void rdma_rw_ctx_destroy_signature(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
				   u32 port_num, struct scatterlist *sg,
				   u32 sg_cnt, struct scatterlist *prot_sg,
				   u32 prot_sg_cnt, enum dma_data_direction dir)
{
	if (WARN_ONCE(ctx->type != RW_CTX_SIG_MR,
		      "%s: context of type %u\n", __func__, ctx->type))
		return;

	ib_mr_pool_put(qp, &qp->sig_mrs, ctx->reg->mr);
	kfree(ctx->reg);
	ctx->type = 0;
	if (prot_sg_cnt)
		ib_dma_unmap_sg(qp->pd->device, prot_sg, prot_sg_cnt, dir);
	ib_dma_unmap_sg(qp->pd->device, sg, sg_cnt, dir);
}
EXPORT_SYMBOL(rdma_rw_ctx_destroy_signature);

/* ------------------------------------------------------------------ */
/* Sizing                                                               */

/**
 * rdma_rw_mr_factor - how many registrations (or READ WRs) an I/O takes
 * @device: the device
 * @port_num: the port
 * @maxpages: the pages of the largest I/O
 *
 * What ULPs multiply their queue depth by to size max_rdma_ctxs and
 * their send CQs: per pooled MR where contexts may register, else per
 * READ WR of max_sge_rd SGEs.
 *
 * Return: the factor (0 for @maxpages 0).
 */
unsigned int rdma_rw_mr_factor(struct ib_device *device, u32 port_num,
			       unsigned int maxpages)
{
	unsigned int per_op;

	if (rw_may_register(device, port_num))
		per_op = rw_pages_per_mr(device, false);
	else
		per_op = device->attrs.max_sge_rd;
	if (!per_op)
		return maxpages ? UINT_MAX : 0;
	return DIV_ROUND_UP(maxpages, per_op);
}
EXPORT_SYMBOL(rdma_rw_mr_factor);

/* Send queue entries per context: its RDMA WR, a REG_MR and a LOCAL_INV. */
static unsigned int rw_wrs_per_ctx(struct ib_device *dev, u32 port_num,
				   u32 create_flags)
{
	if ((create_flags & IB_QP_CREATE_INTEGRITY_EN) ||
	    rw_may_register(dev, port_num))
		return 3;
	return 1;
}

/**
 * rdma_rw_max_send_wr - send queue entries for a number of contexts
 * @dev: the device
 * @port_num: the port
 * @max_rdma_ctxs: the contexts in flight at most
 * @create_flags: the QP's create flags (IB_QP_CREATE_INTEGRITY_EN counts)
 *
 * Return: the entries, or UINT_MAX on overflow.
 */
unsigned int rdma_rw_max_send_wr(struct ib_device *dev, u32 port_num,
				 unsigned int max_rdma_ctxs, u32 create_flags)
{
	unsigned int wrs;

	if (check_mul_overflow(rw_wrs_per_ctx(dev, port_num, create_flags),
			       max_rdma_ctxs, &wrs))
		return UINT_MAX;
	return wrs;
}
EXPORT_SYMBOL(rdma_rw_max_send_wr);

/* ------------------------------------------------------------------ */
/* QPs with contexts                                                    */

/**
 * rdma_rw_init_qp - grow a QP's send queue for its contexts
 * @dev: the device
 * @attr: the creation attributes, cap.max_rdma_ctxs set and port_num
 *	the port the contexts use; cap.max_send_wr grows by what the
 *	contexts take, up to the device's max_qp_wr
 *
 * Called by ib_create_qp_kernel() before the driver sees @attr.
 */
void rdma_rw_init_qp(struct ib_device *dev, struct ib_qp_init_attr *attr)
{
	u32 wrs;

	WARN_ON_ONCE(!attr->port_num);
	wrs = rw_wrs_per_ctx(dev, attr->port_num, attr->create_flags) *
	      attr->cap.max_rdma_ctxs;
	attr->cap.max_send_wr = min_t(u32, attr->cap.max_send_wr + wrs,
				      dev->attrs.max_qp_wr);
}

/**
 * rdma_rw_init_mrs - fill a new QP's MR pools for its contexts
 * @qp: the QP, made by the driver
 * @attr: its creation attributes
 *
 * An MR per context in qp->rdma_mrs where contexts may register, and
 * with IB_QP_CREATE_INTEGRITY_EN an integrity MR per context in
 * qp->sig_mrs as well.
 *
 * Return: 0, or the allocation's error with both pools empty.
 */
int rdma_rw_init_mrs(struct ib_qp *qp, struct ib_qp_init_attr *attr)
{
	bool integrity = attr->create_flags & IB_QP_CREATE_INTEGRITY_EN;
	struct ib_device *dev = qp->pd->device;
	u32 nr = attr->cap.max_rdma_ctxs;
	u32 pages;
	int ret;

	if (!integrity && !rw_may_register(dev, attr->port_num))
		return 0;

	pages = rw_pages_per_mr(dev, integrity);
	ret = ib_mr_pool_init(qp, &qp->rdma_mrs, nr, IB_MR_TYPE_MEM_REG,
			      pages, 0);
	if (ret)
		return ret;
	if (integrity) {
		ret = ib_mr_pool_init(qp, &qp->sig_mrs, nr,
				      IB_MR_TYPE_INTEGRITY, pages, pages);
		if (ret)
			ib_mr_pool_destroy(qp, &qp->rdma_mrs);
	}
	return ret;
}

/**
 * rdma_rw_cleanup_mrs - free a QP's MR pools
 * @qp: the QP; MRs still taken from them are the takers' (and leak)
 */
void rdma_rw_cleanup_mrs(struct ib_qp *qp)
{
	ib_mr_pool_destroy(qp, &qp->sig_mrs);
	ib_mr_pool_destroy(qp, &qp->rdma_mrs);
}
