#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Send-queue completions of the requester and completer, measured on
# stock (rxe_sq_errors.py says how): READ and atomics complete with
# their opcode, byte_len and data; WQEs of a QP in ERR complete with
# WR_FLUSH_ERR; RNR retries exhausted, a remote access error and
# retransmission retries exhausted each complete the WQE with its status
# and move the QP to ERR, the WQEs after it flushed; unsignaled WQEs
# complete only in error; a QP destroyed with WQEs in flight goes
# cleanly (the VM verdict catches what would not).
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"

ktap_print_header
ktap_set_plan 7

rdma_unload_all
rxe0_up
modprobe ib_uverbs
eventually 10 test -e /dev/infiniband/uverbs0

# check CASE: the helper's report for CASE must be the expected one
# (stdin).
check() {
	expect_output python3 "$TESTDIR/rxe_sq_errors.py" "$1"
}

ktap_test_result "READ, FETCH_ADD, CMP_SWP complete with their data" \
	check ops <<EOT
wr_id=1 SUCCESS RDMA_READ byte_len=8192
read data ok
wr_id=2 SUCCESS FETCH_ADD byte_len=8
wr_id=3 SUCCESS COMP_SWAP byte_len=8
orig 42 now 7
EOT

ktap_test_result "sends to a QP in ERR flush" check flush <<EOT
wr_id=10 WR_FLUSH_ERR
wr_id=11 WR_FLUSH_ERR
wr_id=12 WR_FLUSH_ERR
EOT

ktap_test_result "RNR retries exhausted: RNR_RETRY_EXC_ERR, ERR" check rnr <<EOT
wr_id=20 RNR_RETRY_EXC_ERR
state ERR
wr_id=21 WR_FLUSH_ERR
EOT

ktap_test_result "bad rkey: REM_ACCESS_ERR, ERR" check access <<EOT
wr_id=30 REM_ACCESS_ERR
state ERR
EOT

ktap_test_result "no responder: RETRY_EXC_ERR, ERR" check retry <<EOT
wr_id=40 RETRY_EXC_ERR
state ERR
EOT

ktap_test_result "unsignaled WQEs complete only in error" check unsignaled <<EOT
wr_id=51 RNR_RETRY_EXC_ERR
wr_id=52 WR_FLUSH_ERR
EOT

ktap_test_result "destroy with WQEs in flight" check destroy <<EOT
destroyed
EOT

rdma link del rxe0
veth_teardown
ktap_finished
