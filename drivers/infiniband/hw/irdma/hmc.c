// SPDX-License-Identifier: GPL-2.0-only
/*
 * The host memory cache (HMC).  The PE keeps its objects (QP and CQ
 * contexts, STags, hash tables, PBLEs...) in one flat "FPM" address
 * space that lives in host memory the driver gives it, in 2 MiB
 * segments described by segment descriptors (SDs).  This file owns that
 * space from probe to remove:
 *
 *  - QUERY_FPM_VAL: how many objects of each type the function may
 *    have, their sizes, and how many segments it may use;
 *  - the counts we ask for: Debian's irdma's choice for the same
 *    offer, so both drivers expose the same resources, reduced until
 *    they fit the segments;
 *  - COMMIT_FPM_VAL: the device lays the objects out and answers each
 *    type's count and base, which alone we use afterwards (the layout
 *    is the device's: never assume one);
 *  - the segments of every object but PBLEs, one direct 2 MiB page
 *    each, programmed with UPDATE_PE_SDS; then SHMC_PAGES_ALLOCATED.
 *
 * PBLEs, by far the largest object, are backed on demand by pble.c,
 * which programs its segments through irdma_hmc_update_sds() (hmc.h).
 *
 * Locking: dev->hmc is written here at probe, before anything else
 * reads it, and freed at remove, after the PBLE pool and every other
 * user are gone; it needs no lock.  The CQP serialises the commands.
 */
#include <linux/log2.h>
#include <linux/sizes.h>

#include "irdma.h"
#include "hmc.h"

/*
 * QUERY_FPM_VAL's 176-byte answer.  Qword 0 holds the segments; each
 * object type's entry holds its most objects in the low dword and the
 * log2 of its size in the high one, except the free lists', whose high
 * dword is the block size of the object they list (their entries are 4
 * bytes), and PBLEs', 8 bytes each.
 */
#define IRDMA_FPMQ_FIRST_SD		GENMASK_ULL(13, 0)	/* byte 0 */
#define IRDMA_FPMQ_MAX_SDS		GENMASK_ULL(45, 32)	/* byte 0 */
#define IRDMA_FPMQ_QP_MAX		GENMASK_ULL(18, 0)
#define IRDMA_FPMQ_CQ_MAX		GENMASK_ULL(19, 0)
#define IRDMA_FPMQ_MAX			GENMASK_ULL(31, 0)
#define IRDMA_FPMQ_HIGH			GENMASK_ULL(63, 32)
#define IRDMA_FPMQ_MISC			120	/* byte offset */
#define IRDMA_FPMQ_MAX_CEQS		GENMASK_ULL(9, 0)
#define IRDMA_FPMQ_HT_MULT		GENMASK_ULL(19, 16)
#define IRDMA_FPMQ_TIMER_BUCKET		GENMASK_ULL(47, 32)

/* COMMIT_FPM_VAL's answer, in the buffer we sent: count, base / 512. */
#define IRDMA_FPMC_QP_CNT		GENMASK_ULL(18, 0)
#define IRDMA_FPMC_CQ_CNT		GENMASK_ULL(19, 0)
#define IRDMA_FPMC_CNT			GENMASK_ULL(31, 0)
#define IRDMA_FPMC_BASE			GENMASK_ULL(63, 32)

/* Each type's entry in the query (byte offset; 0: not there). */
static const u8 irdma_fpmq_off[IRDMA_HMC_NUM_TYPES] = {
	[IRDMA_HMC_QP] = 8, [IRDMA_HMC_CQ] = 16, [IRDMA_HMC_HTE] = 32,
	[IRDMA_HMC_ARP] = 40, [IRDMA_HMC_MR] = 48, [IRDMA_HMC_XF] = 56,
	[IRDMA_HMC_XFFL] = 64, [IRDMA_HMC_Q1] = 72, [IRDMA_HMC_Q1FL] = 80,
	[IRDMA_HMC_TIMER] = 88, [IRDMA_HMC_FSIMC] = 96,
	[IRDMA_HMC_FSIAV] = 104, [IRDMA_HMC_PBLE] = 112,
	[IRDMA_HMC_RRF] = 128, [IRDMA_HMC_RRFFL] = 136,
	[IRDMA_HMC_HDR] = 144, [IRDMA_HMC_MD] = 152, [IRDMA_HMC_OOISC] = 160,
	[IRDMA_HMC_OOISCFFL] = 168,
};

/* Each type's entry in the commit: byte 120 is reserved. */
static unsigned int irdma_fpmc_off(unsigned int type)
{
	return (type < IRDMA_HMC_RRF ? type : type + 1) * 8;
}

#define IRDMA_HMC_FL_SIZE	4	/* a free list's entry */
#define IRDMA_HMC_PBLE_SIZE	8
#define IRDMA_HMC_APBVT_SIZE	SZ_8K	/* one, implicit */
#define IRDMA_HMC_PBLES_PER_SD	(IRDMA_HMC_SD_SIZE / IRDMA_HMC_PBLE_SIZE)

/*
 * Debian's gen 2 limits: QPs asked for (its resource profile 7), the
 * inbound RDMA reads per QP that Q1 is sized for, PDs (not an HMC
 * object: the device knows PDs by number only).
 */
#define IRDMA_HMC_QP_LIMIT	SZ_256K
#define IRDMA_HMC_MAX_IRD	127
#define IRDMA_GEN2_MAX_PDS	262144

/* How far reductions go before giving up on a type (Debian's floors). */
#define IRDMA_HMC_FAR_SDS	128
#define IRDMA_HMC_MIN_QPS	128
#define IRDMA_HMC_MIN_MRS	1024
#define IRDMA_HMC_MIN_AVS	256

/* UPDATE_PE_SDS: 3 entries in the WQE, the rest in a buffer. */
#define IRDMA_HMC_SDS_IN_WQE	3
#define IRDMA_HMC_SDS_IN_BUF	(IRDMA_HMC_SDS_PER_CMD - IRDMA_HMC_SDS_IN_WQE)

/* What the query says beyond counts and sizes: only setup needs it. */
struct irdma_fpm_misc {
	u32 xf_block;
	u32 q1_block;
	u32 rrf_block;
	u32 ooisc_block;
	u32 ht_mult;
	u32 timer_bucket;
};

/*
 * A buffer the device was given in a command that timed out may still
 * be written or read by it: leave it allocated rather than free memory
 * the device may reach.
 */
static void irdma_hmc_buf_free(struct irdma_dev *dev, struct irdma_dma *buf,
			       int err)
{
	if (err != -ETIMEDOUT)
		irdma_dma_free(dev, buf);
}

void irdma_sd_entry_set(struct irdma_dev *dev, struct irdma_sd_entry *e,
			u32 sd, dma_addr_t pa)
{
	/* Bit 15 selects the PF's SD table, as Debian sets it. */
	e->cmd = FIELD_PREP(IRDMA_SD_CMD_IDX, dev->hmc.first_sd + sd) |
		 IRDMA_SD_CMD_PARTSEL | IRDMA_SD_CMD_WRITE;
	e->data = (u64)pa |
		  FIELD_PREP(IRDMA_SD_DATA_BPCOUNT, IRDMA_HMC_PDS_PER_SD) |
		  IRDMA_SD_DATA_DIRECT | IRDMA_SD_DATA_VALID;
}

void irdma_sd_entry_clear(struct irdma_dev *dev, struct irdma_sd_entry *e,
			  u32 sd)
{
	/* Debian keeps the count and type, and clears the valid bit. */
	e->cmd = FIELD_PREP(IRDMA_SD_CMD_IDX, dev->hmc.first_sd + sd) |
		 IRDMA_SD_CMD_PARTSEL | IRDMA_SD_CMD_WRITE;
	e->data = FIELD_PREP(IRDMA_SD_DATA_BPCOUNT, IRDMA_HMC_PDS_PER_SD) |
		  IRDMA_SD_DATA_DIRECT;
}

int irdma_hmc_update_sds(struct irdma_dev *dev,
			 const struct irdma_sd_entry *e, unsigned int n)
{
	struct irdma_dma buf = {};
	struct irdma_cqp_cmd cmd;
	unsigned int i, j, k, extra;
	__le64 *q;
	int err = 0;

	/* Teardown may come after the CQP's (its SQ is then freed). */
	if (!dev->cqp.sq.va || READ_ONCE(dev->cqp.dead))
		return -ENODEV;
	/*
	 * Entries past the WQE's three go in a buffer; its address shares
	 * q2 with the HMC function in bits 5:0, so it must be 64-byte
	 * aligned, as every coherent allocation (page-aligned) is.
	 */
	if (n > IRDMA_HMC_SDS_IN_WQE) {
		err = irdma_dma_alloc(dev, &buf,
				      IRDMA_HMC_SDS_IN_BUF * 2 * sizeof(*q));
		if (err)
			return err;
	}
	for (i = 0; i < n && !err; i += k) {
		k = min_t(unsigned int, n - i, IRDMA_HMC_SDS_PER_CMD);
		extra = k > IRDMA_HMC_SDS_IN_WQE ? k - IRDMA_HMC_SDS_IN_WQE : 0;
		irdma_cqp_cmd_init(&cmd, IRDMA_CQP_OP_UPDATE_PE_SDS,
				   FIELD_PREP(IRDMA_SDS_HDR_COUNT, extra));
		cmd.wqe[0] = e[i].cmd;
		cmd.wqe[1] = e[i].data;
		/* The second and third entries say they are there. */
		for (j = 1; j < min_t(unsigned int, k, IRDMA_HMC_SDS_IN_WQE);
		     j++) {
			cmd.wqe[2 + 2 * j] = e[i + j].cmd |
					     IRDMA_SD_ENTRY_VALID;
			cmd.wqe[3 + 2 * j] = e[i + j].data;
		}
		cmd.wqe[2] = FIELD_PREP(IRDMA_HMC_FN, dev->hmc_fn);
		if (extra) {
			q = buf.va;
			for (j = 0; j < extra; j++) {
				q[2 * j] = cpu_to_le64(e[i + 3 + j].cmd);
				q[2 * j + 1] = cpu_to_le64(e[i + 3 + j].data);
			}
			cmd.wqe[2] |= buf.pa;
		}
		err = irdma_cqp_exec(dev, &cmd);
	}
	irdma_hmc_buf_free(dev, &buf, err);
	return err;
}

static int irdma_hmc_parse_query(struct irdma_dev *dev, const __le64 *q,
				 struct irdma_fpm_misc *m)
{
	struct irdma_hmc *hmc = &dev->hmc;
	struct irdma_hmc_obj *o;
	unsigned int t;
	u32 *block;
	u32 log2;
	u64 v;

	v = le64_to_cpu(q[0]);
	hmc->first_sd = FIELD_GET(IRDMA_FPMQ_FIRST_SD, v);
	hmc->max_sds = FIELD_GET(IRDMA_FPMQ_MAX_SDS, v);
	v = le64_to_cpu(q[IRDMA_FPMQ_MISC / 8]);
	hmc->max_ceqs = FIELD_GET(IRDMA_FPMQ_MAX_CEQS, v);
	m->ht_mult = FIELD_GET(IRDMA_FPMQ_HT_MULT, v);
	m->timer_bucket = FIELD_GET(IRDMA_FPMQ_TIMER_BUCKET, v);

	for (t = 0; t < IRDMA_HMC_NUM_TYPES; t++) {
		o = &hmc->obj[t];
		memset(o, 0, sizeof(*o));
		if (!irdma_fpmq_off[t])
			continue;
		v = le64_to_cpu(q[irdma_fpmq_off[t] / 8]);
		o->max = FIELD_GET(IRDMA_FPMQ_MAX, v);
		switch (t) {
		case IRDMA_HMC_XFFL:
			block = &m->xf_block;
			break;
		case IRDMA_HMC_Q1FL:
			block = &m->q1_block;
			break;
		case IRDMA_HMC_RRFFL:
			block = &m->rrf_block;
			break;
		case IRDMA_HMC_OOISCFFL:
			block = &m->ooisc_block;
			break;
		default:
			block = NULL;
			break;
		}
		if (block) {
			*block = FIELD_GET(IRDMA_FPMQ_HIGH, v);
			o->size = IRDMA_HMC_FL_SIZE;
			continue;
		}
		if (t == IRDMA_HMC_PBLE) {
			o->size = IRDMA_HMC_PBLE_SIZE;
			continue;
		}
		log2 = FIELD_GET(IRDMA_FPMQ_HIGH, v);
		if (o->max && log2 > 31) {
			dev_err(dev->dma, "HMC: object type %u of 2^%u bytes\n",
				t, log2);
			return -EINVAL;
		}
		o->size = o->max ? BIT_ULL(log2) : 0;
	}
	v = le64_to_cpu(q[irdma_fpmq_off[IRDMA_HMC_QP] / 8]);
	hmc->obj[IRDMA_HMC_QP].max = FIELD_GET(IRDMA_FPMQ_QP_MAX, v);
	v = le64_to_cpu(q[irdma_fpmq_off[IRDMA_HMC_CQ] / 8]);
	hmc->obj[IRDMA_HMC_CQ].max = FIELD_GET(IRDMA_FPMQ_CQ_MAX, v);
	hmc->obj[IRDMA_HMC_APBVT].max = 1;
	hmc->obj[IRDMA_HMC_APBVT].size = IRDMA_HMC_APBVT_SIZE;

	/* The counts of free lists are divided by these. */
	if (!m->xf_block || !m->q1_block ||
	    (!m->rrf_block && hmc->obj[IRDMA_HMC_RRFFL].max) ||
	    (!m->ooisc_block && hmc->obj[IRDMA_HMC_OOISCFFL].max)) {
		dev_err(dev->dma, "HMC: invalid block sizes: XF %u, Q1 %u, RRF %u, OOISC %u\n",
			m->xf_block, m->q1_block, m->rrf_block,
			m->ooisc_block);
		return -EINVAL;
	}
	if (!hmc->obj[IRDMA_HMC_QP].max || !hmc->obj[IRDMA_HMC_CQ].max ||
	    !hmc->max_sds) {
		dev_err(dev->dma, "HMC: offer of %u QPs, %u CQs, %u segments\n",
			hmc->obj[IRDMA_HMC_QP].max, hmc->obj[IRDMA_HMC_CQ].max,
			hmc->max_sds);
		return -EINVAL;
	}
	return 0;
}

static int irdma_hmc_query(struct irdma_dev *dev, struct irdma_dma *buf,
			   struct irdma_fpm_misc *m)
{
	struct irdma_cqp_cmd cmd;
	int err;

	irdma_cqp_cmd_init(&cmd, IRDMA_CQP_OP_QUERY_FPM_VAL, 0);
	cmd.wqe[2] = FIELD_PREP(IRDMA_HMC_FN, dev->hmc_fn);
	cmd.wqe[4] = buf->pa;
	err = irdma_cqp_exec(dev, &cmd);
	if (err) {
		dev_err(dev->dma, "HMC: FPM query error %d (status 0x%x)\n",
			err, cmd.status);
		return err;
	}
	return irdma_hmc_parse_query(dev, buf->va, m);
}

/* Ask for @cnt objects of type @t, or as many as the device offers. */
static void irdma_hmc_want(struct irdma_hmc *hmc, unsigned int t, u64 cnt)
{
	hmc->obj[t].cnt = min_t(u64, cnt, hmc->obj[t].max);
}

/* Q1 holds the inbound RDMA reads in flight: as many as @qp QPs take. */
static u64 irdma_hmc_q1_need(u32 qp)
{
	return roundup_pow_of_two(IRDMA_HMC_MAX_IRD * 2ULL * qp + 512);
}

/*
 * Every type's count for @qp QPs, @mr MRs, @av address handles and
 * @pble PBLEs; the rest follows from the QPs (Debian's formulas) or is
 * the most offered.  Free lists are counted from their object's count,
 * after that is capped.
 */
static void irdma_hmc_counts(struct irdma_hmc *hmc,
			     const struct irdma_fpm_misc *m, u32 qp, u32 mr,
			     u32 av, u32 pble)
{
	struct irdma_hmc_obj *o = hmc->obj;
	u64 hte;

	irdma_hmc_want(hmc, IRDMA_HMC_QP, qp);
	irdma_hmc_want(hmc, IRDMA_HMC_CQ, 2ULL * qp);
	irdma_hmc_want(hmc, IRDMA_HMC_RSVD, 0);
	irdma_hmc_want(hmc, IRDMA_HMC_ARP, o[IRDMA_HMC_ARP].max);
	irdma_hmc_want(hmc, IRDMA_HMC_APBVT, 1);
	irdma_hmc_want(hmc, IRDMA_HMC_MR, mr);
	irdma_hmc_want(hmc, IRDMA_HMC_FSIMC, o[IRDMA_HMC_FSIMC].max);
	irdma_hmc_want(hmc, IRDMA_HMC_FSIAV, av);
	/* The hash table: QPs and multicast groups, a power of two. */
	hte = round_up((u64)qp + o[IRDMA_HMC_FSIMC].cnt, 512);
	irdma_hmc_want(hmc, IRDMA_HMC_HTE,
		       roundup_pow_of_two(hte) * m->ht_mult);
	irdma_hmc_want(hmc, IRDMA_HMC_XF, 4ULL * m->xf_block * qp);
	irdma_hmc_want(hmc, IRDMA_HMC_XFFL, o[IRDMA_HMC_XF].cnt / m->xf_block);
	irdma_hmc_want(hmc, IRDMA_HMC_Q1, irdma_hmc_q1_need(qp));
	irdma_hmc_want(hmc, IRDMA_HMC_Q1FL, o[IRDMA_HMC_Q1].cnt / m->q1_block);
	irdma_hmc_want(hmc, IRDMA_HMC_TIMER,
		       (DIV_ROUND_UP(qp, 512) + 1ULL) * m->timer_bucket);
	irdma_hmc_want(hmc, IRDMA_HMC_PBLE, pble);
	irdma_hmc_want(hmc, IRDMA_HMC_HDR, qp);
	irdma_hmc_want(hmc, IRDMA_HMC_MD, o[IRDMA_HMC_MD].max);
	irdma_hmc_want(hmc, IRDMA_HMC_RRF, 32ULL * qp);
	irdma_hmc_want(hmc, IRDMA_HMC_RRFFL, m->rrf_block ?
		       o[IRDMA_HMC_RRF].cnt / m->rrf_block : 0);
	irdma_hmc_want(hmc, IRDMA_HMC_OOISC, 32ULL * qp);
	irdma_hmc_want(hmc, IRDMA_HMC_OOISCFFL, m->ooisc_block ?
		       o[IRDMA_HMC_OOISC].cnt / m->ooisc_block : 0);
}

/*
 * Bytes the objects but PBLEs (@rest) and the PBLEs (@pble) take, each
 * type rounded up to 512 as the device lays them out.
 */
static void irdma_hmc_est_bytes(const struct irdma_hmc *hmc, u64 *rest,
				u64 *pble)
{
	const struct irdma_hmc_obj *o;
	unsigned int t;
	u64 bytes;

	*rest = 0;
	*pble = 0;
	for (t = 0; t < IRDMA_HMC_NUM_TYPES; t++) {
		o = &hmc->obj[t];
		bytes = round_up(o->cnt * o->size, IRDMA_HMC_BASE_UNIT);
		if (t == IRDMA_HMC_PBLE)
			*pble += bytes;
		else
			*rest += bytes;
	}
}

/*
 * One step towards fitting.  @over: segments too many; @rest_over: the
 * objects but PBLEs alone need more segments than hmc->sd[] holds,
 * which fewer PBLEs cannot help.  Far off, halve QPs and (MRs, PBLEs) in
 * turn, as Debian does; near, drop just the PBLEs over, else QPs, else
 * MRs and AHs.  False when nothing is left to cut.
 */
static bool irdma_hmc_shrink(unsigned int loop, u64 over, bool rest_over,
			     u32 *qp, u32 *mr, u32 *av, u32 *pble)
{
	if (over > IRDMA_HMC_FAR_SDS || rest_over) {
		if (*qp > IRDMA_HMC_MIN_QPS && !(loop % 2)) {
			*qp /= 2;
			return true;
		}
		if (*mr > IRDMA_HMC_MIN_MRS || (*pble && !rest_over)) {
			if (*mr > IRDMA_HMC_MIN_MRS)
				*mr = max_t(u32, *mr / 2, IRDMA_HMC_MIN_MRS);
			if (!rest_over)
				*pble /= 2;
			return true;
		}
	}
	if (!rest_over && *pble > 2 * over * IRDMA_HMC_PBLES_PER_SD) {
		*pble -= over * IRDMA_HMC_PBLES_PER_SD;
		return true;
	}
	if (*qp > IRDMA_HMC_MIN_QPS) {
		*qp /= 2;
		return true;
	}
	if (*mr > IRDMA_HMC_MIN_MRS) {
		*mr /= 2;
		return true;
	}
	if (*av > IRDMA_HMC_MIN_AVS) {
		*av /= 2;
		return true;
	}
	if (!rest_over && *pble) {
		*pble /= 2;
		return true;
	}
	return false;
}

/* Choose every type's count, to fit the function's segments. */
static int irdma_hmc_choose(struct irdma_dev *dev,
			    const struct irdma_fpm_misc *m)
{
	struct irdma_hmc *hmc = &dev->hmc;
	struct irdma_hmc_obj *o = hmc->obj;
	u64 rest, pbles, all, spare;
	unsigned int loop;
	u32 qp, mr, av, pble;

	qp = rounddown_pow_of_two(min_t(u32, IRDMA_HMC_QP_LIMIT,
					o[IRDMA_HMC_QP].max));
	while (qp > 1 && irdma_hmc_q1_need(qp) > o[IRDMA_HMC_Q1].max)
		qp /= 2;
	mr = o[IRDMA_HMC_MR].max;
	av = o[IRDMA_HMC_FSIAV].max;
	pble = o[IRDMA_HMC_PBLE].max;

	/* Each step cuts a count: the loop ends. */
	for (loop = 1; ; loop++) {
		irdma_hmc_counts(hmc, m, qp, mr, av, pble);
		irdma_hmc_est_bytes(hmc, &rest, &pbles);
		all = DIV_ROUND_UP_ULL(rest + pbles, IRDMA_HMC_SD_SIZE);
		rest = DIV_ROUND_UP_ULL(rest, IRDMA_HMC_SD_SIZE);
		if (all <= hmc->max_sds && rest <= IRDMA_HMC_MAX_SDS)
			break;
		if (!irdma_hmc_shrink(loop, all > hmc->max_sds ?
				      all - hmc->max_sds : 0,
				      rest > IRDMA_HMC_MAX_SDS,
				      &qp, &mr, &av, &pble)) {
			dev_err(dev->dma, "HMC: the objects fit in no %u segments\n",
				hmc->max_sds);
			return -ENOSPC;
		}
	}
	/* What the reductions left free goes to PBLEs, as in Debian. */
	if (loop > 1 && all < hmc->max_sds) {
		spare = (hmc->max_sds - all) * IRDMA_HMC_PBLES_PER_SD;
		irdma_hmc_want(hmc, IRDMA_HMC_PBLE, pble + spare);
	}
	return 0;
}

static int irdma_hmc_commit(struct irdma_dev *dev, struct irdma_dma *buf)
{
	struct irdma_hmc *hmc = &dev->hmc;
	struct irdma_hmc_obj *o;
	struct irdma_cqp_cmd cmd;
	__le64 *q = buf->va;
	unsigned int t;
	u64 v;
	int err;

	/* No count for APBVT (one, implicit) nor the reserved type. */
	memset(q, 0, IRDMA_FPM_BUF_SIZE);
	for (t = 0; t < IRDMA_HMC_NUM_TYPES; t++)
		if (t != IRDMA_HMC_RSVD && t != IRDMA_HMC_APBVT)
			q[irdma_fpmc_off(t) / 8] = cpu_to_le64(hmc->obj[t].cnt);

	irdma_cqp_cmd_init(&cmd, IRDMA_CQP_OP_COMMIT_FPM_VAL,
			   FIELD_PREP(IRDMA_FPM_BUFSIZE, IRDMA_FPM_BUF_SIZE));
	cmd.wqe[2] = FIELD_PREP(IRDMA_HMC_FN, dev->hmc_fn);
	cmd.wqe[4] = buf->pa;
	err = irdma_cqp_exec(dev, &cmd);
	if (err) {
		dev_err(dev->dma, "HMC: FPM commit error %d (status 0x%x)\n",
			err, cmd.status);
		return err;
	}

	for (t = 0; t < IRDMA_HMC_NUM_TYPES; t++) {
		o = &hmc->obj[t];
		if (t == IRDMA_HMC_RSVD) {
			o->cnt = 0;
			o->base = 0;
			continue;
		}
		v = le64_to_cpu(q[irdma_fpmc_off(t) / 8]);
		if (t == IRDMA_HMC_QP)
			o->cnt = FIELD_GET(IRDMA_FPMC_QP_CNT, v);
		else if (t == IRDMA_HMC_CQ)
			o->cnt = FIELD_GET(IRDMA_FPMC_CQ_CNT, v);
		else if (t == IRDMA_HMC_APBVT)
			o->cnt = 1;
		else
			o->cnt = FIELD_GET(IRDMA_FPMC_CNT, v);
		o->base = FIELD_GET(IRDMA_FPMC_BASE, v) * IRDMA_HMC_BASE_UNIT;
	}
	return 0;
}

/*
 * Back every object but PBLEs: the segments from FPM address 0 to the
 * end of the highest of them, each one direct 2 MiB page.  Coherent
 * memory comes zeroed, as the device expects of a new object.
 */
static int irdma_hmc_back(struct irdma_dev *dev)
{
	struct irdma_sd_entry e[IRDMA_HMC_SDS_PER_CMD];
	struct irdma_hmc *hmc = &dev->hmc;
	struct irdma_hmc_obj *o;
	struct irdma_cqp_cmd cmd;
	unsigned int t, i, j, n;
	u64 end = 0, nsd;
	int err;

	for (t = 0; t < IRDMA_HMC_NUM_TYPES; t++) {
		o = &hmc->obj[t];
		if (t != IRDMA_HMC_PBLE && o->cnt)
			end = max(end, o->base + o->cnt * o->size);
	}
	nsd = DIV_ROUND_UP_ULL(end, IRDMA_HMC_SD_SIZE);
	if (nsd > IRDMA_HMC_MAX_SDS) {
		dev_err(dev->dma, "HMC: objects need %llu segments, at most %u\n",
			nsd, IRDMA_HMC_MAX_SDS);
		return -ENOSPC;
	}
	for (i = 0; i < nsd; i++) {
		err = irdma_dma_alloc(dev, &hmc->sd[i], IRDMA_HMC_SD_SIZE);
		if (err)
			return err;
	}
	for (i = 0; i < nsd; i += n) {
		n = min_t(u64, nsd - i, IRDMA_HMC_SDS_PER_CMD);
		for (j = 0; j < n; j++)
			irdma_sd_entry_set(dev, &e[j], i + j,
					   hmc->sd[i + j].pa);
		err = irdma_hmc_update_sds(dev, e, n);
		if (err) {
			dev_err(dev->dma, "HMC: segment setup error %d\n",
				err);
			return err;
		}
	}

	irdma_cqp_cmd_init(&cmd, IRDMA_CQP_OP_SHMC_PAGES_ALLOCATED, 0);
	cmd.wqe[2] = FIELD_PREP(IRDMA_HMC_FN, dev->hmc_fn);
	err = irdma_cqp_exec(dev, &cmd);
	if (err) {
		dev_err(dev->dma, "HMC: pages allocated error %d (status 0x%x)\n",
			err, cmd.status);
		return err;
	}
	hmc->nsd = nsd;
	return 0;
}

int irdma_hmc_setup(struct irdma_dev *dev)
{
	struct irdma_hmc *hmc = &dev->hmc;
	struct irdma_fpm_misc m = {};
	struct irdma_dma buf = {};
	int err;

	/* One buffer for the query's answer, then the commit's. */
	err = irdma_dma_alloc(dev, &buf, IRDMA_FPM_BUF_SIZE);
	if (err)
		return err;
	err = irdma_hmc_query(dev, &buf, &m);
	if (!err)
		err = irdma_hmc_choose(dev, &m);
	if (!err)
		err = irdma_hmc_commit(dev, &buf);
	irdma_hmc_buf_free(dev, &buf, err);
	if (!err)
		err = irdma_hmc_back(dev);
	if (err) {
		irdma_hmc_teardown(dev);
		return err;
	}

	dev->max_qp = hmc->obj[IRDMA_HMC_QP].cnt;
	dev->max_cq = hmc->obj[IRDMA_HMC_CQ].cnt;
	dev->max_mr = hmc->obj[IRDMA_HMC_MR].cnt;
	dev->max_ah = hmc->obj[IRDMA_HMC_FSIAV].cnt;
	dev->max_pd = IRDMA_GEN2_MAX_PDS;
	dev_dbg(dev->dma, "HMC: %u QPs, %u CQs, %u MRs, %u AHs, %u PBLEs at 0x%llx; %u segments from %u, of %u\n",
		dev->max_qp, dev->max_cq, dev->max_mr, dev->max_ah,
		hmc->obj[IRDMA_HMC_PBLE].cnt, hmc->obj[IRDMA_HMC_PBLE].base,
		hmc->nsd, hmc->first_sd, hmc->max_sds);
	return 0;
}

/* Best effort: with the CQP gone the device is too. */
static void irdma_hmc_clear_sds(struct irdma_dev *dev,
				const struct irdma_sd_entry *e, unsigned int n)
{
	int err;

	err = irdma_hmc_update_sds(dev, e, n);
	if (err)
		dev_dbg(dev->dma, "HMC: segments not cleared (%d)\n", err);
}

/*
 * Invalidate the segments, then free them: every one with a page, set
 * or not (invalidating one never set is harmless), so that this undoes
 * a partial setup too.
 */
void irdma_hmc_teardown(struct irdma_dev *dev)
{
	struct irdma_sd_entry e[IRDMA_HMC_SDS_PER_CMD];
	struct irdma_hmc *hmc = &dev->hmc;
	unsigned int i, n = 0;

	for (i = 0; i < IRDMA_HMC_MAX_SDS; i++) {
		if (!hmc->sd[i].va)
			continue;
		irdma_sd_entry_clear(dev, &e[n++], i);
		if (n == ARRAY_SIZE(e)) {
			irdma_hmc_clear_sds(dev, e, n);
			n = 0;
		}
	}
	if (n)
		irdma_hmc_clear_sds(dev, e, n);
	for (i = 0; i < IRDMA_HMC_MAX_SDS; i++)
		irdma_dma_free(dev, &hmc->sd[i]);
	hmc->nsd = 0;
}
