// SPDX-License-Identifier: GPL-2.0-only
/*
 * hw_counters of the port.  The counters themselves are atomic64_t in
 * struct rxe_dev, bumped by the protocol engine without any lock; the
 * core snapshots them into its rdma_hw_stats through rxe_get_hw_stats().
 *
 * The optional counters (receive drops) always count; enabling one only
 * makes "rdma statistic show" report it.  Counting is a single atomic
 * increment on a path that is already dropping the packet, so a switch
 * tested on every packet would cost more than it saves, and an enabled
 * counter then tells the whole history of the device, like the others.
 */
#include "rxe.h"

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

/* The optional counters start disabled: stock's output is unchanged. */
struct rdma_hw_stats *rxe_alloc_hw_port_stats(struct ib_device *ibdev,
					      u32 port_num)
{
	struct rdma_hw_stats *stats;
	int i;

	stats = rdma_alloc_hw_stats_struct(rxe_counter_descs,
					   ARRAY_SIZE(rxe_counter_descs),
					   RDMA_HW_STATS_DEFAULT_LIFESPAN);
	if (!stats)
		return NULL;

	for (i = 0; i < RXE_NUM_OF_COUNTERS; i++)
		if (rxe_counter_descs[i].flags & IB_STAT_FLAG_OPTIONAL)
			set_bit(i, stats->is_disabled);
	return stats;
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

/* Nothing to switch: the optional counters always count (see above). */
int rxe_modify_hw_stat(struct ib_device *ibdev, u32 port_num,
		       unsigned int index, bool enable)
{
	return 0;
}
