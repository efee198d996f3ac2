#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Build the RoCEv2 engine (tools/qemu/hw/roce/) with its unit test on
# the host, under ASan and UBSan, and run it (KTAP on stdout).
#
#   tools/qemu/tests/roce_engine_test.sh [-o DIR] [-- TEST-ARGS...]
#
# DIR (default: a temporary directory) receives the binary and
# roce_engine.pcap, the frames of the test's "capture" case; when tshark
# is installed, tools/testing/selftests/rdma/roce_capture_check.py
# --strict then judges that capture (scripts/setup installs tshark and
# python3-scapy).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
out=
if [ "${1:-}" = -o ]; then
	out=$2
	shift 2
fi
[ "${1:-}" = -- ] && shift
if [ -z "$out" ]; then
	out=$(mktemp -d)
	trap 'rm -rf "$out"' EXIT
fi
mkdir -p "$out"

"${CC:-cc}" -std=gnu11 -g -O1 -Wall -Wextra -Werror -Wno-unused-parameter \
	-fsanitize=address,undefined -fno-sanitize-recover=all \
	-DROCE_STANDALONE -I"$repo/tools/qemu/hw/roce" \
	-o "$out/roce_engine_test" \
	"$here/roce_engine_test.c" "$repo"/tools/qemu/hw/roce/roce-*.c

rc=0
"$out/roce_engine_test" -p "$out/roce_engine.pcap" "$@" || rc=$?

if [ "$(stat -c %s "$out/roce_engine.pcap" 2>/dev/null || echo 0)" -gt 24 ]; then
	if command -v tshark >/dev/null && /usr/bin/python3 -c 'import scapy' 2>/dev/null; then
		# The capture case, over IPv4 then IPv6: SEND 4 KiB and WRITE
		# 8 KiB and READ 8 KiB at MTU 1024, FETCH_ADD, CMP_SWP, WRITE 100
		# bytes with immediate, SEND 1500 with immediate (one ACK per
		# SEND or WRITE), UC SEND 2 KiB, UD SEND 1000: the packets stock
		# rxe sends for those (datapath.md, "Wire facts").
		exp=()
		for e in packets=70 RC_SEND_FIRST=4 RC_SEND_MIDDLE=4 RC_SEND_LAST=2 \
			RC_SEND_LAST_IMM=2 RC_WRITE_FIRST=2 RC_WRITE_MIDDLE=12 \
			RC_WRITE_LAST=2 RC_WRITE_ONLY_IMM=2 RC_READ_REQUEST=2 \
			RC_READ_RESPONSE_FIRST=2 RC_READ_RESPONSE_MIDDLE=12 \
			RC_READ_RESPONSE_LAST=2 RC_FETCH_ADD=2 RC_COMPARE_SWAP=2 \
			RC_ATOMIC_ACKNOWLEDGE=4 RC_ACKNOWLEDGE=8 UC_SEND_FIRST=2 \
			UC_SEND_LAST=2 UD_SEND_ONLY=2 ackreq:RC_SEND_LAST=2 \
			ackreq:RC_WRITE_LAST=2 ackreq:UC_SEND_LAST=2; do
			exp+=(--expect "$e")
		done
		"$repo/tools/testing/selftests/rdma/roce_capture_check.py" --strict \
			"${exp[@]}" "$out/roce_engine.pcap" || rc=1
	else
		echo "# roce_capture_check.py skipped: no tshark or scapy (scripts/setup)"
	fi
fi
exit $rc
