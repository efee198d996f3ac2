#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# XRC through ib_uverbs (rxe has none): the test module uverbs_xrc_test
# registers uvxrc0, a device with XRC domains, XRC SRQs and XRC target
# QPs that moves nothing, and uverbs_xrc.py drives it raw: OPEN_XRCD
# (private, by the inode of a file, O_CREAT, O_EXCL, shared by two
# processes), CLOSE_XRCD and the ioctl destroy (-EBUSY under a QP or
# SRQ), CREATE_XSRQ and the ioctl SRQ_CREATE, CREATE_QP, EX_CREATE_QP and
# the ioctl QP_CREATE of XRC targets, OPEN_QP from the same and from a
# second process, MODIFY_QP/QUERY_QP through the handles, a QP's async
# event reaching its handles, bad handles, process exit and device
# removal.  Each case gets stock's outcome (the table there, measured on
# the stock stack; where ours deliberately differs, its own), and leaves
# no driver object behind.  The module then unloads.
#
# The module is built for each stack and passed to the guest, as
# uverbs_ns.sh's:
#	make -C tools/testing/selftests/rdma/modules/uverbs_xrc_test [stock]
#	OOT_TESTS=uverbs_xrc scripts/vm [--stock] --ko \
#	    tools/testing/selftests/rdma/modules/uverbs_xrc_test/[stock/]uverbs_xrc_test.ko \
#	    -- tools/testing/selftests/rdma/run_tests.sh
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"

ktap_print_header
raw_module_test uverbs_xrc_test uverbs_xrc.py "each call gets stock's outcome, nothing left"
ktap_finished
