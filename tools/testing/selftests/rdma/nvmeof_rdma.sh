#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# NVMe over Fabrics on rxe with Debian's own nvmet-rdma (target) and
# nvme-rdma (host), through nvme-cli: a target with a file and a null_blk
# namespace on rxe0, discovery, connect, MIB MiB of O_DIRECT writes read
# back and compared (16 in make check, 64 with the long cases),
# disconnect and target teardown; then a target port removed while the
# host is connected, which the host must survive (reconnecting or
# failing its I/O) and let go of when told to; then the device itself
# removed (rdma link del) under a connected controller:
# nvme-rdma and nvmet-rdma get their device-removal callbacks and let
# go, and the removal returns.  Nothing is left in `rdma res` and the
# modules unload.
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rxe_topo.sh"
. "$(dirname "$0")/ulp_lib.sh"

NQN=nqn.2026-11.org.oot-rdma:nvmeof-rdma
HOSTNQN=nqn.2026-11.org.oot-rdma:host
PORT=4420
CFS=/sys/kernel/config/nvmet
WORK=$(mktemp -d)
# Not on the guest's overlay root, where nvmet sees the file's size as 0.
BACKING=$(mktemp -p /dev/shm nvmeof-XXXXXX)
MIB=16
! long_cases || MIB=64

ktap_print_header
if ! command -v nvme >/dev/null; then
	echo "# SKIP nvme-cli is not installed (scripts/setup installs it)"
	exit "$KSFT_SKIP"
fi
ktap_set_plan 8

rdma_unload_all
modprobe configfs
mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config

target_port_up() {
	mkdir "$CFS/ports/1" &&
	echo rdma >"$CFS/ports/1/addr_trtype" &&
	echo ipv4 >"$CFS/ports/1/addr_adrfam" &&
	echo "$ONE_IP" >"$CFS/ports/1/addr_traddr" &&
	echo "$PORT" >"$CFS/ports/1/addr_trsvcid" &&
	ln -s "$CFS/subsystems/$NQN" "$CFS/ports/1/subsystems/$NQN"
}

target_port_down() {
	rm -f "$CFS/ports/1/subsystems/$NQN"
	rmdir "$CFS/ports/1" 2>/dev/null
	true
}

target_up() {
	local s=$CFS/subsystems/$NQN
	topo_one_up || return 1
	modprobe nvmet-rdma && modprobe nvme-rdma &&
		modprobe null_blk nr_devices=1 gb=1 || return 1
	truncate -s $((2 * MIB))M "$BACKING" || return 1
	mkdir "$s" && echo 1 >"$s/attr_allow_any_host" || return 1
	# nsid 1: a file (buffered: the guest's /tmp has no O_DIRECT);
	# nsid 2: null_blk.
	mkdir "$s/namespaces/1" &&
	echo "$BACKING" >"$s/namespaces/1/device_path" &&
	echo 1 >"$s/namespaces/1/buffered_io" &&
	echo 1 >"$s/namespaces/1/enable" || return 1
	mkdir "$s/namespaces/2" &&
	echo /dev/nullb0 >"$s/namespaces/2/device_path" &&
	echo 1 >"$s/namespaces/2/enable" || return 1
	target_port_up
}
ktap_test_result "nvmet-rdma target on rxe0 with a file and a null_blk namespace" target_up

discover() {
	local out
	out=$(timeout $((60 * ${OOT_TIMEOUT_SCALE:-1})) nvme discover -t rdma \
		-a "$ONE_IP" -s "$PORT" --hostnqn="$HOSTNQN") ||
		{ echo "$out"; return 1; }
	echo "$out" | grep -q "subnqn: *$NQN" || { echo "$out"; return 1; }
}
ktap_test_result "nvme discover -t rdma lists the subsystem" discover

connect() {
	local c
	timeout $((60 * ${OOT_TIMEOUT_SCALE:-1})) nvme connect -t rdma \
		-n "$NQN" -a "$ONE_IP" -s "$PORT" --hostnqn="$HOSTNQN" || return 1
	eventually 30 nvme_ctrl "$NQN" || { echo "no controller"; return 1; }
	c=$(nvme_ctrl "$NQN")
	expect_eq "$c transport" "$(cat "/sys/class/nvme/$c/transport")" rdma &&
	eventually 30 nvme_live "$NQN" &&
	eventually 30 nvme_ns_dev "$NQN" 1 &&
	eventually 30 nvme_ns_dev "$NQN" 2
}
ktap_test_result "nvme connect -t rdma: a live controller with both namespaces" connect

io() {
	local f n
	f=$(nvme_ns_dev "$NQN" 1) n=$(nvme_ns_dev "$NQN" 2)
	if [ -z "$f" ] || [ -z "$n" ]; then
		echo "no namespaces"
		return 1
	fi
	echo "# $f: $(blockdev --getsize64 "$f") bytes, $n: $(blockdev --getsize64 "$n") bytes; backing $(stat -c %s "$BACKING")"
	blk_roundtrip "$f" "$MIB" "$WORK" &&
	dd if="$n" of=/dev/null bs=1M count="$MIB" iflag=direct status=none &&
	dd if=/dev/zero of="$n" bs=1M count="$MIB" oflag=direct status=none
}
ktap_test_result "$MIB MiB of O_DIRECT I/O, read back and compared" io

disconnect() {
	timeout $((60 * ${OOT_TIMEOUT_SCALE:-1})) nvme disconnect -n "$NQN" ||
		return 1
	eventually 30 nvme_ctrl_gone "$NQN" || { echo "$(nvme_ctrl "$NQN") still there"; return 1; }
}
ktap_test_result "nvme disconnect removes the controller" disconnect

# The target's port goes away under a connected host: the host loses
# its queues (rdma_cm DISCONNECTED), tries to reconnect, and must still
# let go at once when told to; nothing may hang.
port_removed() {
	local c
	connect >/dev/null || { echo "connect failed"; return 1; }
	c=$(nvme_ctrl "$NQN")
	target_port_down
	eventually 60 sh -c "! grep -qx live /sys/class/nvme/$c/state" ||
		{ echo "$c: still live with no port"; return 1; }
	echo "# $c after the port went: $(cat "/sys/class/nvme/$c/state" 2>/dev/null)"
	timeout $((120 * ${OOT_TIMEOUT_SCALE:-1})) nvme disconnect -n "$NQN" ||
		{ echo "disconnect failed"; return 1; }
	eventually 30 nvme_ctrl_gone "$NQN"
}
ktap_test_result "a port removed under a connected host: the host lets go" port_removed

# rxe0 goes under a connected controller, host and target on it: the
# removal must return, and the host's controller must go (nvme-rdma
# deletes the controllers of a device that goes away).
device_removed() {
	local t0
	target_port_up && connect >/dev/null || { echo "connect failed"; return 1; }
	t0=$(date +%s)
	timeout $((120 * ${OOT_TIMEOUT_SCALE:-1})) rdma link del "$ONE_DEV" ||
		{ echo "rdma link del failed or hung"; return 1; }
	echo "# rdma link del returned after $(($(date +%s) - t0)) s"
	eventually 60 nvme_ctrl_gone "$NQN" || { echo "$(nvme_ctrl "$NQN") still there"; return 1; }
}
ktap_test_result "rdma link del under a connected controller: both sides let go" device_removed

teardown() {
	local s=$CFS/subsystems/$NQN ns
	[ -z "$(nvme_ctrl "$NQN")" ] || nvme disconnect -n "$NQN" >/dev/null
	target_port_down
	for ns in 1 2; do
		[ -d "$s/namespaces/$ns" ] || continue
		echo 0 >"$s/namespaces/$ns/enable"
		rmdir "$s/namespaces/$ns"
	done
	[ ! -d "$s" ] || rmdir "$s" || return 1
	modprobe -r nvme-rdma nvmet-rdma nvme-fabrics nvmet null_blk ||
		{ echo "the NVMe modules did not unload"; return 1; }
	eventually 30 no_rc_qps || { rdma res show qp; return 1; }
	topo_down
	rdma_unload_all || { echo "the RDMA stack did not unload"; return 1; }
}
ktap_test_result "teardown: no QP left in rdma res, every module unloads" teardown

rm -rf "$WORK" "$BACKING"
ktap_finished
