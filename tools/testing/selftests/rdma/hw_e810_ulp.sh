#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The kernel ULPs on the modelled E810: the guest's irdma (ours on our
# core, Debian's on stock or --without irdma), Debian's unmodified
# rpcrdma/nfsd and nvme-rdma/nvmet-rdma over the model's RoCE front end
# (e810-model.rst) and the RoCEv2 engine.  Needs a guest booted with it:
#	scripts/vm --hw e810 -- tools/testing/selftests/rdma/run_tests.sh hw_e810_ulp.sh
# and skips on a guest without an 8086:159b function.
#
# One device, server and client both on it, from the RoCE v2 GID of the
# netdev's address (every packet through the model's loopback).  Both
# ULPs register their I/O with IB_WR_REG_MR (a FAST_REG WQE on their own
# QP: e810-stag.c) and invalidate it with IB_WR_LOCAL_INV or the peer's
# SEND with invalidate.  So: irdma offers fast registration
# (IB_DEVICE_MEM_MGT_EXTENSIONS); NFS over RDMA (ulp_lib.sh, as
# nfs_rdma.sh on rxe): nfsd on "rdma 20049", an NFSv4.2 mount with
# proto=rdma, MIB MiB (16; 64 with the long cases) written with
# O_DIRECT, remounted, read back, compared, also with the server's file;
# the server stops, no RC QP is left, the NFS modules unload; NVMe over RDMA (as nvmeof_rdma.sh on
# rxe): a target with a file and a null_blk namespace, discovery,
# connect, as many MiB of O_DIRECT writes read back and compared,
# disconnect, teardown with no QP left; iSER (as iser.sh on rxe): the
# LIO target's iSER portal, ib_iser's session, as many MiB through its
# disk, teardown; irdma unloads and logs no error.
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/ulp_lib.sh"

ADDR=10.35.3.1
# 16 MiB in make check, 64 with the long cases (hw_e810_ulp moved 64 in
# 98 to 199 s on a busy host); ULP_MIB= in the guest's environment sets it.
MIB=16
! long_cases || MIB=64
MIB=${ULP_MIB:-$MIB}
NQN=nqn.2026-12.org.oot-rdma:hw-e810-ulp
HOSTNQN=nqn.2026-12.org.oot-rdma:host
PORT=4420
MNT=$(mktemp -d)
WORK=$(mktemp -d)
EXPORT=$(mktemp -d -p /dev/shm nfsexp-XXXXXX)
BACKING=$(mktemp -p /dev/shm nvmeof-XXXXXX)
ISER_IQN=iqn.2026-12.org.oot-rdma:hw-e810-ulp
ISER_ADDR=$ADDR
ISER_MIB=$MIB
ISER_BACKING=$(mktemp -p /dev/shm iser-XXXXXX)
NFS_CASES=3
NVME_CASES=6
PLAN=$((2 + NFS_CASES + NVME_CASES + ISER_CASES + 2))
trap 'rm -rf "$WORK" "$EXPORT" "$BACKING" "$ISER_BACKING"; rmdir "$MNT" 2>/dev/null' EXIT

ktap_print_header
ktap_set_plan $PLAN

e810_or_skip $PLAN "E810 ULP"

rdma_unload_all
before=$(dmesg | wc -l)
e810_roce_case $ADDR
dev=$E810_IB

fast_reg() {
	ibv_devinfo -d "$dev" -v | grep -q MEM_MGT_EXTENSIONS ||
		{ ibv_devinfo -d "$dev" -v | grep -A8 device_cap_flags; return 1; }
}
ktap_test_result "$dev offers fast registration (MEM_MGT_EXTENSIONS)" fast_reg

# NFS over RDMA ----------------------------------------------------------
if missing=$(nfs_tools_missing); then
	for ((i = 1; i <= NFS_CASES; i++)); do
		ktap_test_skip "NFS over RDMA case $i" \
			"$missing is not installed (scripts/setup installs it)"
	done
else
	ktap_test_result "nfsd listens on rdma $NFS_RDMA_PORT on $dev" \
		nfs_server_up $ADDR "$EXPORT"
	ktap_test_result "NFSv4.2 over $dev: $MIB MiB written, remounted, read back" \
		nfs_roundtrip $ADDR 4.2 "$MIB" data.4.2 "$MNT" "$EXPORT" "$WORK"
	ktap_test_result "NFS: the server stops, no QP left, the modules unload" \
		nfs_test_stop "$MNT"
fi

# NVMe over RDMA ---------------------------------------------------------
if ! command -v nvme >/dev/null; then
	for ((i = 1; i <= NVME_CASES; i++)); do
		ktap_test_skip "NVMe over RDMA case $i" \
			"nvme-cli is not installed (scripts/setup installs it)"
	done
else
	nvme_target_up() {
		nvmet_up "$NQN" "$BACKING" "$MIB" &&
			nvmet_port_up "$NQN" $ADDR $PORT
	}
	ktap_test_result "nvmet-rdma target on $dev: a file and a null_blk namespace" \
		nvme_target_up
	ktap_test_result "nvme discover -t rdma on $dev lists the subsystem" \
		nvme_discover $ADDR $PORT "$HOSTNQN" "$NQN"
	ktap_test_result "nvme connect -t rdma on $dev: a live controller" \
		nvme_connect "$NQN" $ADDR $PORT "$HOSTNQN"
	ktap_test_result "$MIB MiB of O_DIRECT I/O over $dev, read back and compared" \
		nvme_io "$NQN" "$MIB" "$WORK"
	ktap_test_result "nvme disconnect removes the controller" \
		nvme_disconnect "$NQN"
	nvme_down() {
		nvmet_down "$NQN" || return 1
		eventually 30 no_rc_qps || { rdma res show qp; return 1; }
	}
	ktap_test_result "NVMe: the target goes, no QP left" nvme_down
fi

# iSER (ulp_lib.sh, as iser.sh on rxe): target and initiator on the device.
iser_cases "$dev" "$WORK"

irdma_down() {
	ulp_bounded modprobe -r rdma_ucm ib_umad irdma || return 1
	rdma_unload_all
}
ktap_test_result "irdma unloads" irdma_down
ktap_test_result "irdma logs no error" irdma_log_clean "$before" "$dev"
ktap_finished
