#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# REREG_MR moving an MR to another PD (IB_MR_REREG_PD), raw through
# write() and ioctl's INVOKE_WRITE (uverbs_rereg.py), answers as stock,
# and leaves the PDs' use counts as they were: the new PD deallocates,
# the old one is busy while the MR lives.  rxe has no rereg_user_mr, so
# stock and ours answer EOPNOTSUPP (measured); the use-count move after
# a driver's in-place rereg cannot be reached with rxe.
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"

ktap_print_header
ktap_set_plan 2

rdma_unload_all
rxe0_up
modprobe ib_uverbs
base=$(rdma res show | rdma_norm)

rereg() {
	local out
	out=$(python3 "$TESTDIR/uverbs_rereg.py" check 2>&1)
	echo "$out" | grep -v '^done$'
	echo "$out" | grep -qx done && ! echo "$out" | grep -q ': got '
}
ktap_test_result "REREG_MR to another PD: stock's errno, PD counts unchanged" rereg

clean() {
	expect_eq "rdma res" "$(rdma res show | rdma_norm)" "$base"
}
ktap_test_result "no object outlives its file" clean

rdma link del rxe0
veth_teardown
ktap_finished
