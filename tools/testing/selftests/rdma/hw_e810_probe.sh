#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The guest's irdma on the modelled E810 (e810-model.rst): ours on our
# core, Debian's on stock or in a guest booted --without irdma.  irdma
# binds ice's ice.roce device, brings the protocol engine up through the
# model's control QP (HMC, CEQs, AEQ, the queue-set nodes ice adds for
# it), and registers its device with
# port 1 ACTIVE over Ethernet and a RoCE v2 GID of the netdev's address;
# the MAD layer's QP1 is in RTS; irdma's log holds no error; irdma
# unloads (every object destroyed through the control QP) and loads
# again to the same state.  Needs a guest booted with
#	scripts/vm --hw e810 -- tools/testing/selftests/rdma/run_tests.sh hw_e810_probe.sh
# and skips, saying so, on a guest without an 8086:159b function.
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"

PLAN=9
ktap_print_header
ktap_set_plan $PLAN

e810_or_skip $PLAN "E810 RDMA"
bdf=$(e810_function)
dev=/sys/bus/pci/devices/$bdf
addr=10.35.1.1

since=$(dmesg | wc -l)
modprobe ice
netdev_there() { ls "$dev"/net 2>/dev/null | grep -q .; }
eventually 120 netdev_there >/dev/null
ifname=$(ls "$dev"/net 2>/dev/null | head -1)
ip addr add $addr/24 dev "$ifname"
ip link set "$ifname" up

irdma_up() {
	modprobe irdma && modprobe ib_umad && modprobe rdma_ucm &&
		eventually 120 e810_ibdev >/dev/null
}
ktap_test_result "irdma registers a device on ice.roce" irdma_up
ib=$(e810_ibdev)
echo "# $ib on $ifname"

port_active() {
	[ "$(cat "/sys/class/infiniband/$ib/ports/1/state" 2>/dev/null)" = "4: ACTIVE" ] &&
		[ "$(cat "/sys/class/infiniband/$ib/ports/1/link_layer")" = Ethernet ]
}
ktap_test_result "port 1 ACTIVE over Ethernet" eventually 60 port_active
ktap_test_result "a RoCE v2 GID of $addr" eventually 60 topo_gid "$ib" $addr

qp1_rts() { rdma res show qp link "$ib/1" 2>/dev/null | grep -q "lqpn 1 type GSI state RTS"; }
ktap_test_result "QP1 in RTS" eventually 60 qp1_rts

devinfo() {
	ibv_devinfo -d "$ib" -v >/tmp/e810_devinfo 2>&1 || { cat /tmp/e810_devinfo; return 1; }
	grep -E "hca_id|fw_ver|vendor_part_id|hw_ver|max_qp:|state:|link_layer" /tmp/e810_devinfo |
		sed 's/^/# /'
	grep -q "vendor_part_id:[[:space:]]*5531" /tmp/e810_devinfo &&
		grep -q "PORT_ACTIVE" /tmp/e810_devinfo
}
ktap_test_result "ibv_devinfo -v through libirdma" devinfo

irdma_log() { dmesg | tail -n +"$((since + 1))" | grep -aE "irdma|${ib:-irdma}"; }
no_errors() { ! irdma_log | grep -iE "fail|error|timeout|hung"; }
ktap_test_result "irdma logs no error" no_errors

# Unload: irdma destroys QP1, its CQs, CEQs, AEQ and the control QP
# through the model; then load again.
reload() {
	modprobe -r rdma_ucm ib_umad irdma || return 1
	[ -z "$(e810_ibdev)" ] || { echo "device still there"; return 1; }
	irdma_up
}
ktap_test_result "irdma unloads and loads again" reload
ib=$(e810_ibdev)
ktap_test_result "QP1 in RTS again" eventually 60 qp1_rts
ktap_test_result "still no irdma error" no_errors
# The tests after this one in the guest unload the core.
modprobe -r rdma_ucm ib_umad irdma
ip link set "$ifname" down
ktap_finished
