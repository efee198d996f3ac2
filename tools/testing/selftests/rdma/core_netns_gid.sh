#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# RoCE GIDs of an upper device (a VLAN of rxe0's netdev) that lives in
# another network namespace than the RDMA device, in exclusive netns mode.
# The GID table follows the upper's addresses wherever it lives, and when
# it goes, its GIDs go with the netdev references they hold; otherwise
# deleting it waits forever ("unregister_netdevice: waiting for ...",
# which the harness catches) until some unrelated event resyncs the port.
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"

NS=core_netns_gid
VLAN=$VETH.5
ADDR=2001:db8:5::1
GID=2001:0db8:0005:0000:0000:0000:0000:0001

ktap_print_header
ktap_set_plan 4

rdma_unload_all
modprobe rdma_rxe
ip netns del $NS 2>/dev/null

# has_gid: rxe0 port 1 lists $GID.
has_gid() {
	grep -qx "$GID" /sys/class/infiniband/rxe0/ports/1/gids/* 2>/dev/null
}
no_gid() {
	! has_gid
}

exclusive() {
	rdma system set netns exclusive || return 1
	expect_eq "netns mode" "$(rdma system show | grep -o 'netns [a-z]*')" \
		"netns exclusive"
}
ktap_test_result "exclusive netns mode is set" exclusive

# The VLAN is made in init_net and moved to $NS; it stays an upper of
# $VETH, and its addresses there are GIDs of rxe0.
vlan_elsewhere_gid() {
	veth_setup || return 1
	rdma link add rxe0 type rxe netdev "$VETH" || return 1
	ip link add link "$VETH" name "$VLAN" type vlan id 5 || return 1
	ip netns add $NS || return 1
	ip link set "$VLAN" netns $NS || return 1
	ip -n $NS link set "$VLAN" up || return 1
	ip -n $NS addr add $ADDR/64 dev "$VLAN" nodad || return 1
	eventually 10 has_gid || { echo "no GID for $ADDR"; return 1; }
}
ktap_test_result "an address of the VLAN in another netns is a GID" \
	vlan_elsewhere_gid

vlan_elsewhere_addr_del() {
	ip -n $NS addr del $ADDR/64 dev "$VLAN" || return 1
	eventually 10 no_gid || { echo "GID for $ADDR left"; return 1; }
	ip -n $NS addr add $ADDR/64 dev "$VLAN" nodad || return 1
	eventually 10 has_gid || { echo "no GID for $ADDR"; return 1; }
}
ktap_test_result "deleting the address there drops the GID" \
	vlan_elsewhere_addr_del

# Deleting the VLAN (with its namespace) releases it at once.
vlan_elsewhere_del() {
	timeout 20 ip -n $NS link del "$VLAN" || { echo "VLAN stuck"; return 1; }
	eventually 10 no_gid || { echo "GID for $ADDR left"; return 1; }
	ip netns del $NS || return 1
	rdma link del rxe0 || return 1
	timeout 20 ip link del "$VETH" || return 1
	# Only init_net left: the mode may change back.
	eventually 10 rdma system set netns shared
}
ktap_test_result "deleting the VLAN there drops its GIDs and netdev" \
	vlan_elsewhere_del

ip netns del $NS 2>/dev/null
rdma system set netns shared 2>/dev/null
rdma_unload_all
ktap_finished
