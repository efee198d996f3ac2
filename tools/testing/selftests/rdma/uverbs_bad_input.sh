#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Malformed commands on /dev/infiniband/uverbs0, sent raw by uverbs_raw.py
# (write() and ioctl(RDMA_VERBS_IOCTL)), each get the errno stock's
# ib_uverbs and rdma_rxe answer (the table in uverbs_raw.py, measured on
# the stock stack): headers that lie about their length, commands before
# GET_CONTEXT, missing or unmapped response buffers, stale handles,
# handles of another type, absurd queue sizes, MRs on unmapped or
# read-only memory or wrapping around the address space, bad AH
# attributes, the send doorbell on a QP that cannot send, malformed ioctl
# headers, and the other commands (port and QP queries, bad QP state
# transitions and ports, resize, notify, stale destroys, detaching a
# group never attached).  None may warn (the harness fails the run on a
# kernel WARN or BUG), and the stack unloads afterwards: nothing leaked a
# reference.
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"

ktap_print_header
ktap_set_plan 11

rdma_unload_all
rxe0_up
modprobe ib_uverbs
dir=$(mktemp -d)

# The kernel's own objects (stock's MAD layer has a PD, CQ and QP1).
base=$(rdma res show | rdma_norm)

# One python for all the cases (its start is slow under TCG); a result
# for each group.
groups="header context pd cq qp mr srq_ah more ioctl"
# shellcheck disable=SC2086
python3 "$TESTDIR/uverbs_raw.py" check $groups >"$dir/raw" 2>&1
raw() {	# raw GROUP: the group ran to its end with no mismatch
	grep "^$1: " "$dir/raw" | grep -v "^$1: done$"
	grep -q "^$1: done$" "$dir/raw" ||
		{ echo "$1 did not run to the end:"; grep -v ": done$" "$dir/raw"; return 1; }
	! grep -q "^$1: .*: got" "$dir/raw"
}
ktap_test_result "write() headers: short, lying in_words, unknown commands" raw header
ktap_test_result "commands before GET_CONTEXT; GET_CONTEXT response room, twice" raw context
ktap_test_result "PD: missing body, extra driver data, stale and foreign handles, in use" raw pd
ktap_test_result "CQ: absurd sizes, bad vectors and channels, foreign handle" raw cq
ktap_test_result "QP: absurd caps and type, missing handles, doorbell, mcast" raw qp
ktap_test_result "MR and MW: unmapped, read-only, overflowing, bad access and type" raw mr
ktap_test_result "SRQ, AH and comp channel: absurd sizes, bad GID index and port" raw srq_ah
ktap_test_result "queries, modify QP, resize CQ, notify, destroys, mcast detach" raw more
ktap_test_result "ioctl: bad headers, unknown object, method and attribute" raw ioctl

# Every object the cases left behind went with its file.
clean() {
	expect_eq "rdma res" "$(rdma res show | rdma_norm)" "$base"
}
ktap_test_result "no object outlives its file" clean

rdma link del rxe0
ktap_test_result "the stack unloads afterwards" rdma_unload_all

veth_teardown
rm -rf "$dir"
ktap_finished
