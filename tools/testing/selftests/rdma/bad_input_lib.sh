# SPDX-License-Identifier: GPL-2.0-only
#
# Bad input to a hardware RDMA device from user space: the checks
# hw_mlx5_bad_input and hw_e810_bad_input share (sourced after lib.sh).
# The test sets OUT (a scratch directory, where uverbs_raw's output is
# $OUT/raw), ADDR (the device's IPv4 address), DEV (the device, as it is
# now), and before its races base and base_pins (counts and
# pinned_pages as they were); it defines registered (the device there
# again, with its uverbs device and its GID of ADDR).

counts() {
	res_counts "$DEV"
}

back() {
	expect_eq "rdma res" "$(counts)" "$base" &&
	expect_eq "pinned pages" "$(pinned_pages)" "$base_pins"
}

# raw GROUP: the group ran to its end with no outcome other than the
# one uverbs_raw expects of the driver (Debian's on stock, or ours where
# it differs by design).
raw() {
	grep "^$1: " "$OUT/raw" | grep -v "^$1: done$"
	grep -q "^$1: done$" "$OUT/raw" ||
		{ echo "$1 did not run to the end:"; grep -v ": done$" "$OUT/raw"; return 1; }
	! grep -q "^$1: .*: got" "$OUT/raw"
}

# races CASE: uverbs_races.py's CASE, then nothing left, nothing pinned.
races() {
	python3 "$TESTDIR/uverbs_races.py" "$@" && eventually 10 back
}

# traffic_killed: ib_write_bw's server and client on DEV (RC, 64 KiB
# WRITEs, with no end of their own: --run_infinitely, a report every
# 5 s), both killed with -9 once their QPs exist and a few seconds of
# traffic have passed; then rdma res and the pinned pages as before, and
# ibv_rc_pingpong runs.  (A fixed duration ran out before the kill on the
# debug kernel, where the two take most of 30 s to start.)
traffic_killed() {
	local gidx srv cli rc=0

	gidx=$(topo_gid "$DEV" "$ADDR") || { echo "no GID of $ADDR"; return 1; }
	ib_write_bw -d "$DEV" -x "$gidx" -D 5 --run_infinitely -s 65536 -F \
		>"$OUT/bw-server" 2>&1 &
	srv=$!
	sleep 1
	ib_write_bw -d "$DEV" -x "$gidx" -D 5 --run_infinitely -s 65536 -F "$ADDR" \
		>"$OUT/bw-client" 2>&1 &
	cli=$!
	eventually 60 eval "[ \$(rdma res show qp | grep -c 'comm ib_write_bw') -ge 2 ]" ||
		{ echo "no ib_write_bw QPs"; rc=1; }
	sleep 3
	if ! kill -0 $srv $cli; then
		echo "ib_write_bw ended before the kill; server, then client:"
		tail -n 5 "$OUT/bw-server" "$OUT/bw-client"
		rc=1
	fi
	kill -9 $srv $cli 2>/dev/null
	wait $srv $cli 2>/dev/null
	eventually 10 back || rc=1
	localhost_pair 120 ibv_rc_pingpong -d "$DEV" -g "$gidx" -n 20 -s 4096 -c ||
		rc=1
	return $rc
}

# removal MOD KO [port_err]: rmmod MOD under uverbs_races.py's running
# commands: the commands after it fail with EIO, the async fd reports
# DEVICE_FATAL (port_err: after PORT_ERR, as Debian's irdma reports its
# port down first); then KO again, its device registered.
removal() {
	local pid rc=0

	rm -f "$OUT/ready" "$OUT/done"
	python3 "$TESTDIR/uverbs_races.py" removal "$OUT" ${3:+"$3"} &
	pid=$!
	eventually 60 test -e "$OUT/ready" || { kill $pid; return 1; }
	rmmod "$1" || { echo "rmmod $1 failed"; rc=1; }
	touch "$OUT/done"
	wait $pid || rc=1
	module_use "$1" "$2" && registered || rc=1
	return $rc
}
