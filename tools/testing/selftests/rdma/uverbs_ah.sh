#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Address handles resolve the destination's MAC as stock does: a GID of
# our own whose duplicate address detection is still running resolves
# once the detection ends (the route is looked up again while waiting,
# not only the neighbour), a multicast GID needs no resolution, and a
# destination nobody answers for gives ETIMEDOUT.
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"

ktap_print_header
ktap_set_plan 3

rdma_unload_all
rxe0_up
modprobe ib_uverbs
eventually 10 test -e /dev/infiniband/uverbs0

ah() {
	/usr/bin/python3 "$TESTDIR/uverbs_ah.py" "$@" 2>&1 | tail -n 1
}

# gid_present GID: rxe0's GID table has GID (the notifier adds it when
# the address is added, while it is still tentative).
gid_present() {
	cat /sys/class/infiniband/rxe0/ports/1/gids/* | grep -qx "$1"
}

# Detection takes one probe of 300 ms: well inside the resolver's wait.
sysctl -qw net.ipv6.conf."$VETH".dad_transmits=1
sysctl -qw net.ipv6.neigh."$VETH".retrans_time_ms=300
own=2001:0db8:0000:0000:0000:0000:0000:0001
ip -6 addr add 2001:db8::1/64 dev "$VETH"
eventually 5 gid_present "$own"
own_under_dad() {
	ip -6 addr show dev "$VETH" to 2001:db8::1 | grep -q tentative ||
		ktap_print_msg "detection was over before the AH (no race)"
	expect_eq "AH" "$(ah "$own")" ok
}
ktap_test_result "an AH to our own address under detection resolves" own_under_dad

ktap_test_result "an AH to a multicast GID" \
	expect_eq "AH" "$(ah ff0e:0000:0000:0000:0000:0000:0000:0001)" ok

ktap_test_result "an AH to an address nobody answers for: ETIMEDOUT" \
	expect_eq "AH" "$(ah 2001:0db8:0000:0000:0000:0000:0000:0099)" ETIMEDOUT

rdma link del rxe0
veth_teardown
ktap_finished
