/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the RoCEv2 engine's files include first: QEMU's osdep.h inside
 * QEMU, the C library's headers in the host test (ROCE_STANDALONE).
 *
 * Copyright (c) 2026 oot-rdma contributors
 */

#ifndef HW_ROCE_OSDEP_H
#define HW_ROCE_OSDEP_H

#ifdef ROCE_STANDALONE
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#else
#include "qemu/osdep.h"
#endif

#endif
