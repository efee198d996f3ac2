#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The kernel verbs, as a kernel ULP uses them: the test-only module
# kverbs_test (modules/kverbs_test) runs its cases on rxe0 when loaded and
# prints KTAP into the kernel log, lines prefixed "kverbs_test: "; each of
# its cases becomes a case here.  Two RC QPs connected through rxe0's own
# RoCEv2 GID: PDs (local_dma_lkey), ib_reg_user_mr's page offset rule
# (ours: -EINVAL for a start and an iova at other offsets; stock takes
# it, reported only), CQs in every polling context, the CQ
# pool, MR pools, ib_sg_to_pages, QP create/modify, kernel AH and SRQ,
# SEND/RECV with ib_process_cq_direct, fast registration (REG_MR, RDMA
# WRITE and READ, LOCAL_INV), flushes and ib_drain_rq/sq/qp, teardown,
# RDMA READ/WRITE contexts (rdma_rw_*) on QPs made with max_rdma_ctxs.
# The pool's CQs stay with the device after the module goes.  Then, with
# the module's hold=1, its objects show in rdma res as kernel-owned, and
# the unload takes them all away.  Last, the rdma_rw cases once more with
# ib_core loaded with force_mr=1: every context registers an MR.
# `make check` builds the module and passes it to the guest; by hand
# (without it the test is skipped):
#	make -C tools/testing/selftests/rdma/modules/kverbs_test
#	OOT_TESTS=kverbs scripts/vm --ko \
#	    tools/testing/selftests/rdma/modules/kverbs_test/kverbs_test.ko \
#	    -- tools/testing/selftests/rdma/run_tests.sh
# and on the stock stack, with the module built against it:
#	make -C tools/testing/selftests/rdma/modules/kverbs_test stock
#	OOT_TESTS=kverbs scripts/vm --stock --ko \
#	    tools/testing/selftests/rdma/modules/kverbs_test/stock/kverbs_test.ko \
#	    -- tools/testing/selftests/rdma/run_tests.sh
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"

# The module's own cases (KT_NR_CASES in kverbs_test.c), its rdma_rw
# cases alone (KT_RW_CASES + 1) and ours.
MODULE_CASES=29
RW_CASES=7
ktap_print_header
ktap_set_plan $((MODULE_CASES + 4 + 1 + RW_CASES + 1))
# The module skips there what oopses the in-tree stack.
STOCK_ARG=stock=$(ours && echo 0 || echo 1)

skip_all() {
	test_module_skip kverbs_test $MODULE_CASES "$1"
	ktap_test_skip "the CQ pool's CQs stay with the device, one per vector" "$1"
	ktap_test_skip "the module's objects show in rdma res as kernel-owned" "$1"
	ktap_test_skip "unloading the module leaves rdma res as before" "$1"
	ktap_test_skip "the stack unloads afterwards" "$1"
	ktap_test_skip "ib_core's force_mr: a load-time parameter" "$1"
	test_module_skip "kverbs_test force_mr" $RW_CASES "$1"
	ktap_test_skip "force_mr: the stack unloads afterwards" "$1"
	ktap_finished
	exit 0
}

rdma_unload_all
modinfo kverbs_test >/dev/null 2>&1 ||
	skip_all "kverbs_test.ko not installed (scripts/vm --ko, see the head of this test)"
rxe0_up_ipv4

res_summary() {
	rdma res show | grep '^[0-9]*: rxe0:' | rdma_norm
}
# CQs of the device's own, shown as ib_core's (the MAD layer's, the
# CQ pool's).
core_cqs() {
	rdma res show cq dev rxe0 | grep -c ' comm \[ib_core\] $'
}
core_before=$(core_cqs)

load_rc=0
out=$(test_module_load kverbs_test dev=rxe0 "$STOCK_ARG") || load_rc=$?
[ $load_rc = 0 ] || skip_all "modprobe kverbs_test: $load_rc"
test_module_relay kverbs_test $MODULE_CASES "$out"
modprobe -r kverbs_test

# The module took entries on a CQ of the pool in two polling contexts and
# gave them back; the CQs are the device's until it goes.  The pool makes
# one per vector at once: min(num_comp_vectors, online CPUs), and rxe's
# vectors are the possible CPUs.  Measured on stock, two vCPUs: 4 CQs.
ktap_test_result "the CQ pool's CQs stay with the device, one per vector" \
	expect_eq "ib_core CQs more" "$(($(core_cqs) - core_before))" \
	"$((2 * $(nproc)))"
before=$(res_summary)

# The held objects (a PD, a CQ of IB_POLL_WORKQUEUE serving both queues
# of an RC QP in RESET, an MR), as rdma res shows them on stock, numbers
# normalised.  Measured: iproute2 6.1 names poll context 1 (WORKQUEUE in
# the kernel's enum) "SOFTIRQ"; the PD is used by the QP and the MR.
held_res() {
	rdma res show "$1" | grep ' comm \[kverbs_test\] $' |
		sed -E 's/(pdn|cqn|lqpn|mrn|cqe) [0-9]+/\1 N/g;
			s/(local_dma_lkey|rkey|lkey) 0x[0-9a-f]+/\1 X/g'
}
held() {
	modprobe kverbs_test dev=rxe0 hold=1 || return 1
	expect_eq "pd" "$(held_res pd)" \
		"dev rxe0 pdn N local_dma_lkey X users 2 comm [kverbs_test] " &&
	expect_eq "cq" "$(held_res cq)" \
		"dev rxe0 cqn N cqe N users 2 poll-ctx SOFTIRQ adaptive-moderation off comm [kverbs_test] " &&
	expect_eq "qp" "$(held_res qp)" \
		"link rxe0/- lqpn N rqpn 0 type RC state RESET rq-psn 0 sq-psn 0 path-mig-state MIGRATED comm [kverbs_test] " &&
	expect_eq "mr" "$(held_res mr)" \
		"dev rxe0 mrn N rkey X lkey X mrlen 0 comm [kverbs_test] "
}
ktap_test_result "the module's objects show in rdma res as kernel-owned" held

unloaded() {
	modprobe -r kverbs_test &&
	expect_eq "rdma res" "$(res_summary)" "$before" &&
	expect_eq "kverbs_test objects" "$(rdma res show | grep -c kverbs_test)" 0
}
ktap_test_result "unloading the module leaves rdma res as before" unloaded

ktap_test_result "the stack unloads afterwards" \
	eval 'rdma link del rxe0 && rdma_unload_all'
veth_teardown

# force_mr, as on stock: a bool of ib_core settable only when it loads
# (mode 0: nothing in /sys/module/ib_core/parameters).
force_mr_param() {
	expect_eq "modinfo" "$(modinfo -p ib_core | grep -c '^force_mr:')" 1 &&
	modprobe ib_core force_mr=1 &&
	expect_eq "in sysfs" \
		"$([ -e /sys/module/ib_core/parameters/force_mr ] && echo yes)" ""
}
ktap_test_result "ib_core's force_mr: a load-time parameter" force_mr_param
rxe0_up_ipv4
load_rc=0
out=$(test_module_load kverbs_test dev=rxe0 rw_only=1 force_mr=1 \
	"$STOCK_ARG") || load_rc=$?
if [ $load_rc = 0 ]; then
	modprobe -r kverbs_test
	test_module_relay kverbs_test $RW_CASES \
		"$(printf "%s\n" "$out" | sed -E 's/^((not )?ok [0-9]+ )/\1force_mr: /')"
else
	test_module_skip "kverbs_test force_mr" $RW_CASES \
		"modprobe kverbs_test: $load_rc"
fi
ktap_test_result "force_mr: the stack unloads afterwards" \
	eval 'rdma link del rxe0 && rdma_unload_all'
veth_teardown
ktap_finished
