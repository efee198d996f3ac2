# SPDX-License-Identifier: GPL-2.0-only
#
# KTAP output for shell tests (KTAP version 1, as kselftest prints it).
# Sourced by every test:
#
#	ktap_print_header
#	ktap_set_plan 3
#	ktap_test_result "what it proves" <command...>   # ok / not ok
#	ktap_test_skip "what" "why"
#	ktap_finished                                    # exits 0/1/4
#
# Exit status follows kselftest: 0 all passed, 1 something failed,
# 4 everything skipped.

KSFT_PASS=0
KSFT_FAIL=1
KSFT_SKIP=4

ktap_n=0
ktap_pass=0
ktap_fail=0
ktap_skip=0
ktap_xfail=0
ktap_plan=
ktap_lap=$SECONDS

# What a result cost, when it cost enough to matter to make check's time
# budget: "# N s" after each result that took 5 s or more since the last.
ktap_print_lap() {
	local took=$((SECONDS - ktap_lap))

	ktap_lap=$SECONDS
	[ "$took" -lt 5 ] || echo "# $took s"
}

ktap_print_header() {
	echo "TAP version 13"
	echo "KTAP version 1"
}

ktap_set_plan() {
	ktap_plan=$1
	echo "1..$1"
}

ktap_print_msg() {
	echo "# $*"
}

ktap_test_pass() {
	ktap_n=$((ktap_n + 1))
	ktap_pass=$((ktap_pass + 1))
	echo "ok $ktap_n $1"
	ktap_print_lap
}

ktap_test_fail() {
	ktap_n=$((ktap_n + 1))
	ktap_fail=$((ktap_fail + 1))
	echo "not ok $ktap_n $1"
	ktap_print_lap
}

# ktap_test_skip DESCRIPTION REASON
ktap_test_skip() {
	ktap_n=$((ktap_n + 1))
	ktap_skip=$((ktap_skip + 1))
	echo "ok $ktap_n $1 # SKIP ${2:-}"
	ktap_print_lap
}

# ktap_test_todo DESCRIPTION REASON COMMAND...: a requirement known not to
# be met yet (REASON names the open issue).  Runs COMMAND like
# ktap_test_result; a failure is reported "not ok ... # TODO REASON" and
# counted as xfail, which does not fail the test; a pass is a plain "ok"
# (then the TODO should go).
ktap_test_todo() {
	local desc=$1 reason=$2 output rc=0
	shift 2
	output=$("$@" 2>&1) || rc=$?
	[ -z "$output" ] || printf "%s\n" "$output" | sed "s/^/# /"
	if [ $rc = 0 ]; then
		ktap_test_pass "$desc"
	else
		ktap_n=$((ktap_n + 1))
		ktap_xfail=$((ktap_xfail + 1))
		echo "not ok $ktap_n $desc # TODO $reason"
		ktap_print_lap
	fi
}

# ktap_test_result DESCRIPTION COMMAND...: passes when COMMAND succeeds;
# the command's output is shown as diagnostics.
ktap_test_result() {
	local desc=$1 output rc=0
	shift
	output=$("$@" 2>&1) || rc=$?
	[ -z "$output" ] || printf "%s\n" "$output" | sed "s/^/# /"
	if [ $rc = 0 ]; then
		ktap_test_pass "$desc"
	else
		ktap_test_fail "$desc"
	fi
}

ktap_finished() {
	if [ -n "$ktap_plan" ] && [ "$ktap_n" != "$ktap_plan" ]; then
		echo "# planned $ktap_plan tests, ran $ktap_n"
		ktap_fail=$((ktap_fail + 1))
	fi
	echo "# Totals: pass:$ktap_pass fail:$ktap_fail xfail:$ktap_xfail xpass:0 skip:$ktap_skip error:0"
	if [ $ktap_fail -gt 0 ]; then
		exit $KSFT_FAIL
	elif [ $ktap_pass = 0 ] && [ $ktap_skip -gt 0 ]; then
		exit $KSFT_SKIP
	fi
	exit $KSFT_PASS
}
