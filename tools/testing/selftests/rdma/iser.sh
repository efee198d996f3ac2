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

IQN=iqn.2026-11.org.oot-rdma:iser
PORT=3260
MIB=64
TARGET_IP=$TWO_IP2
WORK=$(mktemp -d)
# Not on the guest's overlay root (as nvmeof_rdma.sh: sizes read as 0).
BACKING=$(mktemp -p /dev/shm iser-XXXXXX)

ktap_print_header
if ! long_cases; then
	echo "# SKIP $LONG_SKIP"
	exit "$KSFT_SKIP"
fi
for tool in iscsiadm iscsid; do
	if ! command -v "$tool" >/dev/null; then
		echo "# SKIP $tool is not installed (scripts/setup installs it)"
		exit "$KSFT_SKIP"
	fi
done
ktap_set_plan 4

rdma_unload_all
modprobe configfs
mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config

LIO=/sys/kernel/config/target
BACKSTORE=$LIO/core/fileio_0/lun0
TPG=$LIO/iscsi/$IQN/tpgt_1
NP=$TPG/np/$TARGET_IP:$PORT

# A fileio backstore on BACKING, one iSCSI target with one LUN on it, a
# portal on rxe2's address with iSER on, no authentication, any
# initiator.
target_up() {
	topo_two_up || return 1
	modprobe -a target_core_mod target_core_file iscsi_target_mod \
		ib_isert ib_iser sd_mod || return 1
	truncate -s $((2 * MIB))M "$BACKING" || return 1
	mkdir -p "$BACKSTORE" &&
	echo "fd_dev_name=$BACKING,fd_dev_size=$((2 * MIB << 20))" \
		>"$BACKSTORE/control" &&
	echo 1 >"$BACKSTORE/enable" || return 1
	mkdir -p "$TPG/lun/lun_0" &&
	ln -s "$BACKSTORE" "$TPG/lun/lun_0/lun0" &&
	mkdir "$NP" && echo 1 >"$NP/iser" || return 1
	echo 0 >"$TPG/attrib/authentication" &&
	echo 1 >"$TPG/attrib/generate_node_acls" &&
	echo 0 >"$TPG/attrib/demo_mode_write_protect" &&
	echo 1 >"$TPG/attrib/cache_dynamic_acls" &&
	echo 1 >"$TPG/enable" || return 1
	expect_eq "the portal's iser attribute" "$(cat "$NP/iser")" 1
}

# Whatever of target_up exists goes, in reverse; every step is tried.
target_down() {
	local rc=0
	[ ! -e "$TPG/enable" ] || echo 0 >"$TPG/enable"
	[ ! -d "$NP" ] || rmdir "$NP" || rc=1
	rm -f "$TPG/lun/lun_0/lun0"
	[ ! -d "$TPG/lun/lun_0" ] || rmdir "$TPG/lun/lun_0" || rc=1
	[ ! -d "$TPG" ] || rmdir "$TPG" || rc=1
	[ ! -d "$LIO/iscsi/$IQN" ] || rmdir "$LIO/iscsi/$IQN" || rc=1
	# The fabric's own group holds iscsi_target_mod.
	[ ! -d "$LIO/iscsi" ] || rmdir "$LIO/iscsi" || rc=1
	[ ! -d "$BACKSTORE" ] || rmdir "$BACKSTORE" || rc=1
	[ ! -d "${BACKSTORE%/*}" ] || rmdir "${BACKSTORE%/*}" || rc=1
	return $rc
}
ktap_test_result "LIO target with an iSER portal on rxe2 (configfs, ib_isert)" target_up

# The disk of our session, e.g. sdb; fails if there is none.
session_disk() {
	local b
	for b in /sys/class/iscsi_session/session*/device/target*/*/block/*; do
		[ -e "$b" ] || continue
		[ "$(cat "${b%/device/*}/targetname" 2>/dev/null)" = "$IQN" ] ||
			continue
		basename "$b"
		return 0
	done
	return 1
}

login() {
	mkdir -p /run/lock/iscsi /var/lib/iscsi
	pgrep -x iscsid >/dev/null || iscsid || return 1
	# A node record bound to the iser interface (iscsiadm's built-in
	# one): the login goes over rdma_cm, not TCP.
	iscsiadm -m node -o new -T "$IQN" -p "$TARGET_IP:$PORT" -I iser \
		>/dev/null &&
	timeout $((120 * ${OOT_TIMEOUT_SCALE:-1})) iscsiadm -m node -T "$IQN" \
		-p "$TARGET_IP:$PORT" -I iser --login || return 1
	iscsiadm -m session | grep -q "^iser: .*$TARGET_IP:$PORT.* $IQN" ||
		{ iscsiadm -m session; return 1; }
	eventually 60 session_disk ||
		{ echo "no disk for the session"; return 1; }
}
ktap_test_result "iscsiadm login over iSER: a session with a disk" login

io() {
	local d
	d=$(session_disk)
	[ -n "$d" ] || { echo "no disk"; return 1; }
	echo "# /dev/$d: $(blockdev --getsize64 "/dev/$d") bytes"
	blk_roundtrip "/dev/$d" "$MIB" "$WORK" &&
	expect_eq "sha256 of the backing file's first $MIB MiB" \
		"$(head -c $((MIB << 20)) "$BACKING" | sha256sum)" \
		"$(sha256sum <"$WORK/src")"
}
ktap_test_result "$MIB MiB of O_DIRECT I/O over iSER, read back and compared" io

teardown() {
	local m
	iscsiadm -m node -T "$IQN" -p "$TARGET_IP:$PORT" -I iser --logout \
		>/dev/null 2>&1
	iscsiadm -m node -o delete -T "$IQN" >/dev/null 2>&1
	iscsiadm -k 0 >/dev/null 2>&1 || pkill -x iscsid
	eventually 30 sh -c '! pgrep -x iscsid' || return 1
	target_down || { echo "the target did not go"; return 1; }
	eventually 30 no_rc_qps || { rdma res show qp; return 1; }
	for m in ib_iser ib_isert iscsi_target_mod target_core_file \
		 target_core_iblock target_core_pscsi target_core_user \
		 target_core_mod libiscsi scsi_transport_iscsi; do
		! module_loaded "$m" || modprobe -r "$m" || {
			echo "$m did not unload: refcnt $(cat "/sys/module/$m/refcnt")"
			lsmod | grep -E '^(target|iscsi|ib_is)'
			ls "$LIO" "$LIO/core"
			return 1
		}
	done
	topo_down
	rdma_unload_all || { echo "the RDMA stack did not unload"; return 1; }
}
ktap_test_result "teardown: logout, target cleared, nothing left, every module unloads" teardown

rm -rf "$WORK" "$BACKING"
ktap_finished
