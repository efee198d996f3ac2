# SPDX-License-Identifier: GPL-2.0-only
#
# A hardware RDMA device removed under running applications: what
# hw_mlx5_remove and hw_e810_remove share (sourced after lib.sh).  The
# test sets OUT (a scratch directory), ADDR (the device's IPv4 address),
# DURATION (ib_write_bw's -D) and BOUND (seconds a removal or a tool's end
# may take), and defines, for removal_round:
#   traffic PORT   removal_traffic on its device as it is now;
#   remove HOW     the removal, T_REMOVE set to when it began;
#   back HOW       the device registered again with its RoCE v2 GID;
#   pingpong       removal_pingpong on the device back.
# The tools' pids (WPID, TOOLS) and T_REMOVE are globals: in_shell runs
# the cases that set them in this shell.

# in_shell DESC CMD...: as ktap_test_result, but CMD runs in this shell,
# not in a command substitution's subshell, so that the variables it sets
# (the tools' pids, the device's name and GID index) outlive it.
in_shell() {
	local desc=$1 rc=0
	shift
	"$@" >"$OUT/case" 2>&1 || rc=$?
	[ ! -s "$OUT/case" ] || sed 's/^/# /' "$OUT/case"
	if [ $rc = 0 ]; then
		ktap_test_pass "$desc"
	else
		ktap_test_fail "$desc"
	fi
}

pings() {
	grep -c '^ping data: rdma-ping-' "$OUT/rping_client" 2>/dev/null
}

pings_over() {
	[ "$(pings)" -gt "$1" ]
}

# What each tool said last (its error, if it saw one).
tools_said() {
	local f
	for f in watch bw_server bw_client rping_server rping_client; do
		echo "$f: $(grep -v '^ *$' "$OUT/$f" | tail -n 3 | tr '\n' ' ')"
	done
}

# removal_traffic PORT DEV GIDX: the watcher, ib_write_bw (-D DURATION,
# on PORT) and rping to ADDR (more pings than it can do here) on DEV, in
# the background (the watcher's pid in WPID, the others' in TOOLS);
# returns once the watcher has its async FD, ib_write_bw's client has
# begun its run (it prints its table's header first) and rping has
# completed five more pings after that: both move data.  Output
# line-buffered, for the checks.
removal_traffic() {
	local port=$1 dev=$2 gidx=$3 n

	[ -n "$gidx" ] || { echo "no GID index"; return 1; }
	rm -f "$OUT"/watch "$OUT"/bw_* "$OUT"/rping_*
	stdbuf -oL ibv_asyncwatch -d "$dev" >"$OUT/watch" 2>&1 &
	WPID=$!
	eventually 30 grep -q 'async event FD' "$OUT/watch" ||
		{ echo "ibv_asyncwatch did not start"; tools_said; return 1; }
	stdbuf -oL ib_write_bw -d "$dev" -x "$gidx" -p "$port" -F \
		-s 4096 -D "$DURATION" >"$OUT/bw_server" 2>&1 &
	TOOLS=$!
	eventually 30 eval "ss -Hltn 'sport = :$port' | grep -q ." ||
		{ echo "ib_write_bw's server never listened"; tools_said; return 1; }
	stdbuf -oL ib_write_bw -d "$dev" -x "$gidx" -p "$port" -F \
		-s 4096 -D "$DURATION" localhost >"$OUT/bw_client" 2>&1 &
	TOOLS+=" $!"
	stdbuf -oL rping -s -a "$ADDR" -C 1000000 -V >"$OUT/rping_server" 2>&1 &
	TOOLS+=" $!"
	eventually 30 eval "rdma res show cm_id | grep -q LISTEN" ||
		{ echo "rping's server never listened"; tools_said; return 1; }
	stdbuf -oL rping -c -a "$ADDR" -C 1000000 -v >"$OUT/rping_client" 2>&1 &
	TOOLS+=" $!"
	eventually 60 grep -q '#bytes' "$OUT/bw_client" ||
		{ echo "ib_write_bw did not start its run"; tools_said; return 1; }
	n=$(pings)
	eventually 60 pings_over $((n + 5)) ||
		{ echo "rping made no progress"; tools_said; return 1; }
	kill -0 $WPID $TOOLS ||
		{ echo "a tool ended early"; tools_said; return 1; }
	echo "rping: $(pings) pings so far"
}

# The watcher's reads: IBV_EVENT_DEVICE_FATAL, and then on ours EIO,
# which ends ibv_asyncwatch (uverbs.rst, "Files hold the uverbs device");
# stock's async fd stays open for more events that never come, and the
# watcher blocks in read() until killed.
fatal_seen() {
	local rc=0

	if ! eventually 30 grep -q IBV_EVENT_DEVICE_FATAL "$OUT/watch"; then
		echo "watcher: $(cat "$OUT/watch")"
		rc=1
	fi
	if ours; then
		eventually 30 eval '! kill -0 $WPID 2>/dev/null' ||
			{ echo "the watcher still reads after the event"; rc=1; }
	elif ! kill -0 $WPID 2>/dev/null; then
		echo "the watcher ended: stock's async fd blocks after the event"
		rc=1
	fi
	kill -9 $WPID 2>/dev/null
	wait $WPID 2>/dev/null
	return $rc
}

# The tools gone within DURATION and BOUND of the removal (ib_write_bw
# may run out its duration), each with its time since the removal began
# and its status; killed if not.
tools_gone() {
	local t0=$T_REMOVE end i p left rc=0
	local names=(ib_write_bw-server ib_write_bw-client rping-server rping-client)

	end=$((t0 + DURATION + BOUND))
	left=$TOOLS
	while [ -n "$left" ]; do
		i=0
		for p in $TOOLS; do
			if [[ " $left " == *" $p "* ]] && ! kill -0 "$p" 2>/dev/null; then
				wait "$p"
				echo "${names[$i]}: gone after $(($(date +%s) - t0)) s, status $?"
				left=$(echo " $left " | sed "s/ $p / /; s/^ *//; s/ *$//")
			fi
			i=$((i + 1))
		done
		[ -n "$left" ] || break
		if [ "$(date +%s)" -ge "$end" ]; then
			echo "still running after $((end - t0)) s:"
			ps -o pid,stat,wchan:30,args -p "${left// /,}"
			kill -9 $left 2>/dev/null
			wait $left 2>/dev/null
			rc=1
			break
		fi
		sleep 0.2
	done
	tools_said
	return $rc
}

# rping's ends learn of the removal from rdma_cm (rping: "cma detected
# device removal"), which ends them.
cm_removal_seen() {
	local f rc=0

	for f in rping_server rping_client; do
		grep -q 'cma detected device removal' "$OUT/$f" ||
			{ echo "$f: no RDMA_CM_EVENT_DEVICE_REMOVAL"; rc=1; }
	done
	return $rc
}

# ib_write_bw tears its objects down once its duration is out, long
# after the device went: every destroy must succeed, as on stock (the
# disassociation destroyed the objects, and libibverbs takes a destroy's
# EIO for done; libibverbs keeps its side of one whose destroy fails,
# and perftest says "Failed to destroy ...").
cleanup_clean() {
	! grep -HE 'Failed to (destroy|deregister|deallocate|close|free)' \
		"$OUT/bw_server" "$OUT/bw_client"
}

# No user context or cm_id left on any device (the kernel's own objects,
# the driver's and the MAD layer's, stay while the device does); no
# uverbs device without an IB device.
nothing_left() {
	local res ndev nuv

	res=$(rdma res)
	if echo "$res" | grep -vqE ' ctx 0 .*|^$' ||
	   echo "$res" | grep -qE 'cm_id [1-9]'; then
		echo "rdma res: $res"
		return 1
	fi
	ndev=$(ls /sys/class/infiniband | wc -l)
	nuv=$(ls -d /sys/class/infiniband_verbs/uverbs* 2>/dev/null | wc -l)
	expect_eq "uverbs devices" "$nuv" "$ndev"
}

# removal_pingpong DEV GIDX: ibv_rc_pingpong on the device back, 50
# exchanges of 4 KiB, checked.
removal_pingpong() {
	[ -n "$2" ] || { echo "no GID index"; return 1; }
	localhost_pair 120 ibv_rc_pingpong -d "$1" -g "$2" -n 50 -s 4096 -c ||
		return 1
	grep -q ' iters in ' "$OUT/server" && grep -q ' iters in ' "$OUT/client"
}

# removal_round WHAT HOW PORT DEVICE: the nine cases of one way of
# removal, named WHAT; DEVICE names the device in them.
removal_round() {
	local what=$1 how=$2 port=$3 device=$4

	in_shell "$what: ib_write_bw, rping and a watcher on $device" \
		traffic "$port"
	in_shell "$what under traffic returns within $BOUND s" remove "$how"
	if ours; then
		in_shell "$what: the watcher reads IBV_EVENT_DEVICE_FATAL, then EIO" \
			fatal_seen
	else
		in_shell "$what: the watcher reads IBV_EVENT_DEVICE_FATAL, then blocks" \
			fatal_seen
	fi
	in_shell "$what: ib_write_bw and rping end" tools_gone
	ktap_test_result "$what: both rpings got RDMA_CM_EVENT_DEVICE_REMOVAL" \
		cm_removal_seen
	ktap_test_result "$what: ib_write_bw's destroys after it succeed" \
		cleanup_clean
	ktap_test_result "$what: no user context or cm_id left" nothing_left
	in_shell "$what: $device back, RoCE up" back "$how"
	ktap_test_result "$what: ibv_rc_pingpong on $device, back" pingpong
}
# The cases removal_round reports, for the tests' plans.
# shellcheck disable=SC2034
REMOVAL_ROUND_CASES=9

# kernel_clean SINCE: no kernel complaint after dmesg line SINCE (the
# harness checks the whole log too; this names the test that caused it).
kernel_clean() {
	! dmesg | tail -n +$(($1 + 1)) | grep -aE \
		'BUG:|WARNING:|Oops|refcount_t:|hung task|blocked for more than|list_(add|del) corruption|unregister_netdevice: waiting'
}
