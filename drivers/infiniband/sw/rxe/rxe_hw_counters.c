// SPDX-License-Identifier: GPL-2.0-only
/*
 * hw_counters of the port.  The counters themselves are atomic64_t in
 * struct rxe_dev, bumped by the protocol engine without any lock; the
 * core snapshots them into its rdma_hw_stats through rxe_get_hw_stats().
 *
 * QP counter sets ("rdma statistic qp", bound by the core) are struct
 * rxe_counter_set in rxe->counter_sets, by the core's counter id.  A QP
 * bound to one counts there what the protocol engine attributes to it
 * (rxe_qp_counter_inc()) and not in the port's, so the core's sum of
 * both counts it once.  Packets sent and refused, and receive drops
 * before a QP is found, stay the port's: a set shows only its own
 * (rxe_counters_qp).
 *
 * The optional counters (receive drops) always count; enabling one only
 * makes "rdma statistic show" report it.  Counting is a single atomic
 * increment on a path that is already dropping the packet, so a switch
 * tested on every packet would cost more than it saves, and an enabled
 * counter then tells the whole history of the device, like the others.
 */
#include <linux/slab.h>
#include <linux/xarray.h>
#include <rdma/rdma_counter.h>

#include "rxe.h"
#include "rxe_verbs.h"

/* Names as the stock driver reports them: tools and scripts match them. */
static const struct rdma_stat_desc rxe_counter_descs[] = {
	[RXE_CNT_SENT_PKTS].name		= "sent_pkts",
	[RXE_CNT_RCVD_PKTS].name		= "rcvd_pkts",
	[RXE_CNT_DUP_REQ].name			= "duplicate_request",
	[RXE_CNT_OUT_OF_SEQ_REQ].name		= "out_of_seq_request",
	[RXE_CNT_RCV_RNR].name			= "rcvd_rnr_err",
	[RXE_CNT_SND_RNR].name			= "send_rnr_err",
	[RXE_CNT_RCV_SEQ_ERR].name		= "rcvd_seq_err",
	[RXE_CNT_COMPLETER_SCHED].name		= "ack_deferred",
	[RXE_CNT_RETRY_EXCEEDED].name		= "retry_exceeded_err",
	[RXE_CNT_RNR_RETRY_EXCEEDED].name	= "retry_rnr_exceeded_err",
	[RXE_CNT_COMP_RETRY].name		= "completer_retry_err",
	[RXE_CNT_SEND_ERR].name			= "send_err",
	[RXE_CNT_LINK_DOWNED].name		= "link_downed",
	[RXE_CNT_RDMA_SEND].name		= "rdma_sends",
	[RXE_CNT_RDMA_RECV].name		= "rdma_recvs",
	/*
	 * Ours only: not in sysfs (the core shows no optional counter
	 * there), so stock's hw_counters/ and default "rdma stat" stay.
	 */
	[RXE_CNT_RCV_ICRC_ERR] = {
		.name = "rcvd_icrc_err", .flags = IB_STAT_FLAG_OPTIONAL,
	},
	[RXE_CNT_RCV_MALFORMED] = {
		.name = "rcvd_malformed_err", .flags = IB_STAT_FLAG_OPTIONAL,
	},
	[RXE_CNT_RCV_NO_QP] = {
		.name = "rcvd_no_qp_err", .flags = IB_STAT_FLAG_OPTIONAL,
	},
	[RXE_CNT_RCV_QP_MISMATCH] = {
		.name = "rcvd_qp_mismatch_err", .flags = IB_STAT_FLAG_OPTIONAL,
	},
	[RXE_CNT_RCV_RESP_OVERFLOW] = {
		.name = "rcvd_resp_overflow_err",
		.flags = IB_STAT_FLAG_OPTIONAL,
	},
};

static_assert(ARRAY_SIZE(rxe_counter_descs) == RXE_NUM_OF_COUNTERS);

/* One word holds a flag per counter (rxe_alloc_stats()). */
static_assert(RXE_NUM_OF_COUNTERS <= BITS_PER_LONG);

/* The port's layout, the counters in @hidden disabled. */
static struct rdma_hw_stats *rxe_alloc_stats(unsigned long hidden)
{
	struct rdma_hw_stats *stats;

	stats = rdma_alloc_hw_stats_struct(rxe_counter_descs,
					   ARRAY_SIZE(rxe_counter_descs),
					   RDMA_HW_STATS_DEFAULT_LIFESPAN);
	if (stats)
		bitmap_copy(stats->is_disabled, &hidden, RXE_NUM_OF_COUNTERS);
	return stats;
}

/*
 * The optional counters (the last ones, rxe_hw_counters.h) start
 * disabled: stock's output is unchanged.
 */
struct rdma_hw_stats *rxe_alloc_hw_port_stats(struct ib_device *ibdev,
					      u32 port_num)
{
	return rxe_alloc_stats(GENMASK(RXE_NUM_OF_COUNTERS - 1,
				       RXE_CNT_RCV_ICRC_ERR));
}

/* Reading all of them costs no more than one: always refresh them all. */
int rxe_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
		     u32 port_num, int index)
{
	struct rxe_dev *rxe = to_rdev(ibdev);
	int i;

	for (i = 0; i < RXE_NUM_OF_COUNTERS; i++)
		stats->value[i] = atomic64_read(&rxe->stats_counters[i]);

	return RXE_NUM_OF_COUNTERS;
}

/* What a QP's counter set counts: the others stay the port's. */
static const unsigned long rxe_counters_qp =
	BIT(RXE_CNT_RCVD_PKTS) | BIT(RXE_CNT_DUP_REQ) |
	BIT(RXE_CNT_OUT_OF_SEQ_REQ) | BIT(RXE_CNT_RCV_RNR) |
	BIT(RXE_CNT_SND_RNR) | BIT(RXE_CNT_RCV_SEQ_ERR) |
	BIT(RXE_CNT_RETRY_EXCEEDED) | BIT(RXE_CNT_RNR_RETRY_EXCEEDED) |
	BIT(RXE_CNT_COMP_RETRY) | BIT(RXE_CNT_RDMA_SEND) |
	BIT(RXE_CNT_RDMA_RECV) | BIT(RXE_CNT_RCV_RESP_OVERFLOW);

/* A counter's values: the port's layout, showing only a QP's own. */
struct rdma_hw_stats *rxe_counter_alloc_stats(struct rdma_counter *counter)
{
	return rxe_alloc_stats(~rxe_counters_qp &
			       GENMASK(RXE_NUM_OF_COUNTERS - 1, 0));
}

/* A new counter (no id yet) gets its set, and its id from the set's slot. */
int rxe_counter_bind_qp(struct rdma_counter *counter, struct ib_qp *ibqp)
{
	struct rxe_dev *rxe = to_rdev(counter->device);
	struct rxe_counter_set *set;
	u32 id;
	int err;

	if (!counter->id) {
		set = kzalloc(sizeof(*set), GFP_KERNEL);
		if (!set)
			return -ENOMEM;
		err = xa_alloc(&rxe->counter_sets, &id, set, xa_limit_31b,
			       GFP_KERNEL);
		if (err) {
			kfree(set);
			return err;
		}
		counter->id = id;
	} else {
		set = xa_load(&rxe->counter_sets, counter->id);
		if (!set)
			return -EINVAL;
	}
	rcu_assign_pointer(to_rqp(ibqp)->counter_set, set);
	return 0;
}

/*
 * The QP counts in the port's counters again; a packet in flight may
 * still count in the set, which lives on until the counter goes.
 */
int rxe_counter_unbind_qp(struct ib_qp *ibqp)
{
	RCU_INIT_POINTER(to_rqp(ibqp)->counter_set, NULL);
	return 0;
}

/* Freed once no packet that saw it bound can still count in it. */
int rxe_counter_dealloc(struct rdma_counter *counter)
{
	struct rxe_counter_set *set;

	set = xa_erase(&to_rdev(counter->device)->counter_sets, counter->id);
	if (set)
		kfree_rcu(set, rcu);
	return 0;
}

int rxe_counter_update_stats(struct rdma_counter *counter)
{
	struct rxe_counter_set *set;
	int i;

	/* The core holds the counter: its set is there until dealloc. */
	set = xa_load(&to_rdev(counter->device)->counter_sets, counter->id);
	if (!set)
		return -EINVAL;
	for (i = 0; i < RXE_NUM_OF_COUNTERS; i++)
		counter->stats->value[i] = atomic64_read(&set->value[i]);
	return 0;
}

/* Nothing to switch: the optional counters always count (see above). */
int rxe_modify_hw_stat(struct ib_device *ibdev, u32 port_num,
		       unsigned int index, bool enable)
{
	return 0;
}
