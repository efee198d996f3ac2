// SPDX-License-Identifier: GPL-2.0-only
/*
 * irdma: the port's hardware counters (rdma statistic, the port's
 * hw_counters in sysfs).
 *
 * The PE keeps its counters in a statistics instance, allocated with
 * MANAGE_STATS; GATHER_STATS copies them all to a 1 KiB buffer.  Some
 * are 32 bits wide, the rest 48: each gather adds the difference from
 * the one before, modulo the counter's width, to 64-bit totals.  A
 * gather runs for every read of the counters and once a minute besides,
 * so that a 32-bit counter cannot wrap twice unseen.  The names and
 * their order are Debian's irdma's, so that tools reading them by name
 * see the same counters.
 */

#include <linux/bitfield.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>

#include "hw.h"
#include "irdma.h"
#include "verbs.h"

#define IRDMA_STATS_INTERVAL	(60 * HZ)

/* Where a counter is in the gather buffer, and its width in bits. */
struct irdma_stat {
	u16 offset;
	u8 bits;
};

/* rdma_alloc_hw_stats_struct() keeps pointers to these: static. */
static const struct rdma_stat_desc irdma_stat_descs[] = {
	{ .name = "ip4InDiscards" },
	{ .name = "ip4InTruncatedPkts" },
	{ .name = "ip4OutNoRoutes" },
	{ .name = "ip6InDiscards" },
	{ .name = "ip6InTruncatedPkts" },
	{ .name = "ip6OutNoRoutes" },
	{ .name = "tcpRetransSegs" },
	{ .name = "tcpInOptErrors" },
	{ .name = "tcpInProtoErrors" },
	{ .name = "rxVlanErrors" },
	{ .name = "cnpHandled" },
	{ .name = "cnpIgnored" },
	{ .name = "cnpSent" },
	{ .name = "ip4InOctets" },
	{ .name = "ip4InPkts" },
	{ .name = "ip4InReasmRqd" },
	{ .name = "ip4InMcastPkts" },
	{ .name = "ip4OutOctets" },
	{ .name = "ip4OutPkts" },
	{ .name = "ip4OutSegRqd" },
	{ .name = "ip4OutMcastPkts" },
	{ .name = "ip6InOctets" },
	{ .name = "ip6InPkts" },
	{ .name = "ip6InReasmRqd" },
	{ .name = "ip6InMcastPkts" },
	{ .name = "ip6OutOctets" },
	{ .name = "ip6OutPkts" },
	{ .name = "ip6OutSegRqd" },
	{ .name = "ip6OutMcastPkts" },
	{ .name = "tcpInSegs" },
	{ .name = "tcpOutSegs" },
	{ .name = "iwInRdmaReads" },
	{ .name = "iwInRdmaSends" },
	{ .name = "iwInRdmaWrites" },
	{ .name = "iwOutRdmaReads" },
	{ .name = "iwOutRdmaSends" },
	{ .name = "iwOutRdmaWrites" },
	{ .name = "iwRdmaBnd" },
	{ .name = "iwRdmaInv" },
	{ .name = "ip4InMcastOctets" },
	{ .name = "ip4OutMcastOctets" },
	{ .name = "ip6InMcastOctets" },
	{ .name = "ip6OutMcastOctets" },
	{ .name = "RxUDP" },
	{ .name = "TxUDP" },
	{ .name = "RxECNMrkd" },
};

/* Each of irdma_stat_descs in the gather buffer (gen 2's layout). */
static const struct irdma_stat irdma_stats_layout[] = {
	{ 28, 32 }, { 24, 32 }, { 188, 32 }, { 76, 32 }, { 72, 32 },
	{ 184, 32 }, { 220, 32 }, { 204, 32 }, { 200, 32 }, { 4, 32 },
	{ 312, 32 }, { 316, 32 }, { 320, 32 },
	{ 8, 48 }, { 16, 48 }, { 32, 48 }, { 48, 48 },
	{ 104, 48 }, { 112, 48 }, { 120, 48 }, { 136, 48 },
	{ 56, 48 }, { 64, 48 }, { 80, 48 }, { 96, 48 },
	{ 144, 48 }, { 152, 48 }, { 160, 48 }, { 176, 48 },
	{ 192, 48 }, { 208, 48 },
	{ 248, 48 }, { 256, 48 }, { 240, 48 },
	{ 272, 48 }, { 280, 48 }, { 264, 48 },
	{ 288, 48 }, { 296, 48 },
	{ 40, 48 }, { 128, 48 }, { 88, 48 }, { 168, 48 },
	{ 224, 48 }, { 232, 48 }, { 304, 48 },
};

static_assert(ARRAY_SIZE(irdma_stats_layout) == IRDMA_NSTATS);
static_assert(ARRAY_SIZE(irdma_stat_descs) == IRDMA_NSTATS);

static u64 irdma_stat_read(const u8 *buf, const struct irdma_stat *st)
{
	if (st->bits == 32)
		return le32_to_cpup((const __le32 *)(buf + st->offset));
	return le64_to_cpup((const __le64 *)(buf + st->offset)) &
	       GENMASK_ULL(st->bits - 1, 0);
}

/* One gather, its differences added to the totals. */
static int irdma_stats_gather(struct irdma_dev *dev)
{
	struct irdma_stats *s = &dev->stats;
	struct irdma_cqp_cmd cmd;
	unsigned int i;
	u64 now, mask;
	int err;

	lockdep_assert_held(&s->lock);
	irdma_cqp_cmd_init(&cmd, IRDMA_CQP_OP_GATHER_STATS,
			   IRDMA_STATS_USE_INST |
			   FIELD_PREP(IRDMA_STATS_INST, s->inst));
	cmd.wqe[4] = s->buf.pa;
	err = irdma_cqp_exec(dev, &cmd);
	if (err)
		return err;
	for (i = 0; i < IRDMA_NSTATS; i++) {
		now = irdma_stat_read(s->buf.va, &irdma_stats_layout[i]);
		mask = GENMASK_ULL(irdma_stats_layout[i].bits - 1, 0);
		s->total[i] += (now - s->last[i]) & mask;
		s->last[i] = now;
	}
	return 0;
}

static void irdma_stats_work(struct work_struct *work)
{
	struct irdma_dev *dev = container_of(to_delayed_work(work),
					     struct irdma_dev, stats.work);

	mutex_lock(&dev->stats.lock);
	irdma_stats_gather(dev);
	mutex_unlock(&dev->stats.lock);
	schedule_delayed_work(&dev->stats.work, IRDMA_STATS_INTERVAL);
}

static int irdma_stats_inst(struct irdma_dev *dev, bool alloc, u32 *inst)
{
	struct irdma_cqp_cmd cmd;
	int err;

	irdma_cqp_cmd_init(&cmd, IRDMA_CQP_OP_MANAGE_STATS,
			   (alloc ? IRDMA_STATS_ALLOC_INST : 0) |
			   FIELD_PREP(IRDMA_STATS_INST, alloc ? 0 : *inst));
	err = irdma_cqp_exec(dev, &cmd);
	if (!err && alloc)
		*inst = cmd.ret;
	return err;
}

/*
 * The counters count from here: a first gather takes what the instance
 * holds already (nothing on a new one; the model's counters are the
 * function's, since its reset) as the point each difference starts at.
 */
int irdma_stats_init(struct irdma_dev *dev)
{
	struct irdma_stats *s = &dev->stats;
	u32 inst;
	int err;

	mutex_init(&s->lock);
	INIT_DELAYED_WORK(&s->work, irdma_stats_work);
	err = irdma_dma_alloc(dev, &s->buf, IRDMA_STATS_BUF_SIZE);
	if (err)
		return err;
	err = irdma_stats_inst(dev, true, &inst);
	if (err)
		goto free;
	if (inst > FIELD_MAX(IRDMA_STATS_INST)) {
		err = -EIO;
		goto free;
	}
	s->inst = inst;
	mutex_lock(&s->lock);
	err = irdma_stats_gather(dev);
	memset(s->total, 0, sizeof(s->total));
	mutex_unlock(&s->lock);
	if (err)
		goto free_inst;
	schedule_delayed_work(&s->work, IRDMA_STATS_INTERVAL);
	return 0;

free_inst:
	irdma_stats_inst(dev, false, &inst);
free:
	irdma_dma_free(dev, &s->buf);
	return err;
}

void irdma_stats_fini(struct irdma_dev *dev)
{
	struct irdma_stats *s = &dev->stats;
	u32 inst = s->inst;

	if (!s->buf.va)
		return;
	cancel_delayed_work_sync(&s->work);
	if (irdma_stats_inst(dev, false, &inst))
		dev_warn(dev->dma, "statistics instance %u not freed\n", inst);
	irdma_dma_free(dev, &s->buf);
}

struct rdma_hw_stats *irdma_alloc_hw_port_stats(struct ib_device *ibdev,
						u32 port_num)
{
	return rdma_alloc_hw_stats_struct(irdma_stat_descs, IRDMA_NSTATS,
					  RDMA_HW_STATS_DEFAULT_LIFESPAN);
}

int irdma_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
		       u32 port_num, int index)
{
	struct irdma_dev *dev = to_idev(ibdev);
	struct irdma_stats *s = &dev->stats;
	int err;

	mutex_lock(&s->lock);
	err = irdma_stats_gather(dev);
	if (!err)
		memcpy(stats->value, s->total, sizeof(s->total));
	mutex_unlock(&s->lock);
	return err ?: IRDMA_NSTATS;
}
