#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# On-demand paging MRs on rxe (IBV_ACCESS_ON_DEMAND; rxe_odp.py): the
# device reports ODP (RC and XRC: every operation; UC and UD: send);
# SEND, WRITE, READ and both atomics from fresh ODP memory to fresh ODP
# memory, every byte checked, on one device and on two; pages dropped
# (MADV_DONTNEED) under an MR are never read or written through again
# (a READ sees the zeros the process sees, a WRITE lands in the new
# pages); an unmapped range is a remote access error at the responder
# and a local protection error at the requester; the implicit MR is
# refused; WRITEs and READs back while another thread drops the pages
# again and again complete, with each packet's worth the bytes written
# or zeros.  Then rdma-core's own: the pyverbs ODP tests (2 MiB huge pages
# made for the huge-page ones) and ibv_rc_pingpong -o.  Stock's rxe has
# no ODP: skipped there (measured: every odp_caps NO SUPPORT;
# ibv_rc_pingpong -o: "The device isn't ODP capable or does not support
# RC send and receive with ODP").
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rxe_topo.sh"

ktap_print_header
ktap_set_plan 10

rdma_unload_all
modprobe ib_uverbs
topo_one_up && topo_two_up || exit "$KSFT_FAIL"

case_() {
	ours_case rxe_odp.py "stock's rxe has no ODP (odp_caps 0)" "$@"
}

caps() {
	local v
	v=$(ibv_devinfo -v -d "$ONE_DEV")
	echo "$v" | grep -A7 'rc_odp_caps' | grep -q SUPPORT_SRQ &&
	echo "$v" | grep -A2 'ud_odp_caps' | grep -q SUPPORT_SEND ||
		{ echo "$v" | grep -A20 general_odp_caps; return 1; }
}
if ours; then
	ktap_test_result "ibv_devinfo -v: ODP, RC every operation, UD send" caps
else
	ktap_test_skip "ibv_devinfo -v: ODP caps" "stock's rxe has no ODP (odp_caps 0)"
fi
case_ "SEND, WRITE, READ, atomics between fresh ODP MRs, one device" \
	traffic "${ONE_ENDS[@]}"
case_ "SEND, WRITE, READ, atomics between fresh ODP MRs, two devices" \
	traffic "${TWO_ENDS[@]}"
case_ "pages dropped under ODP MRs: READ sees zeros, WRITEs land in the new pages" \
	invalidate "${TWO_ENDS[@]}"
case_ "an unmapped range: remote access error, local protection error" \
	unmapped "${ONE_ENDS[@]}"
case_ "the implicit ODP MR is refused" refused "${ONE_ENDS[@]}"
case_ "WRITE, READ back while the pages are dropped, $(soak 25) rounds, one device" \
	race "${ONE_ENDS[@]}" --rounds "$(soak 25)"
case_ "WRITE, READ back while the pages are dropped, $(soak 25) rounds, two devices" \
	race "${TWO_ENDS[@]}" --rounds "$(soak 25)"

# rdma-core's ODP tests: what librxe 44 can reach (no advise_mr for the
# prefetch tests, no XRC domain on rxe, no implicit MR: those skip).
ODP_PASS="test_odp_rc_atomic_cmp_and_swp test_odp_rc_atomic_fetch_and_add
test_odp_rc_huge_traffic test_odp_rc_huge_user_addr_traffic
test_odp_rc_rdma_read test_odp_rc_rdma_write test_odp_rc_srq_traffic
test_odp_rc_traffic test_odp_ud_traffic"
pyverbs_odp() {
	local out rc=0 t hp
	out=$(mktemp)
	hp=$(cat /proc/sys/vm/nr_hugepages)
	echo 16 > /proc/sys/vm/nr_hugepages
	/usr/bin/python3 "$TESTDIR/pyverbs_run.py" --test-timeout 60 \
		--netdev-from-parent --out "$out" test_odp -- --dev "$ONE_DEV" \
		--gid "$(topo_gid "$ONE_DEV" "$ONE_IP")" 2>/dev/null
	echo "$hp" > /proc/sys/vm/nr_hugepages
	for t in $ODP_PASS; do
		grep -q "\.$t pass$" "$out" || { echo "$t: $(grep "\.$t " "$out")"; rc=1; }
	done
	echo "# $(grep -c ' pass$' "$out") pass, $(grep -c ' skip$' "$out") skip"
	! grep -E ' (fail|error)$' "$out" || rc=1
	rm -f "$out"
	return $rc
}
if ours; then
	ktap_test_result "pyverbs test_odp: $(echo $ODP_PASS | wc -w) pass, none fails" pyverbs_odp
else
	ktap_test_skip "pyverbs test_odp" "stock's rxe has no ODP: every test skips"
fi

pp_odp() {
	pingpong "" "$ONE_DEV" "$ONE_IP" "" "$ONE_DEV" "$ONE_IP" \
		ibv_rc_pingpong -o -n 20 -s 65536 -c
}
if ours; then
	ktap_test_result "ibv_rc_pingpong -o (ODP), 64 KiB, checked" pp_odp
else
	ktap_test_skip "ibv_rc_pingpong -o" "stock's rxe has no ODP (measured: \"The device isn't ODP capable\")"
fi

topo_down
rdma_unload_all
ktap_finished
