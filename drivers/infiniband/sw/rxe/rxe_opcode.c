// SPDX-License-Identifier: GPL-2.0-only
/*
 * The opcode table (rxe_opcode.h): the RC, UC and UD opcodes of IBTA
 * vol. 1, 9.2 (table 35), which of the headers of 9.3 each carries, and
 * what it means to the engine, and IBTA 1.5's ATOMIC WRITE.  RD opcodes
 * are absent, as is anything else rxe does not handle (FLUSH): their
 * rows have no name, and the receive path drops such packets.
 *
 * Headers always appear in the order of enum rxe_hdr_type, so a row's
 * offsets are the running sum of the sizes of the headers before: BTH
 * 12, DETH 8, RETH 16, AETH 4, AtomicETH 28, AtomicAckETH 8, ImmDt 4,
 * IETH 4 bytes.  length is where the payload starts.
 *
 * A SEND takes its receive WQE with its first packet (RWR), a WRITE
 * with immediate with its last; both complete there (COMP).
 */
#include <rdma/ib_pack.h>

#include "rxe_ibta15.h"
#include "rxe_opcode.h"

const struct rxe_opcode_info rxe_opcode[256] = {
	[IB_OPCODE_RC_SEND_FIRST] = {
		.name = "IB_OPCODE_RC_SEND_FIRST",
		.mask = RXE_BTH_MASK | RXE_RC_MASK | RXE_REQ_MASK |
			RXE_SEND_MASK | RXE_PAYLOAD_MASK | RXE_RWR_MASK |
			RXE_START_MASK,
		.length = 12,
		.offset = {
			[RXE_BTH] = 0,
			[RXE_PAYLOAD] = 12,
		},
	},
	[IB_OPCODE_RC_SEND_MIDDLE] = {
		.name = "IB_OPCODE_RC_SEND_MIDDLE",
		.mask = RXE_BTH_MASK | RXE_RC_MASK | RXE_REQ_MASK |
			RXE_SEND_MASK | RXE_PAYLOAD_MASK | RXE_MIDDLE_MASK,
		.length = 12,
		.offset = {
			[RXE_BTH] = 0,
			[RXE_PAYLOAD] = 12,
		},
	},
	[IB_OPCODE_RC_SEND_LAST] = {
		.name = "IB_OPCODE_RC_SEND_LAST",
		.mask = RXE_BTH_MASK | RXE_RC_MASK | RXE_REQ_MASK |
			RXE_SEND_MASK | RXE_PAYLOAD_MASK | RXE_COMP_MASK |
			RXE_END_MASK,
		.length = 12,
		.offset = {
			[RXE_BTH] = 0,
			[RXE_PAYLOAD] = 12,
		},
	},
	[IB_OPCODE_RC_SEND_LAST_WITH_IMMEDIATE] = {
		.name = "IB_OPCODE_RC_SEND_LAST_WITH_IMMEDIATE",
		.mask = RXE_BTH_MASK | RXE_RC_MASK | RXE_REQ_MASK |
			RXE_SEND_MASK | RXE_PAYLOAD_MASK | RXE_IMMDT_MASK |
			RXE_COMP_MASK | RXE_END_MASK,
		.length = 16,
		.offset = {
			[RXE_BTH] = 0,
			[RXE_IMMDT] = 12,
			[RXE_PAYLOAD] = 16,
		},
	},
	[IB_OPCODE_RC_SEND_ONLY] = {
		.name = "IB_OPCODE_RC_SEND_ONLY",
		.mask = RXE_BTH_MASK | RXE_RC_MASK | RXE_REQ_MASK |
			RXE_SEND_MASK | RXE_PAYLOAD_MASK | RXE_RWR_MASK |
			RXE_COMP_MASK | RXE_START_MASK | RXE_END_MASK,
		.length = 12,
		.offset = {
			[RXE_BTH] = 0,
			[RXE_PAYLOAD] = 12,
		},
	},
	[IB_OPCODE_RC_SEND_ONLY_WITH_IMMEDIATE] = {
		.name = "IB_OPCODE_RC_SEND_ONLY_WITH_IMMEDIATE",
		.mask = RXE_BTH_MASK | RXE_RC_MASK | RXE_REQ_MASK |
			RXE_SEND_MASK | RXE_PAYLOAD_MASK | RXE_IMMDT_MASK |
			RXE_RWR_MASK | RXE_COMP_MASK | RXE_START_MASK |
			RXE_END_MASK,
		.length = 16,
		.offset = {
			[RXE_BTH] = 0,
			[RXE_IMMDT] = 12,
			[RXE_PAYLOAD] = 16,
		},
	},
	[IB_OPCODE_RC_RDMA_WRITE_FIRST] = {
		.name = "IB_OPCODE_RC_RDMA_WRITE_FIRST",
		.mask = RXE_BTH_MASK | RXE_RC_MASK | RXE_REQ_MASK |
			RXE_WRITE_MASK | RXE_PAYLOAD_MASK | RXE_RETH_MASK |
			RXE_START_MASK,
		.length = 28,
		.offset = {
			[RXE_BTH] = 0,
			[RXE_RETH] = 12,
			[RXE_PAYLOAD] = 28,
		},
	},
	[IB_OPCODE_RC_RDMA_WRITE_MIDDLE] = {
		.name = "IB_OPCODE_RC_RDMA_WRITE_MIDDLE",
		.mask = RXE_BTH_MASK | RXE_RC_MASK | RXE_REQ_MASK |
			RXE_WRITE_MASK | RXE_PAYLOAD_MASK | RXE_MIDDLE_MASK,
		.length = 12,
		.offset = {
			[RXE_BTH] = 0,
			[RXE_PAYLOAD] = 12,
		},
	},
	[IB_OPCODE_RC_RDMA_WRITE_LAST] = {
		.name = "IB_OPCODE_RC_RDMA_WRITE_LAST",
		.mask = RXE_BTH_MASK | RXE_RC_MASK | RXE_REQ_MASK |
			RXE_WRITE_MASK | RXE_PAYLOAD_MASK | RXE_END_MASK,
		.length = 12,
		.offset = {
			[RXE_BTH] = 0,
			[RXE_PAYLOAD] = 12,
		},
	},
	[IB_OPCODE_RC_RDMA_WRITE_LAST_WITH_IMMEDIATE] = {
		.name = "IB_OPCODE_RC_RDMA_WRITE_LAST_WITH_IMMEDIATE",
		.mask = RXE_BTH_MASK | RXE_RC_MASK | RXE_REQ_MASK |
			RXE_WRITE_MASK | RXE_PAYLOAD_MASK | RXE_IMMDT_MASK |
			RXE_RWR_MASK | RXE_COMP_MASK | RXE_END_MASK,
		.length = 16,
		.offset = {
			[RXE_BTH] = 0,
			[RXE_IMMDT] = 12,
			[RXE_PAYLOAD] = 16,
		},
	},
	[IB_OPCODE_RC_RDMA_WRITE_ONLY] = {
		.name = "IB_OPCODE_RC_RDMA_WRITE_ONLY",
		.mask = RXE_BTH_MASK | RXE_RC_MASK | RXE_REQ_MASK |
			RXE_WRITE_MASK | RXE_PAYLOAD_MASK | RXE_RETH_MASK |
			RXE_START_MASK | RXE_END_MASK,
		.length = 28,
		.offset = {
			[RXE_BTH] = 0,
			[RXE_RETH] = 12,
			[RXE_PAYLOAD] = 28,
		},
	},
	[IB_OPCODE_RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE] = {
		.name = "IB_OPCODE_RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE",
		.mask = RXE_BTH_MASK | RXE_RC_MASK | RXE_REQ_MASK |
			RXE_WRITE_MASK | RXE_PAYLOAD_MASK | RXE_RETH_MASK |
			RXE_IMMDT_MASK | RXE_RWR_MASK | RXE_COMP_MASK |
			RXE_START_MASK | RXE_END_MASK,
		.length = 32,
		.offset = {
			[RXE_BTH] = 0,
			[RXE_RETH] = 12,
			[RXE_IMMDT] = 28,
			[RXE_PAYLOAD] = 32,
		},
	},
	[IB_OPCODE_RC_RDMA_READ_REQUEST] = {
		.name = "IB_OPCODE_RC_RDMA_READ_REQUEST",
		.mask = RXE_BTH_MASK | RXE_RC_MASK | RXE_REQ_MASK |
			RXE_READ_MASK | RXE_RETH_MASK | RXE_START_MASK |
			RXE_END_MASK,
		.length = 28,
		.offset = {
			[RXE_BTH] = 0,
			[RXE_RETH] = 12,
			[RXE_PAYLOAD] = 28,
		},
	},
	[IB_OPCODE_RC_RDMA_READ_RESPONSE_FIRST] = {
		.name = "IB_OPCODE_RC_RDMA_READ_RESPONSE_FIRST",
		.mask = RXE_BTH_MASK | RXE_RC_MASK | RXE_RESP_MASK |
			RXE_READ_MASK | RXE_PAYLOAD_MASK | RXE_AETH_MASK |
			RXE_START_MASK,
		.length = 16,
		.offset = {
			[RXE_BTH] = 0,
			[RXE_AETH] = 12,
			[RXE_PAYLOAD] = 16,
		},
	},
	[IB_OPCODE_RC_RDMA_READ_RESPONSE_MIDDLE] = {
		.name = "IB_OPCODE_RC_RDMA_READ_RESPONSE_MIDDLE",
		.mask = RXE_BTH_MASK | RXE_RC_MASK | RXE_RESP_MASK |
			RXE_READ_MASK | RXE_PAYLOAD_MASK | RXE_MIDDLE_MASK,
		.length = 12,
		.offset = {
			[RXE_BTH] = 0,
			[RXE_PAYLOAD] = 12,
		},
	},
	[IB_OPCODE_RC_RDMA_READ_RESPONSE_LAST] = {
		.name = "IB_OPCODE_RC_RDMA_READ_RESPONSE_LAST",
		.mask = RXE_BTH_MASK | RXE_RC_MASK | RXE_RESP_MASK |
			RXE_READ_MASK | RXE_PAYLOAD_MASK | RXE_AETH_MASK |
			RXE_END_MASK,
		.length = 16,
		.offset = {
			[RXE_BTH] = 0,
			[RXE_AETH] = 12,
			[RXE_PAYLOAD] = 16,
		},
	},
	[IB_OPCODE_RC_RDMA_READ_RESPONSE_ONLY] = {
		.name = "IB_OPCODE_RC_RDMA_READ_RESPONSE_ONLY",
		.mask = RXE_BTH_MASK | RXE_RC_MASK | RXE_RESP_MASK |
			RXE_READ_MASK | RXE_PAYLOAD_MASK | RXE_AETH_MASK |
			RXE_START_MASK | RXE_END_MASK,
		.length = 16,
		.offset = {
			[RXE_BTH] = 0,
			[RXE_AETH] = 12,
			[RXE_PAYLOAD] = 16,
		},
	},
	[IB_OPCODE_RC_ACKNOWLEDGE] = {
		.name = "IB_OPCODE_RC_ACKNOWLEDGE",
		.mask = RXE_BTH_MASK | RXE_RC_MASK | RXE_RESP_MASK |
			RXE_ACK_MASK | RXE_AETH_MASK | RXE_START_MASK |
			RXE_END_MASK,
		.length = 16,
		.offset = {
			[RXE_BTH] = 0,
			[RXE_AETH] = 12,
			[RXE_PAYLOAD] = 16,
		},
	},
	[IB_OPCODE_RC_ATOMIC_ACKNOWLEDGE] = {
		.name = "IB_OPCODE_RC_ATOMIC_ACKNOWLEDGE",
		.mask = RXE_BTH_MASK | RXE_RC_MASK | RXE_RESP_MASK |
			RXE_ACK_MASK | RXE_ATOMIC_MASK | RXE_AETH_MASK |
			RXE_ATMACK_MASK | RXE_START_MASK | RXE_END_MASK,
		.length = 24,
		.offset = {
			[RXE_BTH] = 0,
			[RXE_AETH] = 12,
			[RXE_ATMACK] = 16,
			[RXE_PAYLOAD] = 24,
		},
	},
	/*
	 * IBTA 1.5: FETH then RETH, no payload.  Known so that the
	 * responder can refuse it (rxe_resp_rc_allowed()); never sent.
	 */
	[RXE_OPCODE_RC_FLUSH] = {
		.name = "IB_OPCODE_RC_FLUSH",
		.mask = RXE_BTH_MASK | RXE_RC_MASK | RXE_REQ_MASK |
			RXE_FLUSH_MASK | RXE_FETH_MASK | RXE_RETH_MASK |
			RXE_START_MASK | RXE_END_MASK,
		.length = 32,
		.offset = {
			[RXE_BTH] = 0,
			[RXE_FETH] = 12,
			[RXE_RETH] = 16,
			[RXE_PAYLOAD] = 32,
		},
	},
	/*
	 * IBTA 1.5: RETH and 8 bytes of payload; the responder answers
	 * with an RDMA READ response without data.
	 */
	[RXE_OPCODE_RC_ATOMIC_WRITE] = {
		.name = "IB_OPCODE_RC_ATOMIC_WRITE",
		.mask = RXE_BTH_MASK | RXE_RC_MASK | RXE_REQ_MASK |
			RXE_ATOMIC_WRITE_MASK | RXE_PAYLOAD_MASK |
			RXE_RETH_MASK | RXE_START_MASK | RXE_END_MASK,
		.length = 28,
		.offset = {
			[RXE_BTH] = 0,
			[RXE_RETH] = 12,
			[RXE_PAYLOAD] = 28,
		},
	},
	[IB_OPCODE_RC_COMPARE_SWAP] = {
		.name = "IB_OPCODE_RC_COMPARE_SWAP",
		.mask = RXE_BTH_MASK | RXE_RC_MASK | RXE_REQ_MASK |
			RXE_ATOMIC_MASK | RXE_ATMETH_MASK | RXE_START_MASK |
			RXE_END_MASK,
		.length = 40,
		.offset = {
			[RXE_BTH] = 0,
			[RXE_ATMETH] = 12,
			[RXE_PAYLOAD] = 40,
		},
	},
	[IB_OPCODE_RC_FETCH_ADD] = {
		.name = "IB_OPCODE_RC_FETCH_ADD",
		.mask = RXE_BTH_MASK | RXE_RC_MASK | RXE_REQ_MASK |
			RXE_ATOMIC_MASK | RXE_ATMETH_MASK | RXE_START_MASK |
			RXE_END_MASK,
		.length = 40,
		.offset = {
			[RXE_BTH] = 0,
			[RXE_ATMETH] = 12,
			[RXE_PAYLOAD] = 40,
		},
	},
	[IB_OPCODE_RC_SEND_LAST_WITH_INVALIDATE] = {
		.name = "IB_OPCODE_RC_SEND_LAST_WITH_INVALIDATE",
		.mask = RXE_BTH_MASK | RXE_RC_MASK | RXE_REQ_MASK |
			RXE_SEND_MASK | RXE_PAYLOAD_MASK | RXE_IETH_MASK |
			RXE_COMP_MASK | RXE_END_MASK,
		.length = 16,
		.offset = {
			[RXE_BTH] = 0,
			[RXE_IETH] = 12,
			[RXE_PAYLOAD] = 16,
		},
	},
	[IB_OPCODE_RC_SEND_ONLY_WITH_INVALIDATE] = {
		.name = "IB_OPCODE_RC_SEND_ONLY_WITH_INVALIDATE",
		.mask = RXE_BTH_MASK | RXE_RC_MASK | RXE_REQ_MASK |
			RXE_SEND_MASK | RXE_PAYLOAD_MASK | RXE_IETH_MASK |
			RXE_RWR_MASK | RXE_COMP_MASK | RXE_START_MASK |
			RXE_END_MASK,
		.length = 16,
		.offset = {
			[RXE_BTH] = 0,
			[RXE_IETH] = 12,
			[RXE_PAYLOAD] = 16,
		},
	},
	[IB_OPCODE_UC_SEND_FIRST] = {
		.name = "IB_OPCODE_UC_SEND_FIRST",
		.mask = RXE_BTH_MASK | RXE_UC_MASK | RXE_REQ_MASK |
			RXE_SEND_MASK | RXE_PAYLOAD_MASK | RXE_RWR_MASK |
			RXE_START_MASK,
		.length = 12,
		.offset = {
			[RXE_BTH] = 0,
			[RXE_PAYLOAD] = 12,
		},
	},
	[IB_OPCODE_UC_SEND_MIDDLE] = {
		.name = "IB_OPCODE_UC_SEND_MIDDLE",
		.mask = RXE_BTH_MASK | RXE_UC_MASK | RXE_REQ_MASK |
			RXE_SEND_MASK | RXE_PAYLOAD_MASK | RXE_MIDDLE_MASK,
		.length = 12,
		.offset = {
			[RXE_BTH] = 0,
			[RXE_PAYLOAD] = 12,
		},
	},
	[IB_OPCODE_UC_SEND_LAST] = {
		.name = "IB_OPCODE_UC_SEND_LAST",
		.mask = RXE_BTH_MASK | RXE_UC_MASK | RXE_REQ_MASK |
			RXE_SEND_MASK | RXE_PAYLOAD_MASK | RXE_COMP_MASK |
			RXE_END_MASK,
		.length = 12,
		.offset = {
			[RXE_BTH] = 0,
			[RXE_PAYLOAD] = 12,
		},
	},
	[IB_OPCODE_UC_SEND_LAST_WITH_IMMEDIATE] = {
		.name = "IB_OPCODE_UC_SEND_LAST_WITH_IMMEDIATE",
		.mask = RXE_BTH_MASK | RXE_UC_MASK | RXE_REQ_MASK |
			RXE_SEND_MASK | RXE_PAYLOAD_MASK | RXE_IMMDT_MASK |
			RXE_COMP_MASK | RXE_END_MASK,
		.length = 16,
		.offset = {
			[RXE_BTH] = 0,
			[RXE_IMMDT] = 12,
			[RXE_PAYLOAD] = 16,
		},
	},
	[IB_OPCODE_UC_SEND_ONLY] = {
		.name = "IB_OPCODE_UC_SEND_ONLY",
		.mask = RXE_BTH_MASK | RXE_UC_MASK | RXE_REQ_MASK |
			RXE_SEND_MASK | RXE_PAYLOAD_MASK | RXE_RWR_MASK |
			RXE_COMP_MASK | RXE_START_MASK | RXE_END_MASK,
		.length = 12,
		.offset = {
			[RXE_BTH] = 0,
			[RXE_PAYLOAD] = 12,
		},
	},
	[IB_OPCODE_UC_SEND_ONLY_WITH_IMMEDIATE] = {
		.name = "IB_OPCODE_UC_SEND_ONLY_WITH_IMMEDIATE",
		.mask = RXE_BTH_MASK | RXE_UC_MASK | RXE_REQ_MASK |
			RXE_SEND_MASK | RXE_PAYLOAD_MASK | RXE_IMMDT_MASK |
			RXE_RWR_MASK | RXE_COMP_MASK | RXE_START_MASK |
			RXE_END_MASK,
		.length = 16,
		.offset = {
			[RXE_BTH] = 0,
			[RXE_IMMDT] = 12,
			[RXE_PAYLOAD] = 16,
		},
	},
	[IB_OPCODE_UC_RDMA_WRITE_FIRST] = {
		.name = "IB_OPCODE_UC_RDMA_WRITE_FIRST",
		.mask = RXE_BTH_MASK | RXE_UC_MASK | RXE_REQ_MASK |
			RXE_WRITE_MASK | RXE_PAYLOAD_MASK | RXE_RETH_MASK |
			RXE_START_MASK,
		.length = 28,
		.offset = {
			[RXE_BTH] = 0,
			[RXE_RETH] = 12,
			[RXE_PAYLOAD] = 28,
		},
	},
	[IB_OPCODE_UC_RDMA_WRITE_MIDDLE] = {
		.name = "IB_OPCODE_UC_RDMA_WRITE_MIDDLE",
		.mask = RXE_BTH_MASK | RXE_UC_MASK | RXE_REQ_MASK |
			RXE_WRITE_MASK | RXE_PAYLOAD_MASK | RXE_MIDDLE_MASK,
		.length = 12,
		.offset = {
			[RXE_BTH] = 0,
			[RXE_PAYLOAD] = 12,
		},
	},
	[IB_OPCODE_UC_RDMA_WRITE_LAST] = {
		.name = "IB_OPCODE_UC_RDMA_WRITE_LAST",
		.mask = RXE_BTH_MASK | RXE_UC_MASK | RXE_REQ_MASK |
			RXE_WRITE_MASK | RXE_PAYLOAD_MASK | RXE_END_MASK,
		.length = 12,
		.offset = {
			[RXE_BTH] = 0,
			[RXE_PAYLOAD] = 12,
		},
	},
	[IB_OPCODE_UC_RDMA_WRITE_LAST_WITH_IMMEDIATE] = {
		.name = "IB_OPCODE_UC_RDMA_WRITE_LAST_WITH_IMMEDIATE",
		.mask = RXE_BTH_MASK | RXE_UC_MASK | RXE_REQ_MASK |
			RXE_WRITE_MASK | RXE_PAYLOAD_MASK | RXE_IMMDT_MASK |
			RXE_RWR_MASK | RXE_COMP_MASK | RXE_END_MASK,
		.length = 16,
		.offset = {
			[RXE_BTH] = 0,
			[RXE_IMMDT] = 12,
			[RXE_PAYLOAD] = 16,
		},
	},
	[IB_OPCODE_UC_RDMA_WRITE_ONLY] = {
		.name = "IB_OPCODE_UC_RDMA_WRITE_ONLY",
		.mask = RXE_BTH_MASK | RXE_UC_MASK | RXE_REQ_MASK |
			RXE_WRITE_MASK | RXE_PAYLOAD_MASK | RXE_RETH_MASK |
			RXE_START_MASK | RXE_END_MASK,
		.length = 28,
		.offset = {
			[RXE_BTH] = 0,
			[RXE_RETH] = 12,
			[RXE_PAYLOAD] = 28,
		},
	},
	[IB_OPCODE_UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE] = {
		.name = "IB_OPCODE_UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE",
		.mask = RXE_BTH_MASK | RXE_UC_MASK | RXE_REQ_MASK |
			RXE_WRITE_MASK | RXE_PAYLOAD_MASK | RXE_RETH_MASK |
			RXE_IMMDT_MASK | RXE_RWR_MASK | RXE_COMP_MASK |
			RXE_START_MASK | RXE_END_MASK,
		.length = 32,
		.offset = {
			[RXE_BTH] = 0,
			[RXE_RETH] = 12,
			[RXE_IMMDT] = 28,
			[RXE_PAYLOAD] = 32,
		},
	},
	[IB_OPCODE_UD_SEND_ONLY] = {
		.name = "IB_OPCODE_UD_SEND_ONLY",
		.mask = RXE_BTH_MASK | RXE_UD_MASK | RXE_DETH_MASK |
			RXE_REQ_MASK | RXE_SEND_MASK | RXE_PAYLOAD_MASK |
			RXE_RWR_MASK | RXE_COMP_MASK | RXE_START_MASK |
			RXE_END_MASK,
		.length = 20,
		.offset = {
			[RXE_BTH] = 0,
			[RXE_DETH] = 12,
			[RXE_PAYLOAD] = 20,
		},
	},
	[IB_OPCODE_UD_SEND_ONLY_WITH_IMMEDIATE] = {
		.name = "IB_OPCODE_UD_SEND_ONLY_WITH_IMMEDIATE",
		.mask = RXE_BTH_MASK | RXE_UD_MASK | RXE_DETH_MASK |
			RXE_REQ_MASK | RXE_SEND_MASK | RXE_PAYLOAD_MASK |
			RXE_IMMDT_MASK | RXE_RWR_MASK | RXE_COMP_MASK |
			RXE_START_MASK | RXE_END_MASK,
		.length = 24,
		.offset = {
			[RXE_BTH] = 0,
			[RXE_DETH] = 12,
			[RXE_IMMDT] = 20,
			[RXE_PAYLOAD] = 24,
		},
	},
};
