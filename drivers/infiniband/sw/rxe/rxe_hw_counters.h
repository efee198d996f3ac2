/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Per-device protocol counters, shown as the port's hw_counters (sysfs)
 * and by "rdma stat".
 */
#ifndef RXE_HW_COUNTERS_H
#define RXE_HW_COUNTERS_H

#include <rdma/ib_verbs.h>

/*
 * The order is the ABI order of the names in rxe_hw_counters.c: stock's
 * counters, then the optional ones (IB_STAT_FLAG_OPTIONAL, off by
 * default), which count the received packets rxe_recv.c drops before
 * any QP sees them, and the requests a QP's full responder queue drops.
 */
enum rxe_counter {
	RXE_CNT_SENT_PKTS,
	RXE_CNT_RCVD_PKTS,
	RXE_CNT_DUP_REQ,
	RXE_CNT_OUT_OF_SEQ_REQ,
	RXE_CNT_RCV_RNR,
	RXE_CNT_SND_RNR,
	RXE_CNT_RCV_SEQ_ERR,
	RXE_CNT_COMPLETER_SCHED,
	RXE_CNT_RETRY_EXCEEDED,
	RXE_CNT_RNR_RETRY_EXCEEDED,
	RXE_CNT_COMP_RETRY,
	RXE_CNT_SEND_ERR,
	RXE_CNT_LINK_DOWNED,
	RXE_CNT_RDMA_SEND,
	RXE_CNT_RDMA_RECV,
	RXE_CNT_RCV_ICRC_ERR,
	RXE_CNT_RCV_MALFORMED,
	RXE_CNT_RCV_NO_QP,
	RXE_CNT_RCV_QP_MISMATCH,
	RXE_CNT_RCV_RESP_OVERFLOW,
	RXE_NUM_OF_COUNTERS
};

/*
 * A QP counter set ("rdma statistic qp"): what its QPs counted, in the
 * port counters' layout.  Only what a QP causes counts here (see
 * rxe_hw_counters.c); the rest stays the port's.
 */
struct rxe_counter_set {
	atomic64_t		value[RXE_NUM_OF_COUNTERS];
	struct rcu_head		rcu;
};

struct rdma_counter;

struct rdma_hw_stats *rxe_counter_alloc_stats(struct rdma_counter *counter);
int rxe_counter_bind_qp(struct rdma_counter *counter, struct ib_qp *ibqp);
int rxe_counter_unbind_qp(struct ib_qp *ibqp);
int rxe_counter_dealloc(struct rdma_counter *counter);
int rxe_counter_update_stats(struct rdma_counter *counter);

struct rdma_hw_stats *rxe_alloc_hw_port_stats(struct ib_device *ibdev,
					      u32 port_num);
int rxe_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
		     u32 port_num, int index);
int rxe_modify_hw_stat(struct ib_device *ibdev, u32 port_num,
		       unsigned int index, bool enable);

#endif /* RXE_HW_COUNTERS_H */
