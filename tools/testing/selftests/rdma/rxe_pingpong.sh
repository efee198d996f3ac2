#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# rdma-core's ibv_rc_pingpong, ibv_uc_pingpong, ibv_ud_pingpong and
# ibv_srq_pingpong (with -c: every received buffer is checked) on one
# device, rxe0, talking to itself (rxe_topo.sh); rxe_pingpong_veth.sh
# runs the same cases between two devices across a veth pair.  Each tool
# with -e (completion events), and the connected ones with -s 65536 (64
# packets a message) and with -m 4096 (a 4 KiB path MTU).  UD has neither:
# ibv_ud_pingpong has no -m, and a UD message must fit the active MTU
# (1024 here; measured on stock: -s 65536 fails with "Requested size
# larger than port MTU (1024)").
#
# Over the veth the -m 4096 cases raise the pair's MTU to 9000: on stock
# a 4096-byte path MTU over a 1500-byte netdev sends packets the netdev
# drops, and the ping-pong never completes (measured: both ends killed
# by a 60 s timeout).  On one device the packets never reach the netdev.
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rxe_topo.sh"

TOPO=${PP_TOPO:-one}
ITERS=5

ktap_print_header
ktap_set_plan 10

rdma_unload_all
modprobe ib_uverbs
if [ "$TOPO" = two ]; then
	topo_two_up || exit "$KSFT_FAIL"
	where="two devices"
	ends=("" "$TWO_DEV2" "$TWO_IP2" "" "$TWO_DEV1" "$TWO_IP1")
else
	topo_one_up || exit "$KSFT_FAIL"
	where="one device"
	ends=("" "$ONE_DEV" "$ONE_IP" "" "$ONE_DEV" "$ONE_IP")
fi

pp() {
	pingpong "${ends[@]}" "$@" -n "$ITERS" -c
}

active_4096() {
	ibv_devinfo -d "$TWO_DEV1" | grep -q 'active_mtu:.*4096' &&
	ibv_devinfo -d "$TWO_DEV2" | grep -q 'active_mtu:.*4096'
}

# mtu4096 TOOL ARG...: the tool at path MTU 4096, on a netdev that
# carries it.
mtu4096() {
	local rc=0
	if [ "$TOPO" = two ]; then
		ip link set "$TWO_IF1" mtu 9000 && ip link set "$TWO_IF2" mtu 9000 || return 1
		eventually 10 active_4096 || { echo "active MTU not 4096"; return 1; }
	fi
	pp "$@" -m 4096 || rc=1
	if [ "$TOPO" = two ]; then
		ip link set "$TWO_IF1" mtu 1500 && ip link set "$TWO_IF2" mtu 1500
	fi
	return $rc
}

for t in rc uc ud srq; do
	ktap_test_result "ibv_${t}_pingpong -e on $where" pp "ibv_${t}_pingpong" -e
done
# On one device the large messages and the MTU repeat what two devices
# run through the same code, less the veth and the batches: long cases.
big=long_case
[ "$TOPO" != two ] || big=ktap_test_result
for t in rc uc srq; do
	$big "ibv_${t}_pingpong -s 65536 on $where" pp "ibv_${t}_pingpong" -s 65536
done
for t in rc uc srq; do
	$big "ibv_${t}_pingpong -m 4096 on $where" mtu4096 "ibv_${t}_pingpong"
done

topo_down
rdma_unload_all
ktap_finished
