#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# perftest through the modelled E810, beyond hw_e810_verbs' bandwidth
# tools: the latency tools (ib_write_lat, ib_read_lat, ib_send_lat) and
# the bandwidth tools through rdma_cm (-R: the connection by ib_cm's MADs
# on irdma's QP1, a UD QP of the model's), with the guest's irdma (ours
# on our core, Debian's on stock or --without irdma) and rdma-core's
# unmodified libirdma.  Needs a guest
# booted with the model:
#	scripts/vm --hw e810 -- tools/testing/selftests/rdma/run_tests.sh hw_e810_perftest.sh
# and skips on a guest without an 8086:159b function.
#
# Server and client on the one device, from the RoCE v2 GID of the
# netdev's IPv4 address (the model's loopback); few iterations, since
# this runs in make check under TCG.  Both sides of every run must exit
# 0 and the client print its result row; irdma must log no error.
# irdma 6.1 offers no atomics: ib_atomic_* are not run.
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"

TOOLS=(write read send)
PLAN=$((1 + 2 * ${#TOOLS[@]} + 1))
ktap_print_header
ktap_set_plan $PLAN

e810_or_skip $PLAN "E810 perftest"
ADDR=10.35.4.1
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
before=$(dmesg | wc -l)

e810_roce_case $ADDR
dev=$E810_IB gidx=$E810_GIDX

# run HOST TOOL ARGS...: perftest_pair, once the port has its GID.
run() {
	[ -n "$gidx" ] || { echo "no GID index"; return 1; }
	perftest_pair "$@"
}

# Latency: 200 round trips of 64 bytes, by GID.  WRITE and SEND inline
# (-I 64): perftest's default inline size for its latency tools (220 and
# 236 bytes) is over irdma's maximum (101 bytes, user.h's
# IRDMA_MAX_INLINE_DATA_SIZE, a fact of the hardware, not of the model),
# so without -I it cannot create its QP on stock and ours alike.
for t in "${TOOLS[@]}"; do
	args=(-I 64)
	[ "$t" = read ] && args=()
	ktap_test_result "ib_${t}_lat on $dev" \
		run localhost ib_${t}_lat -d "$dev" -x "$gidx" -n 200 -F -s 64 \
		"${args[@]}"
done

# Bandwidth through rdma_cm: the client names the server's address
# (rdma_cm resolves it to the device), 200 iterations of 4 KiB.
for t in "${TOOLS[@]}"; do
	ktap_test_result "ib_${t}_bw -R on $dev" \
		run $ADDR ib_${t}_bw -d "$dev" -R -n 200 -F -s 4096
done

ktap_test_result "irdma logs no error" irdma_log_clean "$before" "$dev"
modprobe -r rdma_ucm ib_umad irdma 2>/dev/null
ip link set "$E810_IF" down 2>/dev/null
ktap_finished
