#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# rdma-core's own pyverbs test suite, the part that moves data (every
# test not in golden/pyverbs-api.txt, which uverbs_pyverbs.sh covers):
# each test has the outcome it has on the stock stack
# (golden/pyverbs-stock.txt, measured there; pyverbs_want, lib.sh).  One result for each test
# module in which stock passes or errs a test that moves data, one for
# the rest (all skips on stock: mlx5, EFA, ODP, device memory ...), but
# for those where ours is deliberately other (golden/pyverbs-ours.txt:
# ODP passes on ours).
# scripts/pyverbs-compare runs the same comparison against a live stock
# run.
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"

API=$TESTDIR/golden/pyverbs-api.txt
dir=$(mktemp -d)

# Stock's outcomes of the tests that move data.
api_re=$(sed -n 's/^[a-z]\+ //p' "$API" | sed 's/\./\\./g; s/^/^tests\\./; s/$/[. ]/' |
	paste -sd '|')
pyverbs_want | grep -v '^#' | grep -vE "$api_re" >"$dir/want"
modules=$(grep -E ' (pass|error|fail)$' "$dir/want" | cut -d. -f2 | sort -u)

ktap_print_header
ktap_set_plan $(($(echo "$modules" | wc -w) + 2))

rdma_unload_all
rxe0_up
# The rdmacm tests connect over the veth's address (pyverbs_run.py).
ip addr add 10.200.0.1/24 dev "$VETH"
modprobe ib_uverbs

# One run of the whole suite: loading it is most of its cost.  A test
# that hangs is stopped after 30 s and counts as an error.
/usr/bin/python3 "$TESTDIR/pyverbs_run.py" --test-timeout 30 --netdev-from-parent \
	--out "$dir/outcomes" \
	-- --dev rxe0 --gid 0 2>"$dir/log"
grep -vE "$api_re" "$dir/outcomes" >"$dir/got"

# same GREP-OPTION PATTERN: the outcomes of the tests grep selects.
same() {
	diff -u --label stock --label ours <(grep "$@" "$dir/want") \
		<(grep "$@" "$dir/got") && return 0
	grep -A 12 -E '^(ERROR|FAIL):' "$dir/log" | head -n 60
	return 1
}
for m in $modules; do
	ktap_test_result "pyverbs $m: stock's outcomes" same -E "^tests\\.$m\\."
done
others=$(echo "$modules" | sed 's/^/^tests\\./; s/$/\\./' | paste -sd '|')
ktap_test_result "pyverbs, the other modules: stock's outcomes (skips)" same -vE "$others"

rdma link del rxe0
ktap_test_result "the stack unloads afterwards" rdma_unload_all

veth_teardown
rm -rf "$dir"
ktap_finished
