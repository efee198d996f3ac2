#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# NETLINK_RDMA refuses what it cannot dispatch with the stock errno, and
# survives malformed messages: unknown clients, the reserved client, ops
# past a client's table, ops without a callback, truncated headers,
# control-range message types.
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"

ktap_print_header
ktap_set_plan 9

modprobe ib_core

ktap_test_result "a control message is ignored" \
	expect_nl "timeout" --timeout 1 0 1
ktap_test_result "a control message asking for an ack gets one" \
	expect_nl "ack" 0 1 --ack
ktap_test_result "client 0 does not exist: EINVAL" expect_nl "error EINVAL" 0 17
ktap_test_result "reserved client 3: EINVAL" expect_nl "error EINVAL" 3 1
ktap_test_result "client past the last one: EINVAL" expect_nl "error EINVAL" 60 1
ktap_test_result "nldev op past its table: EINVAL" expect_nl "error EINVAL" 5 1000
ktap_test_result "nldev op 0 has no handler: EINVAL" expect_nl "error EINVAL" 5 0
ktap_test_result "a header claiming more than was sent is dropped" \
	expect_nl "timeout" --timeout 1 --raw-len 4000 5 1

unprivileged_dump() {
	expect_nl "done 0" --uid 65534 --dump 5 1
}
ktap_test_result "an unprivileged user may dump devices" unprivileged_dump

rdma_unload_all
ktap_finished
