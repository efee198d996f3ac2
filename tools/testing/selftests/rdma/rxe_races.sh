#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Device lifecycle under concurrency: creation racing netdev deletion,
# link flaps and MTU changes racing rdma link del, two creations on one
# netdev at once, rmmod racing creation, sysfs and netlink readers racing
# removal.  Each must end with exactly the devices that should exist and
# every netdev free; the harness fails the run on any kernel complaint.
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"

ROUNDS=${ROUNDS:-$(soak 4)}

ktap_print_header
ktap_set_plan 5

rdma_unload_all
modprobe rdma_rxe

# Devices are removed asynchronously after their netdev goes.
no_devices() {
	expect_eq "devices left" "$(rxe_devices)" ""
}
settled_empty() {
	eventually 10 no_devices
}

newlink_vs_netdev_del() {
	local i
	for i in $(seq "$ROUNDS"); do
		ip link add va$i type veth peer name vb$i || return 1
		ip link set va$i up
		rdma link add rxa$i type rxe netdev va$i 2>/dev/null &
		ip link del va$i &
		wait
	done
	settled_empty
}
ktap_test_result "creation racing netdev deletion leaves no device" newlink_vs_netdev_del

flaps_vs_del() {
	local i
	veth_setup || return 1
	for i in $(seq "$ROUNDS"); do
		rdma link add rxe0 type rxe netdev "$VETH" || return 1
		(for j in 1 2 3; do
			ip link set "$VETH_PEER" down; ip link set "$VETH_PEER" up
			ip link set "$VETH" mtu $((1000 + j * 1000))
		done) &
		rdma link del rxe0 || return 1
		wait
	done
	settled_empty && timeout 20 ip link del "$VETH"
}
ktap_test_result "link flaps and MTU changes racing rdma link del" flaps_vs_del

one_winner() {
	local i n
	veth_setup || return 1
	for i in $(seq "$ROUNDS"); do
		rdma link add rxp$i type rxe netdev "$VETH" 2>/dev/null &
		rdma link add rxq$i type rxe netdev "$VETH" 2>/dev/null &
		wait
		n=$(rxe_devices | wc -w)
		[ "$n" = 1 ] || { echo "round $i: $n devices on one netdev"; return 1; }
		rdma link del rxp$i 2>/dev/null || rdma link del rxq$i
	done
	settled_empty && timeout 20 ip link del "$VETH"
}
# Stock 6.1 checks for an existing rxe on the netdev and registers the new
# one without holding anything across both: racing creations can both
# succeed (measured).  The sequential case (rxe_bad_input) is EEXIST on
# both stacks; this is where ours is stricter.
if ours; then
	ktap_test_result "two creations on one netdev: exactly one wins" one_winner
else
	ktap_test_skip "two creations on one netdev: exactly one wins" \
		"stock 6.1 lets both win"
fi

rmmod_vs_newlink() {
	local i
	veth_setup || return 1
	for i in $(seq 5); do
		modprobe rdma_rxe || return 1
		(for j in 1 2 3 4; do
			rdma link add rxm$j type rxe netdev "$VETH" 2>/dev/null
			rdma link del rxm$j 2>/dev/null
		done) &
		sleep 0.$i
		modprobe -r rdma_rxe 2>/dev/null
		wait
	done
	modprobe -r rdma_rxe || { echo "rdma_rxe would not unload"; return 1; }
	settled_empty && timeout 20 ip link del "$VETH"
}
ktap_test_result "rmmod racing creation" rmmod_vs_newlink

readers_vs_removal() {
	local i pid
	veth_setup || return 1
	modprobe rdma_rxe
	# Readers hold files open and walk the whole tree while it goes.
	(while :; do
		find /sys/class/infiniband/ -follow -type f 2>/dev/null |
			xargs cat >/dev/null 2>&1
		rdma -d dev >/dev/null 2>&1; rdma link >/dev/null 2>&1
		rdma stat >/dev/null 2>&1; rdma res >/dev/null 2>&1
	done) &
	pid=$!
	for i in $(seq "$ROUNDS"); do
		rdma link add rxe0 type rxe netdev "$VETH" || break
		sleep 0.2
		rdma link del rxe0 || break
	done
	kill $pid
	wait $pid 2>/dev/null
	[ "$i" = "$ROUNDS" ] || { echo "stopped at round $i"; return 1; }
	settled_empty && timeout 20 ip link del "$VETH"
}
ktap_test_result "sysfs and netlink readers racing removal" readers_vs_removal

rdma_unload_all
ktap_finished
