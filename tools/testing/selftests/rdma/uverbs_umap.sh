#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Removing a device under rdma_user_mmap_io() mappings (what hardware
# drivers use for doorbells; rxe does not use it).  The device is the
# test-only module umap_test (modules/umap_test: two pages behind an
# mmap entry), which `make check` builds and passes to the guest; by hand
# (without it the test is skipped):
#	make -C tools/testing/selftests/rdma/modules/umap_test
#	OOT_TESTS=uverbs_umap scripts/vm --ko \
#	    tools/testing/selftests/rdma/modules/umap_test/umap_test.ko -- \
#	    tools/testing/selftests/rdma/run_tests.sh
# While a process maps the pages twice (one mapping read-only and split
# by a partial munmap, one writable; a forked child reads the writable
# one, inherited as stock), the removal completes, the entry is freed by
# then (its mmap_free() ran: no VMA holds it into the freed context),
# mmap() answers EIO, the read-only mapping reads zeros, a write to the
# writable one sticks (stock's zero page / per-file dummy page replace
# the revoked device pages instead of SIGBUS), one mapping unmaps
# cleanly, and the process lives on to read IB_EVENT_DEVICE_FATAL from
# its async event file.
# The same device without disassociate_ucontext (umap_test
# disassociate=0), as a driver that cannot revoke what it maps: the open
# file pins the driver's module (rmmod refused), removal waits for the
# file to close while the file keeps working, then completes.
# umap_test builds against either stack (make ... stock; scripts/check
# passes the right one).
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"

ktap_print_header
ktap_set_plan 4

skip_all() {
	ktap_test_skip "removal under two mappings completes, entry freed" "$1"
	ktap_test_skip "after removal: mmap EIO, zeros, writes stick, DEVICE_FATAL" "$1"
	ktap_test_skip "the stack unloads afterwards" "$1"
	ktap_test_skip "no disassociate: module pinned, removal waits for the file" "$1"
	ktap_finished
	exit 0
}
rdma_unload_all
modprobe umap_test 2>/dev/null ||
	skip_all "umap_test.ko not installed (scripts/vm --ko, see the head of this test)"
modprobe ib_uverbs
eventually 10 test -e /sys/class/infiniband/umap0 || skip_all "no umap0"
params=/sys/module/umap_test/parameters
dir=$(mktemp -d)

# Its exit status goes to $dir/rc; the shell's "Bus error" report about it
# is not wanted in the output.
# shellcheck disable=SC2016
sh -c 'python3 "$1" "$2" >"$2/out" 2>"$2/err"; echo $? >"$2/rc"' sh \
	"$TESTDIR/uverbs_umap.py" "$dir" 2>/dev/null &
pid=$!
removal() {
	local t0 t1 rc=0
	eventually 30 test -e "$dir/ready" ||
		{ echo "the holder never got ready:"; cat "$dir/out" "$dir/err"; return 1; }
	expect_eq "mapped" "$(sed -n 2p "$dir/out")" "mapped: umap-page umap-page" &&
	expect_eq "entries freed before removal" "$(cat $params/mmap_freed)" 0 || return 1
	expect_eq "forked child" "$(head -1 "$dir/out")" "child: umap-page" || rc=1
	t0=$(date +%s)
	echo 1 >$params/remove || return 1
	t1=$(date +%s)
	[ $((t1 - t0)) -lt 5 ] || { echo "removal took $((t1 - t0))s"; return 1; }
	expect_eq "entries freed by removal" "$(cat $params/mmap_freed)" 1 || rc=1
	return $rc
}
ktap_test_result "removal under two mappings completes, entry freed" removal

after() {
	touch "$dir/go"
	eventually 30 test -e "$dir/rc"
	expect_eq "holder" "$(tail -n +3 "$dir/out")" "mmap again: EIO
read: zeros
write: ok
munmap: ok
async: DEVICE_FATAL" &&
	expect_eq "holder's end" "$(cat "$dir/rc")" 0 ||
		{ kill -l "$(($(cat "$dir/rc") - 128))" 2>/dev/null; return 1; }
}
ktap_test_result "after removal: mmap EIO, zeros, writes stick, DEVICE_FATAL" after

ktap_test_result "the stack unloads afterwards" \
	eval 'modprobe -r umap_test && rdma_unload_all'
wait $pid

# A driver that cannot disassociate.
rm -f "$dir"/*
waits() {
	local rpid rc=0

	modprobe umap_test disassociate=0 && modprobe ib_uverbs || return 1
	eventually 10 test -e /sys/class/infiniband/umap0 || return 1
	python3 "$TESTDIR/uverbs_umap.py" "$dir" >"$dir/out" 2>"$dir/err" &
	pid=$!
	eventually 30 test -e "$dir/ready" ||
		{ echo "the holder never got ready:"; cat "$dir/out" "$dir/err"; return 1; }
	if modprobe -r umap_test 2>/dev/null; then
		echo "umap_test unloaded under an open file"
		return 1
	fi
	echo 1 >$params/remove &
	rpid=$!
	sleep 2
	kill -0 $rpid 2>/dev/null ||
		{ echo "removal did not wait for the open file"; rc=1; }
	touch "$dir/go"
	wait $pid
	expect_eq "holder, device still there" "$(tail -n +3 "$dir/out")" \
		"mmap again: ok
read: b'umap-page'
write: ok
munmap: ok
async: none" || rc=1
	eventually 30 sh -c "! kill -0 $rpid 2>/dev/null" ||
		{ echo "removal still waits after the close"; return 1; }
	expect_eq "entries freed" "$(cat $params/mmap_freed)" 1 || rc=1
	modprobe -r umap_test && rdma_unload_all || rc=1
	return $rc
}
ktap_test_result "no disassociate: module pinned, removal waits for the file" waits
rm -rf "$dir"
ktap_finished
