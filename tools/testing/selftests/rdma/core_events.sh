#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Asynchronous port events reach a user's async event fd, in order.
# ib_dispatch_event() queues the dispatch (drivers call it from atomic
# context); the queue must keep the order in which the driver reported
# the events: a user that sees ACTIVE before ERR for a flap believes its
# port is down.  The port state is awaited after each change, so each
# change is one event on both stacks.
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"

FLAPS=${FLAPS:-4}

ktap_print_header
ktap_set_plan 2

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
