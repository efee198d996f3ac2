#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# perftest through the modelled ConnectX-4 Lx, beyond hw_mlx5_verbs'
# bandwidth tools: the latency tools (ib_write_lat, ib_read_lat,
# ib_send_lat, ib_atomic_lat) and the bandwidth tools through rdma_cm
# (-R: the connection by ib_cm's MADs on mlx5_ib's GSI QP, the model's
# QP1), with the guest's mlx5_ib (ours on our core, Debian's on stock)
# and Debian's unmodified libmlx5.  Needs a guest
# booted with the model:
#	scripts/vm --hw mlx5 -- tools/testing/selftests/rdma/run_tests.sh hw_mlx5_perftest.sh
# and skips on a guest without a 15b3:1015 function.
#
# Server and client on mlx5_0 in one guest, from the RoCE v2 GID of the
# netdev's IPv4 address (the model's loopback queue); few iterations,
# since this runs in make check under TCG.  Both sides of every run
# must exit 0 and the client print its result line (size, iterations,
# ...), and mlx5_ib must log no WC error.
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"

LATS=(write read send atomic)
BWS=(write read send atomic)
PLAN=$((3 + ${#LATS[@]} + ${#BWS[@]} + 1))
ktap_print_header
ktap_set_plan $PLAN

mlx5_or_skip $PLAN "mlx5 perftest"
ADDR=192.0.2.1
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT

mlx5_roce_cases $ADDR
gidx=$MLX5_GIDX
before=$(dmesg | wc -l)

# run HOST TOOL ARGS...: perftest_pair, once the port has its GID.
run() {
	[ -n "$gidx" ] || { echo "no GID index"; return 1; }
	perftest_pair "$@"
}

# Latency: 200 round trips of 64 bytes (atomics: 8), by GID.
for t in "${LATS[@]}"; do
	args=(-s 64)
	[ "$t" = atomic ] && args=()
	ktap_test_result "ib_${t}_lat on mlx5_0" \
		run localhost ib_${t}_lat -d mlx5_0 -x "$gidx" -n 200 -F "${args[@]}"
done

# Bandwidth through rdma_cm: the client names the server's address
# (rdma_cm resolves it to mlx5_0), 200 iterations of 4 KiB.
for t in "${BWS[@]}"; do
	args=(-s 4096)
	[ "$t" = atomic ] && args=()
	ktap_test_result "ib_${t}_bw -R on mlx5_0" \
		run $ADDR ib_${t}_bw -d mlx5_0 -R -n 200 -F "${args[@]}"
done

ktap_test_result "mlx5_ib logs no WC error" mlx5_log_clean "$before"
modprobe -r mlx5_ib 2>/dev/null
ktap_finished
