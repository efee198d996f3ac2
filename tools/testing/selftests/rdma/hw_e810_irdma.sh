#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Our irdma (drivers/infiniband/hw/irdma/, Documentation/infiniband/
# irdma.rst) on the modelled E810, loaded from the build (OOT_BUILT): in
# a guest of our core that is the one modprobe finds; in one booted
# --without irdma it takes the place of Debian's:
#	scripts/vm --hw e810 [--without irdma] -- tools/testing/selftests/rdma/run_tests.sh hw_e810_irdma.sh
# It skips on stock (our irdma needs our core), on a guest without an
# 8086:159b function, and where irdma was not built (no ice headers).
#
# Cases: our irdma binds ice.roce; the values it read from ice's private
# structures are the function's (ice's netdev, the PCI function number,
# at least one vector); it registers a device with port 1 ACTIVE, a RoCE
# v2 GID and the MAD layer's QP1 in RTS; libirdma reads it (ibv_devinfo:
# vendor part 5531); traffic through it: ibv_rc_pingpong event-driven
# (CQ arming, CEQ interrupts), ibv_ud_pingpong, rping over rdma_cm (the
# connection's MADs on QP1, kernel address handles), ib_write_bw, its
# RDMA WRITEs in the port's hw_counters (hw_e810_counters has the rest);
# unbound and bound again through sysfs, QP1 in RTS again; rmmod leaves
# ice.roce unbound; no warning, oops or irdma complaint in the kernel log.
# hw_e810_probe, _verbs, _perftest and _ulp run the whole list with the
# guest's irdma (ours on our core).
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"

PLAN=12
AUX=/sys/bus/auxiliary
ADDR=10.35.5.1
ktap_print_header
ktap_set_plan $PLAN

fn=$(e810_function)
why=
if [ -z "$fn" ]; then
	why="no 8086:159b function (scripts/vm --hw e810)"
elif ! ours; then
	why="our irdma runs on our core only"
elif [ ! -f "$IRDMA_OURS" ]; then
	why="our irdma was not built (no ice headers: scripts/ice-headers)"
fi
if [ -n "$why" ]; then
	for ((i = 1; i <= PLAN; i++)); do
		ktap_test_skip "our irdma case $i" "$why"
	done
	ktap_finished
fi

rdma_unload_all
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
before=$(dmesg | wc -l)
new_log() { dmesg | tail -n +"$((before + 1))"; }

# The auxiliary device ice made, bound to a driver named irdma.
roce_dev() { ls -d "$AUX"/devices/ice.roce.* 2>/dev/null | head -1; }
bound() {
	local d
	d=$(roce_dev) && [ -n "$d" ] &&
		[ "$(basename "$(readlink -f "$d/driver")")" = irdma ]
}
bind_up() {
	modprobe ice || return 1
	eventually 120 roce_dev >/dev/null || { echo "ice made no ice.roce device"; return 1; }
	module_use irdma "$IRDMA_OURS" || return 1
	eventually 30 bound || { echo "ice.roce not bound to irdma"; ls -l "$(roce_dev)"; return 1; }
}
ktap_test_result "our irdma binds ice.roce" bind_up

# "bound NETDEV (function F, VSI V, N MSI-X vectors from entry E)"
values() {
	local line netdev func n

	line=$(new_log | grep -a 'irdma.*: bound ' | tail -1)
	[ -n "$line" ] || { echo "no 'bound' line from irdma"; return 1; }
	echo "$line"
	read -r netdev func n < <(echo "$line" |
		sed -n 's/.*bound \([^ ]*\) (function \([0-9]*\), VSI [0-9]*, \([0-9]*\) MSI-X.*/\1 \2 \3/p')
	expect_eq "netdev" "$netdev" "$(ls "/sys/bus/pci/devices/$fn/net")" &&
		expect_eq "PCI function" "$func" "$((0x${fn##*.}))" &&
		[ "${n:-0}" -ge 1 ] || { echo "vectors: '$n'"; return 1; }
}
ktap_test_result "the values it read are the function's" values

# e810_roce_up's modprobe irdma finds ours loaded; it runs here, not in
# the case's subshell, for the names it sets.
qp1_rts() { rdma res show qp link "$E810_IB/1" 2>/dev/null | grep -q "lqpn 1 type GSI state RTS"; }
e810_roce_up $ADDR >"$OUT/up" 2>&1
device_up() {
	[ -n "$E810_GIDX" ] || { cat "$OUT/up"; return 1; }
	eventually 60 qp1_rts || { echo "QP1 not in RTS"; rdma res show qp; return 1; }
}
ktap_test_result "a device with port 1 ACTIVE, a RoCE v2 GID of $ADDR, QP1 in RTS" device_up
dev=$E810_IB gidx=$E810_GIDX

devinfo() {
	ibv_devinfo -d "$dev" -v >"$OUT/devinfo" 2>&1 || { cat "$OUT/devinfo"; return 1; }
	grep -q "vendor_part_id:[[:space:]]*5531" "$OUT/devinfo" &&
		grep -q "PORT_ACTIVE" "$OUT/devinfo" || { cat "$OUT/devinfo"; return 1; }
}
ktap_test_result "ibv_devinfo -v through libirdma" devinfo

ktap_test_result "ibv_rc_pingpong -c -e (completion events)" e810_pingpong "$dev" "$gidx" rc -e
ktap_test_result "ibv_ud_pingpong -c" e810_pingpong "$dev" "$gidx" ud
ktap_test_result "rping over rdma_cm" rping_pair $ADDR
writes() { hw_counter "$dev" iwOutRdmaWrites; }
writes_before=$(writes)
ktap_test_result "ib_write_bw" perftest_pair localhost ib_write_bw -d "$dev" -x "$gidx" -n 300 -F -s 4096
counted() {
	local n=$(($(writes) - ${writes_before:-0}))

	[ "$n" -ge 300 ] || { echo "iwOutRdmaWrites: +$n"; return 1; }
}
ktap_test_result "hw_counters: ib_write_bw's 300 RDMA WRITEs" counted

# Unbind takes the device (and QP1) away; bind makes them again.
rebind() {
	local d n
	d=$(basename "$(roce_dev)")
	n=$(new_log | grep -ac 'irdma.*: bound ')
	echo "$d" >"$AUX/drivers/irdma/unbind" || return 1
	! bound || { echo "still bound after unbind"; return 1; }
	[ -z "$(e810_ibdev)" ] || { echo "device still there"; return 1; }
	echo "$d" >"$AUX/drivers/irdma/bind" || return 1
	bound && [ "$(new_log | grep -ac 'irdma.*: bound ')" = $((n + 1)) ] || return 1
	eventually 60 e810_ibdev >/dev/null || { echo "no device after bind"; return 1; }
	E810_IB=$(e810_ibdev)
	eventually 60 qp1_rts || { echo "QP1 not in RTS after bind"; return 1; }
}
ktap_test_result "unbound and bound again through sysfs, QP1 in RTS again" rebind

unload() {
	modprobe -r rdma_ucm ib_umad 2>/dev/null
	rmmod irdma || return 1
	! bound && ! module_loaded irdma
}
ktap_test_result "rmmod irdma leaves ice.roce unbound" unload

# (The kernel's note that an unsigned module taints it names irdma when
# ours is the first of the boot: not a complaint.)
clean_log() {
	! new_log | grep -av 'module verification failed' |
		grep -aE 'WARNING|BUG|Oops|irdma.*(not binding|fail|error|timed out)'
}
ktap_test_result "no warning, oops or irdma complaint in the kernel log" clean_log
ip link set "$E810_IF" down 2>/dev/null
modprobe -r ice 2>/dev/null
ktap_finished
