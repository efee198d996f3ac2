/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The opcode table: everything the protocol engine needs to know about a
 * BTH opcode, described once (IBTA vol. 1, 9.2 and 9.4).  Behaviour is
 * derived from the mask bits rather than from switch ladders over
 * opcode values, so that adding an opcode is one table row.
 *
 * The opcode numbers are the public IB_OPCODE_* of <rdma/ib_pack.h>.
 */
#ifndef RXE_OPCODE_H
#define RXE_OPCODE_H

#include <linux/bits.h>
#include <linux/build_bug.h>
#include <linux/types.h>

/* The transport headers that may follow the BTH, in wire order. */
enum rxe_hdr_type {
	RXE_BTH,
	RXE_RDETH,	/* RD only: never accepted, RD is not supported */
	RXE_DETH,
	RXE_FETH,	/* IBTA 1.5 FLUSH: placement type, selectivity */
	RXE_RETH,
	RXE_AETH,
	RXE_ATMETH,
	RXE_ATMACK,
	RXE_IMMDT,
	RXE_IETH,
	RXE_PAYLOAD,	/* not a header: where the payload starts */
	RXE_NUM_HDR_TYPES
};

enum rxe_opcode_mask {
	/* Which headers the opcode carries: BIT(enum rxe_hdr_type). */
	RXE_BTH_MASK		= BIT(RXE_BTH),
	RXE_RDETH_MASK		= BIT(RXE_RDETH),
	RXE_DETH_MASK		= BIT(RXE_DETH),
	RXE_FETH_MASK		= BIT(RXE_FETH),
	RXE_RETH_MASK		= BIT(RXE_RETH),
	RXE_AETH_MASK		= BIT(RXE_AETH),
	RXE_ATMETH_MASK		= BIT(RXE_ATMETH),
	RXE_ATMACK_MASK		= BIT(RXE_ATMACK),
	RXE_IMMDT_MASK		= BIT(RXE_IMMDT),
	RXE_IETH_MASK		= BIT(RXE_IETH),
	RXE_PAYLOAD_MASK	= BIT(RXE_PAYLOAD),	/* may carry payload */

	/* Direction: sent by a requester, or by a responder. */
	RXE_REQ_MASK		= BIT(12),
	RXE_RESP_MASK		= BIT(13),

	/* The operation. */
	RXE_SEND_MASK		= BIT(14),
	RXE_WRITE_MASK		= BIT(15),
	RXE_READ_MASK		= BIT(16),
	RXE_ATOMIC_MASK		= BIT(17),
	RXE_ACK_MASK		= BIT(18),	/* ACKNOWLEDGE, ATOMIC_ACK */

	/* Consumes a receive WQE at the responder. */
	RXE_RWR_MASK		= BIT(19),
	/* Ends a message that completes at the responder. */
	RXE_COMP_MASK		= BIT(20),

	/* Position in a multi-packet message. */
	RXE_START_MASK		= BIT(21),
	RXE_MIDDLE_MASK		= BIT(22),
	RXE_END_MASK		= BIT(23),

	/* Transport of the opcode (bits 7..5 of its value). */
	RXE_RC_MASK		= BIT(24),
	RXE_UC_MASK		= BIT(25),
	RXE_UD_MASK		= BIT(26),

	/* IBTA 1.5: an 8-byte WRITE placed at once (rxe_ibta15.h). */
	RXE_ATOMIC_WRITE_MASK	= BIT(27),
	/* IBTA 1.5: makes prior WRITEs visible or persistent (FLUSH). */
	RXE_FLUSH_MASK		= BIT(28),

	/*
	 * Not table bits: set per packet by the receive path (e.g. a
	 * packet delivered to several QPs of a multicast group).
	 */
	RXE_LOOPBACK_MASK	= BIT(30),	/* never left this host */
	RXE_MCAST_MASK		= BIT(31),
};

/* The header bits stay below the direction bits. */
static_assert(RXE_PAYLOAD_MASK < RXE_REQ_MASK);

#define RXE_READ_OR_ATOMIC_MASK	(RXE_READ_MASK | RXE_ATOMIC_MASK)
/*
 * Requests the responder answers from a resource of max_dest_rd_atomic
 * (its replay ring), and a requester counts against max_rd_atomic.
 */
#define RXE_RD_ATOMIC_MASK	(RXE_READ_OR_ATOMIC_MASK | \
				 RXE_ATOMIC_WRITE_MASK | RXE_FLUSH_MASK)
#define RXE_WRITE_OR_SEND_MASK	(RXE_WRITE_MASK | RXE_SEND_MASK)

struct rxe_opcode_info {
	const char	*name;		/* NULL: not an opcode rxe handles */
	u32		mask;		/* enum rxe_opcode_mask */
	/* Bytes of BTH and extension headers, i.e. where payload starts. */
	u8		length;
	/* Offset of each header present, from the start of the BTH. */
	u8		offset[RXE_NUM_HDR_TYPES];
};

extern const struct rxe_opcode_info rxe_opcode[256];

static inline bool rxe_opcode_valid(u8 opcode)
{
	return rxe_opcode[opcode].name;
}

#endif /* RXE_OPCODE_H */
