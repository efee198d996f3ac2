#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Bad input to mlx5_0 from user space, with each mlx5_ib the guest can run
# on its core: Debian's, then ours (our core only; modprobe loads ours
# first, which is unloaded for Debian's).  Needs a guest with the
# ConnectX model (scripts/vm --hw mlx5).
#
# For each driver:
#   - uverbs_raw.py's malformed commands (write() and ioctl()), the ones
#     that create a queue carrying libmlx5's driver data, and its mlx5
#     group: that driver data out of range (context bfregs, CQE size and
#     flags, unmapped buffers and doorbells, WQE counts, user indexes,
#     bfreg and UAR page indexes, short data) and mlx5's own methods on
#     bad handles or values (UAR, PD and port queries, DEVX and VAR, which
#     the model does not offer).  Every outcome must be the one measured
#     with Debian's mlx5_ib on the stock stack (EXPECTED_MLX5), but for
#     what ours refuses by design (OURS_MLX5: the static UAR scheme).
#   - uverbs_races.py's concurrency (handle churn, busy objects and twin
#     destroys, fork, fds closed under commands, kill -9 in a create loop
#     that registers memory and creates QPs): each with rdma res and the
#     pinned-page balance back where they were.
#   - kill -9 of both ends of ib_write_bw mid-transfer: nothing left, no
#     page pinned, and a ping-pong runs after;
#   - rmmod mlx5_ib under running commands: the commands after it fail
#     with EIO, the async fd reports DEVICE_FATAL, the process exits
#     normally; the driver loads again.
#   - nothing of mlx5_0's left in rdma res; ours unloads with nothing
#     logged by mlx5 (Debian's logs what it refuses) and the guest's own
#     mlx5_ib returns; the harness fails the run on a kernel WARN or BUG.
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bad_input_lib.sh"

GROUPS_RAW=(header context pd cq qp mr srq_ah more ioctl mlx5)
RACES=(churn busy fork close killed)
PER_DRIVER=$((1 + ${#GROUPS_RAW[@]} + ${#RACES[@]} + 3))
PLAN=$((1 + 2 * PER_DRIVER))
ktap_print_header
ktap_set_plan $PLAN

mlx5_or_skip $PLAN "mlx5 bad input"
ADDR=192.0.2.1
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
DEV=mlx5_0
export UVERBS_IBDEV=$DEV

ktap_test_result "mlx5_0 up with a RoCE v2 GID of $ADDR" mlx5_roce_up $ADDR

# registered: mlx5_0 there with its uverbs device and its GID of ADDR.
registered() {
	mlx5_ib_registered && eventually 60 topo_gid mlx5_0 $ADDR >/dev/null
}

# use_driver KO: that mlx5_ib the one loaded, mlx5_0 registered.
use_driver() {
	mlx5_ib_use "$1" && registered
}

# clean debian|ours SINCE: nothing of mlx5_0's left (objects of the
# kernel's own as after the load); ours then unloads with nothing of
# mlx5's logged after dmesg line SINCE, and the guest's own mlx5_ib
# (what modprobe finds) returns for the tests that follow.  Debian's logs
# each command it refuses, and mlx5_core each the device refuses ("Create
# QP type 2 failed", "CREATE_QP(0x500) ... failed").
clean() {
	expect_eq "rdma res" "$(counts)" "$base" || return 1
	[ "$1" = debian ] || mlx5_ours_down "$2"
}

# cases debian|ours NAME KO: every case with that driver.
cases() {
	local which=$1 name=$2 ko=$3 g r since

	since=$(dmesg | wc -l)
	# One python for all the groups (its start is slow under TCG).
	python3 "$TESTDIR/uverbs_raw.py" check "${GROUPS_RAW[@]}" >"$OUT/raw" 2>&1
	for g in "${GROUPS_RAW[@]}"; do
		ktap_test_result "$name: uverbs_raw $g as Debian's mlx5_ib on stock" raw "$g"
	done
	base=$(counts)
	base_pins=$(pinned_pages)
	for r in "${RACES[@]}"; do
		ktap_test_result "$name: uverbs_races $r: nothing left, nothing pinned" \
			races "$r"
	done
	ktap_test_result "$name: kill -9 under ib_write_bw: nothing left, nothing pinned" \
		traffic_killed
	ktap_test_result "$name: rmmod mlx5_ib under running commands: EIO, DEVICE_FATAL" \
		removal mlx5_ib "$ko"
	base=$(counts)
	ktap_test_result "$name: nothing of mlx5_0's left, nothing logged (ours)" \
		clean "$which" "$since"
}

if [ -z "$MLX5_IB_DEBIAN" ]; then
	skip_cases $PER_DRIVER "Debian's mlx5_ib" "no mlx5_ib.ko in the guest's kernel"
else
	ktap_test_result "Debian's mlx5_ib registers mlx5_0" \
		use_driver "$MLX5_IB_DEBIAN"
	cases debian "Debian's mlx5_ib" "$MLX5_IB_DEBIAN"
fi
if [ "$OOT_STOCK" = 1 ]; then
	skip_cases $PER_DRIVER "our mlx5_ib" "our mlx5_ib runs on our core (stock guest)"
elif [ ! -f "$MLX5_IB_OURS" ]; then
	skip_cases $PER_DRIVER "our mlx5_ib" "not built: $MLX5_IB_OURS"
else
	ktap_test_result "our mlx5_ib registers mlx5_0" \
		use_driver "$MLX5_IB_OURS"
	cases ours "our mlx5_ib" "$MLX5_IB_OURS"
fi

ktap_finished
