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
	rdma-dev rdma-link rdma-res rdma-statistic)
ktap_print_header
ktap_set_plan $((${#SECTIONS[@]} + 3))

if [ -z "$(mlx5_function)" ]; then
	for s in "${SECTIONS[@]}" netdev ib gid; do
		ktap_test_skip "mlx5_0 $s" "no 15b3:1015 PCI function (scripts/vm --hw mlx5)"
	done
	ktap_finished
fi

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
	d=$(diff -u --label stock --label "${OOT_STOCK:+stock-}now" \
		<(golden "$1") <(view "$1" 2>&1)) && return 0
	printf '%s\n' "$d" | head -n 60
	return 1
}
for s in "${SECTIONS[@]}"; do
	ktap_test_result "mlx5_0 $s: stock's view" same "$s"
done
ktap_finished
