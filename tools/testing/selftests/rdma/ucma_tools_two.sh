#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Debian's rdmacm-utils between two devices (rxe_topo.sh topo_two_up):
# the server on rxe2 (10.203.0.2, ve1), the client on rxe1 (10.203.0.1,
# ve0), a veth pair that policy routing makes every packet cross.  Where
# a client has a bind option it names its own address (rping -I, -b of
# ucmatose, udaddy, mckey, rstream, cmtime); rdma_client and riostream's
# client have none, and the route's source (10.203.0.1) is the same.
#   rping               IPv4, -S 4096 and 32768, -C 10, -V
#   ucmatose            one connection and 4 connections
#   udaddy              UD through SIDR
#   mckey               a receiver on rxe2 and a sender on rxe1 (-m)
#   rdma_server/client  librdmacm's verbs helpers
#   rstream, riostream  rsockets, blocking, 64 KiB, verified
#   cmtime              50 connections
# Each case must move packets across the pair: the client's device sent
# some and the server's received some (and, but for mckey's one-way
# traffic, the other way round), so a connection that stayed on one
# device fails.  After each, no cm_id is left; at the end both devices'
# sent_pkts have moved and the stack unloads.
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rxe_topo.sh"

SRV_DEV=$TWO_DEV2
SRV_IP=$TWO_IP2
CLI_DEV=$TWO_DEV1
CLI_IP=$TWO_IP1
MCAST=239.1.2.3
CM_OUT=$(mktemp -d)
trap 'rm -rf "$CM_OUT"' EXIT

ktap_print_header
ktap_set_plan 12

rdma_unload_all
modprobe ib_uverbs
modprobe rdma_ucm
topo_two_up || exit "$KSFT_FAIL"
sent_cli0=$(hw_counter "$CLI_DEV" sent_pkts)
sent_srv0=$(hw_counter "$SRV_DEV" sent_pkts)

# moved DEV COUNTER BEFORE: DEV's hw COUNTER is past BEFORE.
moved() {
	local now
	now=$(hw_counter "$1" "$2")
	[ "$now" -gt "$3" ] || { echo "$1 $2 did not move ($3, now $now)"; return 1; }
}

# crossed BOTH|ONE WAIT|KILL "SERVER CMD" "CLIENT CMD": cm_pair, and its
# packets crossed the veth from the client's device to the server's
# (BOTH: and back).
crossed() {
	local way=$1 c_sent c_rcvd s_sent s_rcvd rc=0
	shift
	c_sent=$(hw_counter "$CLI_DEV" sent_pkts)
	c_rcvd=$(hw_counter "$CLI_DEV" rcvd_pkts)
	s_sent=$(hw_counter "$SRV_DEV" sent_pkts)
	s_rcvd=$(hw_counter "$SRV_DEV" rcvd_pkts)
	cm_pair "$@" || rc=1
	moved "$CLI_DEV" sent_pkts "$c_sent" || rc=1
	moved "$SRV_DEV" rcvd_pkts "$s_rcvd" || rc=1
	if [ "$way" = BOTH ]; then
		moved "$SRV_DEV" sent_pkts "$s_sent" || rc=1
		moved "$CLI_DEV" rcvd_pkts "$c_rcvd" || rc=1
	fi
	return $rc
}

for s in 4096 32768; do
	port=$(topo_port)
	ktap_test_result "rping -S $s -C 10 -V, $CLI_IP to $SRV_IP" \
		crossed BOTH WAIT "rping -s -a $SRV_IP -p $port -S $s -C 10 -V" \
		"rping -c -a $SRV_IP -I $CLI_IP -p $port -S $s -C 10 -V"
done

port=$(topo_port)
ktap_test_result "ucmatose, one connection" \
	crossed BOTH WAIT "ucmatose -b $SRV_IP -p $port" \
	"ucmatose -b $CLI_IP -s $SRV_IP -p $port"
port=$(topo_port)
ktap_test_result "ucmatose, 4 connections × 10 messages" \
	crossed BOTH WAIT "ucmatose -b $SRV_IP -p $port -c 4 -C 10" \
	"ucmatose -b $CLI_IP -s $SRV_IP -p $port -c 4 -C 10"

# udaddy's -p is the port space: it always uses port 7174.
ktap_test_result "udaddy" \
	crossed BOTH WAIT "udaddy -b $SRV_IP" "udaddy -b $CLI_IP -s $SRV_IP"

ktap_test_result "mckey -m $MCAST, receiver on $SRV_DEV, sender on $CLI_DEV" \
	crossed ONE WAIT "mckey -m $MCAST -b $SRV_IP -C 10" \
	"mckey -m $MCAST -b $CLI_IP -s -C 10"

port=$(topo_port)
ktap_test_result "rdma_server / rdma_client" \
	crossed BOTH WAIT "rdma_server -s $SRV_IP -p $port" \
	"rdma_client -s $SRV_IP -p $port"

port=$(topo_port)
ktap_test_result "rstream -T b -T v -S 65536" \
	crossed BOTH WAIT "rstream -b $SRV_IP -p $port -T b -T v -S 65536 -C 100" \
	"rstream -b $CLI_IP -s $SRV_IP -p $port -T b -T v -S 65536 -C 100"
port=$(topo_port)
ktap_test_result "riostream -T b -T v -S 65536" \
	crossed BOTH WAIT "riostream -b $SRV_IP -p $port -T b -T v -S 65536 -C 100" \
	"riostream -s $SRV_IP -p $port -T b -T v -S 65536 -C 100"

# cmtime's server serves until stopped.
port=$(topo_port)
ktap_test_result "cmtime -c 50" \
	crossed BOTH KILL "cmtime -b $SRV_IP -p $port -c 50" \
	"cmtime -b $CLI_IP -s $SRV_IP -p $port -c 50"

both_sent() {
	local rc=0
	moved "$CLI_DEV" sent_pkts "$sent_cli0" || rc=1
	moved "$SRV_DEV" sent_pkts "$sent_srv0" || rc=1
	return $rc
}
ktap_test_result "both devices sent packets ($CLI_DEV and $SRV_DEV sent_pkts moved)" both_sent

topo_down
ktap_test_result "the stack unloads afterwards" rdma_unload_all
ktap_finished
