#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# rxe's optional hw counters (the receive drops of rxe_recv.c, ours only)
# through the rdma tool: off by default, so that a new device shows
# exactly stock's counters in "rdma statistic show" and in sysfs; listed
# by "rdma statistic mode supported"; switched on and off by "rdma
# statistic set/unset ... optional-counters", shown after stock's while
# on, never in sysfs (the core gives optional counters no file, as the
# stock core does).  rxe_hostile.sh checks what they count.
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"

# Measured on stock 6.1.0-56 (scripts/vm --stock), a new rxe0:
# "rdma statistic show link rxe0/1" names, in order; hw_counters/ files;
# "rdma statistic mode [supported] link rxe0/1" print nothing; "set ...
# optional-counters X" fails for any X (rc 1, the tool's "error:
# Success": X is not in the supported list); "unset" succeeds.
STOCK="sent_pkts rcvd_pkts duplicate_request out_of_seq_request rcvd_rnr_err"
STOCK+=" send_rnr_err rcvd_seq_err ack_deferred retry_exceeded_err"
STOCK+=" retry_rnr_exceeded_err completer_retry_err send_err link_downed"
STOCK+=" rdma_sends rdma_recvs"
FILES=$(echo "$STOCK lifespan" | tr ' ' '\n' | LC_ALL=C sort | tr '\n' ' ')
OPTIONAL=rcvd_icrc_err,rcvd_malformed_err,rcvd_no_qp_err,rcvd_qp_mismatch_err
NO_OPT="stock rxe has no optional counters (measured)"

ktap_print_header
ktap_set_plan 10

rdma_unload_all
modprobe rdma_rxe
rxe0_up || exit "$KSFT_FAIL"
trap 'rdma link del rxe0 2>/dev/null; veth_teardown' EXIT

# The counter names "rdma statistic show" reports, in its order.
shown() {
	rdma statistic show link rxe0/1 |
		awk '{ for (i = 3; i <= NF; i += 2) printf "%s%s", (i > 3 ? " " : ""), $i }'
}
files() {
	ls /sys/class/infiniband/rxe0/ports/1/hw_counters | LC_ALL=C sort | tr '\n' ' '
}
mode() {
	rdma statistic mode link rxe0/1
}

ktap_test_result "default rdma statistic show is stock's" expect_eq "names" "$(shown)" "$STOCK"
ktap_test_result "hw_counters/ is stock's" expect_eq "files" "$(files)" "$FILES"
ktap_test_result "no optional counter is enabled by default" expect_eq "mode" "$(mode)" ""

if ours; then
	ktap_test_result "mode supported lists the optional counters" expect_eq "supported" \
		"$(rdma statistic mode supported link rxe0/1)" \
		"link rxe0/1 supported optional-counters $OPTIONAL"
else
	ktap_test_skip "mode supported lists the optional counters" "$NO_OPT"
fi

# Two on: shown after stock's, in the driver's order, not in sysfs.
two_on() {
	rdma statistic set link rxe0/1 optional-counters rcvd_no_qp_err,rcvd_icrc_err &&
	expect_eq "names" "$(shown)" "$STOCK rcvd_icrc_err rcvd_no_qp_err" &&
	expect_eq "mode" "$(mode)" "link rxe0/1 optional-counters rcvd_icrc_err,rcvd_no_qp_err" &&
	expect_eq "files" "$(files)" "$FILES"
}
# A new set replaces the old one: the counter left out goes.
one_on() {
	rdma statistic set link rxe0/1 optional-counters rcvd_malformed_err,rcvd_no_qp_err &&
	expect_eq "names" "$(shown)" "$STOCK rcvd_malformed_err rcvd_no_qp_err" &&
	expect_eq "mode" "$(mode)" "link rxe0/1 optional-counters rcvd_malformed_err,rcvd_no_qp_err"
}
if ours; then
	ktap_test_result "set enables optional counters, not in sysfs" two_on
	ktap_test_result "set again replaces the enabled set" one_on
else
	ktap_test_skip "set enables optional counters, not in sysfs" "$NO_OPT"
	ktap_test_skip "set again replaces the enabled set" "$NO_OPT"
fi

ktap_test_result "a default counter cannot be set optional" \
	eval '! rdma statistic set link rxe0/1 optional-counters sent_pkts'
ktap_test_result "an unknown counter cannot be set" \
	eval '! rdma statistic set link rxe0/1 optional-counters no_such_counter'

ktap_test_result "unset succeeds" rdma statistic unset link rxe0/1 optional-counters
unset_all() {
	expect_eq "names" "$(shown)" "$STOCK" && expect_eq "mode" "$(mode)" ""
}
ktap_test_result "after unset the output is stock's again" unset_all

ktap_finished
