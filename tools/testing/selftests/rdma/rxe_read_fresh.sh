#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# RDMA READ from read-only MRs (REMOTE_READ, no local write) over private
# anonymous memory the process writes after the registration returns the
# new bytes, whether the memory was untouched (the zero page would be
# mapped by a read fault) or touched before the registration: the pinned
# pages are the process's own (the pinning rule of issue 8; umem_pin.sh
# checks the pages, this the bytes the device reads).  One device, rxe0,
# reading from itself, and two devices across a veth.
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rxe_topo.sh"

ktap_print_header
ktap_set_plan 2

rdma_unload_all
modprobe ib_uverbs
topo_one_up && topo_two_up || exit "$KSFT_FAIL"

ktap_test_result "READ returns bytes written after registration, one device" \
	rxe_traffic read-fresh "$ONE_DEV" "$ONE_IP" "$ONE_DEV" "$ONE_IP"
ktap_test_result "READ returns bytes written after registration, two devices" \
	rxe_traffic read-fresh "$TWO_DEV1" "$TWO_IP1" "$TWO_DEV2" "$TWO_IP2"

topo_down
rdma_unload_all
ktap_finished
