#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Our mlx5_ib (drivers/infiniband/hw/mlx5, issue 35) on the modelled
# ConnectX, against Debian's mlx5_ib on the same model in the same guest.
# The test loads Debian's (from kernel/) and records what it shows, then
# ours as this tree built it, and gives the guest's own back at the end
# (what modprobe finds: ours, or Debian's in a guest booted --without
# mlx5_ib).  Needs our core (our module links against it) and a guest
# with the model:
#	scripts/vm --hw mlx5 -- tools/testing/selftests/rdma/run_tests.sh hw_mlx5_ib.sh
# and skips on stock or without the model.
#
# What it asserts of ours: mlx5_0 registers with the model's RoCE v2
# GIDs; ibv_devinfo -v and rdma dev/link are Debian's (but for RSS over
# inner headers, which Debian's reports and ours does not offer: INNER
# below); the ping-pongs of
# every connection type and of an SRQ, and perftest's WRITE/READ/SEND,
# move data; no resource is left and the module unloads with a clean
# log.

. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"

PLAN=14
ktap_print_header
ktap_set_plan $PLAN

mlx5_or_skip $PLAN "our mlx5_ib"
if [ "${OOT_STOCK:-0}" = 1 ] || [ ! -f "$MLX5_IB_OURS" ]; then
	for ((i = 1; i <= PLAN; i++)); do
		ktap_test_skip "our mlx5_ib case $i" \
			"our mlx5_ib runs on our core (stock guest or not built)"
	done
	ktap_finished
fi

ADDR=192.0.2.1
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT

# Debian's reports RSS over inner headers (MLX5_RX_HASH_INNER, bit 31 of
# rx_hash_fields_mask) on a device with no tunnel offloads; ours reports
# only the fields it can hash (Documentation/infiniband/mlx5.rst).
INNER='s/(rx_hash_fields_mask:[[:space:]]+0x)800000/\1/'

# views NAME: what ibv_devinfo -v and rdma dev/link show of mlx5_0, in
# $OUT/NAME.{devinfo,rdma} (the device's index masked).
views() {
	ibv_devinfo -v -d mlx5_0 >"$OUT/$1.devinfo" 2>&1 || return 1
	{ rdma dev show mlx5_0; rdma link show mlx5_0/1; } |
		sed -E 's/^[0-9]+:/N:/; s/netdev_index [0-9]+/netdev_index N/' \
			>"$OUT/$1.rdma"
}

# Debian's first (udev may have loaded it, or ours, or none).
debian_up() {
	modprobe -a ib_uverbs rdma_ucm && mlx5_ib_use "$MLX5_IB_DEBIAN" &&
		eventually 60 topo_gid mlx5_0 $ADDR >/dev/null &&
		views debian
}

# Ours in its place: the loaded mlx5_ib has our version (Debian's none).
ours_up() {
	mlx5_ib_use "$MLX5_IB_OURS"
}

same_devinfo() {
	diff <(sed -E "$INNER" "$OUT/debian.devinfo") "$OUT/ours.devinfo"
}

modprobe mlx5_core
eventually 180 mlx5_ifname >/dev/null
MLX5_IF=$(mlx5_ifname)
ktap_test_result "mlx5e netdev $MLX5_IF up with $ADDR" \
	mlx5_link_up "$MLX5_IF" $ADDR
ktap_test_result "Debian's mlx5_ib registers mlx5_0 (recorded)" debian_up
before=$(dmesg | wc -l)
ktap_test_result "our mlx5_ib registers mlx5_0" ours_up
ktap_test_result "a RoCE v2 GID of $ADDR" eventually 60 topo_gid mlx5_0 $ADDR
gidx=$(topo_gid mlx5_0 $ADDR)
views ours
ktap_test_result "ibv_devinfo -v as Debian's (but inner RSS hashing)" same_devinfo
ktap_test_result "rdma dev and link as Debian's" \
	diff "$OUT/debian.rdma" "$OUT/ours.rdma"

# pair TOOL ARGS...: server and client (to localhost) within 120 s; both
# must exit 0.
pair() {
	[ -n "$gidx" ] || { echo "no GID index"; return 1; }
	localhost_pair 120 "$@"
}

# ibv_*_pingpong -c checks the data it receives.
pingpong() {
	local size=4096

	# UD messages must fit the path MTU (1024 on the model's port).
	[ "$1" = ud ] && size=512
	pair "ibv_$1_pingpong" -d mlx5_0 -g "$gidx" -n 20 -s $size -c || return 1
	grep -q ' iters in ' "$OUT/server" && grep -q ' iters in ' "$OUT/client"
}
for t in rc uc ud srq; do
	ktap_test_result "ibv_${t}_pingpong -c on our mlx5_0" pingpong $t
done

perftest() {
	pair "ib_$1_bw" -d mlx5_0 -x "$gidx" -n 200 -s 4096 -F || return 1
	grep -qE '^ +4096 +200 ' "$OUT/client" ||
		{ echo "ib_$1_bw: no result line"; return 1; }
}
for t in write read send; do
	ktap_test_result "ib_${t}_bw on our mlx5_0" perftest $t
done

# Ours goes; Debian's comes back for the tests that follow.
ktap_test_result "nothing left; ours unloads with a clean log, Debian's returns" \
	mlx5_ours_down "$before"

ktap_finished
