#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Bad input to rdma link add (and the raw nldev commands under it) fails
# with stock's errno and creates nothing; what stock accepts, we accept.
# Expectations measured on the stock stack in the same VM.
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"

ktap_print_header
ktap_set_plan 22

rdma_unload_all
veth_setup
ip link add link "$VETH_PEER" name "$VETH_PEER.5" type vlan id 5
ip link set "$VETH_PEER.5" up
modprobe rdma_rxe
rdma link add rxe0 type rxe netdev "$VETH"

# refused WANT-ERROR CMD...: the command fails with WANT-ERROR and the set
# of devices is unchanged.
refused() {
	local want=$1 before got
	shift
	before=$(rxe_devices)
	got=$(rdma_error "$@")
	expect_eq "error" "$got" "$want" &&
	expect_eq "devices" "$(rxe_devices)" "$before"
}

long=rxe_$(printf 'a%.0s' $(seq 70))
ktap_test_result "a name already in use" \
	refused "Too many open files in system" rdma link add rxe0 type rxe netdev "$VETH_PEER"
ktap_test_result "a second rxe on the same netdev" \
	refused "File exists" rdma link add rxe1 type rxe netdev "$VETH"
ktap_test_result "an empty name" \
	refused "Invalid argument" rdma link add "" type rxe netdev "$VETH_PEER"
ktap_test_result "a name with %" \
	refused "Invalid argument" rdma link add 'rx%d' type rxe netdev "$VETH_PEER"
ktap_test_result "an overlong name" \
	refused "Attribute failed policy validation." rdma link add "$long" type rxe netdev "$VETH_PEER"
ktap_test_result "an unknown netdev" \
	refused "No such device" rdma link add rxe2 type rxe netdev nosuch
ktap_test_result "a VLAN netdev" \
	refused "Operation not permitted" rdma link add rxe3 type rxe netdev "$VETH_PEER.5"
ktap_test_result "an unknown link type" \
	refused "Invalid argument" rdma link add rxe4 type foo netdev "$VETH_PEER"
ktap_test_result "an unprivileged user" \
	refused "Operation not permitted" setpriv --reuid=65534 --regid=65534 \
	--clear-groups rdma link add rxe5 type rxe netdev "$VETH_PEER"

nl_refused() {
	local want=$1 before
	shift
	before=$(rxe_devices)
	expect_nl "$want" "$@" && expect_eq "devices" "$(rxe_devices)" "$before"
}
ktap_test_result "NEWLINK without attributes: EINVAL" nl_refused "error EINVAL" 5 3
ktap_test_result "NEWLINK without a netdev: EINVAL" \
	nl_refused "error EINVAL" 5 3 dev_name:str:rxe9 link_type:str:rxe
ktap_test_result "NEWLINK unprivileged: EPERM" \
	nl_refused "error EPERM" --uid 65534 5 3 dev_name:str:rxe9 link_type:str:rxe \
	ndev_name:str:"$VETH_PEER"
# The same message with every attribute is accepted: the refusals above
# are about what is missing, not about how the message is built.
raw_newlink() {
	expect_nl "ack" --ack 5 3 dev_name:str:rxe9 link_type:str:rxe \
		ndev_name:str:"$VETH_PEER" || return 1
	[ -d /sys/class/infiniband/rxe9 ] || { echo "no rxe9"; return 1; }
	rdma link del rxe9
}
ktap_test_result "a complete raw NEWLINK creates the device" raw_newlink
ktap_test_result "GET of an unknown index: EINVAL" expect_nl "error EINVAL" 5 1 dev_index:u32:99
ktap_test_result "GET without an index: EINVAL" expect_nl "error EINVAL" 5 1
ktap_test_result "DELLINK of an unknown index: EINVAL" nl_refused "error EINVAL" 5 4 dev_index:u32:99
idx=$(rdma -j dev | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["ifindex"])')
ktap_test_result "PORT_GET without a port: EINVAL" expect_nl "error EINVAL" 5 5 dev_index:u32:"$idx"
ktap_test_result "PORT_GET of port 2 of a one-port device: EINVAL" \
	expect_nl "error EINVAL" 5 5 dev_index:u32:"$idx" port_index:u32:2
ktap_test_result "DELLINK unprivileged: EPERM" \
	nl_refused "error EPERM" --uid 65534 5 4 dev_index:u32:"$idx"

lo_ok() {
	rdma link add rxe_lo type rxe netdev lo || return 1
	[ -d /sys/class/infiniband/rxe_lo ] || return 1
	rdma link del rxe_lo
}
ktap_test_result "rxe on lo is accepted, as on stock" lo_ok

rename() {
	rdma dev set rxe0 name rxe7 || return 1
	[ -d /sys/class/infiniband/rxe7 ] || { echo "no rxe7"; return 1; }
	expect_eq "rdma link" "$(rdma link)" \
		"link rxe7/1 state ACTIVE physical_state LINK_UP netdev $VETH " || return 1
	rdma dev set rxe7 name rxe0
}
ktap_test_result "rdma dev set NAME renames, and back" rename

rename_taken() {
	rdma link add rxe1 type rxe netdev "$VETH_PEER" || return 1
	refused "File exists" rdma dev set rxe0 name rxe1
}
ktap_test_result "renaming to a name in use" rename_taken

rdma link del rxe1 2>/dev/null
rdma link del rxe0 2>/dev/null
veth_teardown
rdma_unload_all
ktap_finished
