#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Bad input to the modelled E810's RDMA device from user space, with each
# irdma the guest can run on its core: Debian's, then ours (our core only;
# each loaded from its file, what it depends on first).  Needs a guest
# with the model (scripts/vm --hw e810).
#
# For each driver:
#   - uverbs_raw.py's malformed commands (write() and ioctl()), the ones
#     that create a queue carrying libirdma's driver data (uverbs_raw's
#     Irdma: each queue's memory registered first as an MR of its type),
#     and its irdma group: that driver data out of range (ABI version,
#     the legacy response, memory registration types and page counts,
#     queue memory not registered or registered for another kind of
#     queue, short data).  Every outcome must be the one measured with
#     Debian's irdma on the stock stack (EXPECTED_IRDMA), but for what
#     ours answers otherwise by design (OURS_IRDMA: a user CQ's cqe
#     checked against its registered ring).
#   - uverbs_races.py's concurrency (handle churn, busy objects and twin
#     destroys, fork, fds closed under commands, kill -9 in a create loop
#     that registers memory and creates QPs): each with rdma res and the
#     pinned-page balance back where they were.
#   - kill -9 of both ends of ib_write_bw mid-transfer: nothing left, no
#     page pinned, and a ping-pong runs after;
#   - rmmod irdma under running commands: the commands after it fail with
#     EIO, the async fd reports DEVICE_FATAL (Debian's irdma reports its
#     port down first, PORT_ERR: measured on stock and on our core; ours
#     does not), the process exits normally; the driver loads again.
#   - nothing of the device's left in rdma res; ours unloads with nothing
#     logged by irdma and the guest's own irdma (what modprobe finds)
#     returns; the harness fails the run on a kernel WARN or BUG.
# Not covered: irdma's own ioctl methods (6.1 has none), SRQs and
# atomics (irdma 6.1 has neither), iWARP (the model is RoCEv2 only), and
# libirdma's data path (doorbells, the push pages, the QP's own memory
# contents), which no command carries.
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bad_input_lib.sh"

GROUPS_RAW=(header context pd cq qp mr srq_ah more ioctl irdma)
RACES=(churn busy fork close killed)
PER_DRIVER=$((1 + ${#GROUPS_RAW[@]} + ${#RACES[@]} + 3))
PLAN=$((1 + 2 * PER_DRIVER))
ktap_print_header
ktap_set_plan $PLAN

e810_or_skip $PLAN "E810 bad input"
ADDR=10.35.6.1
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT

e810_roce_case $ADDR

# registered: irdma's device there with its uverbs device and its GID of
# ADDR; UVERBS_IBDEV (for the python) and DEV name it.
registered() {
	local d

	eventually 120 e810_ibdev >/dev/null || { echo "no irdma device"; return 1; }
	d=$(e810_ibdev)
	eventually 60 test -n "$(ls "/sys/class/infiniband/$d/device/infiniband_verbs" \
		2>/dev/null)" || { echo "$d: no uverbs device"; return 1; }
	eventually 60 topo_gid "$d" $ADDR >/dev/null
}

# use_driver KO: that irdma the one loaded, its device registered.
use_driver() {
	module_use irdma "$1" && registered
}

# ours_down SINCE: our irdma leaves nothing on the device and unloads
# with no irdma error, warning or bug logged after dmesg line SINCE; the
# one modprobe finds (ours, or Debian's in a guest booted --without
# irdma) registers.
ours_down() {
	res_none "$DEV" && rmmod irdma && irdma_log_clean "$1" "$DEV" &&
		! dmesg | tail -n +$(($1 + 1)) | grep -E 'WARNING|BUG|refcount' &&
		modprobe irdma && registered
}

# clean debian|ours SINCE: nothing of the device's left (objects of the
# kernel's own as after the load); ours then unloads with nothing of
# irdma's logged after dmesg line SINCE.
clean() {
	expect_eq "rdma res" "$(counts)" "$base" || return 1
	[ "$1" = debian ] || ours_down "$2"
}

# cases debian|ours NAME KO: every case with that driver.
cases() {
	local which=$1 name=$2 ko=$3 g r since port_err=

	# Debian's irdma reports PORT_ERR before the core's DEVICE_FATAL.
	[ "$which" != debian ] || port_err=port_err

	since=$(dmesg | wc -l)
	DEV=$(e810_ibdev)
	export UVERBS_IBDEV=$DEV
	# One python for all the groups (its start is slow under TCG).
	python3 "$TESTDIR/uverbs_raw.py" check "${GROUPS_RAW[@]}" >"$OUT/raw" 2>&1
	for g in "${GROUPS_RAW[@]}"; do
		ktap_test_result "$name: uverbs_raw $g as Debian's irdma on stock" raw "$g"
	done
	base=$(counts)
	base_pins=$(pinned_pages)
	for r in "${RACES[@]}"; do
		ktap_test_result "$name: uverbs_races $r: nothing left, nothing pinned" \
			races "$r"
	done
	ktap_test_result "$name: kill -9 under ib_write_bw: nothing left, nothing pinned" \
		traffic_killed
	ktap_test_result "$name: rmmod irdma under running commands: EIO, DEVICE_FATAL" \
		removal irdma "$ko" $port_err
	DEV=$(e810_ibdev)
	base=$(counts)
	ktap_test_result "$name: nothing of the device's left, nothing logged (ours)" \
		clean "$which" "$since"
}

if [ -z "$IRDMA_DEBIAN" ]; then
	skip_cases $PER_DRIVER "Debian's irdma" "no irdma.ko in the guest's kernel"
else
	ktap_test_result "Debian's irdma registers its device" \
		use_driver "$IRDMA_DEBIAN"
	cases debian "Debian's irdma" "$IRDMA_DEBIAN"
fi
if [ "$OOT_STOCK" = 1 ]; then
	skip_cases $PER_DRIVER "our irdma" "our irdma runs on our core (stock guest)"
elif [ ! -f "$IRDMA_OURS" ]; then
	skip_cases $PER_DRIVER "our irdma" "not built: $IRDMA_OURS"
else
	ktap_test_result "our irdma registers its device" \
		use_driver "$IRDMA_OURS"
	cases ours "our irdma" "$IRDMA_OURS"
fi

modprobe -r rdma_ucm ib_umad irdma 2>/dev/null
ip link set "$E810_IF" down 2>/dev/null
ktap_finished
