#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# ib_uverbs and rxe under concurrency, from raw commands on one context
# (uverbs_races.py; its threads are in the kernel at once):
#   - PDs and CQs created and destroyed by 4 threads while 2 destroy
#     random handles, through write() and ioctl(): every destroy answers
#     ok, ENOENT, EBUSY or EINVAL, each object goes exactly once;
#   - a QP's CQ and PD are EBUSY until it goes; two destroys of one
#     object at once: exactly one wins;
#   - children inheriting the fds exit: the parent's context works;
#   - the fds closed under running commands; kill -9 of a process in a
#     create loop, again and again;
#   - rdma link del under running commands (ours only: stock blocks).
# Each case ends with rdma res, and the page-pin balance, as before it.
# The work is bounded by iteration counts; the harness fails the run on
# any kernel complaint.
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"

ktap_print_header
ktap_set_plan 7

rdma_unload_all
rxe0_up
modprobe ib_uverbs
dir=$(mktemp -d)

counts() {
	res_counts rxe0
}
base=$(counts)
base_pins=$(pinned_pages)
back() {
	expect_eq "rdma res" "$(counts)" "$base" &&
	expect_eq "pinned pages" "$(pinned_pages)" "$base_pins"
}

races() {
	python3 "$TESTDIR/uverbs_races.py" "$@" && eventually 10 back
}
ktap_test_result "handle churn on one context: each object destroyed once" races churn
ktap_test_result "a QP's CQ and PD are busy until it goes; one of two destroys wins" \
	races busy
ktap_test_result "children inheriting the fds exit: the parent's context works" \
	races fork
ktap_test_result "the fds closed under running commands: all goes, nothing else fails" \
	races close

ktap_test_result "kill -9 in a create loop, again and again: nothing left, nothing pinned" \
	races killed

removal() {
	local pid rc=0
	rm -f "$dir/ready" "$dir/done"
	python3 "$TESTDIR/uverbs_races.py" removal "$dir" &
	pid=$!
	eventually 30 test -e "$dir/ready" || { kill $pid; return 1; }
	rdma link del rxe0 || { echo "rdma link del failed"; rc=1; }
	touch "$dir/done"
	wait $pid || rc=1
	return $rc
}
if ours; then
	ktap_test_result "rdma link del under running commands: EIO, DEVICE_FATAL, clean exit" \
		removal
else
	ktap_test_skip "rdma link del under running commands: EIO, DEVICE_FATAL, clean exit" \
		"stock 6.1 blocks removal until the process closes (measured)"
	rdma link del rxe0
fi

ktap_test_result "the stack unloads afterwards" rdma_unload_all

veth_teardown
rm -rf "$dir"
ktap_finished
