#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# What users script against while rping runs on rxe0 (rxe_topo.sh):
#   - a kprobe on ucma_open fires once per open of /dev/infiniband/rdma_cm:
#     as many times as rping's successful openat()s of it, counted by
#     strace (librdmacm opens it more than once per process: 4 opens for
#     one rping server and client on both stacks);
#   - the 18 rdma_cma and ib_cma tracepoints that fire on stock during
#     one rping fire on ours (STOCK_FIRED, measured on --stock);
#   - `rdma res show cm_id` shows the listening and connected ids with
#     state, pid and comm, as stock.
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rxe_topo.sh"

ktap_print_header
ktap_set_plan 4

if ! command -v bpftrace >/dev/null; then
	echo "# SKIP no bpftrace"
	exit "$KSFT_SKIP"
fi

rdma_unload_all
modprobe ib_uverbs
modprobe rdma_ucm
topo_one_up || exit "$KSFT_FAIL"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
port=$(topo_port)

# bpftrace PROGRAM: runs it in the background into $tmp/bt until
# bt_stop; returns once its probes are attached.
bt_start() {
	bpftrace -e "$1" >"$tmp/bt" 2>&1 &
	bt_pid=$!
	eventually 60 grep -q Attaching "$tmp/bt"
}
bt_stop() {
	kill -INT "$bt_pid" 2>/dev/null
	wait "$bt_pid"
}

# rping_once [TRACE...]: one rping server and client, 5 pings, each
# run under TRACE (a command prefix) if given.
rping_once() {
	timeout 60 "$@" rping -s -a "$ONE_IP" -p "$port" -C 5 >"$tmp/srv" 2>&1 &
	local sp=$!
	eventually 10 sh -c "rdma res show cm_id | grep -q 'state LISTEN'"
	timeout 60 "$@" rping -c -a "$ONE_IP" -p "$port" -C 5 >"$tmp/cli" 2>&1
	local rc=$?
	wait "$sp" && return $rc
}

# rping's opens of the device are counted by strace (-ff: a file per
# process, server and client apart), not by a bpftrace
# probe on openat: that needs the tracepoint's types, which bpftrace
# finds in BTF, and the debug kernel has none ("unknown type name s64").
bt_start 'kprobe:ucma_open /comm == "rping"/ { @opens = count(); }'
rping_once strace -ff -qq -e trace=openat -o "$tmp/strace"
rping_rc=$?
bt_stop
opens=$(sed -n 's/^@opens: //p' "$tmp/bt")
paths=$(cat "$tmp"/strace.* | grep -c 'openat(.*"/dev/infiniband/rdma_cm".* = [0-9]')
echo "# rping: $opens ucma_open, $paths openat of /dev/infiniband/rdma_cm"
if [ $rping_rc = 0 ] && [ -n "$opens" ] && [ "$opens" = "$paths" ]; then
	ktap_test_pass "kprobe:ucma_open fires once per rdma_cm open of rping"
else
	sed 's/^/# /' "$tmp/bt" "$tmp/srv" "$tmp/cli"
	ktap_test_fail "kprobe:ucma_open fires once per rdma_cm open of rping"
fi

# The tracepoints that fired during one rping on stock (bpftrace, 6.1.0-56,
# TCG, measured).
STOCK_FIRED="ib_cma:icm_dreq_skipped ib_cma:icm_send_drep ib_cma:icm_send_dreq
	ib_cma:icm_send_rep ib_cma:icm_send_req ib_cma:icm_send_rtu
	rdma_cma:cm_disconnect rdma_cma:cm_event_done rdma_cma:cm_event_handler
	rdma_cma:cm_id_attach rdma_cma:cm_id_destroy rdma_cma:cm_req_handler
	rdma_cma:cm_send_mra rdma_cma:cm_send_rep rdma_cma:cm_send_req
	rdma_cma:cm_send_rtu rdma_cma:cm_sent_drep rdma_cma:cm_sent_dreq"
bt_start 'tracepoint:rdma_cma:*, tracepoint:ib_cma:* { @[probe] = count(); }'
rping_once
bt_stop
fired=$(sed -n 's/^@\[tracepoint:\([a-z_]*:[a-z_0-9]*\)\]: .*/\1/p' "$tmp/bt" |
	sort | tr '\n' ' ')
echo "# fired: $fired"
missing=""
for tp in $STOCK_FIRED; do
	case " $fired " in *" $tp "*) ;; *) missing+=" $tp" ;; esac
done
if [ -z "$missing" ]; then
	ktap_test_pass "the rdma_cma and ib_cma tracepoints stock fires during rping fire"
else
	echo "# missing:$missing"
	ktap_test_fail "the rdma_cma and ib_cma tracepoints stock fires during rping fire"
fi

# rdma res show cm_id while an rping server listens and its client pings
# (no -C: until stopped).
timeout 60 rping -s -a "$ONE_IP" -p "$port" >"$tmp/srv" 2>&1 &
sp=$!
eventually 10 sh -c "rdma res show cm_id | grep -q 'state LISTEN'"
timeout 60 rping -c -a "$ONE_IP" -p "$port" >"$tmp/cli" 2>&1 &
cp=$!
eventually 10 sh -c "[ \$(rdma res show cm_id | grep -c 'state CONNECT') = 2 ]"
res=$(rdma res show cm_id)
printf '%s\n' "$res" | sed 's/^/# /'
listen=$(echo "$res" | grep -c "state LISTEN ps TCP pid [0-9]* comm rping src-addr $ONE_IP:$port dst-addr 0.0.0.0:0")
conn=$(echo "$res" | grep -c "lqpn [0-9]* qp-type RC state CONNECT ps TCP pid [0-9]* comm rping")
kill "$cp" "$sp" 2>/dev/null
wait "$cp" "$sp" 2>/dev/null
ktap_test_result "rdma res show cm_id: the listener with state, pid and comm" \
	[ "$listen" = 1 ]
ktap_test_result "rdma res show cm_id: both connected ids with lqpn, state and comm" \
	[ "$conn" = 2 ]

topo_down
rdma_unload_all
ktap_finished
