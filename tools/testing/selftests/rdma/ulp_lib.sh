# SPDX-License-Identifier: GPL-2.0-only
#
# The kernel ULPs' own setup, as the selftests (nfs_rdma.sh, iser.sh,
# nvmeof_rdma.sh, hw_mlx5_ulp.sh) and make perf (scripts/lib/perf-guest)
# need it: an NFS server listening on RDMA, a client mount of it and a
# round trip of data through it, an NVMe-oF target and host, the
# lookups of a controller and namespace in sysfs, and whether a ULP has
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

# nfs_roundtrip SERVER VERS MIB NAME MNT EXPORT WORK: MIB MiB of random
# data written with O_DIRECT to NAME on SERVER's share (NFS version VERS,
# mounted on MNT), unmounted, mounted again, read back, compared, and
# compared with the server's own file in EXPORT; the data in WORK/src.
nfs_roundtrip() {
	local srv=$1 v=$2 mib=$3 name=$4 mnt=$5 export=$6 work=$7
	local f=$mnt/$name
	nfs_mount "$srv" "$v" "$mnt" "$export" ||
		{ echo "NFSv$v mount failed"; return 1; }
	dd if=/dev/urandom of="$work/src" bs=1M count="$mib" status=none &&
	dd if="$work/src" of="$f" bs=1M oflag=direct status=none &&
	umount "$mnt" || return 1
	nfs_mount "$srv" "$v" "$mnt" "$export" ||
		{ echo "NFSv$v mount again failed"; return 1; }
	dd if="$f" of="$work/dst" bs=1M iflag=direct status=none || return 1
	umount "$mnt" || return 1
	expect_eq "NFSv$v: sha256 of $mib MiB read back" \
		"$(sha256sum <"$work/dst")" "$(sha256sum <"$work/src")" &&
	expect_eq "NFSv$v: the file on the server" \
		"$(sha256sum <"$export/$name")" "$(sha256sum <"$work/src")"
}

# The NVMe-oF target (nvmet-rdma, configfs) and host (nvme-rdma, nvme-cli)
# of the selftests: subsystem NQN with namespace 1 a file, BACKING
# (buffered: not on the guest's overlay root, where nvmet sees the size
# as 0), and namespace 2 null_blk, behind port 1 on ADDR:PORT.
NVMET_CFS=/sys/kernel/config/nvmet

# nvmet_up NQN BACKING MIB: the modules, the subsystem, its namespaces
# (the file MIB * 2 MiB).
nvmet_up() {
	local s=$NVMET_CFS/subsystems/$1
	modprobe configfs
	mountpoint -q /sys/kernel/config ||
		mount -t configfs none /sys/kernel/config || return 1
	modprobe nvmet-rdma && modprobe nvme-rdma &&
		modprobe null_blk nr_devices=1 gb=1 || return 1
	truncate -s $(($3 * 2))M "$2" || return 1
	mkdir "$s" && echo 1 >"$s/attr_allow_any_host" || return 1
	mkdir "$s/namespaces/1" &&
	echo "$2" >"$s/namespaces/1/device_path" &&
	echo 1 >"$s/namespaces/1/buffered_io" &&
	echo 1 >"$s/namespaces/1/enable" || return 1
	mkdir "$s/namespaces/2" &&
	echo /dev/nullb0 >"$s/namespaces/2/device_path" &&
	echo 1 >"$s/namespaces/2/enable"
}

# nvmet_port_up NQN ADDR PORT: port 1 on RDMA ADDR:PORT serves NQN.
nvmet_port_up() {
	local p=$NVMET_CFS/ports/1
	mkdir "$p" &&
	echo rdma >"$p/addr_trtype" &&
	echo ipv4 >"$p/addr_adrfam" &&
	echo "$2" >"$p/addr_traddr" &&
	echo "$3" >"$p/addr_trsvcid" &&
	ln -s "$NVMET_CFS/subsystems/$1" "$p/subsystems/$1"
}

# nvmet_port_down NQN: port 1 goes, whatever of it exists.
nvmet_port_down() {
	rm -f "$NVMET_CFS/ports/1/subsystems/$1"
	rmdir "$NVMET_CFS/ports/1" 2>/dev/null
	true
}

# nvme_discover ADDR PORT HOSTNQN NQN: discovery lists NQN.
nvme_discover() {
	local out
	out=$(ulp_bounded nvme discover -t rdma -a "$1" -s "$2" \
		--hostnqn="$3") || { echo "$out"; return 1; }
	echo "$out" | grep -q "subnqn: *$4" || { echo "$out"; return 1; }
}

# nvme_connect NQN ADDR PORT HOSTNQN: a live nvme-rdma controller of NQN
# with both namespaces.
nvme_connect() {
	local c
	ulp_bounded nvme connect -t rdma -n "$1" -a "$2" -s "$3" \
		--hostnqn="$4" || return 1
	eventually 30 nvme_ctrl "$1" || { echo "no controller"; return 1; }
	c=$(nvme_ctrl "$1")
	expect_eq "$c transport" "$(cat "/sys/class/nvme/$c/transport")" rdma &&
	eventually 30 nvme_live "$1" &&
	eventually 30 nvme_ns_dev "$1" 1 &&
	eventually 30 nvme_ns_dev "$1" 2
}

# nvme_io NQN MIB WORK: MIB MiB written to the file namespace with
# O_DIRECT, read back and compared; MIB MiB read from and written to the
# null_blk one.
nvme_io() {
	local f n
	f=$(nvme_ns_dev "$1" 1) n=$(nvme_ns_dev "$1" 2)
	if [ -z "$f" ] || [ -z "$n" ]; then
		echo "no namespaces"
		return 1
	fi
	echo "# $f: $(blockdev --getsize64 "$f") bytes, $n: $(blockdev --getsize64 "$n") bytes"
	blk_roundtrip "$f" "$2" "$3" &&
	dd if="$n" of=/dev/null bs=1M count="$2" iflag=direct status=none &&
	dd if=/dev/zero of="$n" bs=1M count="$2" oflag=direct status=none
}

# nvme_disconnect NQN: the host lets its controller of NQN go.
nvme_disconnect() {
	ulp_bounded nvme disconnect -n "$1" || return 1
	eventually 30 nvme_ctrl_gone "$1" ||
		{ echo "$(nvme_ctrl "$1") still there"; return 1; }
}

# nvmet_down NQN: the host's controller, the port, the namespaces, the
# subsystem and the NVMe modules go, whatever of them exists.
nvmet_down() {
	local s=$NVMET_CFS/subsystems/$1 ns
	[ -z "$(nvme_ctrl "$1")" ] || nvme disconnect -n "$1" >/dev/null
	nvmet_port_down "$1"
	for ns in 1 2; do
		[ -d "$s/namespaces/$ns" ] || continue
		echo 0 >"$s/namespaces/$ns/enable"
		rmdir "$s/namespaces/$ns"
	done
	[ ! -d "$s" ] || rmdir "$s" || return 1
	modprobe -r nvme-rdma nvmet-rdma nvme-fabrics nvmet null_blk ||
		{ echo "the NVMe modules did not unload"; return 1; }
}

# nfs_test_stop MNT (lib.sh sourced): MNT unmounted, the server
# stopped, no QP left, the NFS modules unloaded.
nfs_test_stop() {
	! mountpoint -q "$1" || umount "$1"
	nfs_server_down || return 1
	eventually 30 no_rc_qps || { rdma res show qp; return 1; }
	eventually 30 nfs_unload ||
		{ echo "the NFS modules did not unload"; return 1; }
}

# nfs_test_teardown MNT: a selftest's end (lib.sh and rxe_topo.sh
# sourced): nfs_test_stop, then the topology and the RDMA stack gone.
nfs_test_teardown() {
	nfs_test_stop "$1" || return 1
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
