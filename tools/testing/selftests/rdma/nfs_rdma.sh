#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# NFS over RDMA with Debian's own rpcrdma (client and server transports)
# and nfs-kernel-server on rxe0 (ulp_lib.sh): nfsd listening on "rdma
# 20049"; NFSv4.2 and NFSv3 mounts with proto=rdma; per version, 64 MiB
# written with O_DIRECT, unmounted, mounted again and read back,
# compared; then the server stops, every module unloads and nothing is
# left in `rdma res`.  Loss and device removal: nfs_rdma_faults.sh.
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rxe_topo.sh"
. "$(dirname "$0")/ulp_lib.sh"

MIB=64
MNT=$(mktemp -d)
WORK=$(mktemp -d)
EXPORT=$(mktemp -d -p /dev/shm nfsexp-XXXXXX)

ktap_print_header
if missing=$(nfs_tools_missing); then
	echo "# SKIP $missing is not installed (scripts/setup installs it)"
	exit "$KSFT_SKIP"
fi
ktap_set_plan 4

rdma_unload_all

server_up() {
	topo_one_up && nfs_server_up "$ONE_IP" "$EXPORT"
}
ktap_test_result "nfsd listens on rdma $NFS_RDMA_PORT over rxe0" server_up

# io VERS: write, remount, read back, compare.
io() {
	local v=$1 f=$MNT/data.$1
	nfs_mount "$ONE_IP" "$v" "$MNT" "$EXPORT" ||
		{ echo "NFSv$v mount failed"; return 1; }
	dd if=/dev/urandom of="$WORK/src" bs=1M count="$MIB" status=none &&
	dd if="$WORK/src" of="$f" bs=1M oflag=direct status=none &&
	umount "$MNT" || return 1
	nfs_mount "$ONE_IP" "$v" "$MNT" "$EXPORT" ||
		{ echo "NFSv$v mount again failed"; return 1; }
	dd if="$f" of="$WORK/dst" bs=1M iflag=direct status=none || return 1
	umount "$MNT" || return 1
	expect_eq "NFSv$v: sha256 of $MIB MiB read back" \
		"$(sha256sum <"$WORK/dst")" "$(sha256sum <"$WORK/src")" &&
	expect_eq "NFSv$v: the file on the server" \
		"$(sha256sum <"$EXPORT/data.$v")" "$(sha256sum <"$WORK/src")"
}
ktap_test_result "NFSv4.2 over RDMA: $MIB MiB written, remounted, read back" io 4.2
ktap_test_result "NFSv3 over RDMA: $MIB MiB written, remounted, read back" io 3

ktap_test_result "teardown: no QP left in rdma res, every module unloads" \
	nfs_test_teardown "$MNT"

rm -rf "$WORK" "$EXPORT"
rmdir "$MNT" 2>/dev/null
ktap_finished
