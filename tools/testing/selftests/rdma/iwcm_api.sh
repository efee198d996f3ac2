#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# iw_cm, the iWARP connection manager: the module as stock ships it (its
# sysctl, alias and dependencies, autoloading by iwpmd's netlink client),
# and its kernel API as a consumer like rdma_cm uses it.  The API cases
# come from the test-only module iwcm_test (modules/iwcm_test), which runs
# them when loaded and prints KTAP into the kernel log, lines prefixed
# "iwcm_test: "; each becomes a case here.  There is no iWARP device in
# the guest: the module brings a fake one that loops connections back to
# its own listeners, so the whole state machine runs (connect, request,
# accept or reject, established, disconnect, close, destroy in every
# state, a reject or second accept after an accept, a handler accepting
# and then refusing, a full backlog, destroy racing a running handler).  The argument
# checks run on rxe0, a device without iWARP verbs.
# `make check` must build the module and pass it to the guest; by hand
# (without it the API cases are skipped):
#	make -C tools/testing/selftests/rdma/modules/iwcm_test
#	OOT_TESTS=iwcm_api scripts/vm --ko \
#	    tools/testing/selftests/rdma/modules/iwcm_test/iwcm_test.ko \
#	    -- tools/testing/selftests/rdma/run_tests.sh
# and on the stock stack, with the module built against it:
#	make -C tools/testing/selftests/rdma/modules/iwcm_test stock
#	OOT_TESTS=iwcm_api scripts/vm --stock --ko \
#	    tools/testing/selftests/rdma/modules/iwcm_test/stock/iwcm_test.ko \
#	    -- tools/testing/selftests/rdma/run_tests.sh
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"

SYSCTL=/proc/sys/net/iw_cm/default_backlog
# The module's own cases (IT_NR_CASES in iwcm_test.c).
MODULE_CASES=19
ktap_print_header
ktap_set_plan $((MODULE_CASES + 7))

rdma_unload_all

loads() {
	modprobe iw_cm &&
	module_loaded iw_cm && module_loaded ib_core
}
ktap_test_result "modprobe iw_cm loads it and ib_core" loads

sysctl_default() {
	expect_eq "default_backlog" "$(cat "$SYSCTL")" 256 &&
	expect_eq "mode" "$(stat -c %a "$SYSCTL")" 644
}
ktap_test_result "$SYSCTL is 256, mode 0644" sysctl_default

sysctl_write() {
	echo 16 >"$SYSCTL" &&
	expect_eq "after writing 16" "$(cat "$SYSCTL")" 16 &&
	echo 256 >"$SYSCTL" &&
	expect_eq "after writing 256" "$(cat "$SYSCTL")" 256
}
ktap_test_result "default_backlog takes a new value" sysctl_write

modinfo_facts() {
	expect_eq "alias" "$(modinfo -F alias iw_cm)" "rdma-netlink-subsys-2" &&
	expect_eq "depends" "$(modinfo -F depends iw_cm)" "ib_core" &&
	expect_eq "parameters" "$(modinfo -F parm iw_cm)" ""
}
ktap_test_result "iw_cm: alias rdma-netlink-subsys-2, depends on ib_core" \
	modinfo_facts

# iwpmd's first message loads iw_cm (through ib_core's request_module).
# An answer to a REG_PID nobody sent, without its attributes: refused.
# The stock kernel runs every RDMA_NL_IWCM message as a dump, so the
# refusal comes back as NLMSG_DONE (nlrdma: "done 0"), not as an error.
autoload() {
	modprobe -r iw_cm || return 1
	expect_nl "done 0" 2 0 &&
	module_loaded iw_cm
}
ktap_test_result "an iwpmd message loads iw_cm" autoload

# The API cases.
run_module() {
	local load_rc=0 out args=()

	# A device without iWARP verbs: rxe0 on a veth.
	veth_setup && rdma link add rxe0 type rxe netdev "$VETH" &&
		args+=(dev=rxe0)
	# The stock iw_cm calls the missing verbs of such a device, and
	# BUG()s when an id listens twice or connects again after a
	# refusal (iwcm_test.c, reuse).
	if ours; then
		args+=(noiw_ops=1)
	else
		args+=(reuse=0 after_accept=0)
		echo "# stock: no id listens twice or connects again (it BUG()s in alloc_work_entries)"
		echo "# stock: no reject or refusal after an accept (its cm_conn_est_handler() BUG_ON()s on the ESTABLISHED, iwcm.c:867; not run: it would oops the guest)"
	fi

	out=$(test_module_load iwcm_test "${args[@]}") || load_rc=$?
	if [ $load_rc != 0 ]; then
		test_module_skip iwcm_test $MODULE_CASES "modprobe iwcm_test: $load_rc"
		return
	fi
	test_module_relay iwcm_test $MODULE_CASES "$out"
	modprobe -r iwcm_test
}

if modinfo iwcm_test >/dev/null 2>&1; then
	run_module
else
	test_module_skip iwcm_test $MODULE_CASES "iwcm_test.ko not installed (scripts/vm --ko, see the head of this test)"
fi

# Every id the module made is gone: nothing pins iw_cm.
unloads() {
	rdma link del rxe0 2>/dev/null
	modprobe -r iw_cm &&
	! module_loaded iw_cm &&
	{ [ ! -e /proc/sys/net/iw_cm ] || { echo "net/iw_cm is left"; false; }; }
}
ktap_test_result "iw_cm unloads and takes its sysctl along" unloads

ktap_test_result "the stack unloads afterwards" rdma_unload_all
veth_teardown
ktap_finished
