#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The rdma cgroup controller's limits hold for verbs applications: in a
# cgroup v2 whose rdma.max is "rxe0 hca_handle=1 hca_object=3", a second
# user context and a fourth object are refused with EAGAIN, through
# write() and ioctl alike; rdma.current follows every step: a context is
# one hca_handle, each PD, CQ, QP, MR, MW, SRQ, AH one hca_object, comp
# channels and async event fds nothing; an aborted create and every
# destroy give the charge back.  Killing the process (-9) returns
# rdma.current to zero.  Removing the device under a live process must
# uncharge too, which rdma.current cannot show (the device's counters go
# with it): a charge is a reference to the cgroup, so one never given
# back keeps the removed cgroup a dying descendant forever.  All of it
# measured on stock first; the expectations below are stock's.
#
# Measured on stock 6.1 (Debian's kernel/cgroup/rdma.c, not the RDMA
# stack): a cgroup removed while it has an rdma.max limit set but nothing
# charged leaves its counters on the device's list, and the device's
# unregistration then hits list corruption.  The test sets the limits back
# to max before removing a cgroup.
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"

ktap_print_header
ktap_set_plan 7

rdma_unload_all
rxe0_up
modprobe ib_uverbs
dir=$(mktemp -d)

# A cgroup v2 hierarchy of our own (the guest mounts none), with the
# rdma controller enabled for its children, and one child, $CG.
CGROOT=$dir/cgroup
mkdir "$CGROOT"
mount -t cgroup2 none "$CGROOT"
echo +rdma >"$CGROOT/cgroup.subtree_control"
CG=$CGROOT/limits
mkdir "$CG"

rxe0_current() {	# rxe0's line of $CG/rdma.current, without the name
	sed -n 's/^rxe0 //p' "$CG/rdma.current" | sed 's/ *$//'
}
current_is() {		# current_is WANT: for eventually, which repeats it
	expect_eq "rdma.current" "$(rxe0_current)" "$1"
}
dying() {		# the hierarchy's dying cgroups
	sed -n 's/^nr_dying_descendants //p' "$CGROOT/cgroup.stat"
}
dying_is() {		# dying_is N
	expect_eq "dying cgroups" "$(dying)" "$1"
}
# released: $CG, emptied, goes for good: dying cgroups back to $base.
released() {
	rmdir "$CG" || return 1
	eventually 10 dying_is "$base"
}
base=$(dying)

# Measured on stock 6.1 (uverbs_cgroup.py limits).
LIMITS_WANT="start: ok | hca_handle=0 hca_object=0
write GET_CONTEXT: ok | hca_handle=1 hca_object=0
write GET_CONTEXT, second file: EAGAIN | hca_handle=1 hca_object=0
ioctl GET_CONTEXT, third file: EAGAIN | hca_handle=1 hca_object=0
comp channel: ok | hca_handle=1 hca_object=0
PD 1: ok | hca_handle=1 hca_object=1
PD 2: ok | hca_handle=1 hca_object=2
PD 3: ok | hca_handle=1 hca_object=3
PD 4: EAGAIN | hca_handle=1 hca_object=3
CQ: EAGAIN | hca_handle=1 hca_object=3
dealloc PD: ok | hca_handle=1 hca_object=2
CQ of 2^31 entries: EINVAL | hca_handle=1 hca_object=2
CQ: ok | hca_handle=1 hca_object=3
destroy CQ: ok | hca_handle=1 hca_object=2
close the file: ok | hca_handle=0 hca_object=0
ioctl GET_CONTEXT: ok | hca_handle=1 hca_object=0
PD on it: ok | hca_handle=1 hca_object=1
close it: ok | hca_handle=0 hca_object=0"

limits() {
	local out
	echo "rxe0 hca_handle=1 hca_object=3" >"$CG/rdma.max" || return 1
	out=$(python3 "$TESTDIR/uverbs_cgroup.py" "$CG" limits 2>&1)
	# See the head: never remove a cgroup with limits set.
	echo "rxe0 hca_handle=max hca_object=max" >"$CG/rdma.max"
	expect_eq "steps" "$out" "$LIMITS_WANT"
}
ktap_test_result "limits refuse with EAGAIN; rdma.current follows each step" limits
if ours; then
	ktap_test_result "the cgroup is released afterwards" released
else
	ktap_test_skip "the cgroup is released afterwards" \
		"stock 6.1 keeps a cgroup dying after a refused ioctl GET_CONTEXT (measured)"
	rmdir "$CG"
	base=$(dying)
fi
CG=$CGROOT/holder
mkdir "$CG"

# holder_in_cg ARGS...: verbs_holder.py (ARGS) started inside $CG.
holder_in_cg() {
	HOLDER_CG=$CG verbs_holder_start "$dir" "$@"
}

# verbs_holder.py --objects: pd 1, mr 1, mw 1, comp channel 1, cq 2, qp 3,
# srq 1, ah 1: ten objects, the channel free (measured on stock).
holder_in_cg --objects --wait 30 pd
# It will be killed with SIGKILL: no job report from the shell, please.
disown $HOLDER_PID
ktap_test_result "every kind of object counts, the comp channel not" \
	current_is "hca_handle=1 hca_object=10"

kill -9 $HOLDER_PID
ktap_test_result "kill -9 gives every charge back" \
	eventually 10 current_is "hca_handle=0 hca_object=0"

# Removal under a process holding objects: ours disassociates it and
# uncharges then; stock blocks the removal until the holder gives up
# waiting and exits, and uncharges on its close.  Either way no charge
# may outlive the device.
removal() {
	local rc=0
	current_is "hca_handle=1 hca_object=10" || rc=1
	rdma link del rxe0 || rc=1
	touch "$dir/go"
	# The holder, our sibling, tries a PD and exits.
	eventually 20 test ! -s "$CG/cgroup.procs" || rc=1
	# The device's counters went with it.
	current_is "" || rc=1
	return $rc
}
holder_in_cg --objects --wait 5 pd
ktap_test_result "rdma link del under a holder" removal
wait $HOLDER_PID

ktap_test_result "no charge outlives the device: the cgroup is released" \
	released

umount "$CGROOT"
ktap_test_result "the stack unloads afterwards" rdma_unload_all

veth_teardown
rm -rf "$dir"
ktap_finished
