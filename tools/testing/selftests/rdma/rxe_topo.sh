# SPDX-License-Identifier: GPL-2.0-only
#
# The data-path tests' topologies (the ones datapath.md measured stock on),
# sourced after lib.sh by tests and scripts:
#
#   topo_one_up    rxe0 on veth0, 10.200.0.1/24 (peer veth1 up, no
#                  address).  Both ends of a test use rxe0 and talk to
#                  10.200.0.1: stock loops the packets back inside rxe.
#   topo_two_up    rxe1 on ve0 (10.203.0.1), rxe2 on ve1 (10.203.0.2), a
#   [NO_RXE2]      veth pair in this namespace; policy routing makes the
#                  traffic between the two addresses cross the veth
#                  instead of lo, so every packet goes over the wire.
#                  With an argument, no rxe2: ve1 is left to a packet
#                  injector (rxe_hostile.sh).
#   topo_ns_up     rxeA on va in netns nsA (10.204.0.1), rxeB on vb in
#                  netns nsB (10.204.0.2).
#   topo_down      removes whatever of the above exists.
#
# Each *_up waits until the device has the RoCE v2 GID of its IPv4
# address (rxe fills the GID table asynchronously); lib.sh's topo_gid
# DEV ADDR [NS] prints that GID's index, for the tools' -g/-x options.

ONE_DEV=rxe0
ONE_IP=10.200.0.1
TWO_DEV1=rxe1
TWO_DEV2=rxe2
TWO_IF1=ve0
TWO_IF2=ve1
TWO_IP1=10.203.0.1
TWO_IP2=10.203.0.2
# The two ends (DEV ADDR DEV ADDR) of a pair on one device and on two,
# as rxe_pair_py takes them.
ONE_ENDS=("$ONE_DEV" "$ONE_IP" "$ONE_DEV" "$ONE_IP")
TWO_ENDS=("$TWO_DEV1" "$TWO_IP1" "$TWO_DEV2" "$TWO_IP2")
NS_A=nsA
NS_B=nsB
NS_DEV_A=rxeA
NS_DEV_B=rxeB
NS_IP_A=10.204.0.1
NS_IP_B=10.204.0.2
# The routing table holding the two-device routes, and the preference
# the local table moves to so that our rules come first.
TOPO_TABLE=100
TOPO_LOCAL_PREF=1000

# topo_rxe_up NS DEV NETDEV ADDR: rxe DEV on NETDEV (in netns NS), once
# its GID for ADDR is there.
topo_rxe_up() {
	local ns=$1 dev=$2 netdev=$3 addr=$4
	link_ready "$netdev" "$ns" || return 1
	in_ns "$ns" rdma link add "$dev" type rxe netdev "$netdev" || return 1
	eventually 10 topo_gid "$dev" "$addr" "$ns" >/dev/null ||
		{ echo "$dev: no GID for $addr"; return 1; }
}

topo_one_up() {
	rxe0_up &&
	ip addr add "$ONE_IP/24" dev "$VETH" &&
	eventually 10 topo_gid "$ONE_DEV" "$ONE_IP" >/dev/null ||
		{ echo "topo_one_up failed"; return 1; }
}

# Two local addresses talk over lo unless told otherwise: from the host
# (iif lo) to the peer's address, table $TOPO_TABLE sends the packet out
# of the other end of the pair; the receiving end must accept a source
# address that is its own host's (accept_local, no rp_filter).
topo_two_up() {
	local i
	topo_two_clean
	ip link add "$TWO_IF1" type veth peer name "$TWO_IF2" || return 1
	# The shell's own writes, and one ip for the rest: a process costs
	# 0.3 to 0.9 s under TCG, and this ran some thirty of them.
	for i in all default "$TWO_IF1" "$TWO_IF2"; do
		echo 0 >"/proc/sys/net/ipv4/conf/$i/rp_filter" &&
		echo 1 >"/proc/sys/net/ipv4/conf/$i/accept_local" || return 1
	done
	ip -batch - <<-EOF || return 1
	addr add $TWO_IP1/24 dev $TWO_IF1
	addr add $TWO_IP2/24 dev $TWO_IF2
	link set $TWO_IF1 up
	link set $TWO_IF2 up
	EOF
	# Both ends, whether or not an rxe sits on them: until its
	# operstate is up a veth sends through noop_qdisc (lib.sh).
	link_ready "$TWO_IF1" && link_ready "$TWO_IF2" || return 1
	# topo_two_clean left the local table at preference 0.
	ip -batch - <<-EOF || return 1
	rule add pref 100 iif lo to $TWO_IP2 lookup $TOPO_TABLE
	rule add pref 101 iif lo to $TWO_IP1 lookup $TOPO_TABLE
	route add $TWO_IP2 dev $TWO_IF1 src $TWO_IP1 table $TOPO_TABLE
	route add $TWO_IP1 dev $TWO_IF2 src $TWO_IP2 table $TOPO_TABLE
	rule add pref $TOPO_LOCAL_PREF lookup local
	rule del pref 0 lookup local
	EOF
	topo_rxe_up "" "$TWO_DEV1" "$TWO_IF1" "$TWO_IP1" || return 1
	[ -n "${1:-}" ] || topo_rxe_up "" "$TWO_DEV2" "$TWO_IF2" "$TWO_IP2"
}

topo_ns_up() {
	topo_ns_clean
	ip netns add "$NS_A" && ip netns add "$NS_B" || return 1
	ip link add va netns "$NS_A" type veth peer name vb netns "$NS_B" || return 1
	ip -n "$NS_A" addr add "$NS_IP_A/24" dev va &&
	ip -n "$NS_B" addr add "$NS_IP_B/24" dev vb &&
	ip -n "$NS_A" link set lo up && ip -n "$NS_B" link set lo up &&
	ip -n "$NS_A" link set va up && ip -n "$NS_B" link set vb up || return 1
	topo_rxe_up "$NS_A" "$NS_DEV_A" va "$NS_IP_A" &&
	topo_rxe_up "$NS_B" "$NS_DEV_B" vb "$NS_IP_B"
}

# What topo_ns_up and topo_two_up make, gone (also what a test killed
# half-way left behind); the rxe devices go with their netdevs.
topo_ns_clean() {
	local ns
	for ns in "$NS_A" "$NS_B"; do
		[ -e "/run/netns/$ns" ] && ip netns del "$ns"
	done
	true
}

topo_two_clean() {
	local rules line cmds= local0=
	rxe_del "$TWO_DEV1"
	rxe_del "$TWO_DEV2"
	[ ! -e "/sys/class/net/$TWO_IF1" ] || cmds+="link del $TWO_IF1"$'\n'
	# Every rule of ours, however many a killed test left; the local
	# table back at preference 0.  One ip, which goes on past errors.
	rules=$(ip rule show 2>/dev/null)
	while IFS= read -r line; do
		case $line in
		"0:"*"lookup local"*) local0=1 ;;
		"100:"*) cmds+="rule del pref 100"$'\n' ;;
		"101:"*) cmds+="rule del pref 101"$'\n' ;;
		esac
	done <<<"$rules"
	cmds+="route flush table $TOPO_TABLE"$'\n'
	if [ -z "$local0" ]; then
		cmds+="rule add pref 0 lookup local"$'\n'
		cmds+="rule del pref $TOPO_LOCAL_PREF lookup local"$'\n'
	fi
	printf '%s' "$cmds" | ip -force -batch - >/dev/null 2>&1
	true
}

# topo_two_static_neigh: the two-device addresses' neighbours, made
# permanent.  modify_qp to RTR resolves the peer's MAC on the veth with a
# 1 s bound, which one lost ARP request or reply exceeds (seen:
# ETIMEDOUT, netem's only packet an ARP it dropped): a test that loses
# packets on purpose sets them first, so that the traffic, not ARP, is
# what runs over the loss.  (The guest has no ping, and a ping between
# two local addresses would not cross the veth anyway.)
topo_two_static_neigh() {
	ip neigh replace "$TWO_IP2" dev "$TWO_IF1" nud permanent \
		lladdr "$(cat "/sys/class/net/$TWO_IF2/address")" &&
		ip neigh replace "$TWO_IP1" dev "$TWO_IF2" nud permanent \
			lladdr "$(cat "/sys/class/net/$TWO_IF1/address")"
}

# Everything the *_up functions may have made, gone.  Returns once no rxe
# device is left.
topo_down() {
	topo_ns_clean
	topo_two_clean
	rxe_del "$ONE_DEV"
	veth_teardown
	eventually 10 topo_no_rxe >/dev/null
}

topo_no_rxe() {
	expect_eq "rxe devices left" "$(rxe_devices)" ""
}

# wait_listen PORT NS PID: until a TCP socket listens on PORT in NS, at
# most 20 s (times OOT_TIMEOUT_SCALE: ibv_srq_pingpong sets up its 16 QPs
# before it listens, which took longer than 20 s on the debug kernel),
# while process PID lives (a server started in the background must
# accept before its client connects: the tools' clients do not retry).
wait_listen() {
	local end=$(($(date +%s) + 20 * ${OOT_TIMEOUT_SCALE:-1}))
	while [ "$(date +%s)" -lt "$end" ]; do
		in_ns "$2" ss -Hltn "sport = :$1" | grep -q . && return 0
		kill -0 "$3" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

# A fresh TCP port for each server, also from subshells (ktap_test_result
# runs its command in one).
TOPO_PORTS=$(mktemp)
echo 18600 >"$TOPO_PORTS"
topo_port() {
	local p
	p=$(($(cat "$TOPO_PORTS") + 1))
	echo "$p" >"$TOPO_PORTS"
	echo "$p"
}

# tool_pair SERVER-NS SERVER-DEV SERVER-ADDR CLIENT-NS CLIENT-DEV
#           CLIENT-ADDR GID-OPT TOOL [ARG...]
# Runs TOOL as a server on SERVER-DEV and as its client on CLIENT-DEV
# (each in its netns; "" is this one), with ARGS, the GID of the device's
# address (GID-OPT: -g for the ibv_*_pingpong tools, -x for perftest) and
# a port of its own, each bounded by TOOL_TIMEOUT seconds (default 60;
# times OOT_TIMEOUT_SCALE, as every wait: the debug kernel under TCG
# starts a tool in seconds, and a server gave up before its client came),
# line-buffered so that a tool killed by the bound leaves what it printed.
# Succeeds when both end with status 0; their output is in
# $TOOL_OUT/server and $TOOL_OUT/client, printed when they fail.
#
# perftest turns cycles into time with a clock rate it samples at start
# and again for its report; on a starved guest (two guests and the static
# steps of make check on two cores, the debug kernel) the sample can fail
# its own check ("Correlation coefficient r^2: ... < 0.9").  A latency
# tool then prints inf, a bandwidth tool with -F zeros; one without -F
# says "Can't produce a report" and exits 1, which perftest does only
# after the traffic completed (its report is computed from the
# completion times).  No test judges perftest's figures (scripts/
# measure speed), so that end counts as having succeeded.  Retrying did
# not help: the guest that starved one sample starved the next (make
# check, rxe_perftest_lat: all six cases failed both tries).
TOOL_OUT=
TOOL_TIMEOUT=$((${TOOL_TIMEOUT:-60} * ${OOT_TIMEOUT_SCALE:-1}))
# tool_ok STATUS FILE: whether a tool that exited STATUS with the output
# FILE ran its traffic.
tool_ok() {
	[ "$1" = 0 ] && return 0
	[ "$1" = 1 ] && grep -qs "Can't produce a report" "$2" &&
		grep -qs "Correlation coefficient" "$2" || return 1
	echo "# ${2##*/}: the traffic ran; perftest doubted its clock, no figures"
}

tool_pair() {
	local sns=$1 sdev=$2 saddr=$3 cns=$4 cdev=$5 caddr=$6 gopt=$7 tool=$8
	local sgid cgid port pid rc=0 src=0
	shift 8
	TOOL_OUT=${TOOL_OUT:-$(mktemp -d)}
	sgid=$(topo_gid "$sdev" "$saddr" "$sns") &&
	cgid=$(topo_gid "$cdev" "$caddr" "$cns") ||
		{ echo "no GID for $saddr on $sdev or $caddr on $cdev"; return 1; }
	port=$(topo_port)
	in_ns "$sns" timeout "$TOOL_TIMEOUT" stdbuf -oL "$tool" -d "$sdev" "$gopt" "$sgid" -p "$port" "$@" \
		>"$TOOL_OUT/server" 2>&1 &
	pid=$!
	if wait_listen "$port" "$sns" $pid; then
		in_ns "$cns" timeout "$TOOL_TIMEOUT" stdbuf -oL "$tool" -d "$cdev" "$gopt" "$cgid" -p "$port" "$@" \
			"$saddr" >"$TOOL_OUT/client" 2>&1 || rc=$?
	else
		echo "$tool: the server never listened on $port"
		rc=1
	fi
	[ $rc = 0 ] || tool_ok $rc "$TOOL_OUT/client" >/dev/null ||
		kill $pid 2>/dev/null
	wait $pid || src=$?
	if ! tool_ok $src "$TOOL_OUT/server" || ! tool_ok $rc "$TOOL_OUT/client"; then
		echo "$tool $*: server status $src, client status $rc"
		sed 's/^/server: /' "$TOOL_OUT/server"
		sed 's/^/client: /' "$TOOL_OUT/client" 2>/dev/null
		# Where the packets went: a lost one shows in these.
		in_ns "$sns" rdma stat show link "$sdev/1" | sed 's/^/server: /'
		[ "$cdev" = "$sdev" ] && [ "$cns" = "$sns" ] ||
			in_ns "$cns" rdma stat show link "$cdev/1" | sed 's/^/client: /'
		return 1
	fi
}

# cm_pair WAIT|KILL "SERVER CMD" "CLIENT CMD": an rdmacm-utils server
# in the background, once it listens (some rdma_cm id in state LISTEN;
# mckey's receiver listens on nothing: after a second) its client.  Both
# must succeed: the server ends by itself with WAIT, is stopped after
# the client with KILL (cmtime's serves until stopped).  Each bounded by
# TOOL_TIMEOUT; their output goes to $CM_OUT (the caller's directory),
# shown on failure.  Afterwards no cm_id is left.
cm_pair() {
	local how=$1 srv=$2 cli=$3 sp rc=0
	: "${CM_OUT:?cm_pair: CM_OUT must name a directory}"
	# shellcheck disable=SC2086
	timeout "$TOOL_TIMEOUT" $srv >"$CM_OUT/server" 2>&1 &
	sp=$!
	case "$srv" in
	mckey*) sleep 1 ;;
	*) eventually 10 cm_listening >/dev/null || { echo "server not listening"; rc=1; } ;;
	esac
	# shellcheck disable=SC2086
	if [ $rc = 0 ] && ! timeout "$TOOL_TIMEOUT" $cli >"$CM_OUT/client" 2>&1; then
		echo "client failed: $cli"
		sed 's/^/client: /' "$CM_OUT/client" | tail -20
		rc=1
	fi
	if [ "$how" = KILL ] || [ $rc != 0 ]; then
		kill "$sp" 2>/dev/null
		wait "$sp"
		[ $rc = 0 ] || sed 's/^/server: /' "$CM_OUT/server" | tail -20
	elif ! wait "$sp"; then
		echo "server failed: $srv"
		sed 's/^/server: /' "$CM_OUT/server" | tail -20
		rc=1
	fi
	eventually 10 no_cm_ids || rc=1
	return $rc
}

cm_listening() {
	rdma res show cm_id | grep -q 'state LISTEN'
}

# rxe_pair_py SCRIPT CASE DEV-A ADDR-A DEV-B ADDR-B [ARG...]: SCRIPT's
# CASE (with its ARGs), for the scripts that take rxe_traffic.py's
# --dev/--gid/--peer/--peer-gid: DEV-A the requester and DEV-B the
# responder, each on the GID of its address.
rxe_pair_py() {
	/usr/bin/python3 "$TESTDIR/$1" --dev "$3" --gid "$(topo_gid "$3" "$4")" \
		--peer "$5" --peer-gid "$(topo_gid "$5" "$6")" "${@:7}" "$2"
}

# ours_case SCRIPT WHY DESC CASE DEV-A ADDR-A DEV-B ADDR-B [ARG...]: the
# pair script's CASE as the KTAP case DESC on ours; on stock skipped for
# WHY, a feature stock's rxe lacks (as measured by the test that says so).
ours_case() {
	if ours; then
		ktap_test_result "$3" rxe_pair_py "$1" "${@:4}"
	else
		ktap_test_skip "$3" "$2"
	fi
}

# rxe_traffic CASE DEV-A ADDR-A DEV-B ADDR-B [ARG...]: rxe_traffic.py's.
rxe_traffic() {
	rxe_pair_py rxe_traffic.py "$@"
}

# pingpong NS-S DEV-S ADDR-S NS-C DEV-C ADDR-C TOOL [ARG...]: an
# ibv_*_pingpong run; both ends must report their iterations.
pingpong() {
	tool_pair "$1" "$2" "$3" "$4" "$5" "$6" -g "${@:7}" || return 1
	grep -q ' iters in ' "$TOOL_OUT/server" && grep -q ' iters in ' "$TOOL_OUT/client" ||
		{ echo "$7: no iteration report"; cat "$TOOL_OUT/server" "$TOOL_OUT/client"; return 1; }
}

# hw_counter DEV NAME: port 1's hw counter NAME of rxe device DEV.
hw_counter() {
	cat "/sys/class/infiniband/$1/ports/1/hw_counters/$2"
}
