#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# iSCSI over RDMA (iSER) with Debian's own ib_isert (the LIO target, set
# up through its configfs tree as the kernel's
# Documentation/target/target-export-device does: targetcli-fb failed in
# the guest, "g-io-error-quark: Could not connect") and ib_iser (the
# initiator, open-iscsi's iscsid and iscsiadm), on two rxe devices
# joined by a veth pair (rxe_topo.sh, topo_two_up): the target's portal
# on rxe2's address with iSER on, the initiator logging in from rxe1
# with the iser interface; 64 MiB written with O_DIRECT to the LUN (a
# file on /dev/shm), read back and compared, also against the file
# itself; logout, target cleared (the iscsi fabric's configfs group
# too: it holds iscsi_target_mod), every module unloads, also
# target_core_user, which LIO loads by itself, and nothing is left in
# `rdma res`.  The same cases pass on both stacks.  A long test
# (lib.sh, long_cases): nfs_rdma and nvmeof_rdma run ULP I/O in make
# check.
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rxe_topo.sh"
. "$(dirname "$0")/ulp_lib.sh"

ISER_IQN=iqn.2026-11.org.oot-rdma:iser
ISER_MIB=64
ISER_ADDR=$TWO_IP2
WORK=$(mktemp -d)
ISER_BACKING=$(mktemp -p /dev/shm iser-XXXXXX)

ktap_print_header
if ! long_cases; then
	echo "# SKIP $LONG_SKIP"
	exit "$KSFT_SKIP"
fi
if missing=$(iser_tools_missing); then
	echo "# SKIP $missing is not installed (scripts/setup installs it)"
	exit "$KSFT_SKIP"
fi
ktap_set_plan 4

rdma_unload_all
target_up() {
	topo_two_up && iser_target_up
}
ktap_test_result "LIO target with an iSER portal on rxe2 (configfs, ib_isert)" target_up
ktap_test_result "iscsiadm login over iSER: a session with a disk" iser_login
ktap_test_result "$ISER_MIB MiB of O_DIRECT I/O over iSER, read back and compared" \
	iser_io "$WORK"

teardown() {
	iser_down || return 1
	topo_down
	rdma_unload_all || { echo "the RDMA stack did not unload"; return 1; }
}
ktap_test_result "teardown: logout, target cleared, nothing left, every module unloads" teardown

rm -rf "$WORK" "$ISER_BACKING"
ktap_finished
