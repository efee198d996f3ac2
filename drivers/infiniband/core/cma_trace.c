// SPDX-License-Identifier: GPL-2.0-only
/*
 * Instantiates the rdma_cma tracepoints declared in cma_trace.h; the
 * other files only include the header.
 */
#define CREATE_TRACE_POINTS

#include <rdma/ib_cm.h>
#include <rdma/rdma_cm.h>

#include "cma_priv.h"
#include "cma_trace.h"
