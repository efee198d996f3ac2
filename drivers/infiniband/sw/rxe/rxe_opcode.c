// SPDX-License-Identifier: GPL-2.0-only
/*
 * The opcode table (rxe_opcode.h): the RC, UC and UD opcodes of IBTA
 * vol. 1, 9.2 (table 35), which of the headers of 9.3 each carries, and
 * what it means to the engine.  RD opcodes are absent, as is anything
 * the 6.1 rxe does not handle: their rows have no name, and the receive
 * path drops such packets.
 *
 * Each row gives only the mask; the header offsets and the total header
 * length follow from it at compile time, since the headers always appear
 * in the same order (rxe_hdr.h).
 */
#include <rdma/ib_pack.h>

#include "rxe_hdr.h"
#include "rxe_opcode.h"

/* Bytes of each header on the wire. */
#define RXE_HSZ(t)						\
	((t) == RXE_BTH ? sizeof(struct rxe_bth) :		\
	 (t) == RXE_RDETH ? 4 :					\
	 (t) == RXE_DETH ? sizeof(struct rxe_deth) :		\
	 (t) == RXE_RETH ? sizeof(struct rxe_reth) :		\
	 (t) == RXE_AETH ? sizeof(struct rxe_aeth) :		\
	 (t) == RXE_ATMETH ? sizeof(struct rxe_atmeth) :	\
	 (t) == RXE_ATMACK ? sizeof(struct rxe_atmack) :	\
	 (t) == RXE_IMMDT ? sizeof(struct rxe_immdt) :		\
	 (t) == RXE_IETH ? sizeof(struct rxe_ieth) : 0)

/* The size of header @s if present in @m and placed before header @t. */
#define RXE_BEFORE(m, s, t)	\
	(((s) < (t) && ((m) & BIT(s))) ? RXE_HSZ(s) : 0)

/* Where header @t starts (or would start) in a packet of mask @m. */
#define RXE_OFF(m, t)							\
	(RXE_BEFORE(m, RXE_BTH, t) + RXE_BEFORE(m, RXE_RDETH, t) +	\
	 RXE_BEFORE(m, RXE_DETH, t) + RXE_BEFORE(m, RXE_RETH, t) +	\
	 RXE_BEFORE(m, RXE_AETH, t) + RXE_BEFORE(m, RXE_ATMETH, t) +	\
	 RXE_BEFORE(m, RXE_ATMACK, t) + RXE_BEFORE(m, RXE_IMMDT, t) +	\
	 RXE_BEFORE(m, RXE_IETH, t))

#define RXE_ROW(op, m) [IB_OPCODE_##op] = {				\
	.name = "IB_OPCODE_" #op,					\
	.mask = (m) | RXE_BTH_MASK,					\
	.length = RXE_OFF((m) | RXE_BTH_MASK, RXE_PAYLOAD),		\
	.offset = {							\
		[RXE_BTH] = 0,						\
		[RXE_RDETH] = RXE_OFF((m) | RXE_BTH_MASK, RXE_RDETH),			\
		[RXE_DETH] = RXE_OFF((m) | RXE_BTH_MASK, RXE_DETH),	\
		[RXE_RETH] = RXE_OFF((m) | RXE_BTH_MASK, RXE_RETH),	\
		[RXE_AETH] = RXE_OFF((m) | RXE_BTH_MASK, RXE_AETH),	\
		[RXE_ATMETH] = RXE_OFF((m) | RXE_BTH_MASK, RXE_ATMETH),	\
		[RXE_ATMACK] = RXE_OFF((m) | RXE_BTH_MASK, RXE_ATMACK),	\
		[RXE_IMMDT] = RXE_OFF((m) | RXE_BTH_MASK, RXE_IMMDT),	\
		[RXE_IETH] = RXE_OFF((m) | RXE_BTH_MASK, RXE_IETH),	\
		[RXE_PAYLOAD] = RXE_OFF((m) | RXE_BTH_MASK, RXE_PAYLOAD), \
	},								\
}

/* Shorthands for the rows. */
#define REQ	RXE_REQ_MASK
#define RESP	RXE_RESP_MASK
#define PAY	RXE_PAYLOAD_MASK
#define FIRST	RXE_START_MASK
#define MIDDLE	RXE_MIDDLE_MASK
#define LAST	RXE_END_MASK
#define ONLY	(RXE_START_MASK | RXE_END_MASK)
#define IMM	RXE_IMMDT_MASK
#define INV	RXE_IETH_MASK
/*
 * A SEND takes its receive WQE with its first packet; a WRITE with
 * immediate takes one with its last.  Both complete with their last.
 */
#define SND_OP	(REQ | RXE_SEND_MASK | PAY)
#define WR_OP	(REQ | RXE_WRITE_MASK | PAY)
#define RWR	RXE_RWR_MASK
#define COMP	RXE_COMP_MASK
#define RETH	RXE_RETH_MASK

/* The SENDs and WRITEs that RC and UC share, for transport @t. */
#define RXE_SEND_WRITE_ROWS(tp, t)					\
	RXE_ROW(tp##_SEND_FIRST, t | SND_OP | RWR | FIRST),		\
	RXE_ROW(tp##_SEND_MIDDLE, t | SND_OP | MIDDLE),			\
	RXE_ROW(tp##_SEND_LAST, t | SND_OP | COMP | LAST),		\
	RXE_ROW(tp##_SEND_LAST_WITH_IMMEDIATE,				\
		t | SND_OP | IMM | COMP | LAST),				\
	RXE_ROW(tp##_SEND_ONLY, t | SND_OP | RWR | COMP | ONLY),		\
	RXE_ROW(tp##_SEND_ONLY_WITH_IMMEDIATE,				\
		t | SND_OP | IMM | RWR | COMP | ONLY),			\
	RXE_ROW(tp##_RDMA_WRITE_FIRST, t | WR_OP | RETH | FIRST),	\
	RXE_ROW(tp##_RDMA_WRITE_MIDDLE, t | WR_OP | MIDDLE),		\
	RXE_ROW(tp##_RDMA_WRITE_LAST, t | WR_OP | LAST),		\
	RXE_ROW(tp##_RDMA_WRITE_LAST_WITH_IMMEDIATE,			\
		t | WR_OP | IMM | RWR | COMP | LAST),			\
	RXE_ROW(tp##_RDMA_WRITE_ONLY, t | WR_OP | RETH | ONLY),		\
	RXE_ROW(tp##_RDMA_WRITE_ONLY_WITH_IMMEDIATE,			\
		t | WR_OP | RETH | IMM | RWR | COMP | ONLY)

#define RC	RXE_RC_MASK
#define UC	RXE_UC_MASK
#define UD	(RXE_UD_MASK | RXE_DETH_MASK)
#define READ_RESP	(RC | RESP | RXE_READ_MASK | PAY)
#define ATOMIC_REQ	(RC | REQ | RXE_ATOMIC_MASK | RXE_ATMETH_MASK | ONLY)

const struct rxe_opcode_info rxe_opcode[256] = {
	RXE_SEND_WRITE_ROWS(RC, RC),
	RXE_ROW(RC_SEND_LAST_WITH_INVALIDATE, RC | SND_OP | INV | COMP | LAST),
	RXE_ROW(RC_SEND_ONLY_WITH_INVALIDATE,
		RC | SND_OP | INV | RWR | COMP | ONLY),
	RXE_ROW(RC_RDMA_READ_REQUEST, RC | REQ | RXE_READ_MASK | RETH | ONLY),
	RXE_ROW(RC_RDMA_READ_RESPONSE_FIRST,
		READ_RESP | RXE_AETH_MASK | FIRST),
	RXE_ROW(RC_RDMA_READ_RESPONSE_MIDDLE, READ_RESP | MIDDLE),
	RXE_ROW(RC_RDMA_READ_RESPONSE_LAST, READ_RESP | RXE_AETH_MASK | LAST),
	RXE_ROW(RC_RDMA_READ_RESPONSE_ONLY, READ_RESP | RXE_AETH_MASK | ONLY),
	RXE_ROW(RC_ACKNOWLEDGE, RC | RESP | RXE_ACK_MASK | RXE_AETH_MASK | ONLY),
	RXE_ROW(RC_ATOMIC_ACKNOWLEDGE,
		RC | RESP | RXE_ACK_MASK | RXE_ATOMIC_MASK | RXE_AETH_MASK |
		RXE_ATMACK_MASK | ONLY),
	RXE_ROW(RC_COMPARE_SWAP, ATOMIC_REQ),
	RXE_ROW(RC_FETCH_ADD, ATOMIC_REQ),

	RXE_SEND_WRITE_ROWS(UC, UC),

	RXE_ROW(UD_SEND_ONLY, UD | SND_OP | RWR | COMP | ONLY),
	RXE_ROW(UD_SEND_ONLY_WITH_IMMEDIATE, UD | SND_OP | IMM | RWR | COMP | ONLY),
};
