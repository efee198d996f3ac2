#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The pages ib_umem_get() pins (umem_pin.py, from /proc/self/pagemap and
# /proc/kpageflags):
#   - read-only MRs on untouched private anonymous memory pin pages of the
#     process's own, not the shared zero page, and a write after the
#     registration leaves every page where it was (the device reads what
#     the process writes);
#   - MRs over read-only anonymous memory and private and shared file
#     mappings answer stock's outcome; the pages of a private mapping
#     pinned are the process's own copies, not the page cache;
#   - the same in children a registrant forks, on untouched memory they
#     inherit, and for the parent's pinned pages across the forks.
# Afterwards nothing is left pinned.
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"

ktap_print_header
ktap_set_plan 4

rdma_unload_all
rxe0_up
modprobe ib_uverbs

base_pins=$(pinned_pages)
unpinned() {
	expect_eq "pinned pages" "$(pinned_pages)" "$base_pins"
}
case_run() {
	python3 "$TESTDIR/umem_pin.py" "$1" && eventually 10 unpinned
}

ktap_test_result "read-only MRs on untouched anonymous memory pin no zero page; writes keep the pages" \
	case_run zero
ktap_test_result "MRs over read-only and file mappings: stock's outcomes, private copies pinned" \
	case_run mappings

# Stock 6.1 pins the zero page without counting it (is_zero_page() in
# <linux/mm.h>; measured: its struct page's _refcount, read through
# /proc/kcore, stayed 1 while 8 children held 256 zero-page pins each on
# a build with the defect), so the refcount cannot show the defect here:
# the pages each process pinned do.
ktap_test_result "forked registrants' read-only MRs on inherited untouched memory: own pages" \
	case_run fork

rdma link del rxe0
ktap_test_result "the stack unloads afterwards" rdma_unload_all

veth_teardown
ktap_finished
