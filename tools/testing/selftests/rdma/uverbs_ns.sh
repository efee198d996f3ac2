#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# A driver's own namespace in the ioctl API (driver_def): the test module
# uverbs_ns_test registers uvns0, whose driver objects, disabled object,
# driver method on PD, mandatory driver attribute on QUERY_CONTEXT and
# UVERBS_IDR_ANY_OBJECT method uverbs_ns.py calls raw.  Each call gets
# stock's outcome (the table there, measured on the stock stack), and the
# driver's destroy callbacks run with stock's reasons on destroy, close
# of the file or of an fd object, exit, and device removal, after which
# the file answers EIO.  The module then unloads.
#
# The module is built for each stack and passed to the guest, as
# uverbs_umap.sh's:
#	make -C tools/testing/selftests/rdma/modules/uverbs_ns_test [stock]
#	OOT_TESTS=uverbs_ns scripts/vm [--stock] --ko \
#	    tools/testing/selftests/rdma/modules/uverbs_ns_test/[stock/]uverbs_ns_test.ko \
#	    -- tools/testing/selftests/rdma/run_tests.sh
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"

ktap_print_header
raw_module_test uverbs_ns_test uverbs_ns.py "each call gets stock's outcome; destroys with stock's reasons"
ktap_finished
