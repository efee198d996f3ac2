#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# ib_umad on a RoCE port as stock has it: the umadN/issmN pair, its sysfs
# and GET_CHARDEV answers; MADs looped through the port to itself between
# agents of two files (request, matched response, timeout after the
# retries, the MAD layer's answer to a class nobody serves); stock's
# errnos for bad ioctls, writes and reads; issmN's one opener and IsSM
# bit; and a removal under an open file, which answers EIO and never
# blocks.  The MADs are driven by umad_loop.py through the raw ABI.
#
# Every expected value was measured on stock (vmtest --stock), where
# all cases pass but the one where ours is deliberately better.
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"

ktap_print_header
ktap_set_plan 14

rdma_unload_all
rxe0_up
modprobe ib_umad

# umad_dev KIND: the umadN or issmN of rxe0's port 1 (sysfs name).
umad_dev() {
	local d
	for d in /sys/class/infiniband_mad/"$1"*; do
		[ "$(cat "$d/ibdev" 2>/dev/null)" = rxe0 ] &&
			{ basename "$d"; return 0; }
	done
	return 1
}
eventually 10 umad_dev umad >/dev/null
umad=$(umad_dev umad)
issm=$(umad_dev issm)
n=${umad#umad}

# The MAD cases, as a command (expect_output runs it under timeout(1),
# which cannot run a shell function) and as a function for $(...).
LOOP=(python3 "$TESTDIR/umad_loop.py" rxe0)
loop() {
	"${LOOP[@]}" "$@" 2>&1
}

# Fixed numbers for the first 64 ports: umadN at 231:N, issmN at 231:64+N;
# devtmpfs's default mode, 600.
char_devices() {
	[ "$issm" = "issm$n" ] || { echo "pair: $umad, $issm"; return 1; }
	eventually 10 test -c "/dev/infiniband/$umad" || return 1
	expect_eq "umad node" "$(stat -c '%F %t:%T %a' "/dev/infiniband/$umad")" \
		"character special file e7:$(printf %x "$n") 600" &&
	expect_eq "issm node" "$(stat -c '%F %t:%T %a' "/dev/infiniband/$issm")" \
		"character special file e7:$(printf %x $((64 + n))) 600"
}
ktap_test_result "umadN and issmN: major 231, stock's minors and mode" char_devices

sysfs_attrs() {
	local c=/sys/class/infiniband_mad
	expect_eq "abi_version" "$(cat $c/abi_version)" 5 &&
	expect_eq "umad ibdev" "$(cat $c/"$umad"/ibdev)" rxe0 &&
	expect_eq "umad port" "$(cat $c/"$umad"/port)" 1 &&
	expect_eq "umad dev" "$(cat $c/"$umad"/dev)" "231:$n" &&
	expect_eq "issm ibdev" "$(cat $c/"$issm"/ibdev)" rxe0 &&
	expect_eq "issm port" "$(cat $c/"$issm"/port)" 1 &&
	expect_eq "issm dev" "$(cat $c/"$issm"/dev)" "231:$((64 + n))"
}
ktap_test_result "class infiniband_mad: abi_version 5, ibdev and port" sysfs_attrs

# GET_CHARDEV (NLDEV op 15): attributes CHARDEV_NAME (70), CHARDEV_ABI
# (71) and CHARDEV (72, the dev_t in the kernel's huge encoding).
idx=$(rdma -j dev | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["ifindex"])')
hexstr() {
	printf '%s\0' "$1" | od -An -tx1 | tr -d ' \n'
}
chardev_umad() {
	local out
	out=$(nlrdma --verbose 5 15 dev_index:u32:"$idx" port_index:u32:1 \
		chardev_type:str:umad)
	if ! { echo "$out" | grep -qx "attr 70 $((${#umad} + 1)) $(hexstr "$umad")" &&
	       echo "$out" | grep -qx "attr 71 8 0500000000000000" &&
	       echo "$out" | grep -qx "attr 72 8 $(printf %02x "$n")e7000000000000"; }; then
		echo "$out"
		return 1
	fi
}
ktap_test_result "GET_CHARDEV umad names umadN, ABI 5" chardev_umad

# The issm client has no per-device data: EOPNOTSUPP, as on stock.
# nlrdma names errnos as Python does: 95 may be ENOTSUP or EOPNOTSUPP.
EOPNOTSUPP_NAME=$(python3 -c 'import errno; print(errno.errorcode[errno.EOPNOTSUPP])')
ktap_test_result "GET_CHARDEV issm: EOPNOTSUPP" \
	expect_nl "error $EOPNOTSUPP_NAME" 5 15 dev_index:u32:"$idx" port_index:u32:1 \
	chardev_type:str:issm
# No port: EINVAL, as on stock.
ktap_test_result "GET_CHARDEV umad without a port: EINVAL" \
	expect_nl "error EINVAL" 5 15 dev_index:u32:"$idx" chardev_type:str:umad

ktap_test_result "a request to our own GID: the responder answers, the requester reads it" \
	expect_eq "loop" "$(loop loop)" ok
ktap_test_result "the same with the requester on the old header format" \
	expect_eq "loop" "$(loop loop_old)" ok

# 500 ms, 2 retries: three copies reach the responder that never
# answers, then the requester reads its MAD header back with ETIMEDOUT
# (3 copies on stock).
ktap_test_result "an unanswered request comes back ETIMEDOUT after T*(R+1)" \
	expect_output "${LOOP[@]}" timeout 500 2 <<-EOF
	status ETIMEDOUT len 88 copies 3 tid_low 0x42
	waited T*(R+1)
	EOF

# The MAD layer answers a Get nobody serves: GetResp, "unsupported
# method/attribute" (0x000c), as on stock.
ktap_test_result "a Get for a class nobody serves gets the MAD layer's answer" \
	expect_eq "unmatched" "$(loop unmatched)" "method 0x81 status 0x000c"

# QP0 on RoCE (EPROTONOSUPPORT) and a method another agent holds
# (EINVAL) are the MAD layer's answers; all as on stock.
ktap_test_result "bad ioctls, writes and reads: stock's errnos" \
	expect_output "${LOOP[@]}" errnos <<-EOF
	register qpn 2 EINVAL
	register2 qpn 2 EINVAL
	register2 unknown flag EINVAL
	register2 flags written back 0x1
	register2 oui over 24 bits EINVAL
	register2 QP0 on RoCE EPROTONOSUPPORT
	register NULL EFAULT
	unregister id 32 EINVAL
	unregister free id 5 EINVAL
	unregister NULL EFAULT
	unknown ioctl ENOTTY
	read nonblocking, nothing queued EAGAIN
	read shorter than the header EINVAL
	write shorter than header + RMPP header EINVAL
	agent ids 0..31
	register 32 agents ok
	register a 33rd agent ENOMEM
	unregister id 7 ok
	register into the freed id ok
	freed id reused 7
	enable pkey after an agent EINVAL
	unregister id 7 ok
	unregister id 7 again EINVAL
	write to agent id 32 EINVAL
	write to a free agent id EIO
	write without GRH on RoCE EINVAL
	write a 300-byte MAD of a non-RMPP class EINVAL
	write from a bad buffer EFAULT
	write a request ok
	write a request with the same TID EINVAL
	register a method another agent has EINVAL
	read a MAD into header + 10 bytes EINVAL
	read it again into a full buffer ok
	EOF

ktap_test_result "issmN: IsSM while open, one opener at a time" \
	expect_output "${LOOP[@]}" issm <<-EOF
	before 0
	open: IsSM 1
	second open, O_NONBLOCK: EAGAIN
	closed: IsSM 0
	reopen: ok
	EOF

# An open file holds the module; closed, it unloads and loads again.
busy_while_open() {
	local rc=0
	exec 3<>"/dev/infiniband/$umad" || return 1
	modprobe -r ib_umad 2>/dev/null || rc=$?
	exec 3>&-
	[ $rc != 0 ] || { echo "ib_umad unloaded under an open file"; return 1; }
	modprobe -r ib_umad || return 1
	[ ! -e /sys/module/ib_umad ] || { echo "still loaded"; return 1; }
	modprobe ib_umad &&
	eventually 10 test -c "/dev/infiniband/$umad"
}
ktap_test_result "rmmod ib_umad: EBUSY while a file is open, then unloads" \
	busy_while_open

# The device goes while a file is open with an agent and a reader blocked
# in read().  One run, two cases: what the file answers afterwards (as on
# stock), and what the blocked reader got.
removal_out=$(timeout $((60 * ${OOT_TIMEOUT_SCALE:-1})) "${LOOP[@]}" removal 2>&1)
removal_rest() {
	local want
	want=$(cat <<-EOF
	link del within 5 s: yes
	node gone: yes
	read EIO
	write EIO
	poll 0x8
	register EPIPE
	unregister EINVAL
	close ok
	EOF
	)
	expect_eq "removal" \
		"$(printf '%s\n' "$removal_out" | grep -v '^blocked reader: ')" \
		"$want"
}
ktap_test_result "device removal under an open file: EIO, EPIPE, nothing blocks" \
	removal_rest
# Stock wakes the blocked reader at removal but lets it sleep again until
# the process exits (measured: "blocked"); ours answers it EIO.
removal_reader() {
	expect_eq "reader" "$(printf '%s\n' "$removal_out" |
		sed -n 's/^blocked reader: //p')" EIO
}
if ours; then
	ktap_test_result "a reader blocked at removal gets EIO" removal_reader
else
	ktap_test_skip "a reader blocked at removal gets EIO" \
		"stock leaves the reader blocked until the process exits (measured)"
fi

rdma link del rxe0 2>/dev/null
veth_teardown
modprobe -r ib_umad
ktap_finished
