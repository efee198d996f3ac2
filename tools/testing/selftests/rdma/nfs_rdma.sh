#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# NFS over RDMA with Debian's own rpcrdma (client and server transports)
# and nfs-kernel-server on rxe0: nfsd listening on "rdma 20049"; NFSv4.2
# and NFSv3 mounts with proto=rdma; per version, 64 MiB written with
# O_DIRECT, unmounted, mounted again and read back, compared; then the
# server stops, every module unloads and nothing is left in `rdma res`.
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rxe_topo.sh"

RDMA_PORT=20049
MIB=64
MNT=$(mktemp -d)
WORK=$(mktemp -d)
# Not on the guest's overlay root: an export needs a filesystem nfsd can
# hand out file handles for (tmpfs, with fsid=).
EXPORT=$(mktemp -d -p /dev/shm nfsexp-XXXXXX)

ktap_print_header
for tool in rpc.nfsd rpc.mountd exportfs mount.nfs rpcbind; do
	if ! command -v "$tool" >/dev/null; then
		echo "# SKIP $tool is not installed (scripts/setup installs it)"
		exit "$KSFT_SKIP"
	fi
done
ktap_set_plan 4

rdma_unload_all

server_up() {
	topo_one_up || return 1
	modprobe rpcrdma && modprobe nfsd || return 1
	mountpoint -q /proc/fs/nfsd || mount -t nfsd nfsd /proc/fs/nfsd ||
		return 1
	mkdir -p /run/rpcbind /var/lib/nfs/rpc_pipefs
	rpcbind -w || return 1
	# fsid=0: the export is also NFSv4's pseudo-root.
	exportfs -o rw,no_root_squash,insecure,fsid=0,crossmnt \
		"$ONE_IP/24:$EXPORT" && rpc.mountd && rpc.nfsd 4 || return 1
	echo "rdma $RDMA_PORT" >/proc/fs/nfsd/portlist || return 1
	grep -qx "rdma $RDMA_PORT" /proc/fs/nfsd/portlist ||
		{ cat /proc/fs/nfsd/portlist; return 1; }
}
ktap_test_result "nfsd listens on rdma $RDMA_PORT over rxe0" server_up

# nfs_mount VERS: mount the export with proto=rdma.
nfs_mount() {
	local src=$ONE_IP:$EXPORT
	[ "$1" = 3 ] || src=$ONE_IP:/
	timeout $((120 * ${OOT_TIMEOUT_SCALE:-1})) mount -t nfs \
		-o "vers=$1,proto=rdma,port=$RDMA_PORT,nolock" "$src" "$MNT" ||
		return 1
	grep -q " $MNT nfs.* .*proto=rdma" /proc/mounts ||
		{ grep " $MNT " /proc/mounts; return 1; }
}

# io VERS: write, remount, read back, compare.
io() {
	local v=$1 f=$MNT/data.$1
	nfs_mount "$v" || { echo "NFSv$v mount failed"; return 1; }
	dd if=/dev/urandom of="$WORK/src" bs=1M count="$MIB" status=none &&
	dd if="$WORK/src" of="$f" bs=1M oflag=direct status=none &&
	umount "$MNT" || return 1
	nfs_mount "$v" || { echo "NFSv$v mount again failed"; return 1; }
	dd if="$f" of="$WORK/dst" bs=1M iflag=direct status=none || return 1
	umount "$MNT" || return 1
	expect_eq "NFSv$v: sha256 of $MIB MiB read back" \
		"$(sha256sum <"$WORK/dst")" "$(sha256sum <"$WORK/src")" &&
	expect_eq "NFSv$v: the file on the server" \
		"$(sha256sum <"$EXPORT/data.$v")" "$(sha256sum <"$WORK/src")"
}
ktap_test_result "NFSv4.2 over RDMA: $MIB MiB written, remounted, read back" io 4.2
ktap_test_result "NFSv3 over RDMA: $MIB MiB written, remounted, read back" io 3

# No QP in `rdma res` but the MAD layer's (for eventually).
no_rc_qps() {
	! rdma res show qp | grep -qv 'type GSI'
}

# Unload whichever of the NFS modules are loaded.
nfs_unload() {
	local m
	for m in rpcrdma nfsv4 nfsv3 nfs nfsd; do
		! module_loaded "$m" || modprobe -r "$m" || return 1
	done
}

teardown() {
	! mountpoint -q "$MNT" || umount "$MNT"
	rpc.nfsd 0
	exportfs -ua
	pkill -x rpc.mountd
	pkill -x rpcbind
	umount /proc/fs/nfsd
	eventually 30 no_rc_qps || { rdma res show qp; return 1; }
	eventually 30 nfs_unload ||
		{ echo "the NFS modules did not unload"; return 1; }
	topo_down
	rdma_unload_all || { echo "the RDMA stack did not unload"; return 1; }
}
ktap_test_result "teardown: no QP left in rdma res, every module unloads" teardown

rm -rf "$WORK" "$EXPORT"
rmdir "$MNT" 2>/dev/null
ktap_finished
