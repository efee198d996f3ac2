#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Module unload racing device unregistration.  "rdma link del" unregisters
# the device and then calls the driver's dealloc_driver (rxe_dealloc());
# "rmmod rdma_rxe" (ib_unregister_driver()) must not return, and let the
# module's code go, while that call is still to come.  ib_core keeps the
# device in its registry until dealloc_driver has returned, so module
# unload waits for it.  Losing the race runs freed module text: an oops
# the harness catches.  The window (between the registry entry's release
# and the call) is narrow and cannot be hit reliably: the loops are a
# bounded regression guard.
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"

ROUNDS=${ROUNDS:-$(soak 4)}

ktap_print_header
ktap_set_plan 3

rdma_unload_all

settled_empty() {
	eventually 10 no_rdma_devices
}

two_veths() {
	veth_setup || return 1
	ip link del va0 2>/dev/null
	ip link add va0 type veth peer name vb0 && ip link set va0 up
}

two_veths_teardown() {
	timeout 20 ip link del va0 && timeout 20 ip link del "$VETH"
}

# rdma link del of two devices racing rmmod, rmmod started at varying
# points of the deletions.
del_vs_rmmod() {
	local i
	two_veths || return 1
	for i in $(seq "$ROUNDS"); do
		modprobe rdma_rxe || return 1
		rdma link add rxe0 type rxe netdev "$VETH" || return 1
		rdma link add rxe1 type rxe netdev va0 || return 1
		rdma link del rxe0 2>/dev/null &
		rdma link del rxe1 2>/dev/null &
		[ $((i % 2)) = 0 ] && sleep 0.0$i
		modprobe -r rdma_rxe 2>/dev/null
		wait
		# Whoever won, the module must be able to go now.
		if module_loaded rdma_rxe; then
			modprobe -r rdma_rxe ||
				{ echo "round $i: rdma_rxe stuck"; return 1; }
		fi
		settled_empty || return 1
	done
	two_veths_teardown
}
ktap_test_result "rdma link del racing rmmod rdma_rxe" del_vs_rmmod

# The unregistration queued by the netdev going away (the notifier's
# work) racing rmmod.
netdev_del_vs_rmmod() {
	local i
	for i in $(seq "$ROUNDS"); do
		modprobe rdma_rxe || return 1
		ip link add va$i type veth peer name vb$i || return 1
		ip link set va$i up
		rdma link add rxv$i type rxe netdev va$i || return 1
		ip link del va$i &
		[ $((i % 2)) = 1 ] && sleep 0.0$i
		modprobe -r rdma_rxe 2>/dev/null
		wait
		if module_loaded rdma_rxe; then
			modprobe -r rdma_rxe ||
				{ echo "round $i: rdma_rxe stuck"; return 1; }
		fi
		settled_empty || return 1
	done
}
ktap_test_result "netdev deletion racing rmmod rdma_rxe" netdev_del_vs_rmmod

# Link add and delete looping while the module comes and goes.
add_del_vs_modprobe() {
	local i pid
	veth_setup || return 1
	(for i in $(seq $((ROUNDS * 3))); do
		rdma link add rxe0 type rxe netdev "$VETH" 2>/dev/null
		rdma link del rxe0 2>/dev/null
	done) &
	pid=$!
	for i in $(seq "$ROUNDS"); do
		modprobe rdma_rxe || break
		sleep 0.1
		modprobe -r rdma_rxe 2>/dev/null
	done
	wait $pid
	if module_loaded rdma_rxe; then
		modprobe -r rdma_rxe || { echo "rdma_rxe stuck"; return 1; }
	fi
	settled_empty && timeout 20 ip link del "$VETH"
}
ktap_test_result "link add/del racing modprobe/rmmod" add_del_vs_modprobe

rdma_unload_all
ktap_finished
