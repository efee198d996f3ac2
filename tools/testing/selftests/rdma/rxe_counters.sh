#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# rxe's hw counters after known traffic: rxe_traffic.py counters (an RC
# SEND of 4 KiB at path MTU 1024, an RDMA WRITE of 8 KiB, an RDMA READ of
# 8 KiB and a FETCH_ADD, each completed before the next) from rxe1 to
# rxe2 across a veth pair (rxe_topo.sh), on new devices.  Every counter of
# both devices, in rdma stat's order, has the value measured on stock, and
# `rdma stat show` reports the same values as sysfs.  Then the same
# traffic on one device, rxe to itself, which counts both sides; ours
# delivers a message's packets there in bursts (rxe.rst, "Bursts"), each
# burst counted as the packets it stands for, and rxe_rcv() (a kprobe)
# runs once a burst.
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rxe_topo.sh"

# Measured on stock 6.1.0-56 (scripts/vm --stock): the packets of
# datapath.md's wire facts (SEND 4 + ACK, WRITE 8 + ACK, READ 1 request +
# 8 responses, FETCH_ADD 1 + ATOMIC_ACKNOWLEDGE), rdma_sends and
# rdma_recvs count the one SEND message, every error counter 0.
ZEROS="duplicate_request 0 out_of_seq_request 0 rcvd_rnr_err 0 send_rnr_err 0"
ZEROS+=" rcvd_seq_err 0 ack_deferred 0 retry_exceeded_err 0"
ZEROS+=" retry_rnr_exceeded_err 0 completer_retry_err 0 send_err 0 link_downed 0"
WANT_REQ="sent_pkts 14 rcvd_pkts 11 $ZEROS rdma_sends 1 rdma_recvs 0"
WANT_RESP="sent_pkts 11 rcvd_pkts 14 $ZEROS rdma_sends 0 rdma_recvs 1"
WANT_ONE="sent_pkts 25 rcvd_pkts 25 $ZEROS rdma_sends 1 rdma_recvs 1"
# rxe_rcv() on one device, ours: a burst each for the SEND, WRITE and
# READ response, one packet each for the READ request and the FETCH_ADD,
# and the four acknowledgments.
WANT_ONE_RCV=8

ktap_print_header
ktap_set_plan 8

rdma_unload_all
modprobe ib_uverbs
topo_two_up && topo_one_up || exit "$KSFT_FAIL"

# DEV: "name value ..." in rdma stat's order; lifespan, in the same
# directory, is the counters' cache lifetime, not a counter.
counters() {
	local f out=
	for f in $(rdma stat show link "$1/1" | tr ' ' '\n' | sed -n '3~2p'); do
		out+="$f $(cat "/sys/class/infiniband/$1/ports/1/hw_counters/$f") "
	done
	echo "${out% }"
}

total() {
	counters "$1" | awk '{ for (i = 2; i <= NF; i += 2) s += $i } END { print s + 0 }'
}
ktap_test_result "new devices count nothing" expect_eq "counters" \
	"$(total "$TWO_DEV1") $(total "$TWO_DEV2")" "0 0"

ktap_test_result "SEND, WRITE, READ, FETCH_ADD from $TWO_DEV1 to $TWO_DEV2" \
	rxe_traffic counters "$TWO_DEV1" "$TWO_IP1" "$TWO_DEV2" "$TWO_IP2"

req=$(counters "$TWO_DEV1")
resp=$(counters "$TWO_DEV2")
ktap_print_msg "$TWO_DEV1: $req"
ktap_print_msg "$TWO_DEV2: $resp"
ktap_test_result "$TWO_DEV1 (requester) counters are stock's" expect_eq "$TWO_DEV1" "$req" "$WANT_REQ"
ktap_test_result "$TWO_DEV2 (responder) counters are stock's" expect_eq "$TWO_DEV2" "$resp" "$WANT_RESP"

stat_same() {
	local d
	for d in "$TWO_DEV1" "$TWO_DEV2"; do
		expect_eq "rdma stat show link $d/1" "$(rdma stat show link "$d/1")" \
			"link $d/1 $(counters "$d") " || return 1
	done
}
ktap_test_result "rdma stat show reports the sysfs values" stat_same

RCV_PROBE="p:oot_rxe_rcv rxe_rcv"
probes_on "$RCV_PROBE" || ktap_print_msg "no kprobe on rxe_rcv"
ktap_test_result "the same on $ONE_DEV, to itself" \
	rxe_traffic counters "$ONE_DEV" "$ONE_IP" "$ONE_DEV" "$ONE_IP"
probes_off "$RCV_PROBE"
calls=$(grep -c ' oot_rxe_rcv:' $TRACEFS/trace)
probes_del "$RCV_PROBE"
one=$(counters "$ONE_DEV")
ktap_print_msg "$ONE_DEV: $one; rxe_rcv ran $calls times"
ktap_test_result "$ONE_DEV counts both sides as stock" expect_eq "$ONE_DEV" "$one" "$WANT_ONE"
if ours; then
	ktap_test_result "$ONE_DEV takes its 25 packets in $WANT_ONE_RCV bursts and packets" \
		expect_eq "rxe_rcv calls" "$calls" "$WANT_ONE_RCV"
else
	ktap_test_skip "$ONE_DEV takes its 25 packets in bursts" \
		"stock has no bursts: rxe_rcv ran $calls times for 25 packets"
fi

topo_down
rdma_unload_all
ktap_finished
