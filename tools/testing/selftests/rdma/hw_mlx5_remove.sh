#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The modelled ConnectX-4 Lx goes away under running applications, and
# comes back: Debian's unmodified mlx5_core and mlx5_ib, server and
# client of ib_write_bw and of rping on mlx5_0 in one guest (as
# hw_mlx5_verbs runs them), and ibv_asyncwatch with mlx5_0 open.  Twice:
#   - echo 1 > /sys/bus/pci/devices/BDF/remove, then /sys/bus/pci/rescan;
#   - devlink dev reload pci/BDF (mlx5_core's DRIVER_REINIT: it deletes
#     its auxiliary devices, mlx5_ib's among them, so mlx5_0 is
#     unregistered, and adds them again);
#   - a fatal firmware error: the model's x-fault-inject register
#     (mlx5-model.rst, "Faults") takes the firmware down; mlx5_core's
#     health poll sees it, raises MLX5_DEV_EVENT_SYS_ERROR (which mlx5_ib
#     turns into IB_EVENT_DEVICE_FATAL and, for kernel QPs, their flush),
#     and its devlink fw_fatal reporter recovers: the driver unloads
#     without a command to the dead firmware, resets the function and
#     loads again;
#   - a long case: modprobe -r mlx5_ib (the open files do not hold the
#     module of a driver that can disassociate), then modprobe mlx5_ib.
# Each time the removal returns within a bound while the tools still
# hold the device (mlx5_ib disassociates their contexts: the core does
# not wait for them), the watcher reads IBV_EVENT_DEVICE_FATAL, both
# rpings get RDMA_CM_EVENT_DEVICE_REMOVAL, the tools end (whatever their
# status) rather than hang, ib_write_bw's destroys after the removal
# succeed (as stock answers them), nothing of theirs is left (`rdma res`:
# no user context, no cm_id), and once the device is back
# ibv_rc_pingpong runs on the new mlx5_0.  At the end the kernel log has
# no complaint and no error of mlx5's, and the stack unloads.
# Needs a guest booted with the model:
#	scripts/vm --hw mlx5 -- tools/testing/selftests/rdma/run_tests.sh hw_mlx5_remove.sh
# and skips on a guest without a 15b3:1015 function.
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"

HOWS=(pci devlink fatal rmmod)
# The cases of each way of removal (the loop at the end).
CASES=9
PLAN=$((3 + CASES * ${#HOWS[@]} + 3))
ktap_print_header
ktap_set_plan $PLAN

mlx5_or_skip $PLAN "mlx5 removal"
ADDR=192.0.2.1
BDF=$(mlx5_function)
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
SCALE=${OOT_TIMEOUT_SCALE:-1}
# ib_write_bw's -D: perftest's client learns nothing of the removal (its
# CQ is its own memory, which no one writes to once the device is gone),
# so it ends with its duration.  Long enough to outlast the start of the
# tools and the removal under TCG.
DURATION=$((40 * SCALE))
# Removal, reload and rescan under TCG take seconds to tens of seconds.
BOUND=$((120 * SCALE))

before=$(dmesg | wc -l)
mlx5_roce_cases $ADDR

# in_shell DESC CMD...: as ktap_test_result, but CMD runs in this shell,
# not in a command substitution's subshell, so that the variables it sets
# (the tools' pids, MLX5_GIDX) outlive it.
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

# traffic: the watcher, ib_write_bw (-D DURATION) and rping (more pings
# than it can do here) on mlx5_0, in the background (the watcher's pid in
# WPID, the others' in TOOLS);
# returns once the watcher has its async FD, ib_write_bw's client has
# begun its run (it prints its table's header first) and rping has
# completed five more pings after that: both move data.  Output
# line-buffered, for the checks.
traffic() {
	local port=$1 n

	[ -n "$MLX5_GIDX" ] || { echo "no GID index"; return 1; }
	rm -f "$OUT"/watch "$OUT"/bw_* "$OUT"/rping_*
	stdbuf -oL ibv_asyncwatch -d mlx5_0 >"$OUT/watch" 2>&1 &
	WPID=$!
	eventually 30 grep -q 'async event FD' "$OUT/watch" ||
		{ echo "ibv_asyncwatch did not start"; tools_said; return 1; }
	stdbuf -oL ib_write_bw -d mlx5_0 -x "$MLX5_GIDX" -p "$port" -F \
		-s 4096 -D "$DURATION" >"$OUT/bw_server" 2>&1 &
	TOOLS=$!
	eventually 30 eval "ss -Hltn 'sport = :$port' | grep -q ." ||
		{ echo "ib_write_bw's server never listened"; tools_said; return 1; }
	stdbuf -oL ib_write_bw -d mlx5_0 -x "$MLX5_GIDX" -p "$port" -F \
		-s 4096 -D "$DURATION" localhost >"$OUT/bw_client" 2>&1 &
	TOOLS+=" $!"
	stdbuf -oL rping -s -a $ADDR -C 1000000 -V >"$OUT/rping_server" 2>&1 &
	TOOLS+=" $!"
	eventually 30 eval "rdma res show cm_id | grep -q LISTEN" ||
		{ echo "rping's server never listened"; tools_said; return 1; }
	stdbuf -oL rping -c -a $ADDR -C 1000000 -v >"$OUT/rping_client" 2>&1 &
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

# remove HOW: the device goes under the tools, within BOUND (the write to
# sysfs or devlink is not waited for unbounded, should it hang).
remove() {
	local rc=0

	T_REMOVE=$(date +%s)
	case $1 in
	pci)
		timeout "$BOUND" sh -c "echo 1 >/sys/bus/pci/devices/$BDF/remove" ||
			rc=$?
		;;
	devlink)
		timeout "$BOUND" devlink dev reload "pci/$BDF" || rc=$?
		;;
	rmmod)
		timeout "$BOUND" modprobe -r mlx5_ib || rc=$?
		;;
	fatal)
		fatal_error || rc=$?
		;;
	esac
	echo "$1: status $rc after $(($(date +%s) - T_REMOVE)) s"
	[ $rc = 0 ] || tools_said
	return $rc
}

# fatal_error: the firmware goes down; within BOUND mlx5_core has
# recovered the function.
fatal_error() {
	local since

	since=$(dmesg | wc -l)
	mlx5_fatal_error || return 1
	if ! mlx5_recovered "$since" "$BOUND"; then
		dmesg | tail -n +$((since + 1)) | grep -a mlx5 | tail -n 20
		return 1
	fi
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
# disassociation destroyed the objects; libibverbs keeps its side of one
# whose destroy fails, and perftest says "Failed to destroy ...").
cleanup_clean() {
	! grep -HE 'Failed to (destroy|deregister|deallocate|close|free)' \
		"$OUT/bw_server" "$OUT/bw_client"
}

# No user context or cm_id left on any device (the kernel's own objects,
# mlx5_ib's and the MAD layer's, stay while the device does); no uverbs
# device without an IB device.
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

# back HOW: mlx5_0 registered again, the netdev (made anew) up with ADDR
# and its RoCE v2 GID; after a PCI removal once the bus is rescanned,
# after mlx5_ib's unload once it is loaded again.
back() {
	case $1 in
	pci)
		[ ! -e "/sys/bus/pci/devices/$BDF" ] ||
			{ echo "$BDF still there"; return 1; }
		echo 1 >/sys/bus/pci/rescan
		;;
	rmmod)
		! module_loaded mlx5_ib || { echo "mlx5_ib still loaded"; return 1; }
		modprobe mlx5_ib || return 1
		;;
	esac
	eventually 180 test -d /sys/class/infiniband/mlx5_0 ||
		{ echo "no mlx5_0"; return 1; }
	mlx5_roce_up $ADDR
}

# ibv_rc_pingpong on the new mlx5_0: 50 exchanges of 4 KiB, checked.
pingpong() {
	local rc=0 srv

	[ -n "$MLX5_GIDX" ] || { echo "no GID index"; return 1; }
	timeout 120 ibv_rc_pingpong -d mlx5_0 -g "$MLX5_GIDX" -n 50 -s 4096 -c \
		>"$OUT/server" 2>&1 &
	srv=$!
	sleep 2
	timeout 120 ibv_rc_pingpong -d mlx5_0 -g "$MLX5_GIDX" -n 50 -s 4096 -c \
		localhost >"$OUT/client" 2>&1 || rc=1
	wait $srv || rc=1
	grep -q ' iters in ' "$OUT/server" && grep -q ' iters in ' "$OUT/client" ||
		rc=1
	if [ $rc != 0 ]; then
		sed 's/^/server: /' "$OUT/server"
		sed 's/^/client: /' "$OUT/client"
	fi
	return $rc
}

port=18515
for how in "${HOWS[@]}"; do
	case $how in
	pci) what="PCI remove" ;;
	devlink) what="devlink dev reload" ;;
	fatal) what="fatal firmware error" ;;
	rmmod) what="modprobe -r mlx5_ib" ;;
	esac
	if [ $how = rmmod ] && ! long_cases; then
		for ((i = 1; i <= CASES; i++)); do
			ktap_test_skip "$what case $i" "$LONG_SKIP"
		done
		continue
	fi
	in_shell "$what: ib_write_bw, rping and a watcher on mlx5_0" traffic $port
	in_shell "$what under traffic returns within $BOUND s" remove $how
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
	in_shell "$what: mlx5_0 back, RoCE up" back $how
	ktap_test_result "$what: ibv_rc_pingpong on the new mlx5_0" pingpong
	port=$((port + 1))
done

# kernel_clean: no kernel complaint since the test began (the harness
# checks the whole log too; this names the test that caused it).
kernel_clean() {
	! dmesg | tail -n +$((before + 1)) | grep -aE \
		'BUG:|WARNING:|Oops|refcount_t:|hung task|blocked for more than|list_(add|del) corruption|unregister_netdevice: waiting'
}
ktap_test_result "no kernel complaint" kernel_clean
ktap_test_result "mlx5 logs no error" mlx5_log_clean "$before"
ktap_test_result "the stack unloads" rdma_unload_all
ktap_finished
