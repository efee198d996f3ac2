#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Memory windows on the wire (rxe_traffic.py windows): a type 2 window
# bound over the middle pages of an MR, addressed as the MR is and zero
# based (IBV_ACCESS_ZERO_BASED: the window's byte 0 is the MR's byte at
# the bind's address).  An RDMA WRITE and READ through each reach exactly
# the bytes the window maps, as on stock.  A READ that starts inside a
# window and ends past it, still inside the MR, fails with a remote
# access error on ours; stock checks only the MR's bounds and returns
# the bytes beyond the window (measured: status 0 for both windows), so
# that case is ours only.
# Deregistering an MR while a bind of a window over it runs (a thread
# each, both in the kernel at once; rxe_traffic.py dereg-vs-bind): each
# deregistration returns within 20 s, 0 (then the bind failed) or EBUSY
# (the bind won; the MR deregisters once the window is gone).  Ours
# checked the window count without a lock, so a bind that had looked
# the MR up before could still bind it: the deregistration then waited
# for the window's reference for ever, in D state.  Stock has the same
# unlocked check (6.1 rxe_mr.c rxe_dereg_mr(), and EINVAL for EBUSY);
# losing the race there waits 50 s, WARNs (panic_on_warn in the guests)
# and frees an MR the window still holds: skipped on stock.
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rxe_topo.sh"

ktap_print_header
ktap_set_plan 5

rdma_unload_all
modprobe ib_uverbs
topo_one_up && topo_two_up || exit "$KSFT_FAIL"
ktap_test_result "WRITE and READ through type 2 windows, zero based too, one device" \
	rxe_traffic windows "${ONE_ENDS[@]}"
ktap_test_result "WRITE and READ through type 2 windows, zero based too, two devices" \
	rxe_traffic windows "${TWO_ENDS[@]}"
# bounds DESCRIPTION DEV-A IP-A DEV-B IP-B
bounds() {
	if ours; then
		ktap_test_result "$1" rxe_traffic window-bounds "${@:2}"
	else
		ktap_test_skip "$1" "stock checks only the MR's bounds"
	fi
}
bounds "a READ past a window's end is a remote access error, one device" "${ONE_ENDS[@]}"
bounds "a READ past a window's end is a remote access error, two devices" "${TWO_ENDS[@]}"
if ours; then
	ktap_test_result "DEREG_MR racing BIND_MW returns, 0 or EBUSY, $(soak 60) rounds" \
		rxe_traffic dereg-vs-bind "${ONE_ENDS[@]}" --rounds "$(soak 60)"
else
	ktap_test_skip "DEREG_MR racing BIND_MW returns" \
		"stock has the same unlocked num_mw check: a lost race WARNs after 50 s (source)"
fi

topo_down
rdma_unload_all
ktap_finished
