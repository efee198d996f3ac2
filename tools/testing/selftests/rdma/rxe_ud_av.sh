#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# What a user UD QP may claim (rxe_ud_av.py).  A WQE that carries its
# address vector itself (ah_num 0, older providers) is sent from the
# address of the GID table's entry it names, not from the source address
# it carries: a forged source reaches the receiver as the real one, and a
# source equal to a foreign destination no longer passes for a packet to
# this host (which skipped the GID and ICRC checks and delivered the
# forged GRH here).  And a privileged Q_Key (top bit set; QP1's lets a
# QP's datagrams in as MADs) takes CAP_NET_RAW at MODIFY_QP.
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"

ktap_print_header
ktap_set_plan 5

rdma_unload_all
rxe0_up
modprobe ib_uverbs
eventually 10 test -e /dev/infiniband/uverbs0

own=2001:db8::1
foreign=2001:db8::99
own_gid=2001:0db8:0000:0000:0000:0000:0000:0001
ip -6 addr add "$own/64" dev "$VETH" nodad
gid_index() {
	grep -lx "$own_gid" /sys/class/infiniband/rxe0/ports/1/gids/* |
		head -n 1 | sed 's|.*/||' | grep .
}
eventually 10 gid_index
idx=$(gid_index)

out=$(python3 "$TESTDIR/rxe_ud_av.py" legacy "$idx" "$own" "$foreign" 2>&1)
ktap_print_msg "$(tr '\n' ' ' <<<"$out")"
line() {
	expect_eq "$1" "$(grep "^$1:" <<<"$out")" "$1: $2"
}
if ours; then
	ktap_test_result "legacy AV, own source: delivered from it" \
		line honest "$own"
	ktap_test_result "legacy AV, forged source: sent from the GID's address" \
		line forged "$own"
	ktap_test_result "legacy AV, source = foreign destination: not looped back" \
		line self none
else
	for what in "own source: delivered from it" \
		"forged source: sent from the GID's address" \
		"source = foreign destination: not looped back"; do
		ktap_test_skip "legacy AV, $what" \
			"stock 6.1 delivers none of these WQEs (measured: $(tr '\n' ' ' <<<"$out"))"
	done
fi

qkey() {
	local got
	got=$("$@" python3 "$TESTDIR/rxe_ud_av.py" qkey 2>&1 | tr '\n' ' ')
	expect_eq "Q_Keys" "$got" "$want"
}
want="privileged: EPERM plain: ok "
ktap_test_result "privileged Q_Key without CAP_NET_RAW: EPERM" \
	qkey setpriv --bounding-set -net_raw
want="privileged: ok plain: ok "
ktap_test_result "privileged Q_Key with CAP_NET_RAW: set" qkey env

ip -6 addr del "$own/64" dev "$VETH"
rdma link del rxe0
rdma_unload_all
veth_teardown
ktap_finished
