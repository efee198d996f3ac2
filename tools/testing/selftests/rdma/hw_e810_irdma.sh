#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Our irdma (drivers/infiniband/hw/irdma/, a preview module: Documentation/
# infiniband/irdma.rst) on the modelled E810, as far as it goes: it binds
# ice's ice.roce auxiliary device, reads what only ice's private
# structures say of the function (ice.c) and checks it against public
# interfaces.  Needs a guest with the model and our preview modules:
#	scripts/vm --hw e810 --preview -- tools/testing/selftests/rdma/run_tests.sh hw_e810_irdma.sh
# and skips where our irdma is not the one modprobe finds (stock, or a
# guest without --preview: Debian's runs hw_e810_probe there) or where
# there is no 8086:159b function.
#
# Cases: ice's auxiliary device bound by our irdma; the values it logged
# are those of the function (ice's netdev, the PCI function number, a
# vector range of at least one); unbound and bound again through sysfs;
# rmmod leaves ice.roce unbound; no warning, oops or irdma complaint in
# the kernel log.
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"

PLAN=5
AUX=/sys/bus/auxiliary
ktap_print_header
ktap_set_plan $PLAN

fn=$(e810_function)
why=
if [ -z "$fn" ]; then
	why="no 8086:159b function (scripts/vm --hw e810)"
elif ! ours || [ "$(modinfo -F version irdma 2>/dev/null)" != "$OOT_VERSION" ]; then
	why="our irdma is a preview module: scripts/vm --hw e810 --preview"
fi
if [ -n "$why" ]; then
	for ((i = 1; i <= PLAN; i++)); do
		ktap_test_skip "our irdma case $i" "$why"
	done
	ktap_finished
fi

rdma_unload_all
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
	modprobe irdma || return 1
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

rebind() {
	local d n
	d=$(basename "$(roce_dev)")
	n=$(new_log | grep -ac 'irdma.*: bound ')
	echo "$d" >"$AUX/drivers/irdma/unbind" || return 1
	! bound || { echo "still bound after unbind"; return 1; }
	echo "$d" >"$AUX/drivers/irdma/bind" || return 1
	bound && [ "$(new_log | grep -ac 'irdma.*: bound ')" = $((n + 1)) ]
}
ktap_test_result "unbound and bound again through sysfs" rebind

unload() {
	modprobe -r irdma || return 1
	! bound && ! module_loaded irdma
}
ktap_test_result "rmmod irdma leaves ice.roce unbound" unload

# (The kernel's note that an unsigned module taints it names irdma when
# ours is the first of the boot: not a complaint.)
clean_log() {
	! new_log | grep -av 'module verification failed' |
		grep -aE 'WARNING|BUG|Oops|irdma.*(not binding|fail|error)'
}
ktap_test_result "no warning, oops or irdma complaint in the kernel log" clean_log
modprobe -r ice 2>/dev/null
ktap_finished
