#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# ib_cm, as a kernel ULP uses it, on one rxe device talking to itself:
# the test-only module cm_test (modules/cm_test) runs its cases on rxe0
# when loaded and prints KTAP into the kernel log, lines prefixed
# "cm_test: "; each of its cases becomes a case here.  Listen, REQ/REP/RTU
# with the QPs moved by ib_cm_init_qp_attr, SENDs over the connection,
# DREQ/DREP and timewait, REJ, MRA, COMM_EST, SIDR, timeouts (and times
# beyond the IBA's 5-bit exponents), destroy in every state, many
# connections.  Around it: the per-port counters in
# sysfs (as stock: ports/N/cm_{tx_msgs,tx_retries,rx_msgs,rx_duplicates}),
# the ib_cma tracepoints, and unloading afterwards.
# `make check` does not build the module yet; by hand (without it the
# test is skipped):
#	make -C tools/testing/selftests/rdma/modules/cm_test
#	OOT_TESTS=cm_loop scripts/vm --ko \
#	    tools/testing/selftests/rdma/modules/cm_test/cm_test.ko \
#	    -- tools/testing/selftests/rdma/run_tests.sh
# and on the stock stack, with the module built against it:
#	make -C tools/testing/selftests/rdma/modules/cm_test stock
#	OOT_TESTS=cm_loop scripts/vm --stock --ko \
#	    tools/testing/selftests/rdma/modules/cm_test/stock/cm_test.ko \
#	    -- tools/testing/selftests/rdma/run_tests.sh
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"

# The module's own cases (CT_NR_CASES in cm_test.c) and ours.
MODULE_CASES=19
OWN_CASES=8
ktap_print_header
ktap_set_plan $((MODULE_CASES + OWN_CASES))

skip_all() {
	local i
	test_module_skip cm_test $MODULE_CASES "$1"
	for i in $(seq $OWN_CASES); do
		ktap_test_skip "cm_loop case $i" "$1"
	done
	ktap_finished
	exit 0
}

rdma_unload_all
modinfo cm_test >/dev/null 2>&1 ||
	skip_all "cm_test.ko not installed (scripts/vm --ko, see the head of this test)"
rxe0_up_ipv4
modprobe ib_cm || skip_all "modprobe ib_cm failed"

PORT=/sys/class/infiniband/rxe0/ports/1
CM_DIRS="cm_rx_duplicates cm_rx_msgs cm_tx_msgs cm_tx_retries"
CM_FILES="apr drep dreq lap mra rej rep req rtu sidr_rep sidr_req"

# counter DIR FILE: one counter, 0 if it cannot be read.
counter() {
	cat "$PORT/$1/$2" 2>/dev/null || echo 0
}

# All counters as "dir/file value" lines.
counters() {
	local d f
	for d in $CM_DIRS; do
		for f in $CM_FILES; do
			echo "$d/$f $(counter "$d" "$f")"
		done
	done
}

counter_files() {
	local d f
	for d in $CM_DIRS; do
		printf "%s:" "$d"
		for f in "$PORT/$d"/*; do
			[ -f "$f" ] && printf " %s" "${f##*/}"
		done
		echo
	done
}
want_files=$(for d in $CM_DIRS; do echo "$d: $CM_FILES"; done)
ktap_test_result "ports/1 has the four cm_* counter directories, 11 files each" \
	expect_eq "counter files" "$(counter_files)" "$want_files"

# As on stock 6.1: the counters live under the port, no class of ib_cm's.
ktap_test_result "there is no /sys/class/infiniband_cm" \
	test ! -e /sys/class/infiniband_cm

# The tracepoints: their names (stock's cm_trace.h) and one's fields.
TRACEFS=/sys/kernel/tracing
[ -d "$TRACEFS/events" ] || mount -t tracefs nodev "$TRACEFS" 2>/dev/null
want_events="icm_dreq_skipped icm_dreq_unknown_err icm_establish_err
icm_handler_err icm_insert_failed_err icm_issue_drep icm_issue_rej
icm_mad_send_err icm_mra_unknown_err icm_no_listener_err icm_no_priv_err
icm_qp_init_err icm_qp_rtr_err icm_qp_rts_err icm_rej_unknown_err
icm_remote_no_priv_err icm_rep_unknown_err icm_send_cm_rtu_err
icm_send_dreq icm_send_drep icm_send_drep_err icm_send_dup_rep
icm_send_dup_req icm_send_mra icm_send_mra_unknown_err icm_send_rej
icm_send_rep icm_send_rep_err icm_send_req icm_send_rtu icm_send_sidr_rep
icm_send_sidr_req icm_send_unknown_rej_err icm_staleconn_err"
trace_events() {
	local e
	for e in "$TRACEFS"/events/ib_cma/icm_*; do
		[ -d "$e" ] && echo "${e##*/}"
	done | LC_ALL=C sort | tr '\n' ' '
}
ktap_test_result "the ib_cma tracepoints are stock's" \
	expect_eq "ib_cma events" "$(trace_events)" \
	"$(tr ' ' '\n' <<<"$want_events" | LC_ALL=C sort | tr '\n' ' ')"
fields() {
	sed -n 's/^\tfield:\([^;]*\);.*/\1/p' "$TRACEFS/events/ib_cma/$1/format" |
		grep -v ' common_' | tr '\n' ';'
}
ktap_test_result "icm_send_rej's fields are stock's" \
	expect_eq "icm_send_rej fields" "$(fields icm_send_rej)" \
	"const void * cm_id;u32 local_id;u32 remote_id;unsigned long state;unsigned long reason;"

before=$(counters)
echo 1 > "$TRACEFS/events/ib_cma/enable" 2>/dev/null
echo > "$TRACEFS/trace" 2>/dev/null

load_rc=0
cm_args=(dev=rxe0)
# Measured on stock: a REQ with packet life time 40 and response timeout
# 40 (beyond the 5-bit 31) ends in REQ_ERROR within 0.5 s, its shift
# wrapped to a few milliseconds.
if ! ours; then
	cm_args+=(huge_timeouts=0)
	echo "# stock: no REQ with times beyond 31 (measured: REQ_ERROR within 0.5 s)"
fi
out=$(test_module_load cm_test "${cm_args[@]}") || load_rc=$?
echo 0 > "$TRACEFS/events/ib_cma/enable" 2>/dev/null
# (Unloading a module with trace events empties the buffer: read it now.)
trace=$(cat "$TRACEFS/trace" 2>/dev/null)
[ $load_rc = 0 ] || skip_all "modprobe cm_test: $load_rc"
test_module_relay cm_test $MODULE_CASES "$out"
# rmmod: modprobe -r would take ib_cm, and its counters, with it.
rmmod cm_test

# A send is counted when it completes, which may be after its answer
# arrived: read the counters once they stay still.
after=$(counters)
still() {
	local now
	now=$(counters)
	[ "$now" = "$after" ] && return 0
	after=$now
	return 1
}
eventually 5 still
# delta DIR/FILE: how much a counter grew during the module's run.
delta() {
	local b a
	b=$(printf "%s\n" "$before" | awk -v k="$1" '$1 == k { print $2 }')
	a=$(printf "%s\n" "$after" | awk -v k="$1" '$1 == k { print $2 }')
	echo $((a - b))
}
for d in $CM_DIRS; do
	printf "# grew in %s:" "$d"
	for f in $CM_FILES; do
		printf " %s=%s" "$f" "$(delta "$d/$f")"
	done
	echo
done
# On a device talking to itself every message sent is received; the
# unanswered REQ was retried twice and its repeats were duplicates; the
# RTU that came after COMM_EST was one too.  Measured on stock: rx equals
# tx for every type (req 47, rep 38, rtu 37, dreq 37, drep 37, rej 8,
# mra 1, sidr_req 2, sidr_rep 2), retries and duplicates req 2, and one
# duplicate rtu.
counted() {
	local t
	for t in req rep rtu rej mra dreq drep sidr_req sidr_rep; do
		[ "$(delta cm_tx_msgs/$t)" -gt 0 ] ||
			{ echo "# cm_tx_msgs/$t did not grow"; return 1; }
		expect_eq "rx $t = tx $t" "$(delta cm_rx_msgs/$t)" \
			"$(delta cm_tx_msgs/$t)" || return 1
	done
	[ "$(delta cm_tx_retries/req)" -ge 2 ] ||
		{ echo "# cm_tx_retries/req grew by $(delta cm_tx_retries/req)"; return 1; }
	[ "$(delta cm_rx_duplicates/req)" -ge 2 ] ||
		{ echo "# cm_rx_duplicates/req grew by $(delta cm_rx_duplicates/req)"; return 1; }
	expect_eq "duplicate RTUs" "$(delta cm_rx_duplicates/rtu)" 1
}
ktap_test_result "the port's counters count what was sent, retried, repeated" counted

fired() {
	local e
	for e in icm_send_req icm_send_rep icm_send_rtu icm_send_dreq \
		 icm_send_drep icm_send_rej icm_issue_rej icm_send_mra \
		 icm_send_sidr_req icm_send_sidr_rep icm_mad_send_err; do
		grep -q " $e: " <<<"$trace" ||
			{ echo "# $e did not fire"; return 1; }
	done
}
ktap_test_result "the ib_cma tracepoints fired for what was sent" fired

ktap_test_result "the stack unloads afterwards" \
	eval 'rdma link del rxe0 && rdma_unload_all'

# The module left two timewait entries on 2.4-hour timers (its case "a
# connection with a 2.4-hour timewait"): removing rxe0 must have ended
# them; ib_cm reports at unload what it still had to free.  Stock's
# cm_remove_one() leaves such timers running (cm.c, 6.1) and its unload
# frees them without a word: nothing to look at there.
no_outlived() {
	local msg
	msg=$(dmesg | grep 'timewait entries outlived')
	[ -z "$msg" ] || { echo "# $msg"; return 1; }
}
if ours; then
	ktap_test_result "no timewait entry outlives its device" no_outlived
else
	ktap_test_skip "no timewait entry outlives its device" \
		"stock keeps a removed device's timewait timers and reports nothing"
fi
veth_teardown
ktap_finished
