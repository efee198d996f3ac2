#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The modelled ConnectX under half an hour of perftest: the model's
# guest-visible timing must keep Debian's mlx5_core content (issue 34).
# mlx5_core times every command (60 s), polls the firmware's health
# counter (a miss every 2 s, three make "health compromised"), and
# mlx5e watches its TX queues (15 s); under TCG the model shares the
# host's CPUs with the guest.  The soak runs perftest's bandwidth and
# latency tools back to back on mlx5_0 (WRITE, READ, SEND, atomics,
# sizes from 64 B to 64 KiB, -R through rdma_cm in turn) for
# HW_SOAK_SEC seconds (default 1800) while a ping floods the netdev's
# own address, then asserts: every run ended with its result line, the
# kernel log holds no command timeout, health, TX timeout or error-CQE
# line of mlx5's, and no warning.  A long case: run_tests.sh gives a test
# 600 s times OOT_TIMEOUT_SCALE, and the soak takes what is left of that
# after four minutes of bring-up when HW_SOAK_SEC does not fit (six
# minutes in make check-long).  The half hour: make soak-hw, i.e.
#	OOT_TIMEOUT_SCALE=4 scripts/vm --hw mlx5 -- env OOT_LONG=1 \
#		tools/testing/selftests/rdma/run_tests.sh hw_mlx5_soak.sh

. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"

PLAN=5
ktap_print_header
ktap_set_plan $PLAN

mlx5_or_skip $PLAN "mlx5 soak"
if ! long_cases; then
	for ((i = 1; i <= PLAN; i++)); do
		ktap_test_skip "mlx5 soak case $i" "$LONG_SKIP"
	done
	ktap_finished
fi

ADDR=192.0.2.1
DURATION=${HW_SOAK_SEC:-1800}
FITS=$((600 * ${OOT_TIMEOUT_SCALE:-1} - 240))
[ "$DURATION" -le "$FITS" ] || DURATION=$FITS
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"; kill $(jobs -p) 2>/dev/null' EXIT

mlx5_roce_cases $ADDR
gidx=$MLX5_GIDX
before=$(dmesg | wc -l)

# One perftest run of ARGS (server and client to the netdev's address,
# which rdma_cm resolves to mlx5_0 for -R; both exit 0), which must end
# with the client's result line.
perf_run() {
	pair_to $ADDR 300 "$@" || { echo "failed: $*"; return 1; }
	grep -qE '^ +[0-9]+ +[0-9]+ ' "$OUT/client" ||
		{ echo "no result line: $*"; tail -5 "$OUT/client"; return 1; }
}

RUNS=(
	"ib_write_bw -s 65536 -D 20"
	"ib_read_bw -s 4096 -D 20"
	"ib_send_bw -s 1024 -D 20 -R"
	"ib_atomic_bw -D 20"
	"ib_write_lat -s 64 -D 10"
	"ib_send_lat -s 2048 -D 10 -R"
	"ib_read_lat -s 64 -D 10"
)

soak() {
	local end=$((SECONDS + DURATION)) i=0 fails=0 runs=0

	ping -f -s 1400 -w "$DURATION" $ADDR >/dev/null 2>&1 &
	while [ $SECONDS -lt $end ]; do
		# shellcheck disable=SC2086
		perf_run ${RUNS[i % ${#RUNS[@]}]} -d mlx5_0 -x "$gidx" -F ||
			fails=$((fails + 1))
		runs=$((runs + 1))
		i=$((i + 1))
	done
	wait
	echo "$runs runs in $DURATION s, $fails failed"
	[ $fails = 0 ]
}
ktap_test_result "perftest for $DURATION s on mlx5_0, every run complete" soak
ktap_print_msg "$(dmesg | tail -n +$((before + 1)) | grep -c .) kernel log lines during the soak"

# mlx5_core's and mlx5e's complaints about the device's timing.
timing_clean() {
	! dmesg | tail -n +$((before + 1)) |
		grep -aiE 'timeout|health|cmd_work|recover|compromised|WC error|failed'
}
ktap_test_result "no command timeout, health or TX timeout line" timing_clean

ktap_finished
