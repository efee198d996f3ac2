#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Show that roce_engine_test's cases can fail: break the engine on
# purpose, one mutation at a time, in a copy (never in the tree), and
# report which cases fail.  Each mutation replaces one exact piece of
# the engine's source; one that no longer matches is reported NOMATCH
# (the engine changed: update the table).  Every case of the test
# should appear in some mutation's failures; a mutation no case
# catches is reported SURVIVED.  About 20 s per mutation.
#
#   tools/qemu/tests/roce_engine_mutate.sh [-o DIR] [NAME...]
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
out=
if [ "${1:-}" = -o ]; then
	out=$2
	shift 2
fi
if [ -z "$out" ]; then
	out=$(mktemp -d)
	trap 'rm -rf "$out"' EXIT
fi
mkdir -p "$out"

# name~file~old~new, one a line ("\n" for a newline).  The parser's
# length checks overlap (a missing one is caught by the next): they go
# in pairs.
MUTATIONS='
icrc_unmasked_bth~roce-wire.c~    h[iplen + UDP_HLEN + 4] = 0xff;~
no_ackreq_on_last~roce-req.c~    p.ackreq = last ||~    p.ackreq = 0 ||
atomic_executed_twice~roce-resp.c~        if (res->atomic) {~        if (res->atomic && 0) {
no_retransmit~roce-req.c~    roce_req_rewind(qp);\n    qp->in_retry = true;~    qp->in_retry = true;
no_rnr_nak~roce-resp.c~    if (r == ROCE_RESP_RNR) {~    if (r == ROCE_RESP_RNR && 0) {
no_grh~roce-resp.c~memcpy(grh + ROCE_GRH_LEN - pkt->iplen, pkt->ip, pkt->iplen);~memset(grh, 1, 1);
no_qkey_check~roce-resp.c~    if (pkt->qkey != want || ~    if (
no_send_flush~roce-qp.c~    roce_req_flush(qp);\n    roce_resp_flush(qp);~    roce_resp_flush(qp);
read_replay_at_start~roce-resp.c~pkt->va != res->va + skip~pkt->va != res->va
no_immediate~roce-resp.c~            c.imm = pkt->imm;~
no_invalidate~roce-resp.c~    if ((pkt->flags & ROCE_F_IETH) &&~    if (0 &&
no_sequence_nak~roce-resp.c~        if (!qp->nak_sent) {~        if (0) {
no_window~roce-req.c~                  ROCE_MAX_UNACKED_PSNS) {~                  ROCE_MAX_UNACKED_PSNS * 100) {
no_fence~roce-req.c~    if ((wr->flags & ROCE_WR_FENCE) && roce_req_rd_atomic_out(qp)) {~    if (0) {
no_write_access~roce-resp.c~        if (!(qp->attr.access & ROCE_ACCESS_REMOTE_WRITE)) {~        if (0) {
no_read_access~roce-resp.c~    if (!(qp->attr.access & ROCE_ACCESS_REMOTE_READ)) {~    if (0) {
read_rkey_unchecked~roce-resp.c~        return ROCE_NAK_REM_ACCESS;\n    }\n    n = roce_npkts~    }\n    n = roce_npkts
no_gather_error~roce-req.c~                roce_req_fail(qp, qp->req_idx, r == -2 ?~                if (0) roce_req_fail(qp, qp->req_idx, r == -2 ?
no_recv_length_check~roce-resp.c~    if ((uint64_t)qp->recv_off + pkt->paylen > room) {~    if (0) {
rnr_retry_uncounted~roce-req.c~    if (qp->rnr_left != 7) {~    if (0) {
retry_uncounted~roce-req.c~    qp->retry_left--;~
srq_as_flush~roce-resp.c~qp, &qp->rwr, false);~qp, &qp->rwr, true);
no_local_op~roce-req.c~        rc = e->ops->local_op(e->opaque, qp, wr);~        rc = 0;
gsi_source_qpn~roce-req.c~qp->attr.type == ROCE_QPT_GSI ? 1 : qp->attr.qpn;~qp->attr.qpn;
vlan_lost~roce-wire.c~        pkt->vlan_valid = true;~
sge_offset_kept~roce-qp.c~        len -= n;\n        off = 0;~        len -= n;
cmp_swap_fields~roce-req.c~ROCE_WR_CMP_SWP ? wr->swap :~ROCE_WR_CMP_SWP ? wr->compare_add :
read_not_finished_first~roce-resp.c~    if (qp->rd_active) {\n        roce_resp_run(qp, UINT32_MAX);~    if (0) {\n        roce_resp_run(qp, UINT32_MAX);
no_rd_atomic_limit~roce-req.c~roce_req_rd_atomic_out(qp) >= max_rd) {~roce_req_rd_atomic_out(qp) >= 100) {
no_header_and_payload_bounds~roce-wire.c~    if ((size_t)(end - b) < hl + pkt->pad) {\n        return -1;\n    }\n    pkt->payload = b + hl;\n    pkt->paylen = (uint32_t)((size_t)(end - b) - hl - pkt->pad);\n    if (!(flags & ROCE_F_PAYLOAD) && (pkt->paylen || pkt->pad)) {\n        return -1;\n    }\n    if (pkt->paylen > ROCE_MAX_MTU) {\n        return -1;\n    }~    pkt->payload = b + hl;\n    pkt->paylen = (uint32_t)((size_t)(end - b) - hl - pkt->pad);
no_udp_length_checks~roce-wire.c~    if (udplen < UDP_HLEN + ROCE_BTH_LEN + ROCE_ICRC_LEN ||~    if (
no_multicast~roce-qp.c~        roce_rx_mcast(e, &pkt);\n        return;~        return;
xrceth_zero~roce-wire.c~        roce_put_be32(b, pkt->xrc_srqn & 0xffffff);~        roce_put_be32(b, 0);
'

cases=$(grep -o '{ "[a-z0-9_]*", t_' "$here/roce_engine_test.c" | cut -d'"' -f2)
caught=" "
status=0
while IFS='~' read -r name file old new; do
	[ -n "$name" ] || continue
	if [ $# -gt 0 ] && [[ " $* " != *" $name "* ]]; then
		continue
	fi
	rm -rf "$out/src"
	mkdir -p "$out/src"
	cp "$repo"/tools/qemu/hw/roce/*.[ch] "$out/src/"
	if ! OLD=$old NEW=$new F=$out/src/$file python3 -c '
import os, sys
f = os.environ["F"]
o = os.environ["OLD"].replace("\\n", "\n")
n = os.environ["NEW"].replace("\\n", "\n")
s = open(f).read()
if o not in s:
    sys.exit(1)
open(f, "w").write(s.replace(o, n, 1))'; then
		echo "$name: NOMATCH in $file"
		status=1
		continue
	fi
	if ! nice -n 10 "${CC:-cc}" -std=gnu11 -g -O1 -w -fsanitize=address,undefined \
		-fno-sanitize-recover=all -DROCE_STANDALONE -I"$out/src" -o "$out/t" \
		"$here/roce_engine_test.c" "$out"/src/roce-*.c 2>"$out/cc.log"; then
		echo "$name: does not build"
		status=1
		continue
	fi
	timeout 600 "$out/t" -p "$out/m.pcap" >"$out/$name.log" 2>&1
	fails=$(grep '^not ok' "$out/$name.log" | awk '{print $4}' | tr '\n' ' ')
	if grep -q 'ERROR: AddressSanitizer\|runtime error' "$out/$name.log"; then
		# The case that was running when the sanitizer stopped it.
		last=$(grep -E '^(not )?ok ' "$out/$name.log" | tail -n 1 | awk '{print $NF}')
		next=$(echo "$cases" | grep -A1 -x "$last" | tail -n 1)
		fails="$fails${next:-?}(sanitizer)"
	fi
	if [ "$name" = icrc_unmasked_bth ] && [ -z "$fails" ]; then
		# Both ends share the ICRC: only the independent check sees it.
		if ! "$repo/tools/testing/selftests/rdma/roce_capture_check.py" \
			"$out/m.pcap" >"$out/$name.cap" 2>&1; then
			fails="capture(roce_capture_check.py)"
		fi
	fi
	if [ -z "$fails" ]; then
		echo "$name: SURVIVED"
		status=1
	else
		echo "$name: caught by $fails"
		caught="$caught$fails "
	fi
done <<<"$MUTATIONS"

if [ $# -eq 0 ]; then
	for c in $cases; do
		case "$caught" in
		*" $c "* | *" $c("*) ;;
		*)
			echo "case $c: no mutation makes it fail"
			status=1
			;;
		esac
	done
fi
exit $status
