#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The rdma tool works on the stack: opening NETLINK_RDMA autoloads
# ib_core, and with no device `rdma dev` and `rdma link` succeed with an
# empty list, as on the stock stack.
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"

ktap_print_header
ktap_set_plan 4

rdma_unload_all

autoload() {
	local out
	out=$(rdma dev 2>&1) || { echo "rdma dev failed: $out"; return 1; }
	expect_eq "rdma dev output" "$out" "" &&
	module_loaded ib_core
}
ktap_test_result "rdma dev autoloads ib_core and lists no device" autoload

ktap_test_result "rdma -j dev prints an empty JSON list" \
	expect_eq "rdma -j dev" "$(rdma -j dev 2>&1)" "[]"

link_empty() {
	local out
	out=$(rdma link 2>&1) || { echo "rdma link failed: $out"; return 1; }
	expect_eq "rdma link output" "$out" ""
}
ktap_test_result "rdma link lists no port" link_empty

ktap_test_result "a raw GET dump ends with no entry" expect_nl "done 0" --dump 5 1

rdma_unload_all
ktap_finished
