#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# RDMA traffic through the modelled E810: the guest's irdma (ours on our
# core, Debian's on stock or --without irdma) and rdma-core's unmodified
# libirdma on the model's protocol engine (e810-model.rst:
# the RoCE front end in tools/qemu/hw/e810/e810-roce*.c, the RoCEv2
# engine of tools/qemu/hw/roce/).  Needs a guest booted with it:
#	scripts/vm --hw e810 -- tools/testing/selftests/rdma/run_tests.sh hw_e810_verbs.sh
# and skips on a guest without an 8086:159b function.
#
# One device, server and client both on it from the RoCE v2 GID of the
# netdev's IPv4 address: their packets go through the model's loopback.
# ibv_rc_pingpong (polled and event-driven: CQ arming and completion
# events through the CEQ) and ibv_ud_pingpong with their buffers checked
# (-c); perftest's ib_write_bw, ib_read_bw and ib_send_bw, a few hundred
# iterations each, their result lines on both sides; rping over rdma_cm
# (the connection through ib_cm's MADs on irdma's QP1, a UD QP of the
# model's) and rdmacm-utils: ucmatose, udaddy (UD through SIDR), rstream
# (rsockets, verified); mckey (a multicast group the model's PE keeps,
# e810-mcg.c: the sender's datagrams loop back to the receiver's QP);
# irdma logs no error.  irdma 6.1 has no SRQ and no atomics:
# those tools are not run.
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"

PERFTESTS=(write read send)
CM_TOOLS=5
PLAN=$((1 + 3 + ${#PERFTESTS[@]} + CM_TOOLS + 1))
ktap_print_header
ktap_set_plan $PLAN

e810_or_skip $PLAN "E810 verbs"
ADDR=10.35.2.1
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
before=$(dmesg | wc -l)

e810_roce_case $ADDR
dev=$E810_IB gidx=$E810_GIDX

# pair TOOL ARGS...: TOOL's server and its client (to localhost) on the
# device, both within 300 s; both must exit 0.
pair() {
	[ -n "$gidx" ] || { echo "no GID index"; return 1; }
	localhost_pair 300 "$@"
}

ktap_test_result "ibv_rc_pingpong -c" e810_pingpong "$dev" "$gidx" rc
ktap_test_result "ibv_rc_pingpong -c -e (completion events)" e810_pingpong "$dev" "$gidx" rc -e
ktap_test_result "ibv_ud_pingpong -c" e810_pingpong "$dev" "$gidx" ud

# perftest: its result line (size, iterations, ...) on both sides.
perftest() {
	pair "ib_$1_bw" -d "$dev" -x "$gidx" -n 300 -F -s 4096 || return 1
	grep -qE '^ +[0-9]+ +300 ' "$OUT/server" &&
		grep -qE '^ +[0-9]+ +300 ' "$OUT/client" ||
		{ echo "ib_$1_bw: no result line"; cat "$OUT/client"; return 1; }
}
for t in "${PERFTESTS[@]}"; do
	ktap_test_result "ib_${t}_bw" perftest "$t"
done

# rping: 10 pings, each verified by the server and shown by the client.
ktap_test_result "rping over rdma_cm" rping_pair $ADDR
ktap_test_result "ucmatose over rdma_cm" \
	server_client 120 ucmatose -b $ADDR -- ucmatose -s $ADDR
ktap_test_result "udaddy over rdma_cm (SIDR, UD)" \
	server_client 120 udaddy -b $ADDR -- udaddy -s $ADDR
ktap_test_result "rstream -T b -T v, 64 KiB over rsockets" \
	server_client 120 rstream -b $ADDR -T b -T v -S 65536 -C 20 -- \
	rstream -s $ADDR -T b -T v -S 65536 -C 20
ktap_test_result "mckey over rdma_cm (multicast)" mckey_pair $ADDR 239.1.2.1

ktap_test_result "irdma logs no error" irdma_log_clean "$before" "$dev"
modprobe -r rdma_ucm ib_umad irdma 2>/dev/null
ip link set "$E810_IF" down 2>/dev/null
ktap_finished
