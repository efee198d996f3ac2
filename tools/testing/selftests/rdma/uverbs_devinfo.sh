#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Unmodified libibverbs finds and opens our rxe device: the
# infiniband_verbs class and its attributes, the /dev node, ibv_devices,
# and ibv_devinfo -v identical to stock's (golden/, recorded on the stock
# stack in this VM configuration: same MAC, same CPU count).  Removing
# the device while a process holds it open completes at once (stock
# blocks until the process closes it), and the process's next command
# fails with EIO.
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"

ktap_print_header
ktap_set_plan 6

rdma_unload_all
veth_setup
rdma link add rxe0 type rxe netdev "$VETH"
modprobe ib_uverbs
C=/sys/class/infiniband_verbs

class() {
	expect_eq "class abi_version" "$(cat $C/abi_version)" 6 &&
	expect_eq "uverbs0" "$(readlink $C/uverbs0)" \
		../../devices/virtual/infiniband_verbs/uverbs0 &&
	expect_eq "files" "$(ls $C/uverbs0 | tr '\n' ' ')" \
		"abi_version dev ibdev power subsystem uevent " &&
	expect_eq "attrs" "$(cat $C/uverbs0/ibdev $C/uverbs0/abi_version $C/uverbs0/dev | tr '\n' ' ')" \
		"rxe0 2 231:192 " &&
	expect_eq "uevent" "$(cat $C/uverbs0/uevent | tr '\n' ' ')" \
		"MAJOR=231 MINOR=192 DEVNAME=infiniband/uverbs0 DEVMODE=0666 "
}
ktap_test_result "class infiniband_verbs and uverbs0 as stock" class

ktap_test_result "/dev/infiniband/uverbs0 is a 0666 char device 231:192" \
	expect_eq "node" "$(stat -c '%A %t:%T' /dev/infiniband/uverbs0)" "crw-rw-rw- e7:c0"

ktap_test_result "ibv_devices lists rxe0" expect_eq "ibv_devices" "$(ibv_devices)" \
	"    device          	   node GUID
    ------          	----------------
    rxe0            	001122fffe334455"

devinfo() {
	local out
	out=$(ibv_devinfo -v -d rxe0 2>&1) || { echo "$out"; return 1; }
	diff -u "$TESTDIR/golden/ibv_devinfo-v-rxe0.txt" <(echo "$out"; echo)
}
ktap_test_result "ibv_devinfo -v is stock's" devinfo

# A verbs application (pyverbs over the distribution's libibverbs) that
# opens the device, says so by creating READY, waits until GO exists (the
# device is gone by then) or 15 s pass, then queries it.  The bound
# matters: a stack that blocks removal until the holder closes (stock
# does, in uninterruptible sleep) must fail this test, not hang it.
holder() {
	READY=$1 GO=$2 python3 - <<'PY' &
import errno, os, time
from pyverbs.device import Context
from pyverbs.pyverbs_error import PyverbsRDMAError
ctx = Context(name="rxe0")
open(os.environ["READY"], "w").close()
deadline = time.time() + 15
while not os.path.exists(os.environ["GO"]) and time.time() < deadline:
    time.sleep(0.1)
try:
    ctx.query_device()
    print("holder: query succeeded")
except PyverbsRDMAError as e:
    print("holder: query failed: " + errno.errorcode.get(e.error_code, str(e.error_code)))
PY
}

removal() {
	local pid t0 t1 dir rc=0
	dir=$(mktemp -d)
	holder "$dir/ready" "$dir/go" >"$dir/out"
	pid=$!
	eventually 30 test -e "$dir/ready" || { kill $pid; return 1; }
	t0=$(date +%s)
	# While the holder keeps the device open: stock blocks here.
	rdma link del rxe0 || rc=$?
	t1=$(date +%s)
	touch "$dir/go"
	wait $pid
	[ $rc = 0 ] || { echo "rdma link del failed ($rc)"; return 1; }
	[ $((t1 - t0)) -lt 5 ] || { echo "rdma link del took $((t1 - t0))s"; return 1; }
	expect_eq "holder" "$(cat "$dir/out")" "holder: query failed: EIO"
}
if ours; then
	ktap_test_result "removal with the device open completes; then EIO" removal
else
	ktap_test_skip "removal with the device open completes; then EIO" \
		"stock 6.1 blocks removal until the holder closes (measured)"
fi

ktap_test_result "the stack unloads afterwards" rdma_unload_all

veth_teardown
ktap_finished
