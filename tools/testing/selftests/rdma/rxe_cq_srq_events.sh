#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The events of the receive side, measured on stock (rxe_cq_srq_events.py
# says how): a CQ armed for the next completion raises one event; armed
# for solicited completions, it ignores an unsolicited one and raises
# one for a solicited one; a receive CQ that overflows raises
# IB_EVENT_CQ_ERR and keeps what it held; an SRQ armed with a limit
# raises IB_EVENT_SRQ_LIMIT_REACHED once, when a receive leaves fewer
# WQEs than the limit, and is disarmed (limit 0) afterwards; an RC SEND
# that finds no receive WQE is RNR NAKed (send_rnr_err at the responder,
# rcvd_rnr_err at the requester) and completes once one is posted.
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"

ktap_print_header
ktap_set_plan 4

rdma_unload_all
rxe0_up
modprobe ib_uverbs
eventually 10 test -e /dev/infiniband/uverbs0

# check CASE: the helper's report for CASE must be the expected one
# (stdin).
check() {
	expect_output python3 "$TESTDIR/rxe_cq_srq_events.py" "$1"
}

RECV="recv ok byte_len=104"

ktap_test_result "CQ notify: next completion, solicited only" check notify <<EOT
next_comp event yes
$RECV
solicited arm, unsolicited send: polled 1
event no
solicited arm, solicited send: event yes
polled 1
EOT

ktap_test_result "receive CQ overflow raises IB_EVENT_CQ_ERR" check overflow <<EOT
async event CQ_ERR
polled 1
$RECV
EOT

ktap_test_result "SRQ limit event once, below the limit, then disarmed" \
	check srqlimit <<EOT
armed limit 3
receive 1 (4 WQEs left): event none
receive 2 (3 WQEs left): event none
receive 3 (2 WQEs left): event SRQ_LIMIT_REACHED
receive 4 (1 WQEs left): event none
limit now 0
polled 4
$RECV
$RECV
$RECV
$RECV
EOT

ktap_test_result "RC SEND without a receive WQE: RNR NAK, then done" \
	check rnr <<EOT
completed before a receive: no
send_rnr_err counted: yes
rcvd_rnr_err counted: yes
wr_id 1 status 0 byte_len 64
wr_id 2 status 0 byte_len 64
EOT

rdma link del rxe0
veth_teardown
ktap_finished
