#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The umems that pin nothing and the flow resources of ib_uverbs, as the
# hardware drivers (mlx5_ib, irdma) use them: the test-only module
# umem_test (modules/umem_test) runs its cases when loaded and prints KTAP
# into the kernel log, lines prefixed "umem_test: "; each of its cases
# becomes a case here.  rxe has neither ODP nor dma-buf MRs, so the module
# plays the driver on two ib_devices of its own (never registered):
#   - ODP: ib_umem_odp_get() on memory it maps into modprobe, faults and
#     prefetches through ib_umem_odp_map_dma_and_lock() and reads and
#     writes the pages through dma_list (virtual DMA), munmap() of a page
#     comes through its invalidate callback, remapped memory faults anew,
#     release removes the notifier; an implicit umem and a child;
#   - dma-buf: a buffer the module exports (Debian's kernel has no
#     udmabuf) attached dynamically (map, move_notify, map again) and
#     pinned; the umem's table is the range's pages of the exporter's;
#     on ours only, a device of virtual DMA (rxe's kind) is refused
#     (stock refuses it too, but through a WARN_ON that fails the run);
#   - flow resources: the counts and uses of alloc, add and free;
#   - what drivers call on mapped tables: ib_umem_find_best_pgsz() takes
#     DMA-contiguous entries as one block (a 2 MiB range in 64 KiB entries
#     fits a 2 MiB page, as on stock); ib_sg_to_pages() refuses an offset
#     past the first entry with EINVAL (stock's errno); a CQ allocated on
#     a device that sets use_cq_dim gets its DIM (cq->dim), a direct one
#     or one of a device without it none.
# Then the module unloads, which it cannot while its dma-buf is alive.
# `make check` builds the module and passes it to the guest; by hand
# (without it the test is skipped):
#	make -C tools/testing/selftests/rdma/modules/umem_test
#	scripts/vm --ko \
#	    tools/testing/selftests/rdma/modules/umem_test/umem_test.ko \
#	    -- tools/testing/selftests/rdma/run_tests.sh umem_odp_dmabuf.sh
# and on the stock stack, with the module built against it:
#	make -C tools/testing/selftests/rdma/modules/umem_test stock
#	scripts/vm --stock --ko \
#	    tools/testing/selftests/rdma/modules/umem_test/stock/umem_test.ko \
#	    -- tools/testing/selftests/rdma/run_tests.sh umem_odp_dmabuf.sh
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"

# The module's own cases (UT_NR_CASES in umem_test.c) and ours.
MODULE_CASES=18
ktap_print_header
ktap_set_plan $((MODULE_CASES + 2))

skip_all() {
	test_module_skip umem_test $MODULE_CASES "$1"
	ktap_test_skip "umem_test unloads: nothing of it is left in use" "$1"
	ktap_test_skip "the stack unloads afterwards" "$1"
	ktap_finished
	exit 0
}

rdma_unload_all
modinfo umem_test >/dev/null 2>&1 ||
	skip_all "umem_test.ko not installed (scripts/vm --ko, see the head of this test)"

load_rc=0
virt_attach=0
! ours || virt_attach=1
out=$(test_module_load umem_test virt_attach=$virt_attach) || load_rc=$?
[ $load_rc = 0 ] || skip_all "modprobe umem_test: $load_rc"
test_module_relay umem_test $MODULE_CASES "$out"

# The dma-buf holds the module until modprobe's last reference, the fd,
# is closed; the umems hold nothing once released.
ktap_test_result "umem_test unloads: nothing of it is left in use" \
	modprobe -r umem_test
ktap_test_result "the stack unloads afterwards" rdma_unload_all
ktap_finished
