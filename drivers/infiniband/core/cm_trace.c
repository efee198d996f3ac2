// SPDX-License-Identifier: GPL-2.0-only
/*
 * The ib_cma tracepoints of ib_cm: declared in cm_trace.h, instantiated
 * here once for the module.
 */
#define CREATE_TRACE_POINTS
#include "cm_trace.h"
