#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The RoCE GID table follows the netdev's addresses as on stock, entry by
# entry: the default GID from the MAC (EUI-64) at index 0, one RoCE v2
# GID per IPv4 (mapped) and IPv6 address in the order they came, a freed
# entry reused first, IPv6 GIDs gone with their addresses on link down,
# the default GID following a MAC change, and the netdev name following a
# rename.  Expectations measured on the stock stack.
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"

ktap_print_header
ktap_set_plan 7

P=/sys/class/infiniband/rxe0/ports/1
# The first N entries as index:gid:type:ndev, one a line.
gids() {
	local i
	for i in $(seq 0 $(($1 - 1))); do
		printf '%s:%s:%s:%s\n' "$i" "$(cat $P/gids/$i)" \
			"$(cat $P/gid_attrs/types/$i 2>/dev/null)" \
			"$(cat $P/gid_attrs/ndevs/$i 2>/dev/null)"
	done
}
# The table settles asynchronously (notifiers queue work).
table_now_is() {
	expect_eq "GID table" "$(gids 5)" "$1"
}
table_is() {
	eventually 10 table_now_is "$1"
}

Z=0000:0000:0000:0000:0000:0000:0000:0000
DEF=fe80:0000:0000:0000:$VETH_GUID
V4A=0000:0000:0000:0000:0000:ffff:c000:0201	# 192.0.2.1
V4B=0000:0000:0000:0000:0000:ffff:c633:6401	# 198.51.100.1
V4C=0000:0000:0000:0000:0000:ffff:cb00:7101	# 203.0.113.1
V6=2001:0db8:0000:0000:0000:0000:0000:0001

rdma_unload_all
ip link del "$VETH" 2>/dev/null
ip link add "$VETH" type veth peer name "$VETH_PEER"
ip link set "$VETH" address "$VETH_MAC"
ip addr add 192.0.2.1/24 dev "$VETH"

created() {
	rdma link add rxe0 type rxe netdev "$VETH" || return 1
	table_is "0:$DEF:RoCE v2:$VETH
1:$V4A:RoCE v2:$VETH
2:$Z::
3:$Z::
4:$Z::"
}
ktap_test_result "a new device has the default and existing address GIDs" created

more() {
	ip link set "$VETH" up && ip link set "$VETH_PEER" up &&
	ip -6 addr add 2001:db8::1/64 dev "$VETH" nodad &&
	ip addr add 198.51.100.1/24 dev "$VETH" || return 1
	table_is "0:$DEF:RoCE v2:$VETH
1:$V4A:RoCE v2:$VETH
2:$V6:RoCE v2:$VETH
3:$V4B:RoCE v2:$VETH
4:$Z::"
}
ktap_test_result "added IPv6 and IPv4 addresses get GIDs in order" more

removed() {
	ip addr del 192.0.2.1/24 dev "$VETH" || return 1
	table_is "0:$DEF:RoCE v2:$VETH
1:$Z::
2:$V6:RoCE v2:$VETH
3:$V4B:RoCE v2:$VETH
4:$Z::"
}
ktap_test_result "a removed address frees its GID" removed

reused() {
	ip addr add 203.0.113.1/24 dev "$VETH" || return 1
	table_is "0:$DEF:RoCE v2:$VETH
1:$V4C:RoCE v2:$VETH
2:$V6:RoCE v2:$VETH
3:$V4B:RoCE v2:$VETH
4:$Z::"
}
ktap_test_result "a freed entry is reused first" reused

down_up() {
	ip link set "$VETH" down || return 1
	table_is "0:$DEF:RoCE v2:$VETH
1:$V4C:RoCE v2:$VETH
2:$Z::
3:$V4B:RoCE v2:$VETH
4:$Z::" || return 1
	ip link set "$VETH" up || return 1
	table_is "0:$DEF:RoCE v2:$VETH
1:$V4C:RoCE v2:$VETH
2:$Z::
3:$V4B:RoCE v2:$VETH
4:$Z::"
}
ktap_test_result "link down drops IPv6 GIDs with their addresses" down_up

gid0_is() {
	expect_eq "gid 0" "$(gids 1)" "$1"
}
mac() {
	ip link set "$VETH" address 02:aa:bb:cc:dd:ee || return 1
	eventually 10 gid0_is "0:fe80:0000:0000:0000:00aa:bbff:fecc:ddee:RoCE v2:$VETH"
}
ktap_test_result "the default GID follows a MAC change" mac

ndevs_are() {
	expect_eq "ndevs" "$(gids 3 | cut -d: -f1,10- | tr '\n' ' ')" "$1"
}
renamed() {
	ip link set "$VETH" down && ip link set "$VETH" name vethX &&
	ip link set vethX up || return 1
	eventually 10 ndevs_are "0:RoCE v2:vethX 1:RoCE v2:vethX 2:RoCE v2:vethX " ||
		return 1
	expect_eq "rdma link" "$(rdma link)" \
		"link rxe0/1 state ACTIVE physical_state LINK_UP netdev vethX "
}
ktap_test_result "a netdev rename shows in gid_attrs and rdma link" renamed

rdma link del rxe0
ip link del vethX 2>/dev/null
veth_teardown
rdma_unload_all
ktap_finished
