#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# rxe's queue memory is charged to the memory cgroup of the process that
# creates the object.  A QP may have up to 1M send WRs (max_qp_wr): its
# send queue and the requester's kernel copy of it are then GiBs of
# vmalloc.  In a cgroup v2 whose memory.max is 64 MiB, a QP of 256K send
# WRs (64 MiB of queue and as much again of copy) must fail with ENOMEM,
# and memory.current must grow by the queues of a QP that fits; a small
# QP is still created.  Uncharged, the kernel allocated it all outside
# the cgroup and the create succeeded.
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"

ktap_print_header
ktap_set_plan 3

rdma_unload_all
rxe0_up
modprobe ib_uverbs
eventually 10 test -e /dev/infiniband/uverbs0
dir=$(mktemp -d)

# A cgroup v2 hierarchy of our own (the guest mounts none), the memory
# controller enabled for its child $CG.
CGROOT=$dir/cgroup
mkdir "$CGROOT"
mount -t cgroup2 none "$CGROOT"
echo +memory >"$CGROOT/cgroup.subtree_control"
CG=$CGROOT/limits
mkdir "$CG"
echo $((64 << 20)) >"$CG/memory.max"

# in_cg SEND_WR: creates an RC QP of SEND_WR send WRs from within $CG;
# prints CREATE_QP's outcome and how much memory.current grew meanwhile
# (in MiB), the QP still alive.
in_cg() {
	# shellcheck disable=SC2016
	sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec python3 -c "$@"' \
		sh "$CG" '
import struct, sys
sys.path.insert(0, sys.argv[1])
import uverbs_raw as raw
cg = sys.argv[2]
u = raw.Uverbs()
u.context()
pd = u.pd()
cq = u.cq()
def current():
    with open(cg + "/memory.current") as f:
        return int(f.read())
before = current()
res, resp = u.create_qp(pd, cq, cq, send_wr=int(sys.argv[3]))
print(res, (current() - before) >> 20)
' "$TESTDIR" "$CG" "$1"
}

big() {
	local got
	got=$(in_cg $((256 * 1024 - 1)) 2>&1)
	expect_eq "CREATE_QP of 256K WRs in 64 MiB" "${got% *}" ENOMEM
}
if ours; then
	ktap_test_result "a QP bigger than memory.max: ENOMEM" big
else
	ktap_test_skip "a QP bigger than memory.max: ENOMEM" \
		"stock 6.1 allocates queues with vmalloc_user(), uncharged (measured: $(in_cg $((256 * 1024 - 1)) 2>&1))"
fi

charged() {
	local got
	got=$(in_cg $((64 * 1024 - 1)) 2>&1)
	ktap_print_msg "CREATE_QP of 64K WRs: $got (MiB charged)"
	# 16 MiB of queue and 16 of copy, at 256 bytes a WQE
	[ "${got% *}" = ok ] && [ "${got#* }" -ge 30 ]
}
if ours; then
	ktap_test_result "a QP's queues are charged to its creator's cgroup" charged
else
	ktap_test_skip "a QP's queues are charged to its creator's cgroup" \
		"stock 6.1 does not charge them (measured: $(in_cg $((64 * 1024 - 1)) 2>&1))"
fi

small() {
	expect_eq "CREATE_QP of 16 WRs" "$(in_cg 16 2>&1 | cut -d' ' -f1)" ok
}
ktap_test_result "a small QP in the same cgroup is created" small

rmdir "$CG"
umount "$CGROOT"
rm -rf "$dir"
rdma link del rxe0
rdma_unload_all
veth_teardown
ktap_finished
