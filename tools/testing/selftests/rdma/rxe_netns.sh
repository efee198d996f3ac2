#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# RC and UD traffic between rxe devices in two network namespaces: rxeA
# on va in nsA, rxeB on vb in nsB, va and vb a veth pair (rxe_topo.sh).
# ibv_rc_pingpong and ibv_ud_pingpong, with -c (the buffers are
# checked), server in nsB, client in nsA.  Ours sends and receives in the
# netdev's namespace and must pass.  Stock 6.1 opens rxe's UDP socket in
# the initial namespace only: the case is run there too and skipped with
# the error it ends with (measured: "local QP operation error").
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rxe_topo.sh"

# Stock's UD ends never give up by themselves (measured: 60 s until
# timeout(1) killed them); the tools take seconds when traffic flows.
TOOL_TIMEOUT=$((20 * ${OOT_TIMEOUT_SCALE:-1}))

ktap_print_header
ktap_set_plan 3

rdma_unload_all
modprobe ib_uverbs

ktap_test_result "rxeA in nsA and rxeB in nsB have their addresses' GIDs" topo_ns_up

ns_pp() {
	pingpong "$NS_B" "$NS_DEV_B" "$NS_IP_B" "$NS_A" "$NS_DEV_A" "$NS_IP_A" "$@" -n 5 -c
}

for t in rc ud; do
	desc="ibv_${t}_pingpong between two namespaces"
	if ours; then
		ktap_test_result "$desc" ns_pp "ibv_${t}_pingpong"
	elif out=$(ns_pp "ibv_${t}_pingpong" 2>&1); then
		ktap_test_pass "$desc"
	else
		why=$(echo "$out" | grep -m 1 -oE 'Failed status [^(]*' ||
			echo "$out" | tail -n 1)
		ktap_test_skip "$desc" "stock 6.1 (UDP socket in the initial netns only): $why"
	fi
done

topo_down
rdma_unload_all
ktap_finished
