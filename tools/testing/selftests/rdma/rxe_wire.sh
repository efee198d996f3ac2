#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# What rxe puts on the wire, judged by code we did not write.  Two rxe
# devices on a veth pair (wire_lib.sh); each case sends one message with
# fresh QPs (roce_traffic.py) while tcpdump captures ve0; then
# roce_capture_check.py: tshark decodes every packet with no malformed
# one, every ICRC recomputes (our code and scapy's), AckReq only on the
# last packet of a request, MigReq 0, one UDP source port per QP, all to
# port 4791, and exactly the packets stock sends for that message; and
# the devices' hw counters moved by exactly the packets captured, error
# counters not at all.  Expectations measured on stock (datapath.md,
# "Wire facts").
#
# Twice: on the veth as it is, and with the veth's tx-gso-list feature
# off.  Our rxe batches a run's packets into one GSO super-packet for a
# netdev without that feature (rxe_xmit.c), which the netdev segments
# before its packet taps: the capture must be the same packets, every
# IPv4 identifier and ICRC right, and the kernel must have segmented
# batches (a kprobe on skb_segment_list).  Then, still without it, an
# RC ping-pong: it completes (the last ACK, parked, is not lost when the
# QPs go), its capture passes the same checks, and its ACKs waited for
# the reply's batch or the 2 ms timer.  Stock sends one packet at a
# time, and each ACK at once: those two checks skip on it.  The three
# captures are judged by one run of the check, after the traffic.
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/wire_lib.sh"

# case, then the packets of its one message (path MTU 1024) and the
# messages the rdma_sends counter of rxe1 and rdma_recvs of rxe2 count.
CASES=(
	"rc_send RC_SEND_FIRST=1 RC_SEND_MIDDLE=2 RC_SEND_LAST=1 RC_ACKNOWLEDGE=1
	 ackreq:RC_SEND_LAST=1 packets=5 msgs=1"
	"rc_write RC_WRITE_FIRST=1 RC_WRITE_MIDDLE=6 RC_WRITE_LAST=1 RC_ACKNOWLEDGE=1
	 ackreq:RC_WRITE_LAST=1 packets=9 msgs=0"
	"rc_read RC_READ_REQUEST=1 RC_READ_RESPONSE_FIRST=1 RC_READ_RESPONSE_MIDDLE=6
	 RC_READ_RESPONSE_LAST=1 ackreq:RC_READ_REQUEST=1 packets=9 msgs=0"
	"rc_fetch_add RC_FETCH_ADD=1 RC_ATOMIC_ACKNOWLEDGE=1 ackreq:RC_FETCH_ADD=1
	 packets=2 msgs=0"
	"ud_send UD_SEND_ONLY=1 packets=1 msgs=1"
	"uc_send UC_SEND_FIRST=1 UC_SEND_LAST=1 packets=2 msgs=1"
)
# Not counters of traffic or errors: must not move either.
ktap_print_header
if ! command -v tshark >/dev/null || [ ! -d /usr/lib/python3/dist-packages/scapy ]; then
	ktap_set_plan 1
	ktap_test_skip "wire checks" "no tshark or python3-scapy (scripts/setup)"
	ktap_finished
fi
# Two passes of the cases, then the batches and the ping-pong.
ktap_set_plan $((2 * ${#CASES[@]} * 3 + 4))

tmp=$(mktemp -d)
trap 'seglist_probe_off; wire_down; rm -rf "$tmp"' EXIT
modprobe rdma_rxe
wire_up || { echo "# no two-device setup"; exit 1; }

# A kprobe event on the segmentation of FRAGLIST super-packets.
SEGLIST_PROBE="p:oot_wire/seglist skb_segment_list"
seglist_probe_on() {
	probes_on "$SEGLIST_PROBE"
}
seglist_probe_off() {
	probes_off "$SEGLIST_PROBE"
	probes_del "$SEGLIST_PROBE"
}
# seglist_hits: super-packets segmented since seglist_probe_on.
seglist_hits() {
	grep -c ' seglist:' "$TRACEFS/trace"
}

# counters_match DIR CASE MSGS: the counter deltas of a pass (its
# directory) against the capture's packets per source address
# (sent_pkts, rcvd_pkts), MSGS messages (rdma_sends of rxe1, rdma_recvs
# of rxe2), and 0 for every error counter.
counters_match() {
	local d=$1 c=$2 msgs=$3 dev src rc=0
	for dev in rxe1 rxe2; do
		src=$WIRE_A
		[ $dev = rxe1 ] || src=$WIRE_B
		join "$d/$c.$dev.before" "$d/$c.$dev.after" |
		awk -v dev=$dev -v from="$(from_src "$d" "$c" "$src" from)" \
			-v to="$(from_src "$d" "$c" "$src" to)" -v msgs="$msgs" '
			$1 == "lifespan" { next }	# a setting, not a counter
			{
				d = $3 - $2
				want = 0
				if ($1 == "sent_pkts")
					want = from
				else if ($1 == "rcvd_pkts")
					want = to
				else if ((dev == "rxe1" && $1 == "rdma_sends") ||
					 (dev == "rxe2" && $1 == "rdma_recvs"))
					want = msgs
				if (d != 0)
					printf "%s %s +%d\n", dev, $1, d
				if (d != want) {
					printf "%s %s: got +%d, want +%d\n", dev, $1, d, want
					bad = 1
				}
			}
			END { exit bad }' || rc=1
	done
	return $rc
}

# from_src DIR CASE ADDR from|to: the case's packets from ADDR, or to
# it (DIR/CASE.by_src: "address packets" a line).
from_src() {
	awk -v a="$3" -v d="$4" '($1 == a) == (d == "from") { n += $2 } END { print n + 0 }' \
		"$1/$2.by_src"
}

# capture_ok DIR CASE: the check's verdict on that case's packets.
capture_ok() {
	[ ! -s "$1/$2.errors" ] || { cat "$1/$2.errors"; return 1; }
}

# wire_traffic PASS: one capture and one traffic process for every case
# (pyverbs starts once; it is slow under TCG) into $tmp/PASS, and a line
# of $tmp/spec for each case: its packets are those to its own QPs.
wire_traffic() {
	local d=$tmp/$1 c f qpns names=()

	mkdir "$d"
	for c in "${CASES[@]}"; do
		read -r -a f <<<"$(echo "$c" | tr '\n\t' '  ')"
		names+=("${f[0]}")
	done
	capture_start ve0 "$d/all.pcap" "$WIRE_B"
	timeout 120 python3 "$TESTDIR/roce_traffic.py" wire --a rxe1 --b rxe2 \
		--counters "$d" "${names[@]}" >"$d/traffic" 2>&1
	capture_stop
	sed "s/^/# $1: /" "$d/traffic"
	for c in "${CASES[@]}"; do
		read -r -a f <<<"$(echo "$c" | tr '\n\t' '  ')"
		qpns=$(sed -n "s/^${f[0]}: ok qpns //p" "$d/traffic")
		echo "$d/all.pcap name=$1/${f[0]} qpns=${qpns:-none} ${f[*]:1}" |
			sed 's/ msgs=[0-9]*//' >>"$tmp/spec"
	done
}

# wire_results PASS: each case's results, from the one check of every
# capture (check_all).
wire_results() {
	local d=$tmp/$1 c f name msgs

	for c in "${CASES[@]}"; do
		read -r -a f <<<"$(echo "$c" | tr '\n\t' '  ')"
		name=${f[0]}
		msgs=${f[-1]#msgs=}
		ktap_test_result "$1: $name: the message arrives" \
			grep -q "^$name: ok" "$d/traffic"
		ktap_test_result "$1: $name: tshark decodes, ICRCs verify, flags and packets as stock" \
			capture_ok "$d" "$name"
		ktap_test_result "$1: $name: hw counters count the packets, no error" \
			counters_match "$d" "$name" "$msgs"
	done
}

# check_all: roce_capture_check.py once over both passes' captures and
# the ping-pong's (python, scapy and tshark each start once: about 20 s
# under TCG); each entry's errors and packets per source into
# $tmp/PASS/CASE.errors and .by_src, the ping-pong's summary into
# $tmp/pp.json.
check_all() {
	python3 "$TESTDIR/roce_capture_check.py" --strict --json "$tmp/all.json" \
		--spec "$tmp/spec" "$tmp/pp.pcap" | sed 's/^/# /'
	python3 - "$tmp" <<-'PY'
	import json, os, sys
	tmp = sys.argv[1]
	for name, s in json.load(open(os.path.join(tmp, "all.json"))).items():
	    if name.endswith(".pcap"):
	        json.dump(s, open(os.path.join(tmp, "pp.json"), "w"))
	        continue
	    with open(os.path.join(tmp, name + ".errors"), "w") as f:
	        f.write("".join(e + "\n" for e in s["errors"]))
	    with open(os.path.join(tmp, name + ".by_src"), "w") as f:
	        f.write("".join("%s %d\n" % kv for kv in s["by_src"].items()))
	PY
}

wire_traffic veth

ethtool -K "$TWO_IF1" tx-gso-list off && ethtool -K "$TWO_IF2" tx-gso-list off ||
	echo "# ethtool could not turn tx-gso-list off"
probe=0
seglist_probe_on && probe=1
wire_traffic gso-list-off
hits=$(seglist_hits 2>/dev/null || echo 0)
seglist_probe_off

# pp_json KEY: a figure of the ping-pong capture's summary.
pp_json() {
	python3 -c 'import json, sys
print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$tmp/pp.json" "$1"
}
mkdir "$tmp/pp"
capture_start ve0 "$tmp/pp.pcap" "$WIRE_B"
TOOL_OUT=$tmp/pp tool_pair "" rxe2 "$WIRE_B" "" rxe1 "$WIRE_A" -g \
	ibv_rc_pingpong -n 20 -s 4096 >"$tmp/pp.log" 2>&1
pp=$?
capture_stop
sed 's/^/# /' "$tmp/pp.log"

check_all
wire_results veth
wire_results gso-list-off
echo "# super-packets segmented: $hits"
if ! ours; then
	ktap_test_skip "gso-list-off: the packets left in batches" \
		"stock sends one packet at a time"
elif [ $probe = 0 ]; then
	ktap_test_fail "gso-list-off: the packets left in batches (no kprobe event)"
else
	ktap_test_result "gso-list-off: the packets left in batches" [ "$hits" -gt 0 ]
fi
ktap_test_result "gso-list-off: ibv_rc_pingpong 4 KiB x 20 completes" [ $pp = 0 ]
ktap_test_result "gso-list-off: ping-pong: tshark decodes, ICRCs verify, flags as stock" \
	[ "$(pp_json errors 2>/dev/null)" = "[]" ]
acks=$(pp_json acks 2>/dev/null || echo 0)
trailing=$(pp_json acks_trailing 2>/dev/null || echo 0)
prompt=$(pp_json acks_prompt 2>/dev/null || echo "$acks")
unparked=$(pp_json acks_unparked 2>/dev/null || echo 0)
echo "# ping-pong: of $acks ACKs, $trailing right behind their host's reply," \
	"$prompt sent at once (under 1.9 ms after the request they acknowledge)" \
	"though their host had sent under 7 ms before, $unparked sent at once" \
	"by a host that had not (its application was slow to reply)"
# Only the first (its requester had not sent yet) and the last (its QP
# went) may leave at once though their host sent lately; the others
# wait, for the reply (trailing it) or for the 2 ms timer.  Which of the
# two depends on how soon the applications run, so neither count is
# asserted, only that some ACK waited: in one vCPU shared by both
# applications none trailed a reply (0 of 40; 17 at once from a host
# that had not sent, 23 after the timer), with two vCPUs 4 and more
# did; the debug kernel measured 4 with the reply, 12 at once (its
# replies often take more than 10 ms, and an ACK then goes at once, by
# design).
pp_waited() {
	local waited=$((acks - trailing - prompt - unparked))

	echo "# ping-pong: $waited ACKs waited for the 2 ms timer"
	[ "$prompt" -le 2 ] && [ $((trailing + waited)) -gt 0 ]
}
if ! ours; then
	ktap_test_skip "gso-list-off: ping-pong ACKs wait for a reply or the 2 ms timer" \
		"stock sends each ACK at once ($prompt of $acks)"
else
	ktap_test_result "gso-list-off: ping-pong ACKs wait for a reply or the 2 ms timer" \
		pp_waited
fi
ktap_finished
