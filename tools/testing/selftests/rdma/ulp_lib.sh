# SPDX-License-Identifier: GPL-2.0-only
#
# The kernel ULPs' own setup, as the selftests (nfs_rdma.sh, iser.sh,
# nvmeof_rdma.sh) and make perf (scripts/lib/perf-guest) both need it:
# an NFS server listening on RDMA and a client mount of it, the lookups
# of an NVMe-oF controller and namespace in sysfs, and whether a ULP has
# let its connections go.  The caller defines eventually and expect_eq
# (lib.sh, or perf-guest's own).
#
# Every step that can hang is bounded by ULP_BOUND seconds (default 120,
# times OOT_TIMEOUT_SCALE on the debug kernel): a hang fails the step
# (status 124) instead of the whole run.

NFS_RDMA_PORT=20049
ULP_BOUND=${ULP_BOUND:-$((120 * ${OOT_TIMEOUT_SCALE:-1}))}
# rpcbind and rpc.mountd run in the foreground, in this script's
# background, so that nfs_server_down stops exactly them; their pids go to
# a file, as nfs_server_up may run in a subshell (ktap_test_result's).
NFS_SERVER_PIDS=$(mktemp)

# ulp_bounded CMD...: CMD, killed after ULP_BOUND seconds.
ulp_bounded() {
	timeout -k 2 "$ULP_BOUND" "$@"
}

# No QP in `rdma res` but the MAD layer's GSI QPs (for eventually): what
# a kernel ULP leaves once it has let its connections go.
no_rc_qps() {
	! rdma res show qp | grep -qv 'type GSI'
}

# nvme_ctrl NQN: the controller nvme-rdma made for subsystem NQN (nvme0),
# if any.
nvme_ctrl() {
	local c
	for c in /sys/class/nvme/nvme*; do
		[ "$(cat "$c/subsysnqn" 2>/dev/null)" = "$1" ] || continue
		basename "$c"
		return 0
	done
	return 1
}

# nvme_ctrl_gone NQN: no controller for NQN (for eventually).
nvme_ctrl_gone() {
	! nvme_ctrl "$1" >/dev/null
}

# nvme_live NQN: its controller is there and live.
nvme_live() {
	local c
	c=$(nvme_ctrl "$1") && grep -qx live "/sys/class/nvme/$c/state"
}

# nvme_ns_dev NQN [NSID]: the block device of namespace NSID (default:
# the first found) of subsystem NQN.  With native multipath (Debian's
# default) that is the head, nvmeXnY, not a path nvmeXcZnY.
nvme_ns_dev() {
	local b name
	for b in /sys/block/nvme*n*; do
		name=${b##*/}
		[[ $name != nvme*c*n* ]] || continue
		[ -z "${2:-}" ] || [ "$(cat "$b/nsid" 2>/dev/null)" = "$2" ] ||
			continue
		[ "$(cat "$b/device/subsysnqn" 2>/dev/null)" = "$1" ] || continue
		echo "/dev/$name"
		return 0
	done
	return 1
}

# blk_roundtrip DEV MIB DIR: MIB MiB of random data written to block
# device DEV with O_DIRECT (and flushed), read back the same way and
# compared; the data stays in DIR/src for further checks.  O_DIRECT:
# through the transport, not the page cache.
blk_roundtrip() {
	local dev=$1 mib=$2 dir=$3
	dd if=/dev/urandom of="$dir/src" bs=1M count="$mib" status=none &&
	dd if="$dir/src" of="$dev" bs=1M oflag=direct conv=fsync status=none &&
	dd if="$dev" of="$dir/dst" bs=1M count="$mib" iflag=direct status=none ||
		return 1
	expect_eq "sha256 of $mib MiB read back from $dev" \
		"$(sha256sum <"$dir/dst")" "$(sha256sum <"$dir/src")"
}

# nfs_tools_missing: the first NFS server or client tool not installed.
nfs_tools_missing() {
	local tool
	for tool in rpc.nfsd rpc.mountd exportfs mount.nfs rpcbind; do
		command -v "$tool" >/dev/null || { echo "$tool"; return 0; }
	done
	return 1
}

# rpc.mountd answers nfsd's export lookups once it reads their cache
# channels; a lookup made before that fails, and a mount with it.
nfs_mountd_ready() {
	local f
	for f in nfsd.export nfsd.fh; do
		find "/proc/$1/fd" -lname "*/rpc/$f/channel" | grep -q . ||
			return 1
	done
}

nfs_rpcbind_ready() {
	rpcinfo -p 127.0.0.1 >/dev/null 2>&1
}

# nfs_server_up ADDR EXPORT: nfsd listening on "rdma NFS_RDMA_PORT",
# exporting directory EXPORT (a filesystem nfsd can make file handles
# for: tmpfs with fsid=, not the guest's overlay root) to ADDR's /24.
nfs_server_up() {
	local addr=$1 export=$2
	ulp_bounded modprobe -a rpcrdma nfsd || return
	mountpoint -q /proc/fs/nfsd || mount -t nfsd nfsd /proc/fs/nfsd ||
		return
	mkdir -p /run/rpcbind /var/lib/nfs/rpc_pipefs "$export" || return
	# Their output not on ours: a daemon holding the pipe of a $(...)
	# would keep the caller's command substitution waiting for ever.
	rpcbind -f -w </dev/null >/dev/null 2>&1 &
	echo $! >>"$NFS_SERVER_PIDS"
	eventually 20 nfs_rpcbind_ready ||
		{ echo "rpcbind never answered"; return 1; }
	# fsid=0: the export is also NFSv4's pseudo-root.
	exportfs -o rw,no_root_squash,insecure,fsid=0,crossmnt \
		"$addr/24:$export" || return
	rpc.mountd -F </dev/null >/dev/null 2>&1 &
	echo $! >>"$NFS_SERVER_PIDS"
	eventually 20 nfs_mountd_ready "$!" ||
		{ echo "rpc.mountd never opened its channels"; return 1; }
	ulp_bounded rpc.nfsd 4 || return
	# Never twice: Debian's rpcrdma (6.1.0-56) puts the transport of a
	# listener it failed to create (the port in use) through its
	# destructor, which calls rdma_destroy_id(NULL) and oopses (seen
	# after a test killed at its bound had left nfsd listening).
	if grep -qx "rdma $NFS_RDMA_PORT" /proc/fs/nfsd/portlist; then
		echo "nfsd already listens on rdma $NFS_RDMA_PORT (left over)"
		return 1
	fi
	echo "rdma $NFS_RDMA_PORT" >/proc/fs/nfsd/portlist || return
	grep -qx "rdma $NFS_RDMA_PORT" /proc/fs/nfsd/portlist ||
		{ cat /proc/fs/nfsd/portlist; return 1; }
	# A new server refuses new OPENs for its grace period (90 s), and
	# the first NFSv4 open would wait that long; no client has state to
	# reclaim here.
	echo Y >/proc/fs/nfsd/v4_end_grace ||
		echo "cannot end the grace period: the first open may wait"
}

# nfs_server_down: whatever of nfs_server_up exists goes; every step is
# tried.
nfs_server_down() {
	local rc=0 p
	[ ! -e /proc/fs/nfsd/threads ] || ulp_bounded rpc.nfsd 0 || rc=1
	exportfs -ua
	while read -r p; do
		kill "$p" 2>/dev/null
		# A child of this shell is reaped; one a subshell started is
		# init's, and is watched going.
		wait "$p" 2>/dev/null
		eventually 10 sh -c "! kill -0 $p 2>/dev/null" </dev/null
	done <"$NFS_SERVER_PIDS"
	: >"$NFS_SERVER_PIDS"
	! mountpoint -q /proc/fs/nfsd || umount /proc/fs/nfsd || rc=1
	return $rc
}

# nfs_mount ADDR VERS MNT [EXPORT]: mount ADDR's export on MNT with
# proto=rdma, NFS version VERS (NFSv3 mounts EXPORT by its path, NFSv4
# the pseudo-root).
nfs_mount() {
	local src=$1:/
	[ "$2" != 3 ] || src=$1:$4
	ulp_bounded mount -t nfs \
		-o "vers=$2,proto=rdma,port=$NFS_RDMA_PORT,nolock" "$src" "$3" ||
		return
	grep -q " $3 nfs.* .*proto=rdma" /proc/mounts ||
		{ grep " $3 " /proc/mounts; return 1; }
}

# nfs_test_teardown MNT: a selftest's end (lib.sh and rxe_topo.sh
# sourced): MNT unmounted, the server stopped, no QP left, the NFS
# modules and then the RDMA stack unloaded.
nfs_test_teardown() {
	! mountpoint -q "$1" || umount "$1"
	nfs_server_down || return 1
	eventually 30 no_rc_qps || { rdma res show qp; return 1; }
	eventually 30 nfs_unload ||
		{ echo "the NFS modules did not unload"; return 1; }
	topo_down
	rdma_unload_all || { echo "the RDMA stack did not unload"; return 1; }
}

# nfs_unload: whichever NFS modules are loaded go.
nfs_unload() {
	local m
	for m in rpcrdma nfsv4 nfsv3 nfs nfsd; do
		[ ! -d "/sys/module/$m" ] || modprobe -r "$m" || return 1
	done
}
