#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# What rdma_cm and ib_cm use of ib_core besides the MAD layer, through the
# test-only module addr_test (modules/addr_test), which runs its cases on
# rxe0 when loaded and prints KTAP into the kernel log (lines prefixed
# "addr_test: "); each becomes a case here.  rdma_resolve_ip() to our own
# address, to an IPv4 neighbour (ARP) and an IPv6 link-local one (ND) in
# another netns, to a silent address (-ETIMEDOUT), an unreachable route
# and no route; rdma_addr_cancel() right after the start, with no
# callback afterwards; rdma_translate_ip(); AHs from synthetic RoCE v2
# receive headers; the path record's wire image; AHs from a path and a
# multicast member record; the SA API on a RoCE port; ib_uverbs' copies
# into the user ABI.  Then the stack unloads (no request left behind).
#
# Topology: rxe0 on veth0 (10.200.0.1/24, MAC 02:11:22:33:44:55); its
# peer veth1 in netns addrns (10.200.0.2/24, MAC 02:11:22:33:44:66);
# 10.200.0.99 is on the link but nobody's; 203.0.113.0/24 is an
# unreachable route.
#
# `make check` does not build the module yet; by hand (without it the
# test is skipped):
#	make -C tools/testing/selftests/rdma/modules/addr_test
#	OOT_TESTS=addr_resolve scripts/vm --ko \
#	    tools/testing/selftests/rdma/modules/addr_test/addr_test.ko \
#	    -- tools/testing/selftests/rdma/run_tests.sh
# and on the stock stack, with the module built against it:
#	make -C tools/testing/selftests/rdma/modules/addr_test stock
#	OOT_TESTS=addr_resolve scripts/vm --stock --ko \
#	    tools/testing/selftests/rdma/modules/addr_test/stock/addr_test.ko \
#	    -- tools/testing/selftests/rdma/run_tests.sh
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rxe_topo.sh"

# The module's own cases (AT_NR_CASES in addr_test.c) and ours.
MODULE_CASES=22
PEER_NS=addrns
PEER_MAC=02:11:22:33:44:66
LOCAL4=10.200.0.1
PEER4=10.200.0.2
SILENT4=10.200.0.99
UNREACH_NET=203.0.113.0/24
UNREACH4=203.0.113.1
# Benchmarking space (RFC 2544): routed nowhere unless a default route is.
NOROUTE4=198.18.0.1

ktap_print_header
ktap_set_plan $((MODULE_CASES + 3))

cleanup() {
	ip route del unreachable "$UNREACH_NET" 2>/dev/null
	[ -e "/run/netns/$PEER_NS" ] && ip netns del "$PEER_NS"
	topo_down >/dev/null
}

skip_all() {
	test_module_skip addr_test $MODULE_CASES "$1"
	ktap_test_skip "the module made nothing that stays" "$1"
	ktap_test_skip "the neighbour the module resolved is in the ARP table" "$1"
	ktap_test_skip "the stack unloads afterwards" "$1"
	cleanup
	ktap_finished
	exit 0
}

# No IPv6 address of NETDEV [in NS] still runs duplicate detection.
dad_done() {
	! in_ns "${2:-}" ip -6 addr show dev "$1" | grep -q tentative
}

setup() {
	rdma_unload_all &&
	topo_one_up &&
	ip netns add "$PEER_NS" &&
	ip link set "$VETH_PEER" netns "$PEER_NS" &&
	ip -n "$PEER_NS" link set "$VETH_PEER" address "$PEER_MAC" &&
	ip -n "$PEER_NS" addr add "$PEER4/24" dev "$VETH_PEER" &&
	ip -n "$PEER_NS" link set lo up &&
	ip -n "$PEER_NS" link set "$VETH_PEER" up &&
	link_ready "$VETH" && link_ready "$VETH_PEER" "$PEER_NS" &&
	eventually 10 dad_done "$VETH" &&
	eventually 10 dad_done "$VETH_PEER" "$PEER_NS" &&
	ip route add unreachable "$UNREACH_NET"
}

modinfo addr_test >/dev/null 2>&1 ||
	skip_all "addr_test.ko not installed (scripts/vm --ko, see the head of this test)"
cleanup
setup || skip_all "topology setup failed"

params="dev=$ONE_DEV netdev=$VETH local4=$LOCAL4 peer4=$PEER4"
params+=" peer_mac=$PEER_MAC silent4=$SILENT4 unreach4=$UNREACH4"
# Only when this guest has no default route: else it would be routed.
if ip route get "$NOROUTE4" 2>&1 | grep -q 'Network is unreachable'; then
	params+=" noroute4=$NOROUTE4"
else
	ktap_print_msg "$NOROUTE4 is routed here: the no-route case is skipped"
fi

res_summary() {
	rdma res show | grep "^[0-9]*: $ONE_DEV:" | rdma_norm
}
before=$(res_summary)

load_rc=0
# shellcheck disable=SC2086 # one word per parameter
out=$(test_module_load addr_test $params) || load_rc=$?
[ $load_rc = 0 ] || skip_all "modprobe addr_test: $load_rc"
test_module_relay addr_test $MODULE_CASES "$out"

nothing_left() {
	modprobe -r addr_test &&
	expect_eq "rdma res" "$(res_summary)" "$before"
}
ktap_test_result "the module made nothing that stays" nothing_left

# rdma_resolve_ip() went through the kernel's neighbour table: ARP's
# answer is there, with the peer's MAC.
arp_entry() {
	ip neigh show "$PEER4" dev "$VETH" | grep -q "lladdr $PEER_MAC"
}
ktap_test_result "the neighbour the module resolved is in the ARP table" \
	arp_entry

# ib_core's exit finds no resolution left (it would warn).
ktap_test_result "the stack unloads afterwards" \
	eval "rdma link del $ONE_DEV && rdma_unload_all"
cleanup
ktap_finished
