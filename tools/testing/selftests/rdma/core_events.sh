#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Asynchronous port events reach a user's async event fd, in order.
# ib_dispatch_event() queues the dispatch (drivers call it from atomic
# context); the queue must keep the order in which the driver reported
# the events: a user that sees ACTIVE before ERR for a flap believes its
# port is down.  The port state is awaited after each change, so each
# change is one event on both stacks.
#
# A driver's port event reaches the handlers only once ib_core's port
# cache has been refreshed (as on stock): the test-only module event_test
# (modules/event_test) registers a handler on rxe0, flaps its netdev and
# checks that each PORT_ERR and PORT_ACTIVE handler finds the port state
# the event reports in ib_get_cached_port_state(), then changes the MAC
# and checks that the last GID_CHANGE handler finds the new default GID
# in the GID table.  Its KTAP lines ("event_test: ") become cases here.
# `make check` builds it and passes it to the guest; by hand:
#	make -C tools/testing/selftests/rdma/modules/event_test [stock]
#	scripts/vm [--stock] --ko \
#	    tools/testing/selftests/rdma/modules/event_test/[stock/]event_test.ko \
#	    -- tools/testing/selftests/rdma/run_tests.sh core_events.sh
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"

FLAPS=${FLAPS:-4}
# The module's cases (ET_NR_CASES in event_test.c).
MODULE_CASES=4

ktap_print_header
ktap_set_plan $((2 + MODULE_CASES))

rdma_unload_all
modprobe rdma_rxe
modprobe ib_uverbs

port_events_in_order() {
	veth_setup || return 1
	rdma link add rxe0 type rxe netdev "$VETH" || return 1
	python3 "$TESTDIR/core_verbs_churn.py" port-events "$FLAPS" "$VETH_PEER"
}
ktap_test_result "PORT_ERR/PORT_ACTIVE reach the async fd in order" \
	port_events_in_order

handlers_after_refresh() {
	local out rc=0

	if ! modinfo event_test >/dev/null 2>&1; then
		test_module_skip event_test $MODULE_CASES \
			"event_test.ko not installed (scripts/vm --ko, see the head of this test)"
		return
	fi
	if ! rdma link show rxe0/1 >/dev/null 2>&1; then
		test_module_skip event_test $MODULE_CASES "no rxe0"
		return
	fi
	out=$(test_module_load event_test dev=rxe0 netdev="$VETH" \
		rounds="$(soak 4)") || rc=$?
	if [ $rc != 0 ]; then
		test_module_skip event_test $MODULE_CASES "modprobe event_test: $rc"
		return
	fi
	test_module_relay event_test $MODULE_CASES "$out"
	modprobe -r event_test
}
handlers_after_refresh

# Events queued while the device goes: unregistration must not leave a
# dispatch behind that calls a removed handler.
events_vs_removal() {
	local i
	for i in $(seq 6); do
		rdma link add rxe0 type rxe netdev "$VETH" 2>/dev/null
		(ip link set "$VETH_PEER" down; ip link set "$VETH_PEER" up
		 ip link set "$VETH" mtu 1500) &
		rdma link del rxe0 || return 1
		wait
	done
	eventually 10 no_rdma_devices && timeout 20 ip link del "$VETH"
}
ktap_test_result "port events racing device removal" events_vs_removal

rdma_unload_all
ktap_finished
