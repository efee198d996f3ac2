#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The perftest matrix of the data-path issue on one device (rxe0, talking
# to itself: rxe_topo.sh), without -R (no connection manager):
# ib_write_bw, ib_read_bw, ib_send_bw, ib_write_lat, ib_send_lat and
# ib_read_lat at 64 B, 4 KiB and 64 KiB, and ib_atomic_bw.  Each case
# costs seconds of tool start-up under TCG, so the matrix is cut into four
# tests of a few cases each (PERF_CASES, "TOOL:SIZE ..."): this one runs
# ib_write_bw and ib_read_bw; rxe_perftest_send.sh ib_send_bw and
# ib_atomic_bw; rxe_perftest_lat.sh ib_write_lat and ib_send_lat;
# rxe_perftest_read_lat.sh ib_read_lat.  A case passes when server and
# client exit 0 and the client prints its result line for the size; the
# figures are not judged (scripts/ measure speed), and the iterations are
# few to keep the tests short.
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rxe_topo.sh"

ITERS=5
CASES=${PERF_CASES:-ib_write_bw:64 ib_write_bw:4096 ib_write_bw:65536 \
ib_read_bw:64 ib_read_bw:4096 ib_read_bw:65536}

ktap_print_header
ktap_set_plan "$(echo "$CASES" | wc -w)"

rdma_unload_all
modprobe ib_uverbs
topo_one_up || exit "$KSFT_FAIL"

# perf TOOL SIZE: one run; the client's result line starts with the size
# and the iterations.  ib_atomic_bw has no -s: its size is 8.  A starved
# guest can make perftest doubt its clock (rxe_topo.sh, tool_pair): its
# figures are then inf, which passes only with perftest's own word for
# the cause.
perf() {
	local tool=$1 size=$2 opt=(-s "$2") fig='[0-9.]+'
	[ "$tool" != ib_atomic_bw ] || opt=()
	tool_pair "" "$ONE_DEV" "$ONE_IP" "" "$ONE_DEV" "$ONE_IP" -x "$tool" \
		-F -n "$ITERS" "${opt[@]}" || return 1
	if grep -q "Correlation coefficient" "$TOOL_OUT/client"; then
		echo "# $tool: perftest doubted its clock, no figures"
		fig='([0-9.]+|inf)'
	fi
	grep -qE "^ +$size +$ITERS +$fig +$fig" "$TOOL_OUT/client" && return 0
	echo "$tool: no result line for $size bytes"
	cat "$TOOL_OUT/client"
	return 1
}

for c in $CASES; do
	ktap_test_result "${c%:*} -s ${c#*:}" perf "${c%:*}" "${c#*:}"
done

topo_down
rdma_unload_all
ktap_finished
