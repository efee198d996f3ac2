#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Flow steering, receive WQs, RSS indirection tables and CQ moderation
# through ib_uverbs' extended write() commands (rxe has none of them):
# the test module uverbs_flow_test registers uvflow0, a device that
# records what its driver ops are given, and uverbs_flow.py drives it
# raw: CREATE_FLOW with each filter and action spec (the specs as the
# driver receives them), the refusals of malformed rules, counters and
# QPs held by a rule and let go when it or its creation fails,
# CREATE/MODIFY/DESTROY_WQ, CREATE/DESTROY_RWQ_IND_TBL and an RSS QP
# over a table (each held by its user: -EBUSY), MODIFY_CQ, and process
# exit.  Each case gets stock's outcome (the table there, measured on the
# stock stack) and leaves no driver object behind.  The module then
# unloads.
#
# The module is built for each stack and passed to the guest, as
# uverbs_xrc.sh's:
#	make -C tools/testing/selftests/rdma/modules/uverbs_flow_test [stock]
#	OOT_TESTS=uverbs_flow scripts/vm [--stock] --ko \
#	    tools/testing/selftests/rdma/modules/uverbs_flow_test/[stock/]uverbs_flow_test.ko \
#	    -- tools/testing/selftests/rdma/run_tests.sh
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"

ktap_print_header
raw_module_test uverbs_flow_test uverbs_flow.py "each call gets stock's outcome, nothing left"
ktap_finished
