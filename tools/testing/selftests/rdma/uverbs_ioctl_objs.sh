#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The ioctl objects and methods besides PD, CQ, QP and SRQ, called raw by
# uverbs_ioctl_objs.py on rxe, each get the errno stock's ib_uverbs
# answers (the table there, measured on the stock stack): FLOW,
# FLOW_ACTION, COUNTERS, DM, WQ, RWQ_IND_TBL and XRCD do not exist on a
# device without their destroy op, nor does an MR method whose mandatory
# handle names one of them (DM_MR_REG); QUERY_MR answers what REG_MR
# answered; ADVISE_MR and REG_DMABUF_MR are EOPNOTSUPP without the
# driver's op; driver namespace ids rxe does not define are unknown
# (EPROTONOSUPPORT) when needed and ignored when optional.  Nothing is
# left behind and the stack unloads.
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"

ktap_print_header
ktap_set_plan 3

rdma_unload_all
rxe0_up
modprobe ib_uverbs
dir=$(mktemp -d)
base=$(rdma res show | rdma_norm)

python3 "$TESTDIR/uverbs_ioctl_objs.py" check >"$dir/out" 2>&1
objs() {
	cat "$dir/out"
	grep -q "^done$" "$dir/out" && ! grep -q ": got " "$dir/out"
}
ktap_test_result "each object and method answers stock's errno on rxe" objs

clean() {
	expect_eq "rdma res" "$(rdma res show | rdma_norm)" "$base"
}
ktap_test_result "no object outlives its file" clean

rdma link del rxe0
ktap_test_result "the stack unloads afterwards" rdma_unload_all

veth_teardown
rm -rf "$dir"
ktap_finished
