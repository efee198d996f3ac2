/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * IBTA 1.5 operations that the 6.1 headers predate: ATOMIC WRITE (and,
 * on the wire, FLUSH).  The values are fixed by others: the BTH opcodes
 * by IBTA vol. 1 1.5 (table 35), the verbs ones by the uverbs ABI that
 * rdma-core 44 already uses (its kernel-headers/rdma/ib_user_verbs.h),
 * so that librxe's WQEs and the completions it reads mean the same to
 * both sides.  Kernel ULPs of 6.1 have no name for them: only user QPs
 * post them (rxe_sq.c).
 */
#ifndef RXE_IBTA15_H
#define RXE_IBTA15_H

#include <linux/bits.h>

/* BTH opcodes, RC only (the transport bits are 0). */
#define RXE_OPCODE_RC_FLUSH		0x1c
#define RXE_OPCODE_RC_ATOMIC_WRITE	0x1d

/* enum ib_uverbs_wr_opcode: librxe's wqe->wr.opcode. */
#define RXE_WR_OP_ATOMIC_WRITE		15

/* enum ib_uverbs_wc_opcode: the send completion's opcode. */
#define RXE_WC_OP_ATOMIC_WRITE		9

/* enum ib_uverbs_device_cap_flags: reported by query_device_ex. */
#define RXE_DEVICE_ATOMIC_WRITE		BIT_ULL(40)

/* An ATOMIC WRITE carries 8 bytes, placed at once. */
#define RXE_ATOMIC_WRITE_LEN		8

#endif /* RXE_IBTA15_H */
