#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# rdma_cm as a kernel ULP uses it: the test-only module cma_test
# (modules/cma_test) runs its cases on rxe0 over 10.200.0.1 when loaded
# and prints KTAP into the kernel log, lines prefixed "cma_test: "; each
# of its cases becomes a case here.  Listen, resolve address and route,
# connect with private data, accept, an RC SEND, disconnect; reject with
# private data; connect to a port nobody listens on; a UC and an XRC REQ
# to the RC listener rejected before it sees them; UD through SIDR and a
# UD SEND.  Then, with hold=1, a listener and a connected pair show in
# "rdma res show cm_id" as stock shows them, and the unload takes them
# away.
# By hand (without the module the test is skipped):
#	make -C tools/testing/selftests/rdma/modules/cma_test
#	OOT_TESTS=cma scripts/vm --ko \
#	    tools/testing/selftests/rdma/modules/cma_test/cma_test.ko \
#	    -- tools/testing/selftests/rdma/run_tests.sh
# and on the stock stack, with the module built against it:
#	make -C tools/testing/selftests/rdma/modules/cma_test stock
#	OOT_TESTS=cma scripts/vm --stock --ko \
#	    tools/testing/selftests/rdma/modules/cma_test/stock/cma_test.ko \
#	    -- tools/testing/selftests/rdma/run_tests.sh
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"

# The module's own cases (CT_NR_CASES in cma_test.c) and ours.
MODULE_CASES=13
ktap_print_header
ktap_set_plan $((MODULE_CASES + 4))

skip_all() {
	test_module_skip cma_test $MODULE_CASES "$1"
	ktap_test_skip "rdma res show cm_id lists the held ids as stock" "$1"
	ktap_test_skip "unloading the module leaves no cm_id" "$1"
	ktap_test_skip "configfs shows rdma_cm/rxe0/ports/1 defaults" "$1"
	ktap_test_skip "the stack unloads afterwards" "$1"
	ktap_finished
	exit 0
}

rdma_unload_all
modinfo cma_test >/dev/null 2>&1 ||
	skip_all "cma_test.ko not installed (scripts/vm --ko, see the head of this test)"
rxe0_up_ipv4
modprobe rdma_cm || skip_all "modprobe rdma_cm failed"

load_rc=0
out=$(test_module_load cma_test addr=10.200.0.1) || load_rc=$?
[ $load_rc = 0 ] || skip_all "modprobe cma_test: $load_rc"
test_module_relay cma_test $MODULE_CASES "$out"
modprobe -r cma_test

# The held ids: the listener (bound to the address), the client and the
# server of one connection, as iproute2 prints them on stock (measured),
# with the id numbers, QP numbers and the client's ephemeral port
# replaced by N and PORT.
held_cm_ids() {
	rdma res show cm_id | grep 'comm \[cma_test\]'
}
HELD_WANT="\
link rxe0/1 cm-idn N state LISTEN ps TCP comm [cma_test] src-addr 10.200.0.1:18515 dst-addr 0.0.0.0:0
link rxe0/1 cm-idn N lqpn N qp-type RC state CONNECT ps TCP comm [cma_test] src-addr 10.200.0.1:PORT dst-addr 10.200.0.1:18515
link rxe0/1 cm-idn N lqpn N qp-type RC state CONNECT ps TCP comm [cma_test] src-addr 10.200.0.1:18515 dst-addr 10.200.0.1:PORT"
held() {
	modprobe cma_test addr=10.200.0.1 hold=1 || return 1
	local got
	got=$(held_cm_ids)
	printf '%s\n' "$got" | sed 's/^/# /'
	expect_eq "held ids" "$(printf '%s\n' "$got" | sed -E \
		-e 's/(cm-idn|lqpn) [0-9]+/\1 N/g' -e 's/ +$//' \
		-e 's/:18515( |$)/:LPORT\1/g' -e 's/:[1-9][0-9]*( |$)/:PORT\1/g' \
		-e 's/:LPORT/:18515/g')" "$HELD_WANT"
}
ktap_test_result "rdma res show cm_id lists the held ids as stock" held

unloaded() {
	modprobe -r cma_test &&
	expect_eq "cm_ids left" "$(rdma res show cm_id | grep -c .)" 0
}
ktap_test_result "unloading the module leaves no cm_id" unloaded

# configfs: the per-port defaults exist; rxe's port has RoCE v2 GIDs only,
# so it refuses "IB/RoCE v1" (EINVAL, as stock) and anything else that is
# no GID type, and keeps a TOS.  rdma_cm registers its configfs subsystem
# while loaded, and "modprobe -r cma_test" above unloaded it with its last
# user: load it again.  The directory holds rdma_cm: always remove it.
# einval VALUE FILE: writing VALUE into FILE fails with EINVAL.
einval() {
	local err
	err=$({ echo "$1" > "$2"; } 2>&1) && { echo "$2 took '$1'"; return 1; }
	case "$err" in
	*"Invalid argument"*) ;;
	*) echo "$2, '$1': $err"; return 1 ;;
	esac
}
configfs_ports() {
	local p=$1/ports/1
	expect_eq "default mode" "$(cat $p/default_roce_mode)" "RoCE v2" &&
	einval "IB/RoCE v1" $p/default_roce_mode &&
	einval bogus $p/default_roce_mode &&
	expect_eq "mode after refusals" "$(cat $p/default_roce_mode)" "RoCE v2" &&
	echo "RoCE v2" > $p/default_roce_mode &&
	expect_eq "default tos" "$(cat $p/default_roce_tos)" 0 &&
	echo 32 > $p/default_roce_tos &&
	expect_eq "tos" "$(cat $p/default_roce_tos)" 32 &&
	echo 0 > $p/default_roce_tos
}
configfs_defaults() {
	local d=/sys/kernel/config/rdma_cm/rxe0 rc=0
	modprobe rdma_cm || return 1
	mountpoint -q /sys/kernel/config ||
		mount -t configfs none /sys/kernel/config || return 1
	mkdir "$d" || return 1
	configfs_ports "$d" || rc=1
	rmdir "$d" || rc=1
	return $rc
}
ktap_test_result "configfs shows rdma_cm/rxe0/ports/1 defaults" configfs_defaults

ktap_test_result "the stack unloads afterwards" \
	eval 'rdma link del rxe0 && rdma_unload_all'
veth_teardown
ktap_finished
