/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * RoCEv2 transport headers on the wire (IBTA vol. 1, 9.2 and 9.3; the
 * RoCEv2 annex A17), the per-packet metadata every part of the engine
 * shares, and accessors for both.
 *
 * A RoCEv2 packet is IPv4 or IPv6, UDP to port 4791, then:
 *
 *	BTH [RDETH] [DETH] [RETH] [AETH] [AtomicETH|AtomicAckETH]
 *	    [ImmDt] [IETH] payload pad(0..3) ICRC(4)
 *
 * which headers appear is a property of the opcode (rxe_opcode.h).  All
 * fields are big endian.  The accessors read and write through
 * pkt->hdr, which points at the BTH; they never check that the header is
 * present: the receive path validates pkt->mask and the length against
 * the opcode before anything else looks at a packet.
 */
#ifndef RXE_HDR_H
#define RXE_HDR_H

#include <linux/skbuff.h>
#include <linux/types.h>
#include <asm/byteorder.h>
#include <asm/unaligned.h>

#include "rxe_opcode.h"

struct rxe_dev;
struct rxe_qp;
struct rxe_av;

/* Base transport header, 12 bytes. */
struct rxe_bth {
	u8	opcode;
	u8	flags;		/* SE, M, PadCnt, TVer */
	__be16	pkey;
	__be32	qpn;		/* FECN, BECN, reserved, DestQP */
	__be32	apsn;		/* AckReq, reserved, PSN */
};

#define RXE_BTH_SE		0x80
#define RXE_BTH_MIG		0x40
#define RXE_BTH_PAD_MASK	0x30
#define RXE_BTH_PAD_SHIFT	4
#define RXE_BTH_TVER_MASK	0x0f
#define RXE_BTH_TVER		0
#define RXE_BTH_FECN		0x80000000
#define RXE_BTH_BECN		0x40000000
#define RXE_BTH_RESV6A		0x3f000000
#define RXE_BTH_QPN_MASK	0x00ffffff
#define RXE_BTH_ACK		0x80000000
#define RXE_BTH_RESV7		0x7f000000
#define RXE_BTH_PSN_MASK	0x00ffffff

/* Datagram extended transport header (UD), 8 bytes. */
struct rxe_deth {
	__be32	qkey;
	__be32	sqp;		/* reserved, SrcQP */
};

/* RDMA extended transport header, 16 bytes. */
struct rxe_reth {
	__be64	va;
	__be32	rkey;
	__be32	len;
};

/* ACK extended transport header, 4 bytes. */
struct rxe_aeth {
	__be32	smsn;		/* Syndrome, MSN */
};

#define RXE_AETH_SYN_MASK	0xff000000
#define RXE_AETH_SYN_SHIFT	24
#define RXE_AETH_MSN_MASK	0x00ffffff

/* AETH syndromes (IBTA vol. 1, 9.7.5.1.1, table 42). */
enum rxe_aeth_syndrome {
	RXE_AETH_TYPE_MASK	= 0xe0,
	RXE_AETH_ACK		= 0x00,	/* low 5 bits: credit count */
	RXE_AETH_RNR_NAK	= 0x20,	/* low 5 bits: RNR timer code */
	RXE_AETH_RSVD		= 0x40,
	RXE_AETH_NAK		= 0x60,	/* low 5 bits: enum rxe_nak_code */
	RXE_AETH_ACK_UNLIMITED	= 0x1f,	/* ACK: credits not used */
};

enum rxe_nak_code {
	RXE_NAK_PSN_SEQ_ERR	= 0,
	RXE_NAK_INVALID_REQ	= 1,
	RXE_NAK_REM_ACC_ERR	= 2,
	RXE_NAK_REM_OP_ERR	= 3,
	RXE_NAK_INV_RD_REQ	= 4,
};

/* Atomic extended transport header, 28 bytes. */
struct rxe_atmeth {
	__be64	va;
	__be32	rkey;
	__be64	swap_add;
	__be64	comp;
} __packed;

/* Atomic acknowledge extended transport header, 8 bytes. */
struct rxe_atmack {
	__be64	orig;
};

/* Immediate data, 4 bytes. */
struct rxe_immdt {
	__be32	imm;
};

/* Invalidate extended transport header, 4 bytes. */
struct rxe_ieth {
	__be32	rkey;
};

#define RXE_ICRC_SIZE		4
#define RXE_MAX_HDR_LENGTH	80	/* IPv6 + UDP + BTH + RETH + ICRC */

/*
 * PSNs are 24-bit and compared in a window of half their space.  Only
 * the sign of the result means anything: it is the distance scaled by
 * 2^8, so a distance is rxe_psn_dist()'s.
 */
static inline int rxe_psn_cmp(u32 a, u32 b)
{
	return (s32)((a - b) << 8);
}

/* How many PSNs from @b up to @a (@a not before @b). */
static inline u32 rxe_psn_dist(u32 a, u32 b)
{
	return (a - b) & RXE_BTH_PSN_MASK;
}

/*
 * What every part of the engine knows about one packet, kept in the
 * skb's control buffer from the moment it is built (requester,
 * responder) or validated (receive path) until it is freed.
 */
struct rxe_pkt_info {
	struct rxe_dev		*rxe;
	/*
	 * The QP the packet is for (receive) or from (send).  On receive
	 * the packet holds a reference on it (rxe_qp_get()) until the
	 * part it was queued to has finished with it.
	 */
	struct rxe_qp		*qp;
	u8			*hdr;		/* the BTH */
	u32			mask;		/* enum rxe_opcode_mask */
	u32			psn;
	u16			paylen;		/* from BTH through ICRC */
	/*
	 * The PSNs the packet stands for, from psn on: 1, or more for a
	 * burst, which only a QP of this host sends and only to one of
	 * this host (rxe_xmit_burst()); a packet from the wire is one.
	 */
	u16			npsn;
	u8			opcode;
	u8			port_num;
};

/* The last PSN @pkt stands for: its own, but for a burst. */
static inline u32 rxe_pkt_last_psn(const struct rxe_pkt_info *pkt)
{
	return (pkt->psn + pkt->npsn - 1) & RXE_BTH_PSN_MASK;
}

static inline struct rxe_pkt_info *rxe_skb_pkt(struct sk_buff *skb)
{
	BUILD_BUG_ON(sizeof(struct rxe_pkt_info) >
		     sizeof_field(struct sk_buff, cb));
	return (struct rxe_pkt_info *)skb->cb;
}

static inline struct sk_buff *rxe_pkt_skb(struct rxe_pkt_info *pkt)
{
	return container_of((void *)pkt, struct sk_buff, cb);
}

static inline void *rxe_hdr_at(const struct rxe_pkt_info *pkt,
			       enum rxe_hdr_type type)
{
	return pkt->hdr + rxe_opcode[pkt->opcode].offset[type];
}

/* BTH */
static inline struct rxe_bth *rxe_bth(const struct rxe_pkt_info *pkt)
{
	return (struct rxe_bth *)pkt->hdr;
}

static inline u8 bth_opcode(const struct rxe_pkt_info *pkt)
{
	return rxe_bth(pkt)->opcode;
}

static inline bool bth_se(const struct rxe_pkt_info *pkt)
{
	return rxe_bth(pkt)->flags & RXE_BTH_SE;
}

static inline u8 bth_pad(const struct rxe_pkt_info *pkt)
{
	return (rxe_bth(pkt)->flags & RXE_BTH_PAD_MASK) >> RXE_BTH_PAD_SHIFT;
}

static inline u8 bth_tver(const struct rxe_pkt_info *pkt)
{
	return rxe_bth(pkt)->flags & RXE_BTH_TVER_MASK;
}

static inline u16 bth_pkey(const struct rxe_pkt_info *pkt)
{
	return be16_to_cpu(rxe_bth(pkt)->pkey);
}

static inline u32 bth_qpn(const struct rxe_pkt_info *pkt)
{
	return be32_to_cpu(rxe_bth(pkt)->qpn) & RXE_BTH_QPN_MASK;
}

static inline bool bth_ack(const struct rxe_pkt_info *pkt)
{
	return be32_to_cpu(rxe_bth(pkt)->apsn) & RXE_BTH_ACK;
}

static inline u32 bth_psn(const struct rxe_pkt_info *pkt)
{
	return be32_to_cpu(rxe_bth(pkt)->apsn) & RXE_BTH_PSN_MASK;
}

/* Writes a whole BTH; M is always 0, as stock sends it. */
static inline void bth_init(struct rxe_pkt_info *pkt, u8 opcode, bool se,
			    u8 pad, u16 pkey, u32 qpn, bool ack, u32 psn)
{
	struct rxe_bth *bth = rxe_bth(pkt);

	bth->opcode = opcode;
	bth->flags = (se ? RXE_BTH_SE : 0) |
		     (pad << RXE_BTH_PAD_SHIFT) | RXE_BTH_TVER;
	bth->pkey = cpu_to_be16(pkey);
	bth->qpn = cpu_to_be32(qpn & RXE_BTH_QPN_MASK);
	bth->apsn = cpu_to_be32((ack ? RXE_BTH_ACK : 0) |
				(psn & RXE_BTH_PSN_MASK));
}

/* DETH */
static inline u32 deth_qkey(const struct rxe_pkt_info *pkt)
{
	return be32_to_cpu(((struct rxe_deth *)rxe_hdr_at(pkt, RXE_DETH))->qkey);
}

static inline u32 deth_sqp(const struct rxe_pkt_info *pkt)
{
	return be32_to_cpu(((struct rxe_deth *)rxe_hdr_at(pkt, RXE_DETH))->sqp) &
	       RXE_BTH_QPN_MASK;
}

static inline void deth_init(struct rxe_pkt_info *pkt, u32 qkey, u32 sqp)
{
	struct rxe_deth *deth = rxe_hdr_at(pkt, RXE_DETH);

	deth->qkey = cpu_to_be32(qkey);
	deth->sqp = cpu_to_be32(sqp & RXE_BTH_QPN_MASK);
}

/* RETH */
static inline u64 reth_va(const struct rxe_pkt_info *pkt)
{
	return be64_to_cpu(get_unaligned(&((struct rxe_reth *)
					   rxe_hdr_at(pkt, RXE_RETH))->va));
}

static inline u32 reth_rkey(const struct rxe_pkt_info *pkt)
{
	return be32_to_cpu(((struct rxe_reth *)rxe_hdr_at(pkt, RXE_RETH))->rkey);
}

static inline u32 reth_len(const struct rxe_pkt_info *pkt)
{
	return be32_to_cpu(((struct rxe_reth *)rxe_hdr_at(pkt, RXE_RETH))->len);
}

static inline void reth_init(struct rxe_pkt_info *pkt, u64 va, u32 rkey,
			     u32 len)
{
	struct rxe_reth *reth = rxe_hdr_at(pkt, RXE_RETH);

	put_unaligned(cpu_to_be64(va), &reth->va);
	reth->rkey = cpu_to_be32(rkey);
	reth->len = cpu_to_be32(len);
}

/* AETH */
static inline u8 aeth_syn(const struct rxe_pkt_info *pkt)
{
	return (be32_to_cpu(((struct rxe_aeth *)
			     rxe_hdr_at(pkt, RXE_AETH))->smsn) &
		RXE_AETH_SYN_MASK) >> RXE_AETH_SYN_SHIFT;
}

static inline u32 aeth_msn(const struct rxe_pkt_info *pkt)
{
	return be32_to_cpu(((struct rxe_aeth *)rxe_hdr_at(pkt, RXE_AETH))->smsn) &
	       RXE_AETH_MSN_MASK;
}

static inline void aeth_init(struct rxe_pkt_info *pkt, u8 syn, u32 msn)
{
	struct rxe_aeth *aeth = rxe_hdr_at(pkt, RXE_AETH);

	aeth->smsn = cpu_to_be32((u32)syn << RXE_AETH_SYN_SHIFT |
				 (msn & RXE_AETH_MSN_MASK));
}

/* AtomicETH */
static inline struct rxe_atmeth *rxe_atmeth(const struct rxe_pkt_info *pkt)
{
	return rxe_hdr_at(pkt, RXE_ATMETH);
}

static inline u64 atmeth_va(const struct rxe_pkt_info *pkt)
{
	return be64_to_cpu(get_unaligned(&rxe_atmeth(pkt)->va));
}

static inline u32 atmeth_rkey(const struct rxe_pkt_info *pkt)
{
	return be32_to_cpu(get_unaligned(&rxe_atmeth(pkt)->rkey));
}

static inline u64 atmeth_swap_add(const struct rxe_pkt_info *pkt)
{
	return be64_to_cpu(get_unaligned(&rxe_atmeth(pkt)->swap_add));
}

static inline u64 atmeth_comp(const struct rxe_pkt_info *pkt)
{
	return be64_to_cpu(get_unaligned(&rxe_atmeth(pkt)->comp));
}

static inline void atmeth_init(struct rxe_pkt_info *pkt, u64 va, u32 rkey,
			       u64 swap_add, u64 comp)
{
	struct rxe_atmeth *a = rxe_atmeth(pkt);

	put_unaligned(cpu_to_be64(va), &a->va);
	put_unaligned(cpu_to_be32(rkey), &a->rkey);
	put_unaligned(cpu_to_be64(swap_add), &a->swap_add);
	put_unaligned(cpu_to_be64(comp), &a->comp);
}

/* AtomicAckETH */
static inline u64 atmack_orig(const struct rxe_pkt_info *pkt)
{
	return be64_to_cpu(get_unaligned(&((struct rxe_atmack *)
					   rxe_hdr_at(pkt, RXE_ATMACK))->orig));
}

static inline void atmack_init(struct rxe_pkt_info *pkt, u64 orig)
{
	put_unaligned(cpu_to_be64(orig),
		      &((struct rxe_atmack *)rxe_hdr_at(pkt, RXE_ATMACK))->orig);
}

/* ImmDt: kept in network order, as ib_wc and ibv_wc carry it. */
static inline __be32 immdt_imm(const struct rxe_pkt_info *pkt)
{
	return get_unaligned(&((struct rxe_immdt *)
			       rxe_hdr_at(pkt, RXE_IMMDT))->imm);
}

static inline void immdt_init(struct rxe_pkt_info *pkt, __be32 imm)
{
	put_unaligned(imm, &((struct rxe_immdt *)
			     rxe_hdr_at(pkt, RXE_IMMDT))->imm);
}

/* IETH */
static inline u32 ieth_rkey(const struct rxe_pkt_info *pkt)
{
	return be32_to_cpu(get_unaligned(&((struct rxe_ieth *)
					   rxe_hdr_at(pkt, RXE_IETH))->rkey));
}

static inline void ieth_init(struct rxe_pkt_info *pkt, u32 rkey)
{
	put_unaligned(cpu_to_be32(rkey),
		      &((struct rxe_ieth *)rxe_hdr_at(pkt, RXE_IETH))->rkey);
}

/*
 * Payload, pad excluded: where it starts if it is in the linear part,
 * as it all is unless sent by reference (rxe_mr_attach()); copy it out
 * with rxe_copy_pkt_to_sgl() or rxe_copy_pkt_to_mr().
 */
static inline void *rxe_payload_addr(const struct rxe_pkt_info *pkt)
{
	return rxe_hdr_at(pkt, RXE_PAYLOAD);
}

static inline u32 rxe_payload_size(const struct rxe_pkt_info *pkt)
{
	return pkt->paylen - rxe_opcode[pkt->opcode].length - bth_pad(pkt) -
	       RXE_ICRC_SIZE;
}

#endif /* RXE_HDR_H */
