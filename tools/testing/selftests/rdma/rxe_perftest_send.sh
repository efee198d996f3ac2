#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# rxe_perftest.sh's cases of ib_send_bw at 64 B, 4 KiB and 64 KiB, and
# ib_atomic_bw, on one device.
PERF_CASES="ib_send_bw:64 ib_send_bw:4096 ib_send_bw:65536 ib_atomic_bw:8" \
	exec "$(dirname "$0")/rxe_perftest.sh"
