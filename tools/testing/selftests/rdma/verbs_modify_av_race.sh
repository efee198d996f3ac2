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
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"

ktap_print_header
ktap_set_plan 2

rdma_unload_all
rxe0_up
modprobe ib_uverbs
eventually 10 test -e /dev/infiniband/uverbs0

# The GID of 2001:db8::1 on rxe0: a second source GID besides the
# default one, of the same (IPv6) network type as the link-local
# destination (rxe refuses an IPv4 source with an IPv6 destination).
own_gid=2001:0db8:0000:0000:0000:0000:0000:0001
ip -6 addr add 2001:db8::1/64 dev "$VETH" nodad
gid_index() {
	grep -lx "$own_gid" /sys/class/infiniband/rxe0/ports/1/gids/* |
		head -n 1 | sed 's|.*/||' | grep .
}
eventually 10 gid_index
idx=$(gid_index)

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

gone() {
	ip -6 addr del 2001:db8::1/64 dev "$VETH" &&
	rdma link del rxe0 &&
	rdma_unload_all
}
ktap_test_result "the address, the device and the stack go afterwards" gone

veth_teardown
ktap_finished
