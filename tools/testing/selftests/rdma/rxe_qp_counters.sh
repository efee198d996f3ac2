#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# QP counters on rxe ("rdma statistic qp", rxe_qp_counters.py): auto
# mode binds the QPs by type, manual mode binds and unbinds them by
# number, with the refusals of each; a counter counts its QPs' traffic
# once, the port's totals (rdma stat, sysfs) count it once more only in
# sum, and what a counter counted stays in the port's after its QPs
# close or their process exits.  Stock 6.1's rxe has no QP counters:
# skipped there.  Measured there: "auto type on" succeeds and the mode
# says so, but QPs made then are bound to nothing ("rdma statistic qp
# show" lists no counter), and a manual bind fails.
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rxe_topo.sh"

STOCK_WHY="stock's rxe has no QP counters (auto mode is accepted, binds nothing)"

ktap_print_header
ktap_set_plan 3

rdma_unload_all
modprobe ib_uverbs
topo_one_up || exit "$KSFT_FAIL"

case_() {
	ours_case rxe_qp_counters.py "$STOCK_WHY" "$@" "${ONE_ENDS[@]}"
}
case_ "auto mode by QP type: one counter a type, counts once, kept on close" auto
case_ "manual bind and unbind by QP number, and their refusals" manual
case_ "a process exits with bound QPs: its counter goes, its counts stay" exit

topo_down
rdma_unload_all
ktap_finished
