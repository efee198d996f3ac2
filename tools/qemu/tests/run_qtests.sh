#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Every model's qtest (tools/qemu/tests/*_qtest.py: a device driven
# without a guest, hostile input included) against the QEMU that
# scripts/qemu-build makes.  make check's qtest step.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
qemu=$("$here/../../../scripts/qemu-build")
rc=0
for t in "$here"/*_qtest.py; do
	echo "# ${t##*/}"
	python3 "$t" "$qemu" || rc=1
done
exit $rc
