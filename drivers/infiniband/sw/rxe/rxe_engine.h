/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The protocol engine's parts and what each offers the others.  The
 * roles are those of IBTA vol. 1 chapter 9:
 *
 *   wire	rxe_opcode.c	the opcode table
 *		rxe_icrc.c	ICRC generation and check
 *		rxe_net.c	UDP sockets per network namespace, netdev
 *				events
 *		rxe_xmit.c	building and sending packets: routes,
 *				loopback, batches
 *		rxe_recv.c	validation and dispatch of received packets
 *   engine	rxe_req.c	requester: send WQEs to request packets
 *		rxe_resp.c	responder: requests to memory, receive
 *				completions and responses
 *		rxe_comp.c	completer: responses to send completions,
 *				retransmission
 *		rxe_qp.c	QP lifetime under traffic, posting
 *   memory	rxe_mr.c	keys, copies to and from MRs, atomics,
 *		rxe_mw.c	fast registration, invalidation, MW binding
 *
 * Rules every part keeps:
 *
 * - Nothing in a user-mapped queue is trusted or read twice: a WQE is
 *   copied out of the shared ring once, validated in kernel memory, and
 *   only that copy is used afterwards.
 * - A packet names memory only through a key that has been resolved and
 *   checked (PD, access, bounds with overflow) by the memory part;
 *   nothing else turns a wire address into a pointer.
 * - A received packet holds a reference on its QP (pkt->qp) while it is
 *   queued; QP destruction unpublishes the QP number first, stops new
 *   work, and waits for every reference before the memory goes.
 * - Errors are negative errnos inside the engine; what they become on
 *   the wire (NAK codes) or in a completion (ib_wc_status) is decided
 *   once, by the part that answers.
 */
#ifndef RXE_ENGINE_H
#define RXE_ENGINE_H

#include <linux/hrtimer.h>
#include <linux/sizes.h>
#include <linux/skbuff.h>
#include <linux/types.h>
#include <rdma/rdma_user_rxe.h>

#include "rxe_hdr.h"

struct rxe_dev;
struct rxe_qp;
struct rxe_pd;
struct rxe_mr;
struct rxe_av;
struct rxe_send_wqe;
struct rxe_dma_info;
struct rxe_task;

/* ---- wire: rxe_icrc.c ---- */

/* The ICRC of a packet whose headers are complete (IPv4 or IPv6). */
u32 rxe_icrc(struct sk_buff *skb, const struct rxe_pkt_info *pkt);
/* 0, or -EINVAL when the ICRC at the end of the packet is wrong. */
int rxe_icrc_check(struct sk_buff *skb, const struct rxe_pkt_info *pkt);

/* ---- wire: rxe_xmit.c (rxe_net.h: sockets, notifier) ---- */

/*
 * A packet of @opcode for @qp to the destination @av: the headers of the
 * opcode (BTH and extension headers) zeroed, then @len bytes of payload
 * that the caller writes (at rxe_payload_addr()), then the pad and the
 * ICRC.  Fills pkt->{rxe,qp,opcode,mask,hdr,paylen,port_num}; the caller
 * writes psn and the headers.  NULL when out of memory.
 */
struct sk_buff *rxe_init_packet(struct rxe_qp *qp, const struct rxe_av *av,
				u8 opcode, u32 len, struct rxe_pkt_info *pkt);

/*
 * Payload by reference, for a packet to this host's rxe only (see
 * rxe_av_to_self() and rxe_mr_attach()): the skb holds the headers
 * only; the caller appends the @len payload bytes as page
 * fragments, then the pad and ICRC with rxe_end_packet_ref() (0, or
 * -EMSGSIZE when no fragment is left: copy instead).
 */
struct sk_buff *rxe_init_packet_ref(struct rxe_qp *qp, const struct rxe_av *av,
				    u8 opcode, u32 len,
				    struct rxe_pkt_info *pkt);
int rxe_end_packet_ref(struct sk_buff *skb, const struct rxe_pkt_info *pkt);

/*
 * Whether @av's destination GID is its source GID: such packets are
 * always delivered to rxe_rcv() directly, never to the network.
 */
bool rxe_av_to_self(const struct rxe_av *av);

/*
 * Packets of one task run held back to leave together (rxe_xmit.c):
 * belongs to the task that sends, which empties it with rxe_xmit_flush()
 * before its run ends (rxe_task's end hook).  Zeroed: empty.
 */
struct rxe_xmit_batch {
	struct sk_buff		*head;	/* the first packet, or NULL */
	struct sk_buff		*last;	/* of head's frag_list, or NULL */
	struct rxe_dev		*rxe;
	struct dst_entry	*dst;	/* the head's route, compared only */
	unsigned int		count;	/* packets, the head included */
};

/*
 * The ACK that ends a message, waiting to leave with the requester's
 * next batch to the same peer (rxe_xmit.c, "Parked ACKs").  Belongs to
 * the QP: the responder parks, the requester's batch, the timer or the
 * responder's next packet take; skb is exchanged atomically (xchg()),
 * so exactly one of them sends it.
 */
struct rxe_ack_park {
	struct sk_buff		*skb;	/* routed, no ICRC yet; or NULL */
	struct rxe_dev		*rxe;
	struct hrtimer		timer;	/* sends it if nothing else did */
};

/*
 * Completes the IP/UDP headers and the ICRC and sends the packet, or
 * holds it in @batch (NULL: none) to leave with the others there; a
 * packet for a GID of this host is delivered to rxe_rcv() without
 * touching the network (and without computing the ICRC), after what
 * the batch holds.  Packets leave in the order they are given.
 * Consumes the skb in every case and counts sent_pkts, or send_err
 * when it fails.  -EAGAIN when the netdev's queue refused it: the caller
 * may build it again after a pause (struct rxe_xmit_wait).  A batch's
 * refusal is counted when the batch is sent, and nobody retries it.
 */
int rxe_xmit_packet(struct rxe_qp *qp, const struct rxe_av *av,
		    struct sk_buff *skb, struct rxe_xmit_batch *batch);
/*
 * The payload of a burst, at most (rxe_xmit.c, "Bursts"): with the
 * headers, within the 16 bits of pkt->paylen; its pages, however
 * aligned, within an skb's fragments (9 of them per MR range).
 */
#define RXE_BURST_BYTES		SZ_32K
/*
 * As rxe_xmit_packet(), for a burst standing for @npsn PSNs; @av must be
 * to this device (rxe_av_to_self()), anything else is refused.
 */
int rxe_xmit_burst(struct rxe_qp *qp, const struct rxe_av *av,
		   struct sk_buff *skb, struct rxe_xmit_batch *batch, u16 npsn);
/*
 * As rxe_xmit_packet(), for the ACK ending a message, which may instead
 * wait in @park when it would leave in a batch; an ACK parked before it
 * is superseded.  The responder's task only.
 */
void rxe_xmit_ack(struct rxe_qp *qp, const struct rxe_av *av,
		  struct sk_buff *skb, struct rxe_xmit_batch *batch,
		  struct rxe_ack_park *park);
/*
 * Whether @qp's packets to @av leave in batches now (one route lookup):
 * the ACKs of its messages may then be parked.
 */
bool rxe_xmit_batches(struct rxe_qp *qp, const struct rxe_av *av);
/*
 * Sends whatever @batch holds, with the ACK parked in @park (NULL: none)
 * if there is one.  The owner of @batch: its task, at the end of a run.
 */
void rxe_xmit_flush(struct rxe_xmit_batch *batch, struct rxe_ack_park *park);

/*
 * A task's pause after the netdev refused one of its packets (-EAGAIN:
 * a full queue) or a packet could not be allocated: the task puts the
 * packet back to be built again and sends nothing until the pause is
 * over; the timer then runs the task (rxe_xmit.c, "Refused packets").
 * @waiting and @backoff belong to the task: @waiting is set by
 * rxe_xmit_wait_start(), cleared by rxe_xmit_waiting() once the timer has
 * fired; each pause that follows a pause with nothing sent in between
 * doubles, up to @max_backoff doublings (0: every pause is the shortest).
 */
struct rxe_xmit_wait {
	struct hrtimer		timer;
	struct rxe_task		*task;
	bool			waiting;
	u8			backoff;
	u8			max_backoff;
};

/* The requester's longest pause: 100 us << 5 = 3.2 ms. */
#define RXE_XMIT_WAIT_MAX_BACKOFF	5

void rxe_xmit_wait_init(struct rxe_xmit_wait *wait, struct rxe_task *task,
			u8 max_backoff);
/* Starts the pause; returns 1, the task's "nothing to do for now". */
int rxe_xmit_wait_start(struct rxe_xmit_wait *wait);
/* Whether the pause goes on.  The task only. */
bool rxe_xmit_waiting(struct rxe_xmit_wait *wait);
/* A packet left: the next pause is the shortest again.  The task only. */
static inline void rxe_xmit_wait_sent(struct rxe_xmit_wait *wait)
{
	wait->backoff = 0;
}

/* Forgets a pause (the QP starts over); the timer may still run the task. */
static inline void rxe_xmit_wait_reset(struct rxe_xmit_wait *wait)
{
	wait->waiting = false;
	wait->backoff = 0;
}

/* Once the task is stopped: the timer will not run it any more. */
void rxe_xmit_wait_stop(struct rxe_xmit_wait *wait);

void rxe_ack_park_init(struct rxe_ack_park *park, struct rxe_dev *rxe);
/* The parked ACK, if any, into @batch, or sent at once (@batch NULL). */
void rxe_ack_unpark(struct rxe_ack_park *park, struct rxe_xmit_batch *batch);
/* Once nothing can park any more: the timer stopped, the ACK sent. */
void rxe_ack_park_stop(struct rxe_ack_park *park);

/* ---- wire: rxe_recv.c ---- */

/*
 * Entry of every received packet, in softirq context (or the sender's
 * context for loopback).  Validates it (lengths against the opcode,
 * ICRC unless loopback, QP, transport, P_Key, Q_Key, PSN not at all:
 * that is the receiver's role), counts rcvd_pkts, and hands it, with a
 * QP reference, to rxe_resp_queue_pkt() or rxe_comp_queue_pkt();
 * multicast packets to a clone per attached QP.  Consumes the skb.
 */
void rxe_rcv(struct sk_buff *skb);

/* ---- engine: rxe_qp.c ---- */

/* A referenced QP by number, or NULL (no such QP, or being destroyed). */
struct rxe_qp *rxe_qp_lookup(struct rxe_dev *rxe, u32 qpn);
void rxe_qp_get(struct rxe_qp *qp);
void rxe_qp_put(struct rxe_qp *qp);

/* ---- engine: rxe_resp.c, rxe_comp.c ---- */

/* Take ownership of a validated packet and of its QP reference. */
void rxe_resp_queue_pkt(struct rxe_qp *qp, struct sk_buff *skb);
void rxe_comp_queue_pkt(struct rxe_qp *qp, struct sk_buff *skb);

/* ---- memory: rxe_mr.c, rxe_mw.c ---- */

enum rxe_copy_dir {
	RXE_TO_MR,	/* from a kernel buffer into the MR */
	RXE_FROM_MR,	/* from the MR into a kernel buffer */
};

/*
 * A referenced MR for a local key of @pd allowing @access (IB_ACCESS_*
 * flags the use needs; 0 for a local read).  ERR_PTR(-EINVAL) for a bad
 * key, -EACCES for insufficient access.
 */
struct rxe_mr *rxe_mr_lookup_lkey(struct rxe_pd *pd, u32 lkey, int access);

/*
 * Resolves a remote key of a request to @qp for [*@va, *@va + @len): an
 * MR of the QP's PD, or a memory window bound to that PD (type 2: to
 * that QP), allowing @access (IB_ACCESS_REMOTE_*), the range inside it
 * without overflow.  A referenced MR (for a window, the MR beneath it),
 * *@va then the address in that MR (another one only for a zero-based
 * window, addressed from 0), or ERR_PTR: -EINVAL bad key or state,
 * -EACCES access, -ERANGE bounds.
 */
struct rxe_mr *rxe_rkey_resolve(struct rxe_qp *qp, u32 rkey, u64 *va, u32 len,
				int access);

void rxe_mr_get(struct rxe_mr *mr);
void rxe_mr_put(struct rxe_mr *mr);
bool rxe_mr_bind_mw(struct rxe_mr *mr);

/* Copies within a resolved range of @mr; 0 or -EFAULT. */
int rxe_mr_copy(struct rxe_mr *mr, u64 iova, void *addr, u32 len,
		enum rxe_copy_dir dir);

/*
 * Copies through the scatter list of a WQE (its kernel copy), resuming
 * where @dma stands and advancing it; lkeys are resolved in @pd with
 * @access.  -EINVAL/-EACCES for a bad SGE key, -ENOSPC past the list.
 */
int rxe_copy_sgl(struct rxe_pd *pd, int access, struct rxe_dma_info *dma,
		 void *addr, u32 len, enum rxe_copy_dir dir);

/*
 * Where a copy through a scatter list stands: saved before a packet's
 * worth is copied, put back when the packet could not be built or
 * placed (out of memory, an ODP page missing), so that the next attempt
 * starts at the same byte.
 */
struct rxe_dma_pos {
	u32	cur_sge;
	u32	sge_offset;
	u32	resid;
};

static inline struct rxe_dma_pos
rxe_dma_get_pos(const struct rxe_dma_info *dma)
{
	return (struct rxe_dma_pos){
		.cur_sge = dma->cur_sge,
		.sge_offset = dma->sge_offset,
		.resid = dma->resid,
	};
}

static inline void rxe_dma_set_pos(struct rxe_dma_info *dma,
				   struct rxe_dma_pos pos)
{
	dma->cur_sge = pos.cur_sge;
	dma->sge_offset = pos.sge_offset;
	dma->resid = pos.resid;
}

/*
 * By reference instead of by copy (rxe_init_packet_ref()): appends
 * [@iova, @iova + @len) of a user MR to @skb as page fragments, each
 * holding a reference on its page, so that the pages outlive the MR if
 * need be.  Only for a packet that this host's rxe copies out before the
 * WQE that sent it can complete.  -EOPNOTSUPP when the MR is not of
 * pinned user pages, -EMSGSIZE when @skb has no fragment left (copy
 * instead, or attach less: rxe_attach_refused()), -EFAULT out of the MR.
 */
int rxe_mr_attach(struct rxe_mr *mr, u64 iova, u32 len, struct sk_buff *skb);

/*
 * An error of rxe_mr_attach() or rxe_end_packet_ref() that asks for a
 * copy instead; of the two, only -EMSGSIZE may pass with a shorter
 * payload.
 */
static inline bool rxe_attach_refused(int err)
{
	return err == -EOPNOTSUPP || err == -EMSGSIZE;
}

/* rxe_copy_sgl() from the MRs, by reference: as rxe_mr_attach(). */
int rxe_attach_sgl(struct rxe_pd *pd, struct rxe_dma_info *dma, u32 len,
		   struct sk_buff *skb);

/*
 * The payload of a received packet (linear, or page fragments when sent
 * by reference) into MR memory: through the scatter list @dma (resolved
 * in @pd for local write), or at @iova of a resolved range of @mr.
 * As rxe_copy_sgl() and rxe_mr_copy().
 */
int rxe_copy_pkt_to_sgl(struct rxe_pd *pd, struct rxe_dma_info *dma,
			struct rxe_pkt_info *pkt);
int rxe_copy_pkt_to_mr(struct rxe_mr *mr, u64 iova, struct rxe_pkt_info *pkt);

/*
 * The 8-byte atomic of @opcode (IB_OPCODE_COMPARE_SWAP or FETCH_ADD at
 * the responder, or RXE_OPCODE_RC_ATOMIC_WRITE) at @iova of @mr; the
 * original value into @orig (not for ATOMIC WRITE).  -EINVAL when @iova
 * is not 8-byte aligned.
 */
int rxe_mr_atomic(struct rxe_mr *mr, u64 iova, u8 opcode, u64 comp,
		  u64 swap_add, u64 *orig);

/* Send-queue operations on memory, executed in WQE order. */
int rxe_mr_fast_reg(struct rxe_qp *qp, const struct rxe_send_wqe *wqe);
int rxe_invalidate_key(struct rxe_qp *qp, u32 key, bool remote);
int rxe_mw_bind(struct rxe_qp *qp, const struct rxe_send_wqe *wqe);

#endif /* RXE_ENGINE_H */
