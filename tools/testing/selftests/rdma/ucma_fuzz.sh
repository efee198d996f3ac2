#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# rdma_ucm under bad input (ucma_fuzz.py, raw write()s on
# /dev/infiniband/rdma_cm): the dispatcher, every command with -1,
# destroyed and foreign ids, short and long "in" and "out", unmapped
# response pointers, writes from other credentials; then rdma_cm state
# abuse, multicast and connect requests on rxe0 (10.200.0.1, rxe_topo.sh).
# Each case answers stock's errno (measured on --stock) and never warns;
# afterwards no cm_id is left (`rdma res show cm_id` empty) and the stack
# unloads.  Then races, many rounds each (ucma_fuzz.py): destroy and close
# during address and route resolution, a listener closed while requests
# arrive, MIGRATE_ID while a file closes, multicast join then leave at
# once; one group joined twice by one id, the older join left (the leave
# leaves the join it names).  An address nobody answers, with a long
# timeout: no periodic work until a neighbour event, which ends it.
# RESOLVE_ADDR binding its source while rxe0 is removed and added: no
# WARN.  DESTROY_ID after rxe0's removal interrupted a resolution, and
# right after a second resolution started: no callback on the freed id.
# Then the locking: SET_OPTION(IB_PATH) racing a failing BIND
# (which attaches and detaches the device), a GET_EVENT stalled on an
# unserved userfaultfd page (a connect on other files must still
# complete), and a wildcard listener migrated back and forth while
# requests arrive (no event may stay on the file it left).  Where ours
# deliberately differs (a connect request's id moves with its listener on
# MIGRATE_ID, a leave of the older of two joins of a group), or stock has
# the defect, the check is skipped on stock and ucma_fuzz.py prints why
# and what it measured.
#
# The device's own facts are checked first: mode 0666, abi_version 4,
# max_backlog 1024, the GET_CHARDEV answer (which autoloads rdma_ucm).
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rxe_topo.sh"

ktap_print_header
ktap_set_plan 23

rdma_unload_all
warn0=$(dmesg | grep -c 'WARNING\|BUG:')
modprobe ib_uverbs
topo_one_up || exit "$KSFT_FAIL"

# GET_CHARDEV "rdma_cm" loads rdma_ucm by its alias and answers.
chardev() {
	expect_eq "GET_CHARDEV rdma_cm" \
		"$(nlrdma 5 15 chardev_type:str:rdma_cm)" "reply 1" &&
	module_loaded rdma_ucm
}
ktap_test_result "GET_CHARDEV rdma_cm autoloads rdma_ucm and answers" chardev

facts() {
	expect_eq "mode" "$(stat -c %a /dev/infiniband/rdma_cm)" 666 &&
	expect_eq "abi_version" "$(cat /sys/class/misc/rdma_cm/abi_version)" 4 &&
	expect_eq "max_backlog" "$(cat /proc/sys/net/rdma_ucm/max_backlog)" 1024
}
ktap_test_result "rdma_cm: mode 0666, abi_version 4, max_backlog 1024" facts

# run GROUP: the group's cases, then nothing left and nothing warned.
run() {
	local rc=0 warns
	warns=$(dmesg | grep -c 'WARNING\|BUG:')
	timeout $((120 * ${OOT_TIMEOUT_SCALE:-1})) \
		env OOT_STOCK="$OOT_STOCK" python3 "$TESTDIR/ucma_fuzz.py" "$1" || rc=1
	eventually 10 no_cm_ids || rc=1
	expect_eq "kernel warnings" "$(dmesg | grep -c 'WARNING\|BUG:')" "$warns" || rc=1
	return $rc
}

ktap_test_result "write(): short, unreadable header, bad command, in past the end, GET_OPTION" \
	run write
ktap_test_result "every command with id -1, destroyed and another file's ids; MIGRATE_ID's fd" \
	run ids
ktap_test_result "short and long in and out of every command" run sizes
ktap_test_result "unmapped response and option pointers" run pointers
ktap_test_result "writes from a forked child, and one turned nobody: EACCES" run creds
ktap_test_result "rdma_cm state abuse, events, multicast join/leave/destroy" \
	run state
ktap_test_result "connect requests unread: listener destroyed, closed, migrated" \
	run connreq

# Resolution to an address no route leads to: the selftest guest has no
# default route; where there is one, an unreachable route stands in (the
# errno then differs: ucma_fuzz.py does not check it).
resolve() {
	local noroute=198.51.100.1 stand_in=0 rc=0
	if ip -4 route get "$noroute" >/dev/null 2>&1; then
		ip route add unreachable "$noroute/32" || return 1
		stand_in=1
	fi
	UCMA_NOROUTE=$noroute UCMA_NOROUTE_UNREACHABLE=$stand_in run resolve || rc=1
	[ $stand_in = 0 ] || ip route del unreachable "$noroute/32"
	return $rc
}
ktap_test_result "destroy or close during resolution: own, unanswered and unrouted address; route" \
	resolve
# An address nobody answers, with a minute's timeout: the kernel waits for
# a neighbour event and tries once more at the deadline, no more (a tracefs
# kprobe counts the calls of the resolution's work function, ours and
# stock's); a neighbour entry made by hand ends it at once.
ADDR_WORK_MAX=3
resolve_wait() {
	local fn=ib_core:addr_req_work n rc=0 p
	[ "$OOT_STOCK" != 1 ] || fn=ib_core:process_one_req
	p="p:oot_addr_work $fn"
	probes_on "$p" || return 1
	run resolve_wait || rc=1
	probes_off "$p"
	n=$(grep -c 'oot_addr_work:' $TRACEFS/trace)
	probes_del "$p"
	echo "# ${fn#*:} ran $n times"
	[ "$n" -le $ADDR_WORK_MAX ] ||
		{ echo "# more than $ADDR_WORK_MAX: it polls"; rc=1; }
	return $rc
}
ktap_test_result "resolution waits for the neighbour: no periodic tries, done at once when it appears" \
	resolve_wait
# Resolutions an id leaves behind when destroyed: one queued when rxe0
# went (the id moved from ADDR_QUERY to DEVICE_REMOVAL), one started
# again when its first ended in ADDR_ERROR (which binds the id again from
# the callback, before its request is done with); DESTROY_ID must cancel
# both.  A netdev without an RDMA device and a neighbour known behind it
# make the second kind end at once.  kprobes trace the ids
# rdma_create_user_id() returns, those rdma_destroy_id() has destroyed
# (on return) and the context of each resolution callback (ours:
# cma_addr_handler, stock's: addr_handler): no callback may name an id
# destroyed.
NORDMA_IF=oot_nordma
resolve_cancel() {
	local t=$TRACEFS h=rdma_cm:cma_addr_handler rc=0 late buf lost probes
	[ "$OOT_STOCK" != 1 ] || h=rdma_cm:addr_handler
	probes=("r:oot_ra_cr rdma_cm:rdma_create_user_id id=\$retval"
		"p:oot_ra_de rdma_cm:rdma_destroy_id id=%di"
		"r:oot_ra_dx rdma_cm:rdma_destroy_id"
		"p:oot_ra_cb $h ctx=%cx")
	ip link add $NORDMA_IF type dummy &&
	ip addr add 10.201.0.1/24 dev $NORDMA_IF &&
	ip link set $NORDMA_IF up &&
	ip neigh replace 10.201.0.2 lladdr 02:11:22:33:44:aa \
		dev $NORDMA_IF nud permanent || return 1
	[ -d $t/events ] || mount -t tracefs nodev $t || return 1
	buf=$(cat $t/buffer_size_kb)
	echo 16384 > $t/buffer_size_kb
	# The default clock is per CPU, and no clock tells apart events of one
	# microsecond on two CPUs: an atomic counter orders them.
	echo counter > $t/trace_clock
	probes_on "${probes[@]}" || return 1
	UCMA_NORDMA=10.201.0.2 UCMA_NETDEV="$VETH" UCMA_ROUNDS=100000 \
		run resolve_cancel || rc=1
	eventually 10 topo_gid "$ONE_DEV" "$ONE_IP" >/dev/null || rc=1
	probes_off "${probes[@]}"
	# An event lost (the buffer wrapped) would make the check unsound.
	lost=$(cat $t/per_cpu/cpu*/stats | awk '/^overrun:/ { n += $2 } END { print n + 0 }')
	late=$(awk '
		/ oot_ra_/ {
			pid = $1; ev = ""; val = ""
			for (f = 2; f <= NF; f++) {
				if ($f ~ /^oot_ra_/) ev = $f
				if ($f ~ /^(id|ctx)=/) { val = $f; sub(/^[a-z]+=/, "", val) }
			}
			if (ev == "oot_ra_cr:") dead[val] = 0
			else if (ev == "oot_ra_de:") pending[pid] = val
			else if (ev == "oot_ra_dx:") dead[pending[pid]] = 1
			else if (ev == "oot_ra_cb:") { calls++; if (dead[val]) bad++ }
		}
		END { printf "%d %d", calls, bad }' $t/trace)
	probes_del "${probes[@]}"
	echo "${buf%% *}" > $t/buffer_size_kb
	echo local > $t/trace_clock
	ip link del $NORDMA_IF
	echo "# resolution callbacks: ${late% *}, on an id destroyed: ${late#* }; events lost: $lost"
	[ -n "$late" ] && [ "${late% *}" -gt 0 ] && [ "${late#* }" = 0 ] &&
		[ "$lost" = 0 ] || rc=1
	return $rc
}
ktap_test_result "DESTROY_ID cancels a resolution rxe0's removal left queued, and one started again" \
	resolve_cancel
ktap_test_result "a listener destroyed or closed while another thread connects to it" \
	run listen_race
ktap_test_result "MIGRATE_ID between two files while another thread closes either" \
	run migrate_race
ktap_test_result "a group joined twice by one id, by two ids; join then leave, destroy, close" \
	run mcast
ktap_test_result "SET_OPTION(IB_PATH) racing a BIND that attaches, then detaches the device" \
	run path_bind
ktap_test_result "GET_EVENT stalled on an unserved userfaultfd page: a connect on other files completes" \
	run event_stall
ktap_test_result "a wildcard listener migrated between files as requests arrive; DESTROY_ID, GET_EVENT on the other" \
	run migrate_wild

# Two processes at once, a few times (soak: make soak runs more; make
# check's 10 rounds of the connect-request cases took 148 s): the
# connect-request cases, then the state cases (multicast joins and
# leaves, MIGRATE_ID with events).
race() {
	local rc=0
	for _ in $(seq 1 "$1"); do
		python3 "$TESTDIR/ucma_fuzz.py" "$2" >/dev/null 2>&1 &
		python3 "$TESTDIR/ucma_fuzz.py" "$2" >/dev/null 2>&1 &
		wait
	done
	eventually 10 no_cm_ids || rc=1
	return $rc
}
# Long cases (lib.sh): make check runs each race in one process above.
long_case "two processes × $(soak 3) of the connect-request cases, then no cm_id" \
	race "$(soak 3)" connreq
long_case "two processes × $(soak 10) of the multicast and state cases, then no cm_id" \
	race "$(soak 10)" state

# RESOLVE_ADDR binds an unbound id to its source address, then starts the
# query; rxe0's removal in between moves the id to DEVICE_REMOVAL.  That
# answers EINVAL (as stock), without the WARN it once hit (panic_on_warn).
autobind_race() {
	local rc=0 churn stop
	stop=$(mktemp -u)
	# The loop ends between two commands when told (a kill could leave
	# an "rdma link add" of it running past the re-add below).
	( while [ ! -e "$stop" ]; do
		rdma link del rxe0 2>/dev/null
		rdma link add rxe0 type rxe netdev "$VETH" 2>/dev/null
	  done ) &
	churn=$!
	run autobind_race || rc=1
	touch "$stop"
	wait "$churn" 2>/dev/null
	rm -f "$stop"
	rdma link del rxe0 2>/dev/null
	rdma link add rxe0 type rxe netdev "$VETH" || rc=1
	return $rc
}
ktap_test_result "RESOLVE_ADDR binding its source while rxe0 is removed and added: no WARN" \
	autobind_race

topo_down
ktap_test_result "the stack unloads afterwards" rdma_unload_all
ktap_test_result "the kernel warned nothing during the test" \
	expect_eq "kernel warnings" "$(dmesg | grep -c 'WARNING\|BUG:')" "$warn0"
ktap_finished
