#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# An RC requester keeps several messages in flight: WRs posted together
# do not wait for each other's responses.  Two devices on a veth pair
# (wire_lib.sh), the responder's answers delayed 20 ms by netem on its
# side (ve1), so that whatever the requester may send before an answer
# is on the wire first.  rxe_traffic.py pipeline posts 16 RDMA READs of
# 20 KiB (max_rd_atomic 4), then 16 SENDs of 4 KiB, then 16 WRITEs of
# 64 KiB, each chain with one call; tcpdump captures ve0, and
# roce_inflight.py counts what was in flight at once:
#   - READs: exactly 4, the QP's max_rd_atomic (no more may be
#     outstanding; fewer serializes them, a round trip each);
#   - SENDs and WRITEs: more than one at a time (several fit in the
#     window: rxe.rst);
#   - no message starts with more than 128 PSNs unacknowledged.
# Measured, same VM: stock READ 4, SEND 16, WRITE 2, window 128 (it
# starts a message at 128 unacknowledged); ours READ 4, SEND 16, WRITE 2,
# window 64.  Ours before its window was fixed: 1, 1, 1 and 0, every
# message waited for the one before it to be acknowledged.
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/wire_lib.sh"

ktap_print_header
if ! command -v tshark >/dev/null || ! command -v tcpdump >/dev/null; then
	ktap_set_plan 1
	ktap_test_skip "pipelining" "no tshark or tcpdump (scripts/setup)"
	ktap_finished
fi
ktap_set_plan 5

tmp=$(mktemp -d)
trap 'tc qdisc del dev ve1 root 2>/dev/null; wire_down; rm -rf "$tmp"' EXIT
rdma_unload_all
modprobe ib_uverbs
modprobe rdma_rxe
wire_up || { echo "# no two-device setup"; exit 1; }

traffic() {
	tc qdisc replace dev ve1 root netem delay 20ms || return 1
	capture_start ve0 "$tmp/p.pcap" "$WIRE_B" || return 1
	rxe_traffic pipeline rxe1 "$WIRE_A" rxe2 "$WIRE_B"
	local rc=$?
	capture_stop
	tc qdisc del dev ve1 root
	python3 "$TESTDIR/roce_inflight.py" --requester "$WIRE_A" --mtu 1024 \
		"$tmp/p.pcap" >"$tmp/inflight" || rc=1
	sed 's/^/# in flight at most: /' "$tmp/inflight"
	return $rc
}
ktap_test_result "16 READs, SENDs and WRITEs posted together complete with their bytes" \
	traffic

inflight() {
	sed -n "s/^$1 //p" "$tmp/inflight"
}

# at_least|exactly|at_most KIND N
in_flight() {
	local got
	got=$(inflight "$2")
	[ -n "$got" ] || { echo "no count of $2"; return 1; }
	case $1 in
	exactly) [ "$got" -eq "$3" ] ;;
	at_least) [ "$got" -ge "$3" ] ;;
	at_most) [ "$got" -le "$3" ] ;;
	esac || { echo "$2: $got in flight, want $1 $3"; return 1; }
}
ktap_test_result "READs in flight: max_rd_atomic (4)" in_flight exactly READ 4
ktap_test_result "SENDs in flight: more than one" in_flight at_least SEND 2
ktap_test_result "WRITEs in flight: more than one" in_flight at_least WRITE 2
ktap_test_result "no message starts with more than 128 PSNs unacknowledged" \
	in_flight at_most window 128

ktap_finished
