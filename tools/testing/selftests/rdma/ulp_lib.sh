# SPDX-License-Identifier: GPL-2.0-only
#
# The kernel ULPs' own setup, as the selftests (nfs_rdma.sh, iser.sh,
# nvmeof_rdma.sh, hw_mlx5_ulp.sh, hw_e810_ulp.sh) and make perf
# (scripts/lib/perf-guest) need it: an NFS server listening on RDMA, a
# client mount of it and a round trip of data through it, an NVMe-oF
# target and host, the lookups of a controller and namespace in sysfs,
# an iSER target and initiator session, and whether a ULP has let its
# connections go.  The caller defines eventually and expect_eq
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

# iSER: iSCSI over RDMA with Debian's ib_isert (the LIO target, set up
# through its configfs tree as the kernel's
# Documentation/target/target-export-device does: targetcli-fb fails in
# the guest, "g-io-error-quark: Could not connect") and ib_iser (the
# initiator: open-iscsi's iscsid and iscsiadm).  One target of one LUN,
# a fileio backstore on a file, a portal on ISER_ADDR:ISER_PORT with
# iSER on, no authentication, any initiator.  The caller sets ISER_IQN,
# ISER_ADDR, ISER_BACKING (a file not on the guest's overlay root: nvmet
# and LIO see sizes there as 0) and ISER_MIB; iser_down also needs
# lib.sh's module_loaded.
ISER_PORT=3260
ISER_LIO=/sys/kernel/config/target
ISER_BACKSTORE=$ISER_LIO/core/fileio_0/lun0

# iser_tools_missing: the first open-iscsi tool not installed.
iser_tools_missing() {
	local tool
	for tool in iscsiadm iscsid; do
		command -v "$tool" >/dev/null || { echo "$tool"; return 0; }
	done
	return 1
}

iser_tpg() {
	echo "$ISER_LIO/iscsi/$ISER_IQN/tpgt_1"
}

iser_target_up() {
	local tpg np

	tpg=$(iser_tpg) np=$(iser_tpg)/np/$ISER_ADDR:$ISER_PORT
	modprobe configfs
	mountpoint -q /sys/kernel/config ||
		mount -t configfs none /sys/kernel/config || return 1
	modprobe -a target_core_mod target_core_file iscsi_target_mod \
		ib_isert ib_iser sd_mod || return 1
	truncate -s $((2 * ISER_MIB))M "$ISER_BACKING" || return 1
	mkdir -p "$ISER_BACKSTORE" &&
	echo "fd_dev_name=$ISER_BACKING,fd_dev_size=$((2 * ISER_MIB << 20))" \
		>"$ISER_BACKSTORE/control" &&
	echo 1 >"$ISER_BACKSTORE/enable" || return 1
	mkdir -p "$tpg/lun/lun_0" &&
	ln -s "$ISER_BACKSTORE" "$tpg/lun/lun_0/lun0" &&
	mkdir "$np" && echo 1 >"$np/iser" || return 1
	echo 0 >"$tpg/attrib/authentication" &&
	echo 1 >"$tpg/attrib/generate_node_acls" &&
	echo 0 >"$tpg/attrib/demo_mode_write_protect" &&
	echo 1 >"$tpg/attrib/cache_dynamic_acls" &&
	echo 1 >"$tpg/enable" || return 1
	expect_eq "the portal's iser attribute" "$(cat "$np/iser")" 1
}

# Whatever of iser_target_up exists goes, in reverse; every step is
# tried.
iser_target_down() {
	local tpg np rc=0

	tpg=$(iser_tpg) np=$(iser_tpg)/np/$ISER_ADDR:$ISER_PORT
	[ ! -e "$tpg/enable" ] || echo 0 >"$tpg/enable"
	[ ! -d "$np" ] || rmdir "$np" || rc=1
	rm -f "$tpg/lun/lun_0/lun0"
	[ ! -d "$tpg/lun/lun_0" ] || rmdir "$tpg/lun/lun_0" || rc=1
	[ ! -d "$tpg" ] || rmdir "$tpg" || rc=1
	[ ! -d "$ISER_LIO/iscsi/$ISER_IQN" ] ||
		rmdir "$ISER_LIO/iscsi/$ISER_IQN" || rc=1
	# The fabric's own group holds iscsi_target_mod.
	[ ! -d "$ISER_LIO/iscsi" ] || rmdir "$ISER_LIO/iscsi" || rc=1
	[ ! -d "$ISER_BACKSTORE" ] || rmdir "$ISER_BACKSTORE" || rc=1
	[ ! -d "${ISER_BACKSTORE%/*}" ] || rmdir "${ISER_BACKSTORE%/*}" ||
		rc=1
	return $rc
}

# iser_disk: the disk of the session, e.g. sdb; fails if there is none.
iser_disk() {
	local b
	for b in /sys/class/iscsi_session/session*/device/target*/*/block/*; do
		[ -e "$b" ] || continue
		[ "$(cat "${b%/device/*}/targetname" 2>/dev/null)" = "$ISER_IQN" ] ||
			continue
		basename "$b"
		return 0
	done
	return 1
}

iser_login() {
	local portal=$ISER_ADDR:$ISER_PORT

	mkdir -p /run/lock/iscsi /var/lib/iscsi
	pgrep -x iscsid >/dev/null || iscsid || return 1
	# A node record bound to the iser interface (iscsiadm's built-in
	# one): the login goes over rdma_cm, not TCP.
	iscsiadm -m node -o new -T "$ISER_IQN" -p "$portal" -I iser \
		>/dev/null &&
	ulp_bounded iscsiadm -m node -T "$ISER_IQN" -p "$portal" -I iser \
		--login || return 1
	iscsiadm -m session | grep -q "^iser: .*$portal.* $ISER_IQN" ||
		{ iscsiadm -m session; return 1; }
	eventually 60 iser_disk ||
		{ echo "no disk for the session"; return 1; }
}

# iser_io DIR: ISER_MIB MiB through the session's disk (blk_roundtrip),
# also compared with the backing file.
iser_io() {
	local d
	d=$(iser_disk)
	[ -n "$d" ] || { echo "no disk"; return 1; }
	echo "# /dev/$d: $(blockdev --getsize64 "/dev/$d") bytes"
	blk_roundtrip "/dev/$d" "$ISER_MIB" "$1" &&
	expect_eq "sha256 of the backing file's first $ISER_MIB MiB" \
		"$(head -c $((ISER_MIB << 20)) "$ISER_BACKING" | sha256sum)" \
		"$(sha256sum <"$1/src")"
}

# iser_down: logout, iscsid stopped, the target cleared, no QP left, and
# every iSCSI and LIO module unloaded, also target_core_user, which LIO
# loads by itself.
iser_down() {
	local m
	iscsiadm -m node -T "$ISER_IQN" -p "$ISER_ADDR:$ISER_PORT" -I iser \
		--logout >/dev/null 2>&1
	iscsiadm -m node -o delete -T "$ISER_IQN" >/dev/null 2>&1
	iscsiadm -k 0 >/dev/null 2>&1 || pkill -x iscsid
	eventually 30 sh -c '! pgrep -x iscsid' || return 1
	iser_target_down || { echo "the target did not go"; return 1; }
	eventually 30 no_rc_qps || { rdma res show qp; return 1; }
	for m in ib_iser ib_isert iscsi_target_mod target_core_file \
		 target_core_iblock target_core_pscsi target_core_user \
		 target_core_mod libiscsi scsi_transport_iscsi; do
		! module_loaded "$m" || modprobe -r "$m" || {
			echo "$m did not unload: refcnt $(cat "/sys/module/$m/refcnt")"
			lsmod | grep -E '^(target|iscsi|ib_is)'
			ls "$ISER_LIO" "$ISER_LIO/core"
			return 1
		}
	done
}

# iser_cases DEV DIR: iSER's four cases on DEV (ktap_helpers.sh sourced):
# the target on ISER_ADDR, the initiator's login to it, ISER_MIB MiB
# through the disk (DIR for the data), iser_down; each skipped when
# open-iscsi is not installed.
ISER_CASES=4
iser_cases() {
	local dev=$1 dir=$2 missing i

	if missing=$(iser_tools_missing); then
		for ((i = 1; i <= ISER_CASES; i++)); do
			ktap_test_skip "iSER case $i" \
				"$missing is not installed (scripts/setup installs it)"
		done
		return 0
	fi
	ktap_test_result "LIO target with an iSER portal on $dev (configfs, ib_isert)" \
		iser_target_up
	ktap_test_result "iscsiadm login over iSER on $dev: a session with a disk" \
		iser_login
	ktap_test_result "$ISER_MIB MiB of O_DIRECT I/O over iSER on $dev, read back and compared" \
		iser_io "$dir"
	ktap_test_result "iSER: logout, target cleared, no QP left, the modules unload" \
		iser_down
}
