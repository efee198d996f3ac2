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

target_up() {
	topo_one_up && nvmet_up "$NQN" "$BACKING" "$MIB" &&
		nvmet_port_up "$NQN" "$ONE_IP" "$PORT"
}
ktap_test_result "nvmet-rdma target on rxe0 with a file and a null_blk namespace" target_up

discover() {
	nvme_discover "$ONE_IP" "$PORT" "$HOSTNQN" "$NQN"
}
ktap_test_result "nvme discover -t rdma lists the subsystem" discover

connect() {
	nvme_connect "$NQN" "$ONE_IP" "$PORT" "$HOSTNQN"
}
ktap_test_result "nvme connect -t rdma: a live controller with both namespaces" connect

io() {
	echo "# backing $(stat -c %s "$BACKING") bytes"
	nvme_io "$NQN" "$MIB" "$WORK"
}
ktap_test_result "$MIB MiB of O_DIRECT I/O, read back and compared" io

disconnect() {
	nvme_disconnect "$NQN"
}
ktap_test_result "nvme disconnect removes the controller" disconnect

# The target's port goes away under a connected host: the host loses
# its queues (rdma_cm DISCONNECTED), tries to reconnect, and must still
# let go at once when told to; nothing may hang.
port_removed() {
	local c
	connect >/dev/null || { echo "connect failed"; return 1; }
	c=$(nvme_ctrl "$NQN")
	nvmet_port_down "$NQN"
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
	nvmet_port_up "$NQN" "$ONE_IP" "$PORT" && connect >/dev/null ||
		{ echo "connect failed"; return 1; }
	t0=$(date +%s)
	timeout $((120 * ${OOT_TIMEOUT_SCALE:-1})) rdma link del "$ONE_DEV" ||
		{ echo "rdma link del failed or hung"; return 1; }
	echo "# rdma link del returned after $(($(date +%s) - t0)) s"
	eventually 60 nvme_ctrl_gone "$NQN" || { echo "$(nvme_ctrl "$NQN") still there"; return 1; }
}
ktap_test_result "rdma link del under a connected controller: both sides let go" device_removed

teardown() {
	nvmet_down "$NQN" || return 1
	eventually 30 no_rc_qps || { rdma res show qp; return 1; }
	topo_down
	rdma_unload_all || { echo "the RDMA stack did not unload"; return 1; }
}
ktap_test_result "teardown: no QP left in rdma res, every module unloads" teardown

rm -rf "$WORK" "$BACKING"
ktap_finished
