#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# RoCEv2 between rxe devices in two network namespaces, over a veth pair:
# rxeA on va (10.210.0.1) in nsA, rxeB on vb (10.210.0.2) in nsB.  Every
# namespace has its own RoCEv2 UDP sockets, so each device sends and
# receives in its netdev's namespace; the packets cross the veth, and
# their ICRCs are what scapy (an independent implementation) computes.
#
# Stock opens port 4791 in the initial namespace only: RC and UD
# ping-pong between the namespaces end with "local QP operation error"
# there (measured), so the tests skip on stock.
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"

NSA=rxe_netns_a
NSB=rxe_netns_b
ADDR_A=10.210.0.1
ADDR_B=10.210.0.2
TMP=$(mktemp -d)

ktap_print_header
ktap_set_plan 5

cleanup() {
	rdma link del rxeA 2>/dev/null
	rdma link del rxeB 2>/dev/null
	ip netns del $NSA 2>/dev/null
	ip netns del $NSB 2>/dev/null
}

# The index of the RoCEv2 GID of IPv4 address $2 on device $1.
gid_index() {
	local want f
	want=$(printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' \
		$(echo "$2" | tr . ' '))
	for f in /sys/class/infiniband/"$1"/ports/1/gids/*; do
		[ "$(cat "$f" 2>/dev/null)" = "$want" ] || continue
		[ "$(cat /sys/class/infiniband/"$1"/ports/1/gid_attrs/types/"${f##*/}")" = \
			"RoCE v2" ] || continue
		echo "${f##*/}"
		return 0
	done
	return 1
}

setup() {
	rdma_unload_all
	modprobe rdma_rxe || return 1
	cleanup
	ip netns add $NSA && ip netns add $NSB || return 1
	ip link add va netns $NSA type veth peer name vb netns $NSB || return 1
	ip -n $NSA addr add $ADDR_A/24 dev va && ip -n $NSA link set va up &&
	ip -n $NSB addr add $ADDR_B/24 dev vb && ip -n $NSB link set vb up ||
		return 1
	ip netns exec $NSA rdma link add rxeA type rxe netdev va || return 1
	ip netns exec $NSB rdma link add rxeB type rxe netdev vb || return 1
	eventually 10 gid_index rxeA $ADDR_A || return 1
	eventually 10 gid_index rxeB $ADDR_B || return 1
}
ktap_test_result "rxeA and rxeB on a veth pair across two namespaces" setup

# Both families' sockets on port 4791 in a namespace.
ns_has_sockets() {
	expect_eq "UDP sockets on 4791 in $1" \
		"$(ip netns exec "$1" ss -Huan 'sport = :4791' | wc -l)" 2
}

sockets() {
	ns_has_sockets $NSA && ns_has_sockets $NSB
}
if ours; then
	ktap_test_result "each namespace has its RoCEv2 sockets" sockets
else
	ktap_test_skip "each namespace has its RoCEv2 sockets" \
		"stock opens port 4791 in init_net only"
fi

# pingpong PROG ARGS...: server in nsA, client in nsB, both must succeed.
pingpong() {
	local prog=$1 ga gb srv
	shift
	ga=$(gid_index rxeA $ADDR_A) && gb=$(gid_index rxeB $ADDR_B) || return 1
	ip netns exec $NSA timeout 30 "$prog" -d rxeA -g "$ga" "$@" \
		>"$TMP/srv" 2>&1 &
	srv=$!
	if ! eventually 10 sh -c \
		"ip netns exec $NSA ss -Htln 'sport = :18515' | grep -q ."; then
		kill $srv 2>/dev/null
		wait $srv
		cat "$TMP/srv"
		return 1
	fi
	if ! ip netns exec $NSB timeout 30 "$prog" -d rxeB -g "$gb" "$@" \
		$ADDR_A >"$TMP/cli" 2>&1; then
		echo "client:"; cat "$TMP/cli"
		wait $srv
		echo "server:"; cat "$TMP/srv"
		return 1
	fi
	wait $srv || { echo "server:"; cat "$TMP/srv"; return 1; }
}

rc_pingpong() {
	pingpong ibv_rc_pingpong -n 20 -s 4096
}

# The packets of a UD ping-pong, captured on vb as they arrive, carry
# ICRCs that scapy recomputes identically.  The checker was started
# early: importing scapy is slow under TCG.
ud_pingpong_icrc() {
	local dump rc
	ip netns exec $NSB tcpdump -n -i vb -w "$TMP/ud.pcap" \
		'udp dst port 4791' 2>"$TMP/tcpdump" &
	dump=$!
	if ! eventually 10 grep -q listening "$TMP/tcpdump"; then
		kill $dump
		return 1
	fi
	pingpong ibv_ud_pingpong -n 20 -s 1024
	rc=$?
	kill -INT $dump
	wait $dump
	touch "$TMP/captured"
	# The checker is not our child: its report tells when it is done.
	eventually 90 test -s "$TMP/icrc"
	cat "$TMP/icrc"
	grep -Eq '^packets [1-9][0-9]* bad 0$' "$TMP/icrc" || rc=1
	return $rc
}

if ours; then
	python3 "$TESTDIR/rxe_icrc_check.py" "$TMP/ud.pcap" "$TMP/captured" \
		>"$TMP/icrc" 2>&1 &
fi

if ours; then
	ktap_test_result "RC ping-pong between the namespaces" rc_pingpong
	ktap_test_result "UD ping-pong between them, ICRCs as scapy computes" \
		ud_pingpong_icrc
else
	ktap_test_skip "RC ping-pong between the namespaces" \
		"stock: local QP operation error"
	ktap_test_skip "UD ping-pong between them" \
		"stock: local QP operation error"
fi

teardown() {
	rdma link del rxeA && rdma link del rxeB || return 1
	ip netns del $NSA && ip netns del $NSB || return 1
	rdma_unload_all
}
ktap_test_result "devices, namespaces and module go" teardown

cleanup
rm -rf "$TMP"
ktap_finished
