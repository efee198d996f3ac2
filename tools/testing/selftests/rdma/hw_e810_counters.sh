#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The modelled E810's hardware counters, as irdma reports them (the one
# modprobe finds: ours on our core, Debian's on stock or in a guest booted
# --without irdma).  The model counts the RoCEv2 frames its protocol
# engine sends and receives (e810-model.rst, "Statistics"); irdma gathers
# them with GATHER_STATS into the port's hw_counters.
#   - the counters `rdma statistic` shows, by name and in order, are
#     golden/irdma-counters.txt (Debian's irdma, measured on stock), and
#     sysfs has a file for each;
#   - traffic on one device is counted on both its ends: ibv_rc_pingpong
#     (50 iterations each way) at least 100 SENDs out and in,
#     ib_write_bw and ib_read_bw (100 messages) at least 100 RDMA WRITEs
#     or READ requests out and in, ibv_ud_pingpong 100 SENDs; IPv4 and
#     UDP packets alike, as many in as out (loopback), and at least the
#     payload in octets; no counter goes down.
# Needs a guest with the model (scripts/vm --hw e810 [--stock|--without irdma]).
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"

PLAN=8
ktap_print_header
ktap_set_plan $PLAN

e810_or_skip $PLAN "E810 counters"
ADDR=10.35.7.1
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT

e810_roce_case $ADDR
echo "# $E810_IB on $E810_IF, irdma $(irdma_which)"
DEV=$E810_IB

counters() {
	hw_counters "$DEV"
}

names() {
	expect_eq "counters" "$(counters | cut -d' ' -f1 | tr '\n' ' ')" \
		"$(grep -v '^#' "$TESTDIR/golden/irdma-counters.txt" | tr '\n' ' ')"
}
ktap_test_result "rdma statistic: Debian's counters, in its order" names

sysfs_files() {
	local n missing=0

	for n in $(counters | cut -d' ' -f1); do
		[ -f "/sys/class/infiniband/$DEV/ports/1/hw_counters/$n" ] ||
			{ echo "no hw_counters/$n"; missing=1; }
	done
	return $missing
}
ktap_test_result "a hw_counters file for each" sysfs_files

# delta BEFORE AFTER NAME: how much NAME grew between two counters dumps.
delta() {
	echo $(($(awk -v n="$3" '$1 == n { print $2 }' "$2") -
		$(awk -v n="$3" '$1 == n { print $2 }' "$1")))
}

# counted MIN KIND BYTES CMD...: CMD's traffic counted: KIND (Sends,
# Writes or Reads) at least MIN out and in, as many IPv4 and UDP packets
# in as out, at least BYTES octets each way; no counter down.
counted() {
	local min=$1 kind=$2 bytes=$3 n k v rc=0

	shift 3
	counters >"$OUT/before"
	"$@" || return 1
	counters >"$OUT/after"
	for n in "iwOutRdma$kind" "iwInRdma$kind"; do
		[ "$(delta "$OUT/before" "$OUT/after" "$n")" -ge "$min" ] ||
			{ echo "$n: +$(delta "$OUT/before" "$OUT/after" "$n"), want $min or more"; rc=1; }
	done
	for n in ip4InOctets ip4OutOctets; do
		[ "$(delta "$OUT/before" "$OUT/after" "$n")" -ge "$bytes" ] ||
			{ echo "$n: +$(delta "$OUT/before" "$OUT/after" "$n"), want $bytes or more"; rc=1; }
	done
	n=$(delta "$OUT/before" "$OUT/after" ip4OutPkts)
	[ "$n" -gt 0 ] || { echo "no IPv4 packet counted"; rc=1; }
	for k in ip4InPkts RxUDP TxUDP; do
		expect_eq "$k" "$(delta "$OUT/before" "$OUT/after" $k)" "$n" || rc=1
	done
	while read -r k v; do
		[ "$(delta "$OUT/before" "$OUT/after" "$k")" -ge 0 ] ||
			{ echo "$k went down"; rc=1; }
	done <"$OUT/before"
	[ $rc = 0 ] || paste "$OUT/before" "$OUT/after"
	return $rc
}

ktap_test_result "ibv_rc_pingpong: 100 SENDs out and in" \
	counted 100 Sends $((100 * 4096)) e810_pingpong "$DEV" "$E810_GIDX" rc
ktap_test_result "ib_write_bw: 100 RDMA WRITEs out and in" \
	counted 100 Writes $((100 * 65536)) localhost_pair 120 ib_write_bw \
	-d "$DEV" -x "$E810_GIDX" -s 65536 -n 100 -F
ktap_test_result "ib_read_bw: 100 RDMA READ requests out and in" \
	counted 100 Reads $((100 * 65536)) localhost_pair 120 ib_read_bw \
	-d "$DEV" -x "$E810_GIDX" -s 65536 -n 100 -F
ktap_test_result "ibv_ud_pingpong: 100 SENDs out and in" \
	counted 100 Sends $((100 * 512)) e810_pingpong "$DEV" "$E810_GIDX" ud
ktap_test_result "the stack unloads" rdma_unload_all
ktap_finished
