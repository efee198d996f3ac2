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

#define IRDMA_STAT(_name, _offset, _bits)				\
	{ .name = _name,						\
	  .priv = &(const struct irdma_stat){ _offset, _bits } }

/*
 * Each counter by name, in Debian's order, with its place in the gather
 * buffer (gen 2's layout).  rdma_alloc_hw_stats_struct() keeps pointers
 * to these: static.
 */
static const struct rdma_stat_desc irdma_stat_descs[] = {
	IRDMA_STAT("ip4InDiscards", 28, 32),
	IRDMA_STAT("ip4InTruncatedPkts", 24, 32),
	IRDMA_STAT("ip4OutNoRoutes", 188, 32),
	IRDMA_STAT("ip6InDiscards", 76, 32),
	IRDMA_STAT("ip6InTruncatedPkts", 72, 32),
	IRDMA_STAT("ip6OutNoRoutes", 184, 32),
	IRDMA_STAT("tcpRetransSegs", 220, 32),
	IRDMA_STAT("tcpInOptErrors", 204, 32),
	IRDMA_STAT("tcpInProtoErrors", 200, 32),
	IRDMA_STAT("rxVlanErrors", 4, 32),
	IRDMA_STAT("cnpHandled", 312, 32),
	IRDMA_STAT("cnpIgnored", 316, 32),
	IRDMA_STAT("cnpSent", 320, 32),
	IRDMA_STAT("ip4InOctets", 8, 48),
	IRDMA_STAT("ip4InPkts", 16, 48),
	IRDMA_STAT("ip4InReasmRqd", 32, 48),
	IRDMA_STAT("ip4InMcastPkts", 48, 48),
	IRDMA_STAT("ip4OutOctets", 104, 48),
	IRDMA_STAT("ip4OutPkts", 112, 48),
	IRDMA_STAT("ip4OutSegRqd", 120, 48),
	IRDMA_STAT("ip4OutMcastPkts", 136, 48),
	IRDMA_STAT("ip6InOctets", 56, 48),
	IRDMA_STAT("ip6InPkts", 64, 48),
	IRDMA_STAT("ip6InReasmRqd", 80, 48),
	IRDMA_STAT("ip6InMcastPkts", 96, 48),
	IRDMA_STAT("ip6OutOctets", 144, 48),
	IRDMA_STAT("ip6OutPkts", 152, 48),
	IRDMA_STAT("ip6OutSegRqd", 160, 48),
	IRDMA_STAT("ip6OutMcastPkts", 176, 48),
	IRDMA_STAT("tcpInSegs", 192, 48),
	IRDMA_STAT("tcpOutSegs", 208, 48),
	IRDMA_STAT("iwInRdmaReads", 248, 48),
	IRDMA_STAT("iwInRdmaSends", 256, 48),
	IRDMA_STAT("iwInRdmaWrites", 240, 48),
	IRDMA_STAT("iwOutRdmaReads", 272, 48),
	IRDMA_STAT("iwOutRdmaSends", 280, 48),
	IRDMA_STAT("iwOutRdmaWrites", 264, 48),
	IRDMA_STAT("iwRdmaBnd", 288, 48),
	IRDMA_STAT("iwRdmaInv", 296, 48),
	IRDMA_STAT("ip4InMcastOctets", 40, 48),
	IRDMA_STAT("ip4OutMcastOctets", 128, 48),
	IRDMA_STAT("ip6InMcastOctets", 88, 48),
	IRDMA_STAT("ip6OutMcastOctets", 168, 48),
	IRDMA_STAT("RxUDP", 224, 48),
	IRDMA_STAT("TxUDP", 232, 48),
	IRDMA_STAT("RxECNMrkd", 304, 48),
};

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
	const struct irdma_stat *st;
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
		st = irdma_stat_descs[i].priv;
		now = irdma_stat_read(s->buf.va, st);
		mask = GENMASK_ULL(st->bits - 1, 0);
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
