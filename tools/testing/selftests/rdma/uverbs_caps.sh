#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# A QP with a source QPN takes CAP_NET_RAW, on both transports
# (uverbs_caps.py sends the write() command EX_CREATE_QP and the ioctl
# method QP_CREATE raw).  As root, rxe's own refusal of the flag
# (EOPNOTSUPP) shows, as on stock.  As nobody (the device is 0666, as
# stock's devnode makes it), the permission is refused first with EPERM:
# stock does so on write(); stock's ioctl lacks the check and answers
# rxe's EOPNOTSUPP (measured), so that case is ours only.
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"

ktap_print_header
ktap_set_plan 4

rdma_unload_all
rxe0_up
modprobe ib_uverbs
base=$(rdma res show | rdma_norm)

caps() {	# caps [--nobody] PREFIX: the cases ran to the end, no mismatch
	local out
	out=$(OOT_STOCK=$OOT_STOCK python3 "$TESTDIR/uverbs_caps.py" "$@" 2>&1)
	echo "$out" | grep -v '^done$'
	echo "$out" | grep -qx done && ! echo "$out" | grep -q ': got '
}

ktap_test_result "root: source QPN on both transports reaches the driver's refusal" \
	caps check ""
ktap_test_result "nobody: EX_CREATE_QP with a source QPN is EPERM" \
	caps --nobody check write_
if ours; then
	ktap_test_result "nobody: ioctl QP_CREATE with a source QPN is EPERM" \
		caps --nobody check ioctl_
else
	ktap_test_skip "nobody: ioctl QP_CREATE with a source QPN is EPERM" \
		"stock 6.1's ioctl has no CAP_NET_RAW check: rxe answers EOPNOTSUPP (measured)"
fi

# Every object the cases made went with its file.
clean() {
	expect_eq "rdma res" "$(rdma res show | rdma_norm)" "$base"
}
ktap_test_result "no object outlives its file" clean

rdma link del rxe0
veth_teardown
ktap_finished
