#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The ib_core exports of hardware drivers and their ULPs: the test-only
# module hwverbs_test (modules/hwverbs_test) runs its cases on rxe0 when
# loaded and prints KTAP into the kernel log; each of its cases becomes a
# case here.  IB header packing (ib_pack, ib_ud_header_*), static rates,
# the DMA block iterator, the verbs rxe has no op for (VFs, rdma
# netdevs, XRC domains, WQs, CQ moderation, AH modify), which answer as
# stock does, and an ODP registration.  Its measurements ("# G" lines:
# packed bytes, rates, blocks, errnos) must equal stock's, recorded on
# the stock stack in golden/hwverbs-stock.txt, but for ODP, which our rxe
# has and stock's has not.
# `make check` builds the module and passes it to the guest; by hand
# (without it the test is skipped):
#	make -C tools/testing/selftests/rdma/modules/hwverbs_test
#	scripts/vm --ko \
#	    tools/testing/selftests/rdma/modules/hwverbs_test/hwverbs_test.ko \
#	    -- tools/testing/selftests/rdma/run_tests.sh hwverbs.sh
# and on the stock stack, with the module built against it:
#	make -C tools/testing/selftests/rdma/modules/hwverbs_test stock
#	scripts/vm --stock --ko \
#	    tools/testing/selftests/rdma/modules/hwverbs_test/stock/hwverbs_test.ko \
#	    -- tools/testing/selftests/rdma/run_tests.sh hwverbs.sh
# HWVERBS_RECORD=FILE writes the measurements to FILE instead (how the
# golden file was made, on stock).
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"

# The module's own cases (KT_NR_CASES in hwverbs_test.c) and ours.
MODULE_CASES=17
GOLDEN=$TESTDIR/golden/hwverbs-stock.txt
ktap_print_header
ktap_set_plan $((MODULE_CASES + 2))

skip_all() {
	test_module_skip hwverbs_test $MODULE_CASES "$1"
	ktap_test_skip "the measurements are stock's" "$1"
	ktap_test_skip "the stack unloads afterwards" "$1"
	ktap_finished
	exit 0
}

rdma_unload_all
modinfo hwverbs_test >/dev/null 2>&1 ||
	skip_all "hwverbs_test.ko not installed (scripts/vm --ko, see the head of this test)"
rxe0_up_ipv4

load_rc=0
out=$(test_module_load hwverbs_test dev=rxe0) || load_rc=$?
[ $load_rc = 0 ] || skip_all "modprobe hwverbs_test: $load_rc"
test_module_relay hwverbs_test $MODULE_CASES "$out"
modprobe -r hwverbs_test

measured=$(printf "%s\n" "$out" | sed -n 's/^# G //p')
if [ -n "${HWVERBS_RECORD:-}" ]; then
	printf "%s\n" "$measured" > "$HWVERBS_RECORD"
fi
# Ours differs in one place on purpose: our rxe has ODP (rxe_odp.sh), so
# its ODP registration succeeds where stock's core refuses it.
expected() {
	if ours; then
		sed 's/^reg_user_mr odp -22$/reg_user_mr odp 0/' "$GOLDEN"
	else
		cat "$GOLDEN"
	fi
}
stock_equal() {
	local d
	d=$(diff <(printf "%s\n" "$measured") <(expected)) && return 0
	printf "%s\n" "$d" | sed 's/^/# /'
	return 1
}
ktap_test_result "the measurements are stock's" stock_equal

ktap_test_result "the stack unloads afterwards" \
	eval 'rdma link del rxe0 && rdma_unload_all'
veth_teardown
ktap_finished
