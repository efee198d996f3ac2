#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Concurrent MODIFY_QPs replacing one QP's primary path: two threads move
# an RC QP in SQD between two source GIDs (verbs_modify_av_race.py).
# ib_core serialises the driver's modify and the swap of the QP's source
# GID reference, so each modify puts exactly the reference it replaces.
# Unserialised, both put the same old entry: its count drops below the
# GID table's own reference and a live entry is freed (refcount underflow
# or use-after-free once the address goes).  Every modify must succeed;
# deleting the address and the device afterwards must leave the kernel
# silent (the harness fails the run on any complaint).  The window is a
# few instructions wide: a run that loses no race proves nothing, so the
# loop is a regression guard as much as a reproducer.
#
# rxe builds each packet from one copy of the path (rxe_path_race.py):
# the path of a QP answering long READs, flipped in SQD between IPv4 and
# IPv6 addresses of this host and an address on the wire, must leave
# every READ complete with the right bytes and the kernel silent (a
# packet sized for IPv4 got an IPv6 header pushed past its head room; a
# packet built for this host with its payload by reference went to the
# wire with its ICRC written past its data).  The window is a copy of
# a packet wide: it is only reachable with a second vCPU.  And a
# caller's cur_qp_state must be the QP's state: RTR claimed in RTS let
# RTR -> RTS start the requester over under WQEs in flight.
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"

ktap_print_header
ktap_set_plan 4

rdma_unload_all
rxe0_up
modprobe ib_uverbs
eventually 10 test -e /dev/infiniband/uverbs0

# The GID of 2001:db8::1 on rxe0: a second source GID besides the
# default one, of the same (IPv6) network type as the link-local
# destination (rxe refuses an IPv4 source with an IPv6 destination).
own_gid=2001:0db8:0000:0000:0000:0000:0000:0001
ip -6 addr add 2001:db8::1/64 dev "$VETH" nodad
ip addr add 10.200.0.1/24 dev "$VETH"
# rxe_path_race.py's address on the wire: no neighbour to resolve.
ip -6 neigh add 2001:db8::2 lladdr 02:00:00:00:00:02 dev "$VETH" nud permanent
v4_gid=0000:0000:0000:0000:0000:ffff:0ac8:0001
gid_index() {
	grep -lx "${1:-$own_gid}" /sys/class/infiniband/rxe0/ports/1/gids/* |
		head -n 1 | sed 's|.*/||' | grep .
}
eventually 10 gid_index
eventually 10 gid_index "$v4_gid"
idx=$(gid_index)
idx4=$(gid_index "$v4_gid")

race() {
	local out
	out=$(python3 "$TESTDIR/verbs_modify_av_race.py" 0 "$idx" 2000) ||
		{ echo "$out"; return 1; }
	ktap_print_msg "$out"
}
if ours; then
	ktap_test_result "two threads replace one QP's path: every modify succeeds" race
else
	ktap_test_skip "two threads replace one QP's path: every modify succeeds" \
		"stock 6.1 swaps the reference unserialised (measured: a modify fails ENODATA, then a WARNING in gid_table_release_one)"
fi

cur_state() {
	local out
	out=$(python3 "$TESTDIR/rxe_path_race.py" cur-state "$idx") ||
		{ echo "$out"; return 1; }
}
if ours; then
	ktap_test_result "RTR -> RTS claimed in RTS is refused" cur_state
else
	ktap_test_skip "RTR -> RTS claimed in RTS is refused" \
		"stock 6.1 takes the caller's cur_qp_state (measured: $(cur_state | tr '\n' ' '))"
fi

path_flip() {
	local out
	out=$(python3 "$TESTDIR/rxe_path_race.py" flip "$idx4" "$idx" \
		"$(soak 8)") || { echo "$out"; return 1; }
	ktap_print_msg "$out"
}
ktap_test_result "a READ responder's path flipped under traffic: reads complete" path_flip

gone() {
	ip addr del 10.200.0.1/24 dev "$VETH"
	ip -6 addr del 2001:db8::1/64 dev "$VETH" &&
	rdma link del rxe0 &&
	rdma_unload_all
}
ktap_test_result "the address, the device and the stack go afterwards" gone

veth_teardown
ktap_finished
