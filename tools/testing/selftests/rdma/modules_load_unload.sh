#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Load/unload cycles leave nothing behind: after every unload the module
# is gone, its NETLINK_RDMA kernel sockets are gone and no device class
# entries remain; while loaded and idle, nothing holds a reference.
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"

CYCLES=${CYCLES:-$(soak 3)}
mods=$(oot_module_names)

ktap_print_header
ktap_set_plan 3

rdma_unload_all
base_socks=$(nl_rdma_kernel_socks)

cycle() {
	local i m
	for i in $(seq "$CYCLES"); do
		for m in $mods; do
			modprobe "$m" || { echo "cycle $i: modprobe $m failed"; return 1; }
		done
		expect_eq "cycle $i: NETLINK_RDMA kernel sockets while loaded" \
			"$(nl_rdma_kernel_socks)" $((base_socks + 1)) || return 1
		rdma_unload_all || { echo "cycle $i: unload failed"; return 1; }
		for m in $mods; do
			if [ -e "/sys/module/$m" ]; then
				echo "cycle $i: /sys/module/$m still there"
				return 1
			fi
		done
		expect_eq "cycle $i: NETLINK_RDMA kernel sockets after unload" \
			"$(nl_rdma_kernel_socks)" "$base_socks" || return 1
	done
}
ktap_test_result "$CYCLES load/unload cycles leave no module and no socket" cycle

idle_refs() {
	modprobe ib_core || return 1
	expect_eq "ib_core refcnt when idle" "$(cat /sys/module/ib_core/refcnt)" 0
}
ktap_test_result "an idle ib_core is held by nothing" idle_refs

no_devices() {
	local n
	n=$(find /sys/class/infiniband/ -mindepth 1 2>/dev/null | wc -l)
	expect_eq "entries in /sys/class/infiniband" "$n" 0
}
ktap_test_result "no RDMA device exists without a driver" no_devices

rdma_unload_all
ktap_finished
