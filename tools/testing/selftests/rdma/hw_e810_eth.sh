#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Debian's ice on the modelled E810-XXV (Documentation/infiniband/
# e810-model.rst): probe with our generated DDP package (not safe mode),
# the netdev with carrier, frames both ways on the model's wire, TCP with
# checksum and segmentation offloads, the VXLAN and GENEVE port tables
# ice offers the UDP tunnel core (from the package's tunnel labels) and a
# VXLAN port programmed through them, and the RDMA auxiliary device irdma
# binds to.  Needs a guest booted with
#	scripts/vm --hw e810 -- tools/testing/selftests/rdma/run_tests.sh hw_e810_eth.sh
# whose E810 function and a virtio-net NIC (MAC 52:54:00:34:00:02) plug
# into one QEMU hub; the virtio NIC goes into a network namespace and the
# two talk.  Skips on a guest without them.
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"

PLAN=10
ktap_print_header
ktap_set_plan $PLAN

bdf=$(e810_function)
ns=e810wire
if [ -z "$bdf" ] || ! wire_peer_ns $ns 10.35.0.2 >/dev/null; then
	for ((i = 1; i <= PLAN; i++)); do
		ktap_test_skip "E810 Ethernet case $i" \
			"no 8086:159b function and virtio peer (scripts/vm --hw e810)"
	done
	ktap_finished
fi
dev=/sys/bus/pci/devices/$bdf

since=$(dmesg | wc -l)
# The UDP tunnel core first (rdma_rxe loads it, for one): it checks the
# port tables of every netdev registered after it, and warns at a table
# without entries (udp_tunnel_nic_register()).
modprobe udp_tunnel
modprobe ice
netdev_there() { ls "$dev"/net 2>/dev/null | grep -q .; }
eventually 120 netdev_there >/dev/null
ifname=$(ls "$dev"/net 2>/dev/null | head -1)
ktap_test_result "ice netdev" test -n "$ifname"

# The package of tools/qemu/e810-ddp/mkpkg.py, which scripts/vm puts in
# the guest's firmware directory: without one ice runs in safe mode.
ice_log() { dmesg | tail -n +"$((since + 1))" | grep -a " $bdf: "; }
pkg_loaded() {
	ice_log | grep -q "The DDP package was successfully loaded: oot-rdma minimal package version 1.3.0.0" &&
		! ice_log | grep -qi "safe mode"
}
ktap_test_result "DDP package loaded, not in safe mode" pkg_loaded

# The firmware's versions as the model reports them (e810-fw.c,
# e810-nvm.c): NVM 4.20, EETRACK 0x8001e810, the NVM's package 1.3236.0.
fw_version() {
	expect_output sh -c "ethtool -i $ifname | grep ^firmware-version" \
		<<<"firmware-version: 4.20 0x8001e810 1.3236.0"
}
ktap_test_result "ethtool -i: the model's firmware versions" fw_version

ip addr add 10.35.0.1/24 dev "$ifname"
ip link set "$ifname" up
carrier() { [ "$(cat "/sys/class/net/$ifname/carrier" 2>/dev/null)" = 1 ]; }
ktap_test_result "carrier" eventually 60 carrier

# ARP and UDP both ways (the guest has no ping): ice's TX ring to the
# wire, and the wire through the switch rules (MAC, broadcast, VLAN 0)
# to an RX ring.
ktap_test_result "UDP to the peer (10.35.0.2) and its answer" udp_to_ns $ns 10.35.0.2
ktap_test_result "UDP from the peer and our answer" udp_from_ns $ns 10.35.0.1

# TCP with the checksum and segmentation offloads on, done by the model
# (context descriptors, TSO): 8 MiB checked.
offloads_on() {
	ethtool -k "$ifname" | grep -E "^(tx-checksumming|rx-checksumming|tcp-segmentation-offload):" |
		sed 's/^/# /'
	[ "$(ethtool -k "$ifname" | grep -cE '^(tx-checksumming|tcp-segmentation-offload): on')" = 2 ]
}
tcp_ok() { offloads_on && tcp_to_ns $ns 10.35.0.2 8; }
ktap_test_result "8 MiB over TCP to the peer with TSO and checksum offload, checked" tcp_ok

# ice's UDP tunnel port tables, one entry each (the package's
# TNL_VXLAN_PF0 and TNL_GENEVE_PF0 labels), and a VXLAN device's port
# in the first: ice programs it with a 0x0C42 package update, which the
# model takes (e810-ddp.c); gone with the device.
tunnels() { ethtool --show-tunnels "$ifname"; }
vxlan_port() {
	local t

	t=$(tunnels) || return 1
	echo "$t" | sed 's/^/# /'
	[ "$(echo "$t" | grep -c 'Size: 1')" = 2 ] &&
		echo "$t" | grep -q 'Types: vxlan$' &&
		echo "$t" | grep -q 'Types: geneve' || { echo "not two tables of one entry"; return 1; }
	ip link add e810vx type vxlan id 42 dstport 4789 dev "$ifname" &&
		ip link set e810vx up || return 1
	eventually 10 eval 'tunnels | grep -q "port 4789, vxlan"' ||
		{ echo "port 4789 not in the table"; ip link del e810vx; return 1; }
	ip link del e810vx || return 1
	eventually 10 eval '! tunnels | grep -q "port 4789"' ||
		{ echo "port 4789 still in the table"; return 1; }
}
ktap_test_result "UDP tunnel port tables; a VXLAN port in them, and out" vxlan_port

# ice made the RDMA auxiliary device (ice.roce.N) that irdma binds to:
# the capabilities said RDMA, the package took ice out of safe mode.
roce_aux() { ls "$dev"/ice.roce.* >/dev/null 2>&1; }
ktap_test_result "the RDMA auxiliary device ice.roce" roce_aux

# No driver error.  One line is expected: the model has no DCB
# capability, and ice says "Error initializing DCB -95" and "DCB init
# failed" for that (ice_init_pf_dcb(), not fatal; measured).
no_errors() {
	! ice_log | grep -vE "Error initializing DCB -95|DCB init failed" |
		grep -iE "failed|error|err\(|timeout|hang|csum|malicious"
}
ktap_test_result "no driver error, no checksum fault" no_errors
ip link set "$ifname" down
ip netns del $ns
ktap_finished
