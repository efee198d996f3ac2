#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Ethernet through the modelled ConnectX-4 Lx: Debian's mlx5_core sends
# and receives frames on the model's wire.  Needs a guest booted with
#	scripts/vm --hw mlx5 -- tools/testing/selftests/rdma/run_tests.sh hw_mlx5_eth.sh
# whose mlx5 function and a virtio-net NIC (MAC 52:54:00:34:00:02) plug
# into one QEMU hub: the virtio NIC goes into a network namespace, and
# the two talk, and ethtool -S counts what they said.  Skips on a guest
# without them.
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"

PLAN=7
ktap_print_header
ktap_set_plan $PLAN

bdf=$(pci_function 0x15b3 0x1015)
ns=mlx5wire
if [ -z "$bdf" ] || ! wire_peer_ns $ns 10.34.0.2 >/dev/null; then
	for ((i = 1; i <= PLAN; i++)); do
		ktap_test_skip "mlx5 Ethernet case $i" \
			"no 15b3:1015 function and virtio peer (scripts/vm --hw mlx5)"
	done
	ktap_finished
fi
dev=/sys/bus/pci/devices/$bdf

modprobe mlx5_core
netdev_there() { ls "$dev"/net 2>/dev/null | grep -q .; }
eventually 120 netdev_there >/dev/null
ifname=$(ls "$dev"/net 2>/dev/null | head -1)
ktap_test_result "mlx5e netdev" test -n "$ifname"

ip addr add 10.34.0.1/24 dev "$ifname"
ip link set "$ifname" up
carrier() { [ "$(cat "/sys/class/net/$ifname/carrier" 2>/dev/null)" = 1 ]; }
ktap_test_result "carrier" eventually 60 carrier

# ARP and UDP both ways (the guest has no ping): mlx5e's SQ to the
# wire, and the wire through the flow tables (L2 by MAC and broadcast,
# TTC) to an RQ.
ktap_test_result "UDP to the peer (10.34.0.2) and its answer" udp_to_ns $ns 10.34.0.2
ktap_test_result "UDP from the peer and our answer" udp_from_ns $ns 10.34.0.1

# TCP, checksums and segmentation offloaded to the model: 8 MiB checked
# (tcp_bulk.py).
tcp_ok() {
	tcp_to_ns $ns 10.34.0.2 8 || return 1
	ethtool -k "$ifname" | grep -E "^(tx-checksumming|tcp-segmentation-offload):" |
		sed 's/^/# /'
}
ktap_test_result "8 MiB over TCP to the peer, checked" tcp_ok

# ethtool -S: the port's counters (PPCNT) and the vport's count the
# frames of that transfer, the 8 MiB and more, both ways; reading them
# (PFCC too, for the per-priority pause counters) fails no register.
# Sent: at least the 8 MiB in MTU-sized frames.  Received: the peer's
# ACKs, as few as one per 128 KiB when its GRO merges what we segmented
# (97 in a CI run, 102 with the UDP cases): at least 32.
ethstat() { ethtool -S "$ifname" | awk -v k="$1:" '$1 == k { print $2 }'; }
counted() {
	local k v ok=0
	for k in tx_bytes_phy tx_vport_unicast_bytes tx_packets_phy rx_packets_phy \
		rx_vport_unicast_packets tx_vport_unicast_packets; do
		v=$(ethstat $k)
		echo "# $k ${v:-missing}"
		case $k in
		*_bytes*) [ "${v:-0}" -ge $((8 << 20)) ] || ok=1 ;;
		tx_*) [ "${v:-0}" -ge $(((8 << 20) / 1500)) ] || ok=1 ;;
		*) [ "${v:-0}" -ge 32 ] || ok=1 ;;
		esac
	done
	return $ok
}
ktap_test_result "ethtool -S: port and vport counters count the transfer" counted

no_errors() {
	! dmesg | grep -a mlx5 | grep -iE "failed|error|err\(|timeout|csum|hw csum failure|recover"
}
ktap_test_result "no driver error, no checksum fault" no_errors
ip netns del $ns
ktap_finished
