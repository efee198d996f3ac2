#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# What user space reads of the modelled ConnectX's mlx5_0 is stock's:
# /sys/class/infiniband/mlx5_0 (every file, its mode and its value or
# read errno), and the rdma tool's dev, link, res and statistic views,
# equal to golden/hw-mlx5-sysfs.txt, recorded on the stock stack with
# Debian's mlx5_core and mlx5_ib on the same model.  Counter values and
# the power/ directory are left out (they move); counter names stay; the
# netdev's name and index and the device's index are masked.
# Needs a guest with the model:
#	scripts/vm --hw mlx5 -- tools/testing/selftests/rdma/run_tests.sh hw_mlx5_sysfs.sh
# and skips without one.  HW_MLX5_SYSFS_RECORD=FILE writes the view to
# FILE instead (how the golden file was made: scripts/vm --stock --hw
# mlx5 --share DIR -- env HW_MLX5_SYSFS_RECORD=... run_tests.sh ...).
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"

GOLDEN=$TESTDIR/golden/hw-mlx5-sysfs.txt
SECTIONS=(sysfs-device sysfs-port sysfs-gids sysfs-counters
	rdma-dev rdma-link rdma-res rdma-statistic pma-traffic)
ktap_print_header
ktap_set_plan $((${#SECTIONS[@]} + 3))
mlx5_or_skip $((${#SECTIONS[@]} + 3)) "mlx5 sysfs"

mlx5_roce_cases 192.0.2.1
IB=/sys/class/infiniband/mlx5_0

# files DIR FIND-ARGS...: "MODE NAME VALUE" for the files under DIR, the
# value of a counter replaced by "N", an unreadable file's by its error.
files() {
	local dir=$1 f v
	shift
	(cd "$dir" && find . "$@" -type f | sort) | while read -r f; do
		if ! v=$(tr '\n' ' ' <"$dir/$f" 2>&1); then
			v="error ${v##*: }"
		elif [[ $f == */hw_counters/* || $f == */counters/* ]]; then
			[[ $f == */lifespan ]] || v=N
		fi
		echo "$(stat -c %A "$dir/$f") ${f#./} $v"
	done
}

# What depends on the tests before this one in the guest: the netdev's
# name and index (hw_mlx5_eth loads virtio_net, whose NIC may come
# first) and the device's index (a test that unloads mlx5_ib).
ifname() {
	sed -e "s/\b$MLX5_IF\b/IF/g" -e 's/netdev_index [0-9]*/netdev_index N/'
}
devindex() {
	sed 's/^[0-9]*: mlx5_0:/N: mlx5_0:/'
}

# pma-traffic: PMA counters (counters/) and the port's own (ethtool -S)
# before and after 200 UDP datagrams each way between mlx5_0's netdev
# and the virtio NIC on its wire, moved into a namespace: whether each
# grew.  The model counts Ethernet frames only (its QUERY_VPORT_COUNTER
# and PPCNT leave the IB traffic counters mlx5_ib's PMA reads at zero),
# so counters/ stays as it is on stock; ethtool's show the traffic was
# there.
PMA_NS=mlx5pma
PMA_FILES="port_xmit_data port_rcv_data port_xmit_packets port_rcv_packets unicast_xmit_packets unicast_rcv_packets"
pma_snapshot() {
	local f
	for f in $PMA_FILES; do
		echo "$f $(cat "$IB/ports/1/counters/$f" 2>&1)"
	done
	ethtool -S "$MLX5_IF" | awk '$1 == "tx_packets_phy:" || $1 == "rx_packets_phy:" { print $1, $2 }'
}
udp_burst() {	# ADDR: 200 datagrams to the discard port
	python3 -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for _ in range(200):
    s.sendto(b"x" * 512, (sys.argv[1], 9))' "$1"
}
pma_traffic() {
	local peer before after
	modprobe virtio_net 2>/dev/null
	peer=$(grep -l 52:54:00:34:00:02 /sys/class/net/*/address 2>/dev/null | head -1)
	[ -n "$peer" ] || { echo "no virtio peer on the wire"; return; }
	peer=$(basename "$(dirname "$peer")")
	ip netns del $PMA_NS 2>/dev/null
	ip netns add $PMA_NS
	ip link set "$peer" netns $PMA_NS
	ip -n $PMA_NS addr add 10.35.0.2/24 dev "$peer"
	ip -n $PMA_NS link set "$peer" up
	ip addr add 10.35.0.1/24 dev "$MLX5_IF"
	before=$(pma_snapshot)
	udp_burst 10.35.0.2
	ip netns exec $PMA_NS bash -c "$(declare -f udp_burst); udp_burst 10.35.0.1"
	sleep 1
	after=$(pma_snapshot)
	ip addr del 10.35.0.1/24 dev "$MLX5_IF"
	ip netns del $PMA_NS
	# The figures, for the kernel log (the view keeps only the verdicts).
	echo "hw_mlx5_sysfs: pma-traffic before:" $before >/dev/kmsg
	echo "hw_mlx5_sysfs: pma-traffic after:" $after >/dev/kmsg
	join <(echo "$before" | sort) <(echo "$after" | sort) |
		awk '{ print $1, ($3 == $2 ? "unchanged" : ($3 > $2 ? "grew" : "other")) }'
}

# view SECTION: what the section shows today.  The rdma tool's numbers
# that move (counter values, resource counts of kernel users that come
# and go) are masked the same way.
view() {
	case $1 in
	sysfs-device)
		files "$IB" -maxdepth 1 ! -name uevent
		readlink -f "$IB" | sed 's|^/sys/devices/pci[^/]*/[^/]*/[^/]*/|PCI/|'
		;;
	sysfs-port)
		files "$IB/ports/1" -maxdepth 1
		;;
	sysfs-gids)
		# The table's used entries (the zero GID, GID type and ndev of an
		# empty entry read as errors: which errno is part of the view).
		files "$IB/ports/1" \( -path './gids/*' -o -path './gid_attrs/*' \) |
			awk '$2 ~ /^gids\// && $3 ~ /^0000:0000:0000:0000:0000:0000:0000:0000/ { next }
			     $3 == "error" && $4 == "Invalid" { next } { print }' |
			sed -n '1,64p' | ifname
		ls "$IB/ports/1/gids" | wc -l
		;;
	sysfs-counters)
		files "$IB/ports/1" -path './hw_counters/*'
		files "$IB/ports/1" -path './counters/*'
		;;
	rdma-dev)
		rdma dev show mlx5_0 -d | devindex
		;;
	rdma-link)
		rdma link show mlx5_0/1 -d | ifname
		;;
	rdma-res)
		rdma res show mlx5_0 | devindex
		;;
	rdma-statistic)
		rdma statistic show link mlx5_0/1 | tr ' ' '\n' |
			sed '/^[0-9]\+$/d' | paste -sd ' '
		;;
	pma-traffic)
		pma_traffic
		;;
	esac
}

if [ -n "${HW_MLX5_SYSFS_RECORD:-}" ]; then
	for s in "${SECTIONS[@]}"; do
		echo "[$s]"
		view "$s" 2>&1
	done >"$HW_MLX5_SYSFS_RECORD"
fi

# golden SECTION: the recorded view of SECTION.
golden() {
	awk -v s="[$1]" '$0 == s { on = 1; next } /^\[/ { on = 0 } on' "$GOLDEN"
}
same() {
	local d
	d=$(diff -u --label stock --label "$(ours && echo ours || echo stock)-now" \
		<(golden "$1") <(view "$1" 2>&1)) && return 0
	printf '%s\n' "$d" | head -n 60
	return 1
}
# Our own mlx5_ib (issue 35; what a guest of our core loads, unless booted
# --without mlx5_ib): the loaded module has our version, Debian's none.
our_mlx5_ib() {
	[ -n "$(cat /sys/module/mlx5_ib/version 2>/dev/null)" ]
}
for s in "${SECTIONS[@]}"; do
	if our_mlx5_ib && [ "$s" = rdma-res ]; then
		# The device's own objects differ by design: Debian's
		# makes PDs, CQs and SRQs of its own through the verbs (its
		# XRC and UMR resources), ours keeps its PD and XRC domain
		# in the device alone.
		ktap_test_skip "mlx5_0 $s: stock's view" \
			"our mlx5_ib: driver-internal objects differ from Debian's"
	else
		ktap_test_result "mlx5_0 $s: stock's view" same "$s"
	fi
done
ktap_finished
