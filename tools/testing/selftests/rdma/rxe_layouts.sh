#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Payload layouts (rxe_traffic.py layouts): SEND, WRITE and READ at path
# MTU 4096 (one device) and 1024 with the payload at page offsets 0, 1
# and 4095 and spread over 16, 17 and 32 SGEs a page apart, checked byte
# for byte; then a WRITE whose source MR is deregistered and unmapped
# right after the post.  On one device (rxe0 to itself) our rxe passes payload by
# reference to the sender's pages, up to 16 pages a packet, and copies
# beyond (rxe.rst, "Payload by reference"); across two devices it is
# always copied.  Both must deliver the same bytes, on stock too.
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rxe_topo.sh"

ktap_print_header
ktap_set_plan 2

rdma_unload_all
modprobe ib_uverbs
topo_one_up && topo_two_up || exit "$KSFT_FAIL"

ktap_test_result "payload layouts arrive intact, one device" \
	rxe_traffic layouts "$ONE_DEV" "$ONE_IP" "$ONE_DEV" "$ONE_IP"
ktap_test_result "payload layouts arrive intact, two devices" \
	rxe_traffic layouts "$TWO_DEV1" "$TWO_IP1" "$TWO_DEV2" "$TWO_IP2"

topo_down
rdma_unload_all
ktap_finished
