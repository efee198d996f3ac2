#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# "rdma res show" against objects being destroyed together with their
# PDs (nldev_res_destroy_race.py): nldev holds the QP, SRQ or MR it
# prints, reads its PD's id and asks the driver for the QP's state.  The
# core unpublishes an object before the driver destroys it and drops its
# PD only after that, so a listed object's PD is alive and the driver's
# QP is not destroyed under query_qp.  With the old order (destroy, drop
# the PD, then unpublish) DEALLOC_PD could free the PD while a dump read
# it.  Every create and destroy must succeed, every dump (as root and as
# an unprivileged user, in JSON) must parse, and the kernel must stay
# silent (the harness fails the run on any complaint).  The window is
# narrow and a freed PD's id reads back as some number: the loop is a
# regression guard more than a reproducer.
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"

ktap_print_header
ktap_set_plan 3

rdma_unload_all
rxe0_up
modprobe ib_uverbs
eventually 10 test -e /dev/infiniband/uverbs0
dir=$(mktemp -d)
chmod 755 "$dir"
counts() {
	rdma res show | sed -n 's/^[0-9]*: rxe0: //p'
}
base=$(counts)

# dump AS KIND: one JSON dump of KIND, as root or as nobody, kept in
# $dir/dump.* for parse_all (one Python start per dump would be too slow
# in the VM).
dumps=0
dump() {
	local f=$dir/dump.$dumps
	dumps=$((dumps + 1))
	if [ "$1" = root ]; then
		rdma -j res show "$2" >"$f"
	else
		setpriv --reuid=65534 --regid=65534 --clear-groups \
			rdma -j res show "$2" >"$f"
	fi || { echo "rdma res show $2 as $1 failed"; return 1; }
}

parse_all() {
	python3 -c '
import json, sys
bad = 0
for f in sys.argv[1:]:
    try:
        json.load(open(f))
    except ValueError as e:
        print("unparseable %s: %s" % (f, e))
        bad = 1
sys.exit(bad)' "$dir"/dump.*
}

race() {
	local pid rc=0 n
	python3 "$TESTDIR/nldev_res_destroy_race.py" 20000 "$dir" >"$dir/out" &
	pid=$!
	eventually 30 test -e "$dir/ready" || { kill $pid; return 1; }
	for n in $(seq 3); do
		dump root qp && dump nobody qp && dump root srq &&
			dump nobody mr && dump root pd && dump root cq || rc=1
		kill -0 $pid 2>/dev/null ||
			{ echo "the churn ended before the dumps"; rc=1; break; }
	done
	touch "$dir/done"
	wait $pid || rc=1
	parse_all || rc=1
	ktap_print_msg "$(cat "$dir/out") rounds of churn; $dumps dumps"
	[ $rc = 0 ] || cat "$dir/out"
	return $rc
}
ktap_test_result "dumps while objects go with their PDs: all parse, all succeed" race

# Nothing of the churn is left.
left() {
	expect_eq "rdma res" "$(counts)" "$base"
}
ktap_test_result "nothing of the churn is left listed" eventually 10 left

gone() {
	rdma link del rxe0 && rdma_unload_all
}
ktap_test_result "the device and the stack go afterwards" gone

veth_teardown
rm -rf "$dir"
ktap_finished
