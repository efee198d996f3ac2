#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The modelled E810's RDMA device goes away under running applications,
# and comes back: irdma (Debian's, or ours in a guest booted --preview:
# whichever modprobe finds) on ice's ice.roce auxiliary device, server
# and client of ib_write_bw and of rping on it in one guest (as
# hw_e810_verbs runs them), and ibv_asyncwatch with it open.  Each way
# ice and the PCI core offer on the model:
#   - echo 1 > /sys/bus/pci/devices/BDF/remove, then /sys/bus/pci/rescan;
#   - a reset of the function (echo 1 > /sys/bus/pci/devices/BDF/reset:
#     the model has no FLR, so a secondary bus reset behind its root
#     port): ice's reset_prepare unplugs ice.roce before the reset and
#     its rebuild plugs it again;
#   - devlink dev param set pci/BDF name enable_roce value false, then
#     true (cmode runtime): ice unplugs ice.roce, then plugs it;
#   - rmmod irdma (the open files do not hold the module of a
#     driver that can disassociate: both irdmas can; not modprobe -r,
#     which would take ice, then unused, too), then modprobe irdma.
# Not hw_mlx5_remove's devlink reload: ice 6.1's has only fw_activate,
# an EMP reset that activates a pending flash update, and the model
# refuses flash updates (ice answers "No pending firmware update",
# ECANCELED, without unplugging anything); that way is reported skipped.
# Nor a fatal firmware error: the model has no fault injection.
# Each time the removal returns within a bound while the tools still
# hold the device (irdma disassociates their contexts: the core does not
# wait for them), the watcher reads IBV_EVENT_DEVICE_FATAL, both rpings
# get RDMA_CM_EVENT_DEVICE_REMOVAL, the tools end (whatever their status)
# rather than hang, ib_write_bw's destroys after the removal succeed,
# nothing of theirs is left (`rdma res`: no user context, no cm_id), and
# once the device is back ibv_rc_pingpong runs on the new one.  At the
# end the kernel log has no complaint, irdma logs no error, and the stack
# unloads.  Measured, where the two irdmas differ and the test takes
# either: Debian's reports IBV_EVENT_PORT_ERR before the core's
# DEVICE_FATAL, and flushes the user QPs it destroys (ib_write_bw's
# client reads a flush error and ends within seconds); ours reports
# only DEVICE_FATAL and writes nothing to user CQs once the device is
# gone, so ib_write_bw runs out its duration (as with mlx5_ib).
# Needs a guest booted with the model:
#	scripts/vm --hw e810 [--preview] -- tools/testing/selftests/rdma/run_tests.sh hw_e810_remove.sh
# and skips on a guest without an 8086:159b function.
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"

HOWS=(pci reset roce devlink rmmod)
# The cases of each way of removal (the loop at the end).
CASES=9
PLAN=$((1 + CASES * ${#HOWS[@]} + 3))
ktap_print_header
ktap_set_plan $PLAN

e810_or_skip $PLAN "E810 removal"
ADDR=10.35.5.1
BDF=$(e810_function)
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
SCALE=${OOT_TIMEOUT_SCALE:-1}
# ib_write_bw's -D: perftest's client learns nothing of the removal (its
# CQ is its own memory, which no one writes to once the device is gone),
# so it ends with its duration.  Long enough to outlast the start of the
# tools and the removal under TCG.
DURATION=$((40 * SCALE))
# Removal, reset and rescan under TCG take seconds to tens of seconds.
BOUND=$((120 * SCALE))

before=$(dmesg | wc -l)
e810_roce_case $ADDR
echo "# $E810_IB on $E810_IF, irdma $(irdma_which)"

# in_shell DESC CMD...: as ktap_test_result, but CMD runs in this shell,
# not in a command substitution's subshell, so that the variables it sets
# (the tools' pids, E810_IB, E810_GIDX) outlive it.
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

# traffic PORT: the watcher, ib_write_bw (-D DURATION) and rping (more
# pings than it can do here) on the device, in the background (the
# watcher's pid in WPID, the others' in TOOLS); returns once the watcher
# has its async FD, ib_write_bw's client has begun its run (it prints
# its table's header first) and rping has completed five more pings
# after that: both move data.  Output line-buffered, for the checks.
traffic() {
	local port=$1 n dev=$E810_IB

	[ -n "$E810_GIDX" ] || { echo "no GID index"; return 1; }
	rm -f "$OUT"/watch "$OUT"/bw_* "$OUT"/rping_*
	stdbuf -oL ibv_asyncwatch -d "$dev" >"$OUT/watch" 2>&1 &
	WPID=$!
	eventually 30 grep -q 'async event FD' "$OUT/watch" ||
		{ echo "ibv_asyncwatch did not start"; tools_said; return 1; }
	stdbuf -oL ib_write_bw -d "$dev" -x "$E810_GIDX" -p "$port" -F \
		-s 4096 -D "$DURATION" >"$OUT/bw_server" 2>&1 &
	TOOLS=$!
	eventually 30 eval "ss -Hltn 'sport = :$port' | grep -q ." ||
		{ echo "ib_write_bw's server never listened"; tools_said; return 1; }
	stdbuf -oL ib_write_bw -d "$dev" -x "$E810_GIDX" -p "$port" -F \
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
# sysfs or the devlink call is not waited for unbounded, should it hang).
remove() {
	local rc=0

	T_REMOVE=$(date +%s)
	case $1 in
	pci)
		timeout "$BOUND" sh -c "echo 1 >/sys/bus/pci/devices/$BDF/remove" ||
			rc=$?
		;;
	reset)
		timeout "$BOUND" sh -c "echo 1 >/sys/bus/pci/devices/$BDF/reset" ||
			rc=$?
		;;
	roce)
		timeout "$BOUND" devlink dev param set "pci/$BDF" name enable_roce \
			value false cmode runtime || rc=$?
		;;
	rmmod)
		timeout "$BOUND" rmmod irdma || rc=$?
		;;
	esac
	echo "$1: status $rc after $(($(date +%s) - T_REMOVE)) s"
	[ $rc = 0 ] || tools_said
	return $rc
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
# after the device went: every destroy must succeed (the disassociation
# destroyed the objects, and libibverbs takes a destroy's EIO for done;
# libibverbs keeps its side of one whose destroy fails, and perftest
# says "Failed to destroy ...").
cleanup_clean() {
	! grep -HE 'Failed to (destroy|deregister|deallocate|close|free)' \
		"$OUT/bw_server" "$OUT/bw_client"
}

# No user context or cm_id left on any device (the kernel's own objects,
# irdma's and the MAD layer's, stay while the device does); no uverbs
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

# back HOW: irdma's device registered again, ice's netdev (made anew
# after a PCI removal) up with ADDR and its RoCE v2 GID; after a PCI
# removal once the bus is rescanned, after the reset by ice's rebuild,
# after the devlink change once enable_roce is set again, after irdma's
# unload once it is loaded again.
back() {
	local fn

	case $1 in
	pci)
		[ ! -e "/sys/bus/pci/devices/$BDF" ] ||
			{ echo "$BDF still there"; return 1; }
		echo 1 >/sys/bus/pci/rescan
		;;
	roce)
		[ -z "$(e810_ibdev)" ] || { echo "$(e810_ibdev) still there"; return 1; }
		devlink dev param set "pci/$BDF" name enable_roce value true \
			cmode runtime || return 1
		;;
	rmmod)
		! module_loaded irdma || { echo "irdma still loaded"; return 1; }
		;;
	esac
	# e810_roce_up adds ADDR: the netdev that stayed has it already.
	fn=/sys/bus/pci/devices/$BDF
	eventually 180 eval "ls $fn/net 2>/dev/null | grep -q ." ||
		{ echo "no netdev on $BDF"; return 1; }
	ip -4 addr flush dev "$(ls "$fn/net" | head -1)"
	e810_roce_up $ADDR
}

# ibv_rc_pingpong on the new device: 50 exchanges of 4 KiB, checked.
pingpong() {
	[ -n "$E810_GIDX" ] || { echo "no GID index"; return 1; }
	localhost_pair 120 ibv_rc_pingpong -d "$E810_IB" -g "$E810_GIDX" \
		-n 50 -s 4096 -c || return 1
	grep -q ' iters in ' "$OUT/server" && grep -q ' iters in ' "$OUT/client"
}

# devlink reload: measured on the model with ice 6.1 (stock and ours
# alike): "No pending firmware update", status ECANCELED, nothing
# unplugged.
DEVLINK_SKIP="ice 6.1's devlink reload is fw_activate only, and the model has no pending flash update to activate"

port=18515
for how in "${HOWS[@]}"; do
	case $how in
	pci) what="PCI remove" ;;
	reset) what="PCI reset" ;;
	roce) what="devlink enable_roce off" ;;
	devlink) what="devlink dev reload" ;;
	rmmod) what="rmmod irdma" ;;
	esac
	if [ $how = devlink ]; then
		# What ice answers, for the record (it unplugs nothing).
		devlink dev reload "pci/$BDF" action fw_activate 2>&1 |
			sed 's/^/# devlink dev reload: /'
		for ((i = 1; i <= CASES; i++)); do
			ktap_test_skip "$what case $i" "$DEVLINK_SKIP"
		done
		continue
	fi
	in_shell "$what: ib_write_bw, rping and a watcher on the device" traffic $port
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
	in_shell "$what: the device back, RoCE up" back $how
	ktap_test_result "$what: ibv_rc_pingpong on the new device" pingpong
	port=$((port + 1))
done

# kernel_clean: no kernel complaint since the test began (the harness
# checks the whole log too; this names the test that caused it).
kernel_clean() {
	! dmesg | tail -n +$((before + 1)) | grep -aE \
		'BUG:|WARNING:|Oops|refcount_t:|hung task|blocked for more than|list_(add|del) corruption|unregister_netdevice: waiting'
}
ktap_test_result "no kernel complaint" kernel_clean
ktap_test_result "irdma logs no error" irdma_log_clean "$before" "$E810_IB"
ktap_test_result "the stack unloads" rdma_unload_all
ktap_finished
