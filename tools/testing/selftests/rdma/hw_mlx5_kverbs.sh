#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Our mlx5_ib's kernel verbs (issue 35), against Debian's on the same
# model: the test-only module kverbs_test (kverbs.sh says what its cases
# do) pointed at mlx5_0 with Debian's mlx5_ib, then with ours, every
# case that passes with Debian's must pass with ours (a case that fails
# with both is skipped with Debian's reason: the module's expectations
# were measured on rxe).  Then, on ours, the CM through its GSI QP (the
# device's QP1): rping, ucmatose, udaddy (UD and SIDR) and ib_send_bw -R
# to the netdev's own address, and ours goes with nothing left and a
# clean log.
#
# Needs the model (scripts/vm --hw mlx5), our core (not --stock), our
# mlx5_ib built and kverbs_test.ko (`make check` passes it; by hand see
# kverbs.sh), else skipped.
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"

# kverbs_test's cases (KT_NR_CASES in kverbs_test.c, as kverbs.sh).
MODULE_CASES=29
PLAN=$((4 + MODULE_CASES + 4 + 1))
ktap_print_header
ktap_set_plan $PLAN

mlx5_or_skip $PLAN "mlx5 kernel verbs"
skip_all() {
	local i

	for ((i = 1; i <= PLAN; i++)); do
		ktap_test_skip "mlx5 kernel verbs case $i" "$1"
	done
	ktap_finished
	exit 0
}
[ "${OOT_STOCK:-0}" != 1 ] || skip_all "our mlx5_ib runs on our core (stock guest)"
[ -f "$MLX5_IB_OURS" ] || skip_all "our mlx5_ib not built"
modinfo kverbs_test >/dev/null 2>&1 ||
	skip_all "kverbs_test.ko not installed (scripts/vm --ko, see kverbs.sh)"

ADDR=192.0.2.1
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT

# registered: mlx5_0's RoCE v2 GID of ADDR there too (Debian's fills its
# key cache first).
registered() {
	eventually 60 topo_gid mlx5_0 $ADDR >/dev/null
}

# kverbs NAME [PARAM...]: kverbs_test's KTAP on mlx5_0, into $OUT/NAME.
kverbs() {
	test_module_load kverbs_test dev=mlx5_0 stock=0 "${@:2}" >"$OUT/$1"
	local rc=$?

	modprobe -r kverbs_test
	grep -q '^# Totals: ' "$OUT/$1" || { cat "$OUT/$1"; return 1; }
	return $rc
}

# Debian's mlx5_ib (udev may have loaded it, or ours, or none).  It
# WARNs on a user MR whose start and iova are at different page offsets
# (measured: alloc_cacheable_mr, mr.c:1106), which ours refuses with
# -EINVAL: that case is skipped there.
debian_kverbs() {
	modprobe -a ib_uverbs rdma_ucm &&
		mlx5_ib_use "$MLX5_IB_DEBIAN" && registered &&
		kverbs debian no_odd_offset=1
}

ours_up() {
	mlx5_ib_use "$MLX5_IB_OURS" && registered
}

# The line of case N in a KTAP file, and its verdict: ok, skip or fail.
case_line() {
	grep -E "^(not )?ok $2 " "$OUT/$1" | head -n 1
}
verdict() {
	case "$1" in
	"") echo none ;;
	*" # SKIP"*) echo skip ;;
	"ok "*) echo ok ;;
	*) echo fail ;;
	esac
}

modprobe mlx5_core
eventually 180 mlx5_ifname >/dev/null
MLX5_IF=$(mlx5_ifname)
ktap_test_result "mlx5e netdev $MLX5_IF up with $ADDR" \
	mlx5_link_up "$MLX5_IF" $ADDR
ktap_test_result "kverbs_test on mlx5_0 with Debian's mlx5_ib (recorded)" debian_kverbs
before=$(dmesg | wc -l)
ktap_test_result "our mlx5_ib registers mlx5_0" ours_up
ktap_test_result "kverbs_test runs on mlx5_0 with ours" kverbs ours
grep -E '^# ' "$OUT/ours" | sed 's/^/# ours: /'

for ((i = 1; i <= MODULE_CASES; i++)); do
	theirs=$(case_line debian $i)
	mine=$(case_line ours $i)
	desc=$(printf '%s\n' "$mine" | sed -E 's/^(not )?ok [0-9]+ //; s/ # SKIP.*//')
	desc="kverbs_test ${desc:-case $i} as with Debian's"
	case "$(verdict "$theirs"),$(verdict "$mine")" in
	ok,ok | skip,ok | fail,ok | skip,skip)
		ktap_test_pass "$desc" ;;
	fail,fail | fail,skip | none,*)
		ktap_test_skip "$desc" "fails with Debian's mlx5_ib too: ${theirs:-not run}" ;;
	*)
		echo "# Debian's: $theirs"
		echo "# ours:     ${mine:-not reported}"
		ktap_test_fail "$desc" ;;
	esac
done

# The CM's tools to the netdev's own address: their MADs go through our
# GSI QP both ways.
rping_pair() {
	server_client 120 rping -s -a $ADDR -C 5 -v -- rping -c -a $ADDR -C 5 -v &&
		expect_eq "rping's pings" "$(grep -c 'ping data' "$OUT/client")" 5
}
ktap_test_result "rping -C 5 over our mlx5_0 (CM MADs on our GSI QP)" rping_pair
ktap_test_result "ucmatose to $ADDR over our mlx5_0" \
	server_client 120 ucmatose -- ucmatose -s $ADDR
ktap_test_result "udaddy (SIDR, UD) to $ADDR over our mlx5_0" \
	server_client 120 udaddy -- udaddy -s $ADDR
ktap_test_result "ib_send_bw -R to $ADDR over our mlx5_0" \
	pair_to $ADDR 120 ib_send_bw -d mlx5_0 -R -n 100 -s 4096 -F

# Ours goes; Debian's comes back for the tests that follow.
ktap_test_result "nothing left; ours unloads with a clean log, Debian's returns" \
	mlx5_ours_down "$before"

ktap_finished
