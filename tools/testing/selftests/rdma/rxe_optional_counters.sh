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
OPTIONAL=rcvd_icrc_err,rcvd_malformed_err,rcvd_no_qp_err,rcvd_qp_mismatch_err,rcvd_resp_overflow_err
NO_OPT="stock rxe has no optional counters (measured)"

ktap_print_header
ktap_set_plan 13

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

# The tool checks names itself; below it, the kernel checks indexes.
# STAT_SET (5/16) with a STAT_HWCOUNTERS nest (80, NLA_F_NESTED) of
# STAT_HWCOUNTER_INDEX u32s (94): nest INDEX... prints the attribute.
nest() {
	local out= i
	for i; do
		out+=$(printf '08005e00%02x000000' "$i")
	done
	echo "$((80 | 0x8000)):hex:$out"
}
DEV=(dev_index:u32:"$(rdma dev show rxe0 | cut -d: -f1)" port_index:u32:1)
# Measured on stock: index 0 (sent_pkts) is EINVAL there too.
ktap_test_result "the kernel refuses a default counter's index" \
	expect_nl "error EINVAL" --ack 5 16 "${DEV[@]}" "$(nest 0)"
# Ours: a list with one bad index changes nothing, a good one is taken.
bad_list() {
	local before
	before=$(mode)
	expect_eq "mode before" "$before" \
		"link rxe0/1 optional-counters rcvd_malformed_err,rcvd_no_qp_err" &&
	expect_nl "error EINVAL" --ack 5 16 "${DEV[@]}" "$(nest 15 0)" &&
	expect_eq "mode" "$(mode)" "$before" &&
	expect_nl "error EINVAL" --ack 5 16 "${DEV[@]}" "$(nest 15 20)" &&
	expect_eq "mode" "$(mode)" "$before"
}
by_index() {
	expect_nl "ack" --ack 5 16 "${DEV[@]}" "$(nest 15)" &&
	expect_eq "mode" "$(mode)" "link rxe0/1 optional-counters rcvd_icrc_err" &&
	expect_nl "ack" --ack 5 16 "${DEV[@]}" "$(nest)" &&
	expect_eq "mode" "$(mode)" ""
}
if ours; then
	ktap_test_result "a list with a bad index changes nothing" bad_list
	ktap_test_result "optional counters by index, and an empty list" by_index
else
	ktap_test_skip "a list with a bad index changes nothing" "$NO_OPT"
	ktap_test_skip "optional counters by index, and an empty list" "$NO_OPT"
fi

ktap_test_result "unset succeeds" rdma statistic unset link rxe0/1 optional-counters
unset_all() {
	expect_eq "names" "$(shown)" "$STOCK" && expect_eq "mode" "$(mode)" ""
}
ktap_test_result "after unset the output is stock's again" unset_all

ktap_finished
