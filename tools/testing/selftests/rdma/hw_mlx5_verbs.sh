#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# RDMA traffic through the modelled ConnectX-4 Lx: the guest's mlx5_ib
# (ours on our core, Debian's on stock; scripts/vm --without mlx5_ib
# gives Debian's on ours) and Debian's unmodified libmlx5 on the model's
# RoCE front end and the RoCEv2 engine
# (tools/qemu/hw/mlx5/mlx5-roce*.c, tools/qemu/hw/roce/).  Needs a guest
# booted with it:
#	scripts/vm --hw mlx5 -- tools/testing/selftests/rdma/run_tests.sh hw_mlx5_verbs.sh
# and skips on a guest without a 15b3:1015 function.
#
# One device, server and client both on mlx5_0 from the RoCE v2 GID of
# the netdev's IPv4 address: their packets go through the model's
# loopback queue.  ibv_rc_pingpong, ibv_ud_pingpong and ibv_srq_pingpong
# with their buffers checked (-c); ibv_xsrq_pingpong (XRC: initiator and
# target QPs, XRC SRQs; it prints nothing, so both ends must exit 0);
# perftest's ib_write_bw, ib_read_bw, ib_send_bw and ib_atomic_bw, a few
# hundred iterations each; rping over rdma_cm (its connection through
# ib_cm's MADs on mlx5_ib's GSI QP, a QP1 of the model's); every other
# run must report its results on both sides.  Then mckey over rdma_cm,
# receiver and sender on mlx5_0 (the group's datagrams reach the
# receiver through the model's multicast loopback: ATTACH_TO_MCG,
# mlx5-mcg.c), and mlx5_ib must log no WC error (an error CQE it
# dumps).  perftest's latency tools and -R: hw_mlx5_perftest.
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"

PINGPONGS=(rc ud srq)
PERFTESTS=(write read send atomic)
PLAN=$((3 + ${#PINGPONGS[@]} + 1 + ${#PERFTESTS[@]} + 3))
ktap_print_header
ktap_set_plan $PLAN

mlx5_or_skip $PLAN "mlx5 verbs"
ADDR=192.0.2.1
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT

mlx5_roce_cases $ADDR
gidx=$MLX5_GIDX
before=$(dmesg | wc -l)

# pair TOOL ARGS...: TOOL's server and its client (to localhost) on
# mlx5_0, both within 300 s; both must exit 0.
pair() {
	[ -n "$gidx" ] || { echo "no GID index"; return 1; }
	localhost_pair 300 "$@"
}

pingpong() {
	local tool=ibv_$1_pingpong size=4096

	# UD messages must fit the path MTU (1024 on the model's port).
	[ "$1" = ud ] && size=512
	pair $tool -d mlx5_0 -g "$gidx" -n 50 -s $size -c || return 1
	grep -q ' iters in ' "$OUT/server" && grep -q ' iters in ' "$OUT/client" ||
		{ echo "$tool: no iteration report"; return 1; }
}
for t in "${PINGPONGS[@]}"; do
	ktap_test_result "ibv_${t}_pingpong -c on mlx5_0" pingpong "$t"
done

# ibv_xsrq_pingpong: on each side an XRC domain, an XRC SRQ, an
# initiator QP (its WQEs name the peer's SRQ) and a target QP; 10
# exchanges of 4 KiB, at the port's MTU (its default, 2048, is over
# it).  It prints nothing on success and checks no data: both ends must
# exit 0.
ktap_test_result "ibv_xsrq_pingpong on mlx5_0 (XRC)" \
	pair ibv_xsrq_pingpong -d mlx5_0 -g "$gidx" -m 1024 -n 10 -s 4096

# perftest: its result line (size, iterations, ...) on both sides.
perftest() {
	local tool=ib_$1_bw args=(-s 4096)

	[ "$1" = atomic ] && args=()
	pair $tool -d mlx5_0 -x "$gidx" -n 300 -F "${args[@]}" || return 1
	grep -qE '^ +[0-9]+ +300 ' "$OUT/server" &&
		grep -qE '^ +[0-9]+ +300 ' "$OUT/client" ||
		{ echo "$tool: no result line"; cat "$OUT/client"; return 1; }
}
for t in "${PERFTESTS[@]}"; do
	ktap_test_result "ib_${t}_bw on mlx5_0" perftest "$t"
done

# rping: 10 pings, each verified by the server and shown by the client.
ktap_test_result "rping over rdma_cm on mlx5_0" rping_pair $ADDR

ktap_test_result "mckey over rdma_cm on mlx5_0 (multicast)" \
	mckey_pair $ADDR 239.1.1.1

ktap_test_result "mlx5_ib logs no WC error" mlx5_log_clean "$before"
modprobe -r mlx5_ib 2>/dev/null
ktap_finished
