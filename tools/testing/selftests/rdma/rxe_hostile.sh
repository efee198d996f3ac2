#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Hostile RoCEv2 packets against a live RC QP: each is dropped or NAKed,
# the right hw counter moves, and nothing reaches memory outside the MR.
# rxe1 on ve0 (wire_lib.sh, no rxe on ve1); roce_traffic.py hold keeps
# QPs in RTS and one MR between two canary pages; roce_inject.py sends
# from ve1, one packet per case, each case on a QP of its own (a NAK
# can move a QP to the error state); tcpdump on ve1 captures what rxe1
# answers.  Per case: stock's answer (ACK, NAK and its syndrome, or
# nothing) and exactly the hw counters stock moves, measured on stock.
# Then: no answer carries canary bytes, the canary pages are intact, no
# hostile WRITE's bytes and no hostile atomic reached memory.
# Stock drops a bad ICRC, a truncated header and an unknown QPN without
# moving any counter; the issue wants them counted: ours counts them in
# its optional counters (enabled first; stock has none), each case moving
# exactly its own one, and on stock that check skips.  Stock answers a
# READ request that carries a payload (IBTA: a length that does not fit
# the opcode); ours must drop it (counted as malformed) or NAK it, on
# stock that check skips.  With the optional counters enabled every other
# case moves on ours exactly what it moves on stock.
# READs longer than 2^31 bytes (0xffffffff, and 0xfffffff0, from which
# the count of response packets wrapped in 32 bits): ours NAKs them as
# invalid requests before looking at the key; stock NAKs them as access
# errors (the MR is one page: measured), which each run checks.
# A READ of 8 MiB, then at once 200 READs of 256 bytes behind it, on one
# QP (max_dest_rd_atomic 4): while the long READ streams, ours queues at
# most 4 READs and drops the rest, counted in rcvd_resp_overflow_err
# (optional); the PSNs after the gap are then out of sequence, so at most
# 4 of the 200 are answered (counted by what rxe1 sends beyond the long
# READ's 8192 responses: at most 4 and one sequence NAK).  Stock queues
# them all (unbounded) and answers every one: that check skips on stock
# with the count measured.
# A forged READ_RESPONSE_ONLY of 64 bytes to a READ of 256 bytes (the
# holder's --short-read QP, SQ PSN 5000): ours completes the READ with
# IBV_WC_BAD_RESP_ERR (7), never with success; on stock the check skips
# with the status measured.
# An IBTA 1.5 FLUSH, placement type global and persistent: ours has no
# QP with flush access, so it NAKs both as invalid requests (as
# upstream's rxe does such a QP's); stock 6.1 drops the unknown opcode
# without a counter (measured), which the stock run checks.
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/wire_lib.sh"

ktap_print_header
if ! command -v tcpdump >/dev/null || [ ! -d /usr/lib/python3/dist-packages/scapy ]; then
	ktap_set_plan 1
	ktap_test_skip "hostile packets" "no tcpdump or python3-scapy (scripts/setup)"
	ktap_finished
fi

tmp=$(mktemp -d)
trap 'touch "$tmp/go"; wire_down; rm -rf "$tmp"' EXIT
modprobe rdma_rxe
wire_up no-rxe2 || { echo "# no veth setup"; exit 1; }
# Ours: the receive drop counters (rxe_hw_counters.c), off by default.
DROPS=rcvd_icrc_err,rcvd_malformed_err,rcvd_no_qp_err,rcvd_qp_mismatch_err,rcvd_resp_overflow_err
if ours; then
	rdma statistic set link rxe1/1 optional-counters "$DROPS" ||
		{ echo "# cannot enable $DROPS"; exit 1; }
fi

# The target.
python3 "$TESTDIR/roce_traffic.py" hold --dev rxe1 --peer "$WIRE_B" --qps 20 \
	--big-mib 8 --short-read \
	--dir "$tmp" --wait $((900 * ${OOT_TIMEOUT_SCALE:-1})) >"$tmp/hold" 2>"$tmp/hold.err" &
HOLD=$!
eventually 60 test -e "$tmp/ready" || { cat "$tmp/hold.err"; exit 1; }
read -r -a QPN <<<"$(sed -n 's/^qpns //p' "$tmp/hold")"
read -r -a PSN <<<"$(sed -n 's/^psns //p' "$tmp/hold")"
RKEY=$(sed -n 's/^rkey //p' "$tmp/hold")
VA=$(sed -n 's/^va //p' "$tmp/hold")
LEN=$(sed -n 's/^len //p' "$tmp/hold")
BIG_RKEY=$(sed -n 's/^big_rkey //p' "$tmp/hold")
BIG_VA=$(sed -n 's/^big_va //p' "$tmp/hold")
BIG_LEN=$(sed -n 's/^big_len //p' "$tmp/hold")
READ_QPN=$(sed -n 's/^read_qpn //p' "$tmp/hold")
BADKEY=$((RKEY ^ 0x5a00))
echo "# target: QPs ${QPN[*]}, rkey $RKEY, va $(printf %#x "$VA"), $LEN bytes"

# name, QP index, then the packet (roce_inject.py keys).  Hostile WRITEs
# carry 'X' (fill 0x58): the holder counts those bytes afterwards.
i=0
c() {
	local name=$1
	shift
	echo "$name qpn=${QPN[$i]} psn=${PSN[$i]} $*" >>"$tmp/batch"
	NAMES+=("$name")
	i=$((i + 1))
}
NAMES=()
c ok_send opcode=RC_SEND_ONLY payload=32 fill=0x4d
c ok_read opcode=RC_RDMA_READ_REQUEST va=$VA rkey=$RKEY len=256
c bad_icrc opcode=RC_SEND_ONLY payload=32 icrc=bad
c truncated opcode=RC_RDMA_WRITE_ONLY truncate=16 va=$VA rkey=$RKEY payload=64 fill=0x58
c read_with_payload opcode=RC_RDMA_READ_REQUEST va=$VA rkey=$RKEY len=64 payload=64
c write_len_mismatch opcode=RC_RDMA_WRITE_ONLY va=$VA rkey=$RKEY len=64 payload=128 fill=0x58
c psn_ahead opcode=RC_SEND_ONLY payload=32 psn=$((PSN[6] + 0x1000)) fill=0x4d
c write_bad_rkey opcode=RC_RDMA_WRITE_ONLY va=$VA rkey=$BADKEY payload=64 fill=0x58
c read_bad_rkey opcode=RC_RDMA_READ_REQUEST va=$VA rkey=$BADKEY len=64
c atomic_bad_rkey opcode=RC_FETCH_ADD va=$VA rkey=$BADKEY swap=1
c write_out_of_range opcode=RC_RDMA_WRITE_ONLY va=$((VA + LEN - 32)) rkey=$RKEY payload=64 fill=0x58
c read_out_of_range opcode=RC_RDMA_READ_REQUEST va=$((VA - 64)) rkey=$RKEY len=128
c read_va_overflow opcode=RC_RDMA_READ_REQUEST va=0xffffffffffffff00 rkey=$RKEY len=0x200
c read_huge_len opcode=RC_RDMA_READ_REQUEST va=$VA rkey=$RKEY len=0xffffffff
c atomic_out_of_range opcode=RC_FETCH_ADD va=$((VA + LEN)) rkey=$RKEY swap=1
c read_len_wrap opcode=RC_RDMA_READ_REQUEST va=$VA rkey=$RKEY len=0xfffffff0
# IBTA 1.5 FLUSH (0x1c) of the MR's first 64 bytes, placement type
# global visibility (1) and persistence (2).
c flush_global opcode=0x1c va=$VA rkey=$RKEY len=64 plt=1
c flush_persistent opcode=0x1c va=$VA rkey=$RKEY len=64 plt=2
c unknown_qpn opcode=RC_SEND_ONLY payload=32 qpn=0xfff0
# After the batch above (their exact counters): the short READ response,
# to the --short-read QP, whose READ is posted just before (its
# retransmissions would move counters); then, outside the capture, the
# flood: the long READ, and the READs behind it.
echo "short_read_response qpn=$READ_QPN psn=5000 opcode=RC_RDMA_READ_RESPONSE_ONLY" \
	"aeth=0x1f000000 payload=64 fill=0x52" >"$tmp/batch.short"
FLOOD=200
c read_flood opcode=RC_RDMA_READ_REQUEST va=$BIG_VA rkey=$BIG_RKEY len=$BIG_LEN + \
	qpn=${QPN[$i]} psn=$((PSN[i] + BIG_LEN / 1024)) opcode=RC_RDMA_READ_REQUEST \
	va=$VA rkey=$RKEY len=256 repeat=$FLOOD
tail -n 1 "$tmp/batch" >"$tmp/batch.flood"
sed -i '$d' "$tmp/batch"

inject() {
	python3 "$TESTDIR/roce_inject.py" --iface ve1 --dst-mac "$(cat /sys/class/net/ve0/address)" \
		--src-ip "$WIRE_B" --dst-ip "$WIRE_A" --counters rxe1 --out "$tmp" --gap 0.5 \
		--batch "$1" | sed 's/^/# /'
}
capture_start ve1 "$tmp/cap.pcap" "$WIRE_A"
inject "$tmp/batch"
touch "$tmp/read"
eventually 20 test -e "$tmp/read.posted" || echo "# the holder did not post the short READ"
sleep 0.5
inject "$tmp/batch.short"
capture_stop
# The flood, outside the capture (thousands of responses): what rxe1
# sends for it counts the READs answered.  Its long READ's responses and
# what follows them have all left when the count settles (the short
# READ's retransmissions, on stock, may go on).
sent() {
	cat /sys/class/infiniband/rxe1/ports/1/hw_counters/sent_pkts
}
settled() {
	local before
	before=$(sent)
	sleep 1
	[ $(($(sent) - before)) -lt 50 ]
}
flood_before=$(sent)
inject "$tmp/batch.flood"
eventually 120 settled || echo "# rxe1 still sending after 120 s"
# Beyond the long READ's responses: one READ_RESPONSE_ONLY per flood
# READ answered, and at most one PSN sequence NAK.
flood_sent=$(($(sent) - flood_before - BIG_LEN / 1024))
touch "$tmp/go"
wait $HOLD
sed 's/^/# holder: /' "$tmp/hold" | tail -n 3

# What rxe1 answered, per case (by the made-up peer QP it answers to):
# "case opcode syndrome canary" lines.
python3 - "$tmp/cap.pcap" "${NAMES[@]}" >"$tmp/answers" <<-'PY'
import struct, sys
# tcpdump's classic pcap, read here: importing scapy costs a process
# 5 to 8 s under TCG (python3 alone: 0.7).
def frames(path):
    with open(path, "rb") as f:
        hdr = f.read(24)
        end = "<" if hdr[:4] in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
        while True:
            rec = f.read(16)
            if len(rec) < 16:
                return
            incl = struct.unpack(end + "IIII", rec)[2]
            yield f.read(incl)
names = sys.argv[2:]
for b in frames(sys.argv[1]):
    if len(b) < 14 + 20 + 8 + 12 or b[12:14] != b"\x08\x00" or b[26:30] != bytes([10, 203, 0, 1]):
        continue
    ihl = (b[14] & 15) * 4
    total = struct.unpack("!H", b[16:18])[0]
    roce = b[14 + ihl + 8:14 + total - 4]
    op = roce[0]
    qpn = struct.unpack("!I", roce[4:8])[0] & 0xffffff
    case = names[qpn - 0x100] if 0 <= qpn - 0x100 < len(names) else "qp%#x" % qpn
    syn = "%#04x" % roce[12] if op in (0x0d, 0x0f, 0x10, 0x11, 0x12) else "-"
    print(case, "%#04x" % op, syn, int(b"CANARY" in roce), int(b"MRdata" in roce))
PY
grep -v '^qp0x' "$tmp/answers" | sed 's/^/# answer: /'

# delta NAME: the counters of rxe1 that moved during the case, "name+N".
delta() {
	join "$tmp/$1.before" "$tmp/$1.after" |
		awk '$3 != $2 && $1 != "lifespan" { printf "%s+%d ", $1, $3 - $2 }' | sed 's/ $//'
}
# answers NAME: "opcode/syndrome" of each answer to the case.
answers() {
	awk -v n="$1" '$1 == n { printf "%s/%s ", $2, $3 }' "$tmp/answers" | sed 's/ $//'
}

ACK=0x11/0x1f
NAK_INV=0x11/0x61	# NAK: invalid request
NAK_SEQ=0x11/0x60	# NAK: PSN sequence error
NAK_ACC=0x11/0x62	# NAK: remote access error
PKT="rcvd_pkts+1 sent_pkts+1"
# name, stock's answers, the counters stock moves (measured); for the
# drops stock does not count, the optional counter ours moves.
EXPECT=(
	"ok_send|$ACK|rcvd_pkts+1 rdma_recvs+1 sent_pkts+1"
	"ok_read|0x10/0x1f|$PKT"
	"bad_icrc|||rcvd_icrc_err+1"
	"truncated|||rcvd_malformed_err+1"
	"read_with_payload|0x10/0x1f|$PKT|rcvd_malformed_err+1"
	"write_len_mismatch|$NAK_INV|$PKT"
	"psn_ahead|$NAK_SEQ|out_of_seq_request+1 $PKT"
	"write_bad_rkey|$NAK_ACC|$PKT"
	"read_bad_rkey|$NAK_ACC|$PKT"
	"atomic_bad_rkey|$NAK_ACC|$PKT"
	"write_out_of_range|$NAK_ACC|$PKT"
	"read_out_of_range|$NAK_ACC|$PKT"
	"read_va_overflow|$NAK_ACC|$PKT"
	"read_huge_len|$NAK_ACC|$PKT"
	"atomic_out_of_range|$NAK_ACC|$PKT"
	"read_len_wrap|$NAK_ACC|$PKT"
	"unknown_qpn|||rcvd_no_qp_err+1"
	"flush_global|||"
	"flush_persistent|||"
)
ktap_set_plan $((${#EXPECT[@]} * 2 + 4 + 3))

for e in "${EXPECT[@]}"; do
	IFS='|' read -r n ans cnt drop <<<"$e"
	case $n in
	read_with_payload)
		if ours; then
			ktap_test_result "$n: dropped or NAKed (invalid request)" \
				eval '[ -z "$(answers $n)" ] || expect_eq answers "$(answers $n)" $NAK_INV'
			# A NAK would be counted as stock counts packets.
			[ -n "$(answers $n)" ] && drop=$PKT
			ktap_test_result "$n: counters $drop" expect_eq "counters" "$(delta $n)" "$drop"
		else
			ktap_test_skip "$n: dropped or NAKed" \
				"stock answers it with READ_RESPONSE_ONLY (measured)"
			ktap_test_skip "$n: counted" "stock answers it (measured)"
		fi
		continue
		;;
	flush_global | flush_persistent)
		# Stock 6.1 does not know the opcode: dropped, no counter
		# (measured).  No QP of ours has flush access (the 6.1 ABI
		# has no such flag): refused as upstream's rxe refuses a QP
		# without it, so that the peer's WR fails at once.
		if ours; then
			ans=$NAK_INV
			cnt=$PKT
		fi
		ktap_test_result "$n: answer ${ans:-none}" expect_eq "answers" "$(answers "$n")" "$ans"
		ktap_test_result "$n: counters ${cnt:-none}" expect_eq "counters" "$(delta "$n")" "$cnt"
		continue
		;;
	read_huge_len | read_len_wrap)
		# Longer than IBTA's 2^31: invalid whatever the key (stock:
		# access error, as the MR is shorter).
		ours && ans=$NAK_INV
		ktap_test_result "$n: answer $ans" expect_eq "answers" "$(answers "$n")" "$ans"
		ktap_test_result "$n: counters $cnt" expect_eq "counters" "$(delta "$n")" "$cnt"
		continue
		;;
	esac
	ktap_test_result "$n: answer ${ans:-none}, as stock" expect_eq "answers" "$(answers "$n")" "$ans"
	if [ -n "$cnt" ]; then
		ktap_test_result "$n: counters $cnt, as stock" expect_eq "counters" "$(delta "$n")" "$cnt"
	elif ours; then
		ktap_test_result "$n: dropped and counted, $drop" expect_eq "counters" \
			"$(delta "$n")" "$drop"
	else
		ktap_test_skip "$n: dropped and counted" "stock moves no counter for it (measured)"
	fi
done

overflow=$(delta read_flood | tr ' ' '\n' | sed -n 's/^rcvd_resp_overflow_err+//p')
echo "# read_flood: $flood_sent packets beyond the long READ's, ${overflow:-0} dropped as overflow"
if ours; then
	ktap_test_result "read_flood: at most max_dest_rd_atomic (4) of $FLOOD queued READs answered" \
		eval '[ "$flood_sent" -le 5 ] || expect_eq "responses and NAKs" "$flood_sent" "<= 5"'
	ktap_test_result "read_flood: the READs beyond are dropped and counted" \
		eval '[ "${overflow:-0}" -ge 1 ] || expect_eq rcvd_resp_overflow_err "${overflow:-0}" ">= 1"'
else
	ktap_test_skip "read_flood: at most 4 of $FLOOD queued READs answered" \
		"stock queues without bound: $flood_sent packets beyond the long READ's (measured)"
	ktap_test_skip "read_flood: the READs beyond are dropped and counted" \
		"stock has no such counter"
fi
short=$(sed -n 's/^short_read_status //p' "$tmp/hold")
echo "# short_read_response: the READ completed with status ${short:-none}"
if ours; then
	ktap_test_result "a READ answered short completes with IBV_WC_BAD_RESP_ERR" \
		expect_eq "status" "$short" 7
else
	ktap_test_skip "a READ answered short completes in error" \
		"stock: status $short (-1: no completion in 5 s; measured)"
fi

ktap_test_result "no answer carries bytes from outside the MR (canary)" \
	expect_eq "answers with canary bytes" "$(awk '$4 != 0' "$tmp/answers" | wc -l)" 0
ktap_test_result "the valid READ returns the MR's bytes" \
	expect_eq "ok_read answers with the MR's pattern" \
	"$(awk '$1 == "ok_read" && $5 == 1' "$tmp/answers" | wc -l)" 1
ktap_test_result "the canary pages around the MR are intact" \
	expect_eq "canary_intact" "$(sed -n 's/^canary_intact //p' "$tmp/hold")" 1
# The valid SEND wrote 32 bytes 'M' over "MRdata.." (28 of them differ);
# nothing else may change: no hostile WRITE's 'X', no hostile atomic.
ktap_test_result "only the valid SEND changed the MR" eval \
	'expect_eq fill_bytes "$(sed -n "s/^fill_bytes //p" "$tmp/hold")" 0 &&
	 expect_eq mr_bytes_changed "$(sed -n "s/^mr_bytes_changed //p" "$tmp/hold")" 28'
ktap_finished
