#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Repetition finds what one pass hides: 100 add/del cycles and 20 module
# load/unload cycles with a device present leave no device, no module
# and no netdev reference (the netdev deletes at once; a reference left
# behind would show as `unregister_netdevice: waiting`, which fails the
# run).
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"

ADD_DEL=${ADD_DEL:-$(soak 12)}
LOADS=${LOADS:-$(soak 5)}

ktap_print_header
ktap_set_plan 3

rdma_unload_all
veth_setup
ip addr add 192.0.2.1/24 dev "$VETH"

add_del() {
	local i
	modprobe rdma_rxe || return 1
	for i in $(seq "$ADD_DEL"); do
		rdma link add rxe0 type rxe netdev "$VETH" ||
			{ echo "cycle $i: add failed"; return 1; }
		rdma link del rxe0 || { echo "cycle $i: del failed"; return 1; }
	done
	expect_eq "devices left" "$(rxe_devices)" ""
}
ktap_test_result "$ADD_DEL rdma link add/del cycles" add_del

loads() {
	local i
	for i in $(seq "$LOADS"); do
		rdma link add rxe0 type rxe netdev "$VETH" ||
			{ echo "cycle $i: add failed"; return 1; }
		rdma_unload_all || { echo "cycle $i: unload failed"; return 1; }
		[ ! -e /sys/module/ib_core ] || { echo "cycle $i: ib_core stayed"; return 1; }
	done
	expect_eq "devices left" "$(rxe_devices)" ""
}
ktap_test_result "$LOADS module load/unload cycles with a device present" loads

netdev_free() {
	rdma link add rxe0 type rxe netdev "$VETH" || return 1
	rdma link del rxe0 || return 1
	timeout 20 ip link del "$VETH" || { echo "ip link del hung"; return 1; }
}
ktap_test_result "the netdev is free once the device is gone" netdev_free

rdma_unload_all
ktap_finished
