// SPDX-License-Identifier: GPL-2.0-only
/*
 * The opcode table (rxe_opcode.h).
 */
#include <rdma/ib_pack.h>

#include "rxe_opcode.h"

const struct rxe_opcode_info rxe_opcode[256];
