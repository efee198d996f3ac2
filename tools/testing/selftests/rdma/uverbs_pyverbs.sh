#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# rdma-core's own pyverbs test suite, the part that moves no data
# (golden/pyverbs-api.txt: device and port queries, PDs, CQs, QPs and
# their queues' bad flows, MRs, AHs), gives every test the outcome it has
# on the stock stack (golden/pyverbs-stock.txt, measured there): pass,
# skip (the features stock's rxe lacks too) or error, but where ours
# deliberately differs (golden/pyverbs-ours.txt: ODP; pyverbs_want,
# lib.sh).  One result a group.
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"

API=$TESTDIR/golden/pyverbs-api.txt
api_groups=$(sed -n 's/^\([a-z]\+\) .*/\1/p' "$API" | uniq)
mapfile -t api_names < <(sed -n 's/^[a-z]\+ //p' "$API")

ktap_print_header
ktap_set_plan $(($(echo "$api_groups" | wc -l) + 1))

rdma_unload_all
rxe0_up
modprobe ib_uverbs
dir=$(mktemp -d)
pyverbs_want >"$dir/want"

# One run of the suite for all groups: loading it is most of its cost.
/usr/bin/python3 "$TESTDIR/pyverbs_run.py" --out "$dir/outcomes" \
	"${api_names[@]}" -- --dev rxe0 --gid 0 2>"$dir/log"

# outcomes_of GROUP FILE: FILE's lines for GROUP's tests.
outcomes_of() {
	local name
	for name in $(sed -n "s/^$1 //p" "$API"); do
		grep -E "^tests\\.${name//./\\.}[. ]" "$2"
	done | sort
}
same() {
	local want
	want=$(outcomes_of "$1" "$dir/want")
	[ -n "$want" ] || { echo "no stock outcomes for $1"; return 1; }
	diff -u <(echo "$want") <(outcomes_of "$1" "$dir/outcomes") ||
		{ grep -A 12 -E '^(ERROR|FAIL):' "$dir/log" | head -n 60; return 1; }
}
for g in $api_groups; do
	ktap_test_result "pyverbs $g tests: stock's outcomes" same "$g"
done

rdma link del rxe0
ktap_test_result "the stack unloads afterwards" rdma_unload_all

veth_teardown
rm -rf "$dir"
ktap_finished
