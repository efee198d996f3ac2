#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Debian's rdmacm-utils through rdma_ucm and rdma_cm on one device, rxe0
# (10.200.0.1 and fd00:200::1 on veth0, rxe_topo.sh): every server and
# its client on that address, each bounded by a timeout.
#   rping               IPv4 and IPv6, -S 4096 and 32768, -C 10, -V
#                       (IPv6 at 32768 a long case)
#   ucmatose            one connection and 4 connections
#   udaddy              UD through SIDR
#   mckey               a multicast receiver and a sender (-m)
#   rdma_server/client  librdmacm's verbs helpers (rdma_getaddrinfo, ...)
#   rstream, riostream  rsockets: blocking, async (poll, the server) and
#                       nonblocking, 64 B and 64 KiB transfers, verified
#                       (-T takes one option letter a time: "-T b -T v";
#                       async and nonblocking at 64 B long cases)
#   cmtime              50 connections
# After each, no cm_id is left (`rdma res show cm_id` empty); at the end
# the stack unloads.  Every case passes on --stock (measured), mckey's
# receiver included: on one rxe device it sees the sender's packets.
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rxe_topo.sh"

IP4=$ONE_IP
IP6=fd00:200::1
MCAST=239.1.2.3
CM_OUT=$(mktemp -d)
trap 'rm -rf "$CM_OUT"' EXIT

ktap_print_header
ktap_set_plan 24

rdma_unload_all
modprobe ib_uverbs
modprobe rdma_ucm
topo_one_up || exit "$KSFT_FAIL"
ip addr add "$IP6/64" dev "$VETH" nodad

# Long cases (lib.sh): IPv6 at 32 KiB, and the async and nonblocking
# rsockets at 64 B, repeat what the cases beside them run (IPv6 at 4 KiB,
# the same mode at 64 KiB, 64 B blocking).
port=$(topo_port)
for a in "$IP4" "$IP6"; do
	for s in 4096 32768; do
		port=$(topo_port)
		run=ktap_test_result
		[ "$a/$s" != "$IP6/32768" ] || run=long_case
		$run "rping -S $s -C 10 -V on $a" \
			cm_pair WAIT "rping -s -a $a -p $port -S $s -C 10 -V" \
			"rping -c -a $a -p $port -S $s -C 10 -V"
	done
done

port=$(topo_port)
ktap_test_result "ucmatose, one connection" \
	cm_pair WAIT "ucmatose -b $IP4 -p $port" "ucmatose -s $IP4 -p $port"
port=$(topo_port)
ktap_test_result "ucmatose, 4 connections × 10 messages" \
	cm_pair WAIT "ucmatose -b $IP4 -p $port -c 4 -C 10" \
	"ucmatose -s $IP4 -p $port -c 4 -C 10"
port=$(topo_port)
ktap_test_result "ucmatose over IPv6" \
	cm_pair WAIT "ucmatose -b $IP6 -p $port -f ipv6" "ucmatose -s $IP6 -p $port -f ipv6"

# udaddy's -p is the port space: it always uses port 7174.
ktap_test_result "udaddy" cm_pair WAIT "udaddy -b $IP4" "udaddy -s $IP4"

ktap_test_result "mckey -m $MCAST, receiver and sender" \
	cm_pair WAIT "mckey -m $MCAST -b $IP4 -C 10" "mckey -m $MCAST -b $IP4 -s -C 10"

port=$(topo_port)
ktap_test_result "rdma_server / rdma_client" \
	cm_pair WAIT "rdma_server -s $IP4 -p $port" "rdma_client -s $IP4 -p $port"

# With -T a the server polls; its client blocks.  An async client races
# with the server's close: rpoll() reports the last data with POLLHUP once
# the server has shut down, and the tools' do_poll() takes any POLLHUP for
# a failure, so the client exits 16 without a word after the server's
# report: at 64 KiB in 8 of 20 runs on --stock, 19 of 20 on ours, which
# delivers a loopback transfer later (Documentation/infiniband/cm.rst,
# "rsockets' async mode").
for tool in rstream riostream; do
	for t in b a n; do
		ct=$t
		[ "$t" = a ] && ct=b
		for s in 64 65536; do
			port=$(topo_port)
			run=ktap_test_result
			[ "$t/$s" = b/64 ] || [ $s != 64 ] || run=long_case
			$run "$tool -T $t -T v -S $s" \
				cm_pair WAIT "$tool -b $IP4 -p $port -T $t -T v -S $s -C 100" \
				"$tool -s $IP4 -p $port -T $ct -T v -S $s -C 100"
		done
	done
done

# cmtime's server serves until stopped.
port=$(topo_port)
ktap_test_result "cmtime -c 50" \
	cm_pair KILL "cmtime -b $IP4 -p $port -c 50" "cmtime -s $IP4 -p $port -c 50"

ip addr del "$IP6/64" dev "$VETH" 2>/dev/null
topo_down
ktap_test_result "the stack unloads afterwards" rdma_unload_all
ktap_finished
