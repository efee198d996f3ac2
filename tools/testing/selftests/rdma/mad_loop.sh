#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The MAD layer of ib_core on rxe0: its QP1 as rdma res shows it, the
# queue-size parameters, and a MAD loop through the device's own GID by
# the test-only module mad_test (modules/mad_test), which runs its cases
# when loaded and prints KTAP into the kernel log, lines prefixed
# "mad_test: "; each of its cases becomes a case here: agents and their
# registration rules, GET answered with GetResp, timeouts after retries,
# cancellation, more sends than the send queue holds, unregistration with
# sends outstanding.  Then the device and the stack go away.
# Build the module and pass it to the guest (without it the MAD loop is
# skipped):
#	make -C tools/testing/selftests/rdma/modules/mad_test
#	OOT_TESTS=mad_loop scripts/vm --ko \
#	    tools/testing/selftests/rdma/modules/mad_test/mad_test.ko \
#	    -- tools/testing/selftests/rdma/run_tests.sh
# and on the stock stack, with the module built against it:
#	make -C tools/testing/selftests/rdma/modules/mad_test stock
#	OOT_TESTS=mad_loop scripts/vm --stock --ko \
#	    tools/testing/selftests/rdma/modules/mad_test/stock/mad_test.ko \
#	    -- tools/testing/selftests/rdma/run_tests.sh
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"

# The module's own cases (MT_NR_CASES in mad_test.c) and ours.
MODULE_CASES=14
OUR_CASES=5
ktap_print_header
ktap_set_plan $((MODULE_CASES + OUR_CASES))

skip_all() {
	test_module_skip mad_test $MODULE_CASES "$1"
	ktap_test_skip "QP1 of rxe0 in rdma res: GSI, RTS, owned by ib_core" "$1"
	ktap_test_skip "rdma res counts the MAD layer's PD, CQ and QP" "$1"
	ktap_test_skip "send_queue_size and recv_queue_size as stock" "$1"
	ktap_test_skip "rxe0 goes away with its MAD port" "$1"
	ktap_test_skip "the stack unloads afterwards" "$1"
	ktap_finished
	exit 0
}

rdma_unload_all
modinfo rdma_rxe >/dev/null 2>&1 || skip_all "no rdma_rxe module"
veth_setup
link_ready "$VETH" || true
rdma link add rxe0 type rxe netdev "$VETH" 2>/dev/null ||
	skip_all "cannot create rxe0"
eventually 10 test -e /sys/class/infiniband/rxe0/ports/1/gids/0 ||
	echo "# no GID 0 on rxe0"

# Kernel objects are shown with their owner in brackets; iproute2 6.1's
# line for a QP (measured on stock for kverbs_test's RC QP).
qp1_line() {
	rdma res show qp link rxe0/1 lqpn 1 2>/dev/null |
		sed -E 's/(rq-psn|sq-psn) [0-9]+/\1 N/g'
}
qp1() {
	local line
	line=$(qp1_line)
	echo "# $line"
	expect_eq "type" "$(printf '%s\n' "$line" | grep -o 'type [A-Z]*')" \
		"type GSI" &&
	expect_eq "state" "$(printf '%s\n' "$line" | grep -o 'state [A-Z]*')" \
		"state RTS" &&
	expect_eq "owner" "$(printf '%s\n' "$line" | grep -o 'comm \[[a-z_]*\]')" \
		"comm [ib_core]"
}
ktap_test_result "QP1 of rxe0 in rdma res: GSI, RTS, owned by ib_core" qp1

# One PD, one CQ and one QP per RoCE port, all the MAD layer's, before
# anybody else uses the device (as measured on stock).
res_counts() {
	local line
	line=$(rdma res show | grep '^[0-9]*: rxe0:')
	echo "# $line"
	expect_eq "pd" "$(printf '%s\n' "$line" | grep -o ' pd [0-9]*')" " pd 1" &&
	expect_eq "cq" "$(printf '%s\n' "$line" | grep -o ' cq [0-9]*')" " cq 1" &&
	expect_eq "qp" "$(printf '%s\n' "$line" | grep -o ' qp [0-9]*')" " qp 1"
}
ktap_test_result "rdma res counts the MAD layer's PD, CQ and QP" res_counts

params() {
	local p=/sys/module/ib_core/parameters
	expect_eq "send_queue_size" "$(cat $p/send_queue_size)" 128 &&
	expect_eq "recv_queue_size" "$(cat $p/recv_queue_size)" 512 &&
	expect_eq "mode" "$(stat -c %a $p/send_queue_size $p/recv_queue_size |
		sort -u)" 444
}
ktap_test_result "send_queue_size and recv_queue_size as stock" params

run_module() {
	local load_rc=0 out

	modinfo mad_test >/dev/null 2>&1 || {
		test_module_skip mad_test $MODULE_CASES "mad_test.ko not installed (scripts/vm --ko, see the head of this test)"
		return
	}
	out=$(test_module_load mad_test dev=rxe0) || load_rc=$?
	if [ $load_rc != 0 ]; then
		test_module_skip mad_test $MODULE_CASES "modprobe mad_test: $load_rc"
		return
	fi
	modprobe -r mad_test
	test_module_relay mad_test $MODULE_CASES "$out"
}
run_module

gone() {
	rdma link del rxe0 &&
	eventually 10 test ! -e /sys/class/infiniband/rxe0
}
ktap_test_result "rxe0 goes away with its MAD port" gone
ktap_test_result "the stack unloads afterwards" rdma_unload_all
veth_teardown
ktap_finished
