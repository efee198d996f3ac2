#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# rxe_perftest.sh's cases of ib_write_lat and ib_send_lat at 64 B, 4 KiB
# and 64 KiB on one device.
PERF_CASES="ib_write_lat:64 ib_write_lat:4096 ib_write_lat:65536
	ib_send_lat:64 ib_send_lat:4096 ib_send_lat:65536" \
	exec "$(dirname "$0")/rxe_perftest.sh"
