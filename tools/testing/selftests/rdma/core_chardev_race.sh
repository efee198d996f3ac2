#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# RDMA_NLDEV_CMD_GET_CHARDEV racing the removal of what it names.  Any
# user may send it (libibverbs does on every ibv_get_device_list()); the
# answer names the uverbs chardev of a device, which ib_uverbs frees when
# the device or the client goes.  The kernel must pin the chardev before
# it lets go of the client data: otherwise "rdma link del" or unloading
# ib_uverbs in between leaves it reading (and putting) freed memory, which
# the harness catches as a refcount or KASAN-free oops only when the
# window is hit.  The window is a few instructions wide and cannot be hit
# reliably: the loops are a bounded regression guard.
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"

ROUNDS=${ROUNDS:-$(soak 6)}
SECONDS_BOUND=${SECONDS_BOUND:-20}
STORM="$TESTDIR/core_chardev_storm.py"

ktap_print_header
ktap_set_plan 3

rdma_unload_all
modprobe rdma_rxe
modprobe ib_uverbs

settled_empty() {
	eventually 10 no_rdma_devices
}

# storm_check OUT...: every storm ended cleanly and, together, got a
# chardev named at least once (the device existed most of the time).
storm_check() {
	local f answers=0 n
	for f in "$@"; do
		cat "$f"
		grep -q '^answers ' "$f" || return 1
		n=$(sed -n 's/^answers \([0-9]*\) .*/\1/p' "$f")
		answers=$((answers + n))
	done
	[ "$answers" -gt 0 ] || { echo "no GET_CHARDEV ever answered"; return 1; }
}

# Root and an unprivileged user ask while rxe0 comes and goes.
chardev_vs_link_del() {
	local dir i end rc=0 p1 p2
	dir=$(mktemp -d)
	chmod 755 "$dir"
	veth_setup || return 1
	rdma link add rxe0 type rxe netdev "$VETH" || return 1
	python3 "$STORM" --seconds "$SECONDS_BOUND" >"$dir/root" 2>&1 &
	p1=$!
	python3 "$STORM" --seconds "$SECONDS_BOUND" --uid 65534 \
		>"$dir/nobody" 2>&1 &
	p2=$!
	end=$(($(date +%s) + SECONDS_BOUND - 2))
	for i in $(seq "$ROUNDS"); do
		[ "$(date +%s)" -lt "$end" ] || break
		rdma link del rxe0 || { rc=1; break; }
		rdma link add rxe0 type rxe netdev "$VETH" || { rc=1; break; }
		sleep 0.05
	done
	rdma link del rxe0 || rc=1
	# Done: the storms stop early and report.
	kill $p1 $p2 2>/dev/null
	wait $p1; wait $p2
	[ $rc = 0 ] || { echo "link add/del failed in round $i"; return 1; }
	storm_check "$dir/root" "$dir/nobody" || return 1
	rm -rf "$dir"
	settled_empty
}
ktap_test_result "GET_CHARDEV (root and nobody) racing rdma link del" \
	chardev_vs_link_del

# The driver and the client going instead: rdma_rxe (which uses
# ib_uverbs, so it goes first) and ib_uverbs unloaded under the requests.
chardev_vs_unload() {
	local dir i pid unloads=0
	dir=$(mktemp -d)
	chmod 755 "$dir"
	python3 "$STORM" --seconds 10 --uid 65534 >"$dir/nobody" 2>&1 &
	pid=$!
	for i in $(seq 4); do
		modprobe rdma_rxe && modprobe ib_uverbs || return 1
		rdma link add rxe0 type rxe netdev "$VETH" || return 1
		sleep 0.2
		modprobe -r rdma_rxe ib_uverbs 2>"$dir/rmmod" &&
			unloads=$((unloads + 1))
	done
	wait $pid
	echo "unloaded $unloads times $(head -n 1 "$dir/rmmod")"
	cat "$dir/nobody"
	grep -q '^answers ' "$dir/nobody" || return 1
	rm -rf "$dir"
	modprobe rdma_rxe && modprobe ib_uverbs && settled_empty
}
ktap_test_result "GET_CHARDEV racing rdma_rxe and ib_uverbs unload" \
	chardev_vs_unload

# The libibverbs path itself, as an unprivileged user.
ibv_devices_vs_link_del() {
	local i pid
	command -v ibv_devices >/dev/null || { echo "no ibv_devices"; return 1; }
	(for i in $(seq 200); do
		setpriv --reuid=65534 --regid=65534 --clear-groups \
			ibv_devices >/dev/null 2>&1
	done) &
	pid=$!
	for i in $(seq "$ROUNDS"); do
		rdma link add rxe0 type rxe netdev "$VETH" || break
		rdma link del rxe0 || break
		kill -0 $pid 2>/dev/null || break
	done
	kill $pid 2>/dev/null
	wait $pid 2>/dev/null
	settled_empty && timeout 20 ip link del "$VETH"
}
ktap_test_result "ibv_devices (nobody) racing rdma link add/del" \
	ibv_devices_vs_link_del

rdma_unload_all
ktap_finished
