# SPDX-License-Identifier: GPL-2.0-only
#
# Helpers shared by the rdma selftests.  Sourced after ktap_helpers.sh.
# The harness exports OOT_STOCK (1: the in-tree stack is under test),
# OOT_KVER, OOT_REPO, OOT_BUILT and OOT_VERSION; outside it, sane
# defaults apply.

OOT_STOCK=${OOT_STOCK:-0}
OOT_KVER=${OOT_KVER:-$(uname -r)}
OOT_REPO=${OOT_REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../../../.." && pwd)}
# Where our modules were built for the guest's kernel: the tree for
# Debian's, .debug-build/ for the debug kernel (scripts/vm).  A test that
# loads one of ours by its file takes it from here.
OOT_BUILT=${OOT_BUILT:-$OOT_REPO}

# Every module of the RDMA stack, users before what they use: the order
# in which they can be unloaded.
RDMA_MODULES="rdma_rxe rdma_ucm ib_umad ib_uverbs rdma_cm iw_cm ib_cm ib_core"
# Debian's hardware drivers on the core that the hw_* tests load (the
# models'): rdma_unload_all takes them out first, or whatever test
# follows one in the guest cannot unload the core.
RDMA_HW_DRIVERS="mlx5_ib irdma"

# soak N: the rounds of a cycle or race test, N in make check and N
# times OOT_SOAK in make soak, where the count matters and the time does
# not.  make check's N is what the suite's half-hour affords.
soak() {
	echo $(($1 * ${OOT_SOAK:-1}))
}

# long_cases: whether this run takes the long cases, which make check
# leaves out to stay within its half hour on two cores (testing.rst,
# "make check"): make check-long, make soak and the debug tier take them
# (OOT_LONG=1).  A test reports each case it leaves out as skipped, with
# LONG_SKIP for the reason.
long_cases() {
	[ "${OOT_LONG:-0}" != 0 ]
}
LONG_SKIP="a long case: make check-long runs it"

# long_case DESCRIPTION COMMAND...: ktap_test_result, or when this run
# leaves the long cases out, DESCRIPTION reported skipped for LONG_SKIP.
long_case() {
	if long_cases; then
		ktap_test_result "$@"
	else
		ktap_test_skip "$1" "$LONG_SKIP"
	fi
}

TESTDIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# nlrdma ARGS...: one raw NETLINK_RDMA request, see nlrdma.py.
nlrdma() {
	python3 "$TESTDIR/nlrdma.py" "$@"
}

ours() {
	[ "$OOT_STOCK" != 1 ]
}

# pyverbs_want: the outcomes a pyverbs test should have here: stock's
# (golden/pyverbs-stock.txt, measured there), and on ours those of
# golden/pyverbs-ours.txt instead, where ours deliberately differs.
pyverbs_want() {
	local stock=$TESTDIR/golden/pyverbs-stock.txt
	if ours; then
		grep -v '^#' "$TESTDIR/golden/pyverbs-ours.txt" |
			awk 'NR == FNR { o[$1] = $2; next }
			     /^#/ || !($1 in o) { print; next }
			     { print $1, o[$1] }' - "$stock"
	else
		cat "$stock"
	fi
}

# tracefs kprobe events, by their kprobe_events definitions ("p:NAME FN
# ARGS", "r:GROUP/NAME FN ARGS").
TRACEFS=/sys/kernel/tracing

# probe_event DEF: the event DEF makes, as events/ names it.
probe_event() {
	local n=${1%% *}

	n=${n#*:}
	[[ $n == */* ]] || n=kprobes/$n
	echo "$n"
}

# probes_on DEF...: each event added and enabled, the trace emptied.
probes_on() {
	local d

	[ -e $TRACEFS/kprobe_events ] ||
		mount -t tracefs nodev $TRACEFS 2>/dev/null || return 1
	for d in "$@"; do
		echo "$d" >> $TRACEFS/kprobe_events || return 1
	done
	echo > $TRACEFS/trace
	for d in "$@"; do
		echo 1 > "$TRACEFS/events/$(probe_event "$d")/enable" || return 1
	done
}

# probes_off DEF...: each event disabled; the trace stays to be read.
probes_off() {
	local d e

	for d in "$@"; do
		e=$TRACEFS/events/$(probe_event "$d")/enable
		[ ! -e "$e" ] || echo 0 > "$e"
	done
}

# probes_del DEF...: each event removed, after probes_off.
probes_del() {
	local d

	for d in "$@"; do
		[ ! -e "$TRACEFS/events/$(probe_event "$d")" ] ||
			echo "-:$(probe_event "$d")" >> $TRACEFS/kprobe_events
	done
}

# pci_function VENDOR DEVICE: the address of the first PCI function with
# these IDs (as sysfs has them: 0x15b3 0x1015), or nothing.
pci_function() {
	local d

	for d in /sys/bus/pci/devices/*; do
		if [ "$(cat "$d/vendor")" = "$1" ] && [ "$(cat "$d/device")" = "$2" ]; then
			echo "${d##*/}"
			return
		fi
	done
}

# The modelled NIC's wire (scripts/vm --hw): a QEMU hub that a virtio-net
# NIC of the same guest, MAC 52:54:00:34:00:02, also plugs into.
# wire_peer_ns NS ADDR: that NIC moved into a new network namespace NS
# with ADDR/24, up, so that the model's frames reach a known-good NIC
# and back; says what failed.  The guest loads no NIC driver by itself.
wire_peer_ns() {
	local peer

	modprobe virtio_net 2>/dev/null
	wire_peer() { grep -l 52:54:00:34:00:02 /sys/class/net/*/address 2>/dev/null; }
	eventually 30 wire_peer >/dev/null || { echo "no virtio peer on the wire"; return 1; }
	peer=$(wire_peer | head -1)
	peer=$(basename "$(dirname "$peer")")
	ip netns del "$1" 2>/dev/null
	ip netns add "$1" &&
		ip link set "$peer" netns "$1" &&
		ip -n "$1" addr add "$2/24" dev "$peer" &&
		ip -n "$1" link set "$peer" up &&
		ip -n "$1" link set lo up
}

# rping_pair ADDR: rping's server on ADDR and its client, 10 pings, each
# verified by the server (-V) and shown by the client (-v); outputs in
# the caller's $OUT/server and $OUT/client, shown on failure.
rping_pair() {
	local rc=0

	timeout 120 rping -s -a "$1" -C 10 -V >"$OUT/server" 2>&1 &
	sleep 2
	timeout 120 rping -c -a "$1" -C 10 -v >"$OUT/client" 2>&1 || rc=1
	wait $! || rc=1
	[ "$(grep -c '^ping data: rdma-ping-' "$OUT/client")" = 10 ] || rc=1
	if [ $rc != 0 ]; then
		sed 's/^/server: /' "$OUT/server"
		sed 's/^/client: /' "$OUT/client"
	fi
	return $rc
}

# mckey_pair ADDR GROUP: mckey's receiver on ADDR joins GROUP (librdmacm
# attaches its UD QP), then a sender joins and sends 10 datagrams to the
# group; the receiver must take all 10 ("data transfers complete") and
# both exit 0.  The receiver's output line-buffered: the sender starts
# once it has joined.  Outputs in the caller's $OUT/server and
# $OUT/client, shown on failure.
mckey_pair() {
	local rc=0 srv

	timeout 120 stdbuf -oL mckey -m "$2" -b "$1" -C 10 >"$OUT/server" 2>&1 &
	srv=$!
	eventually 60 grep -q 'joined dgid' "$OUT/server" || rc=1
	timeout 120 mckey -m "$2" -b "$1" -s -C 10 >"$OUT/client" 2>&1 || rc=1
	wait $srv || rc=1
	grep -q 'data transfers complete' "$OUT/server" || rc=1
	if [ $rc != 0 ]; then
		sed 's/^/receiver: /' "$OUT/server"
		sed 's/^/sender: /' "$OUT/client"
	fi
	return $rc
}

# udp_echo_once ADDR PORT: answer one datagram in upper case, then exit.
# udp_ask ADDR PORT: a datagram to it until the answer comes (10 tries).
# Both run in the caller's namespace (ip netns exec NS bash -c
# "$(declare -f udp_ask); udp_ask ..." for the other).
udp_echo_once() {
	timeout 60 python3 -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind((sys.argv[1], int(sys.argv[2])))
d, a = s.recvfrom(2048); s.sendto(d.upper(), a)' "$@"
}
udp_ask() {
	timeout 60 python3 -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.settimeout(5)
for _ in range(10):
    s.sendto(b"nic model", (sys.argv[1], int(sys.argv[2])))
    try:
        d = s.recv(2048)
    except socket.timeout:
        continue
    sys.exit(0 if d == b"NIC MODEL" else 1)
sys.exit(1)' "$@"
}

# udp_to_ns NS THERE: a datagram to the peer THERE in NS, and its answer.
# udp_from_ns NS HERE: one from the peer to HERE, and ours.
udp_to_ns() {
	local rc=0

	ip netns exec "$1" bash -c "$(declare -f udp_echo_once); udp_echo_once $2 7735" &
	sleep 1
	udp_ask "$2" 7735 || rc=1
	wait $! || rc=1
	return $rc
}
udp_from_ns() {
	local rc=0

	udp_echo_once "$2" 7736 &
	sleep 1
	ip netns exec "$1" bash -c "$(declare -f udp_ask); udp_ask $2 7736" || rc=1
	wait $! || rc=1
	return $rc
}

# tcp_to_ns NS ADDR MIB: MIB MiB over TCP to the peer ADDR in NS,
# checked (tcp_bulk.py); the offloads the NIC has on are printed.
tcp_to_ns() {
	local rc=0

	ip netns exec "$1" timeout 300 /usr/bin/python3 "$TESTDIR/tcp_bulk.py" \
		--server "$2" --port 7734 --mib "$3" >/tmp/tcp_to_ns.srv 2>&1 &
	sleep 2
	timeout 300 /usr/bin/python3 "$TESTDIR/tcp_bulk.py" --client "$2" \
		--port 7734 --mib "$3" || rc=1
	wait $! || rc=1
	sed 's/^/# /' /tmp/tcp_to_ns.srv
	return $rc
}

# The modelled E810 (scripts/vm --hw e810) of the hw_e810_* selftests:
# its PCI address, or nothing on a guest without it.
e810_function() {
	pci_function 0x8086 0x159b
}

# e810_or_skip PLAN NAME: nothing when the guest has the model, else
# every one of the PLAN cases skipped (named "NAME case N") and the test
# finished.
e810_or_skip() {
	local i

	[ -z "$(e810_function)" ] || return 0
	for ((i = 1; i <= $1; i++)); do
		ktap_test_skip "$2 case $i" \
			"no 8086:159b function (scripts/vm --hw e810)"
	done
	ktap_finished
}

# irdma_log_clean LINES [DEV]: the kernel log after its first LINES lines
# has no irdma (or DEV) line that says fail, error, timeout, hung or
# flush.
irdma_log_clean() {
	! dmesg | tail -n +"$(($1 + 1))" | grep -aE "irdma${2:+|$2}" |
		grep -aiE "fail|error|timeout|hung|flush"
}

# e810_ibdev: the RDMA device irdma made on it (irdma binds ice's
# ice.roce device and makes the PCI function the RDMA device's parent).
e810_ibdev() {
	local d fn

	fn=$(readlink -f "/sys/bus/pci/devices/$(e810_function)")
	for d in /sys/class/infiniband/*; do
		[ "$(readlink -f "$d/device")" = "$fn" ] || continue
		echo "${d##*/}"
		return 0
	done
	return 1
}

# e810_roce_up ADDR: ice's netdev (E810_IF) up with ADDR, irdma's device
# (E810_IB) registered with port 1 ACTIVE and a RoCE v2 GID of ADDR
# (index E810_GIDX), rdma_cm and umad loaded.  Says what failed.
e810_roce_up() {
	local fn

	E810_IF= E810_IB= E810_GIDX=
	fn=/sys/bus/pci/devices/$(e810_function)
	modprobe ice || return 1
	e810_netdev() { ls "$fn/net" 2>/dev/null | grep .; }
	eventually 120 e810_netdev >/dev/null || { echo "ice made no netdev"; return 1; }
	E810_IF=$(e810_netdev | head -1)
	ip addr add "$1/24" dev "$E810_IF" && ip link set "$E810_IF" up || return 1
	modprobe irdma && modprobe ib_umad && modprobe rdma_ucm || return 1
	eventually 120 e810_ibdev >/dev/null || { echo "irdma registered no device"; return 1; }
	E810_IB=$(e810_ibdev)
	e810_active() { grep -q ACTIVE "/sys/class/infiniband/$E810_IB/ports/1/state"; }
	eventually 60 e810_active || { echo "$E810_IB: port 1 not ACTIVE"; return 1; }
	eventually 60 topo_gid "$E810_IB" "$1" >/dev/null ||
		{ echo "$E810_IB: no RoCE v2 GID of $1"; return 1; }
	E810_GIDX=$(topo_gid "$E810_IB" "$1")
}

# irdma_ours: the irdma loaded (none loaded: the one modprobe finds) is
# ours, by its version (ours has the tree's, Debian's none).
irdma_ours() {
	local v

	if module_loaded irdma; then
		v=$(cat /sys/module/irdma/version 2>/dev/null)
	else
		v=$(modinfo -F version irdma 2>/dev/null)
	fi
	[ -n "$v" ] && [ "$v" = "${OOT_VERSION:-}" ]
}

# irdma_which: "ours" or "Debian's", as irdma_ours says.
irdma_which() {
	if irdma_ours; then echo ours; else echo "Debian's"; fi
}

# hw_counters DEV: port 1's hardware counters, NAME VALUE a line, as
# rdma statistic shows them.
hw_counters() {
	rdma statistic show link "$1/1" | tr ' ' '\n' |
		awk 'NR > 2 && NR % 2 { name = $0; next } NR > 2 { print name, $0 }'
}

# hw_counter DEV NAME: that counter's value.
hw_counter() {
	hw_counters "$1" | awk -v n="$2" '$1 == n { print $2 }'
}

# e810_pingpong DEV GIDX rc|ud ARGS...: ibv_rc_pingpong or
# ibv_ud_pingpong, server and client on DEV from GID index GIDX, 50
# iterations with their buffers checked (-c), 4 KiB (UD: 512 bytes, within
# the port's 1024 path MTU); both must report their iterations.
e810_pingpong() {
	local dev=$1 gidx=$2 tool=ibv_$3_pingpong size=4096

	shift 3
	[ -n "$gidx" ] || { echo "no GID index"; return 1; }
	[ "$tool" = ibv_ud_pingpong ] && size=512
	localhost_pair 300 $tool -d "$dev" -g "$gidx" -n 50 -s $size -c "$@" || return 1
	grep -q ' iters in ' "$OUT/server" && grep -q ' iters in ' "$OUT/client" ||
		{ echo "$tool: no iteration report"; return 1; }
}

# e810_roce_case ADDR: e810_roce_up as a ktap case, its steps' output
# shown when it fails; E810_IF, E810_IB and E810_GIDX set as it sets them
# (empty GIDX: the device is not up).
e810_roce_case() {
	local log

	log=$(mktemp)
	e810_roce_up "$1" >"$log" 2>&1
	e810_up_ok() { [ -n "$E810_GIDX" ] || { cat "$log"; return 1; }; }
	ktap_test_result "irdma's device up with a RoCE v2 GID of $1" e810_up_ok
	rm -f "$log"
}

# The modelled ConnectX-4 Lx (scripts/vm --hw mlx5) of the hw_mlx5_*
# selftests: its PCI address, or nothing on a guest without it.
mlx5_function() {
	pci_function 0x15b3 0x1015
}

# mlx5_fault_inject SYND: the model's firmware dies with health syndrome
# SYND (1-255), through its x-fault-inject word (mlx5-model.rst,
# "Faults"; scripts/vm turns it on): a little-endian dword at 0x400 of
# the function's configuration space, one 4-byte write.
mlx5_fault_inject() {
	local bdf

	bdf=$(mlx5_function)
	[ -n "$bdf" ] || return 1
	printf "\\x$(printf %02x "$1")\\x00\\x00\\x00" |
		dd of="/sys/bus/pci/devices/$bdf/config" bs=4 seek=256 \
			conv=notrunc status=none
}

# mlx5_fatal_error: the model's firmware dies (health syndrome 1) with
# mlx5_core's fw_fatal reporter set to recover at once (its grace period
# is 20 minutes after a recovery, and a test before may have had one).
mlx5_fatal_error() {
	devlink health set "pci/$(mlx5_function)" reporter fw_fatal \
		grace_period 0 && mlx5_fault_inject 1
}

# mlx5_recovered SINCE SECS: mlx5_core logged a successful recovery of
# the function after dmesg line SINCE, within SECS.
mlx5_recovered() {
	eventually "$2" eval "dmesg | tail -n +$(($1 + 1)) |
		grep -q 'health recovery succeeded'"
}

# mlx5_ifname: the netdev mlx5_core made for it (after modprobe
# mlx5_core: probe takes a while under TCG), or nothing.
mlx5_ifname() {
	local bdf name
	bdf=$(mlx5_function)
	[ -n "$bdf" ] || return 1
	name=$(ls "/sys/bus/pci/devices/$bdf/net" 2>/dev/null | head -1)
	[ -n "$name" ] && echo "$name"
}

# mlx5_or_skip PLAN WHAT: on a guest without the modelled ConnectX
# (scripts/vm --hw mlx5), the test's PLAN cases skipped ("WHAT case N")
# and the test ended.
mlx5_or_skip() {
	local i

	[ -z "$(mlx5_function)" ] || return 0
	for ((i = 1; i <= $1; i++)); do
		ktap_test_skip "$2 case $i" \
			"no 15b3:1015 PCI function (boot with scripts/vm --hw mlx5)"
	done
	ktap_finished
}

# mlx5_link_up IFNAME ADDR: ADDR/24 on the model's netdev, its only IPv4
# address (so its only IPv4 GIDs, whatever test ran before in the
# guest), up, carrier.
mlx5_link_up() {
	[ -n "$1" ] && ip -4 addr flush dev "$1" && ip addr add "$2/24" dev "$1" &&
		ip link set "$1" up &&
		eventually 60 grep -qx 1 "/sys/class/net/$1/carrier"
}

# mlx5_ib_up: Debian's mlx5_ib and the user and CM modules, mlx5_0
# registered (with UMR on, mlx5_ib fills its key cache first).
mlx5_ib_up() {
	modprobe -a mlx5_ib ib_uverbs rdma_cm rdma_ucm &&
		eventually 120 test -d /sys/class/infiniband/mlx5_0
}

# in_ns NS CMD...: CMD in netns NS; in this one when NS is empty.
in_ns() {
	local ns=$1
	shift
	if [ -n "$ns" ]; then
		ip netns exec "$ns" "$@"
	else
		"$@"
	fi
}

# The IPv4-mapped GID of ADDR, as sysfs prints it.
topo_mapped_gid() {
	local a b c d
	IFS=. read -r a b c d <<<"$1"
	printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' "$a" "$b" "$c" "$d"
}

# topo_gid DEV ADDR [NS]: index of DEV's RoCE v2 GID for ADDR, the first
# in sysfs's order.  sysfs is per device, not per namespace, but a
# device in another namespace is visible only there (rdma sys netns
# exclusive) or everywhere (shared).  In this namespace the shell's own
# reads do it: a cat per entry cost 0.7 s a lookup under TCG, and a tool
# run looks up two.
topo_gid() {
	local p=/sys/class/infiniband/$1/ports/1 want f i g t

	want=$(topo_mapped_gid "$2")
	if [ -n "${3:-}" ]; then
		for i in $(in_ns "$3" ls "$p/gids/"); do
			[ "$(in_ns "$3" cat "$p/gids/$i" 2>/dev/null)" = "$want" ] &&
			[ "$(in_ns "$3" cat "$p/gid_attrs/types/$i" 2>/dev/null)" = "RoCE v2" ] ||
				continue
			echo "$i"
			return 0
		done
		return 1
	fi
	for f in "$p"/gids/*; do
		read -r g <"$f" 2>/dev/null && [ "$g" = "$want" ] || continue
		i=${f##*/}
		read -r t <"$p/gid_attrs/types/$i" 2>/dev/null &&
			[ "$t" = "RoCE v2" ] || continue
		echo "$i"
		return 0
	done
	return 1
}

# mlx5_roce_up ADDR: the whole bring-up, for a caller that needs its
# results (not through ktap_test_result, whose subshell keeps them):
# mlx5_core's netdev (MLX5_IF) up with ADDR, mlx5_0 registered and its
# RoCE v2 GID of ADDR (index MLX5_GIDX).  Says what failed.
mlx5_roce_up() {
	MLX5_IF= MLX5_GIDX=
	[ -n "$(mlx5_function)" ] || { echo "no 15b3:1015 PCI function"; return 1; }
	modprobe mlx5_core || return 1
	eventually 180 mlx5_ifname >/dev/null || { echo "mlx5_core made no netdev"; return 1; }
	MLX5_IF=$(mlx5_ifname)
	mlx5_link_up "$MLX5_IF" "$1" || { echo "$MLX5_IF: not up with $1"; return 1; }
	mlx5_ib_up || { echo "mlx5_ib registered no mlx5_0"; return 1; }
	eventually 60 topo_gid mlx5_0 "$1" >/dev/null ||
		{ echo "mlx5_0: no RoCE v2 GID of $1"; return 1; }
	MLX5_GIDX=$(topo_gid mlx5_0 "$1")
}

# mlx5_roce_cases ADDR: the same steps as three KTAP cases (netdev up
# with ADDR, mlx5_0 registered, its RoCE v2 GID of ADDR), MLX5_IF and
# MLX5_GIDX set as mlx5_roce_up sets them.
mlx5_roce_cases() {
	modprobe mlx5_core
	eventually 180 mlx5_ifname >/dev/null
	MLX5_IF=$(mlx5_ifname)
	ktap_test_result "mlx5e netdev $MLX5_IF up with $1" \
		mlx5_link_up "$MLX5_IF" "$1"
	ktap_test_result "mlx5_ib registers mlx5_0" mlx5_ib_up
	ktap_test_result "a RoCE v2 GID of $1" \
		eventually 60 topo_gid mlx5_0 "$1"
	MLX5_GIDX=$(topo_gid mlx5_0 "$1")
}

# server_client SECONDS SERVER... -- CLIENT...: the server, then the
# client, each within SECONDS; both must exit 0.  Their outputs go to
# $OUT/server and $OUT/client (the caller's OUT), shown when either fails.
server_client() {
	local secs=$1 srv_cmd=() rc=0 srv

	shift
	while [ "$1" != -- ]; do
		srv_cmd+=("$1")
		shift
	done
	shift
	timeout "$secs" "${srv_cmd[@]}" >"$OUT/server" 2>&1 &
	srv=$!
	sleep 2
	timeout "$secs" "$@" >"$OUT/client" 2>&1 || rc=1
	wait $srv || rc=1
	if [ $rc != 0 ]; then
		sed 's/^/server: /' "$OUT/server"
		sed 's/^/client: /' "$OUT/client"
	fi
	return $rc
}

# pair_to HOST SECONDS TOOL ARGS...: TOOL's server, then its client to
# HOST (server_client).
pair_to() {
	local host=$1 secs=$2

	shift 2
	server_client "$secs" "$@" -- "$@" "$host"
}

# localhost_pair SECONDS TOOL ARGS...: pair_to localhost (no rdma_cm:
# localhost is on no RDMA device).
localhost_pair() {
	pair_to localhost "$@"
}

# perftest_pair HOST TOOL ARGS...: perftest's TOOL, server then client to
# HOST (pair_to, 300 s); the client must also print the result row of N
# iterations (N: the value after -n; the latency tools of READ and
# atomics report on the client alone).
perftest_pair() {
	local n

	n=$(echo "$@" | sed -n 's/.*-n \([0-9]*\).*/\1/p')
	pair_to "$1" 300 "${@:2}" || return 1
	grep -qE "^ +[0-9]+ +$n " "$OUT/client" ||
		{ echo "$2: no result row of $n iterations"; cat "$OUT/client"; return 1; }
}

# res_left DEV: DEV's objects (contexts, PDs, MRs, CQs, QPs, SRQs) that
# are not ib_core's own (the MAD layer's QP1 with its PD and CQ, the CQ
# pool's), one a line as rdma res shows them; nothing when none.
res_left() {
	local r

	for r in ctx pd mr cq qp srq; do
		rdma res show $r 2>/dev/null | grep -E "^(dev|link) $1[ /]" |
			grep -v ' comm \[ib_core\] *$'
	done
}

# mlx5_log_clean SINCE: no line of mlx5's after dmesg line SINCE tells
# of an error CQE it dumped ("WC error"), a failure or a timeout.
mlx5_log_clean() {
	! dmesg | tail -n +$(($1 + 1)) | grep -a mlx5 |
		grep -aiE "WC error|failed|err\(|timeout"
}

# res_counts DEV: DEV's object counts, "pd N cq N ...", as rdma res
# prints them.
res_counts() {
	rdma res show | sed -n "s/^[0-9]*: $1: //p"
}

# pinned_pages: the pages pinned (FOLL_PIN) now, all users together.
pinned_pages() {
	awk '$1 == "nr_foll_pin_acquired" { a = $2 }
	     $1 == "nr_foll_pin_released" { r = $2 }
	     END { print a - r }' /proc/vmstat
}

# res_none DEV: nothing of DEV's left (res_left); what is, when not.
res_none() {
	local left

	left=$(res_left "$1")
	[ -z "$left" ] || { echo "left: $left"; return 1; }
}

# mlx5_ib_registered: mlx5_0 there, with its uverbs device.
mlx5_ib_registered() {
	eventually 120 test -d /sys/class/infiniband/mlx5_0 &&
		eventually 60 test -n "$(ls /sys/class/infiniband/mlx5_0/device/infiniband_verbs 2>/dev/null)"
}

# module_is MOD KO: the loaded MOD is KO, by its version (ours have one,
# Debian's none).
module_is() {
	[ "$(cat "/sys/module/$1/version" 2>/dev/null)" = \
	  "$(modinfo -F version "$2")" ]
}

# module_use MOD KO: KO the MOD loaded (the one loaded before, if another,
# unloaded first), what KO depends on (modinfo) loaded first: the guest's
# own, as modprobe finds them.  The drivers' tests load Debian's or ours
# by file this way, where modprobe finds only one.
module_use() {
	local deps

	if module_loaded "$1" && ! module_is "$1" "$2"; then
		rmmod "$1" || return 1
	fi
	if ! module_loaded "$1"; then
		deps=$(modinfo -F depends "$2" | tr , ' ')
		# shellcheck disable=SC2086
		[ -z "$deps" ] || modprobe -a $deps || return 1
		insmod "$2" || return 1
	fi
	module_is "$1" "$2" || { echo "the $1 loaded is not $2"; return 1; }
}

# Debian's driver of a device (none when the guest's kernel has no such
# module) and ours, as this tree built it (scripts/vm's OOT_BUILT: the
# tree, or .debug-build/ on the debug kernel).
debian_ko() {
	find "/lib/modules/$(uname -r)/kernel/drivers/infiniband/hw/$1" \
		-name "$2.ko*" 2>/dev/null | head -n 1
}
MLX5_IB_DEBIAN=$(debian_ko mlx5 mlx5_ib)
MLX5_IB_OURS=$OOT_BUILT/drivers/infiniband/hw/mlx5/mlx5_ib.ko
IRDMA_DEBIAN=$(debian_ko irdma irdma)
IRDMA_OURS=$OOT_BUILT/drivers/infiniband/hw/irdma/irdma.ko

# skip_cases N PREFIX REASON: N cases named "PREFIX: case I", skipped
# with REASON (a driver's half of a test that runs two drivers).
skip_cases() {
	local i

	for ((i = 1; i <= $1; i++)); do
		ktap_test_skip "$2: case $i" "$3"
	done
}

# mlx5_ib_use KO: KO the mlx5_ib loaded (the one loaded before, if another,
# unloaded first), mlx5_0 registered with its uverbs device.
mlx5_ib_use() {
	module_use mlx5_ib "$1" && mlx5_ib_registered
}

# mlx5_ours_down SINCE: our mlx5_ib leaves nothing on mlx5_0 and unloads
# with no error, warning or bug logged after dmesg line SINCE; the one
# modprobe finds (ours, or Debian's in a guest booted --without mlx5_ib)
# registers.
mlx5_ours_down() {
	res_none mlx5_0 && rmmod mlx5_ib && mlx5_log_clean "$1" &&
		! dmesg | tail -n +$(($1 + 1)) | grep -E 'WARNING|BUG|refcount' &&
		modprobe mlx5_ib && mlx5_ib_registered
}

# The names of the modules this tree builds and the guest has in updates/:
# the preview ones (scripts/lib/common.sh) only in a guest booted with
# scripts/vm --preview, none of those --without left out.
oot_module_names() {
	local m preview

	# shellcheck source=../../../../scripts/lib/common.sh
	preview=$(. "$OOT_REPO/scripts/lib/common.sh" && echo "$OOT_PREVIEW_MODULES")
	for m in $(sed -e 's|.*/||' -e 's/\.k\?o$//' "$OOT_REPO/modules.order"); do
		if [ "${OOT_PREVIEW:-0}" != 1 ]; then
			case " $preview " in *" $m "*) continue ;; esac
		fi
		case " ${OOT_WITHOUT:-} " in *" $m "*) continue ;; esac
		echo "$m"
	done
}

module_loaded() {
	[ -d "/sys/module/$1" ] && [ -e "/sys/module/$1/initstate" ]
}

# The test-only modules (modules/*_test) run their cases when loaded and
# print KTAP into the kernel log, each line prefixed "MODULE: ".

# test_module_load MODULE [PARAM...]: loads MODULE with PARAMs and prints
# the KTAP it logged meanwhile, without the prefix; fails as modprobe did.
test_module_load() {
	local module=$1 log_lines rc=0
	shift
	log_lines=$(dmesg | wc -l)
	modprobe "$module" "$@" || rc=$?
	dmesg | tail -n +$((log_lines + 1)) | sed -n "s/^.*$module: //p"
	return $rc
}

# test_module_skip MODULE CASES WHY: cases 1 to CASES of MODULE skipped.
test_module_skip() {
	local i
	for i in $(seq "$2"); do
		ktap_test_skip "$1 case $i" "$3"
	done
}

# test_module_relay MODULE CASES KTAP: the results of cases 1 to CASES in
# KTAP (what test_module_load printed for MODULE) as cases of this test,
# a case not reported as failed; the other lines as diagnostics.
test_module_relay() {
	local module=$1 cases=$2 ktap=$3 i line desc
	printf "%s\n" "$ktap" | grep -v -E '^(not )?ok [0-9]+ ' | sed 's/^/# /'
	for i in $(seq "$cases"); do
		line=$(printf "%s\n" "$ktap" | grep -E "^(not )?ok $i " | head -n 1)
		desc=$(printf "%s\n" "$line" |
			sed -E 's/^(not )?ok [0-9]+ //; s/ # SKIP.*//')
		case "$line" in
		"")
			ktap_test_fail "$module case $i: not reported" ;;
		*" # SKIP "*)
			ktap_test_skip "$desc" "${line#* # SKIP }" ;;
		"ok "*)
			ktap_test_pass "$desc" ;;
		*)
			ktap_test_fail "$desc" ;;
		esac
	done
}

# Unload the whole RDMA stack, whatever is loaded of it.
rdma_unload_all() {
	local m
	for m in $RDMA_HW_DRIVERS $RDMA_MODULES; do
		if module_loaded "$m"; then
			modprobe -r "$m" || return 1
		fi
	done
}

# The kernel's NETLINK_RDMA sockets (one per netns while ib_core is loaded).
nl_rdma_kernel_socks() {
	awk 'NR > 1 && $2 == 20 && $3 == 0' /proc/net/netlink | wc -l
}

# expect_nl WANT ARGS...: nlrdma's verdict on ARGS must be WANT.
expect_nl() {
	local want=$1
	shift
	expect_eq "nlrdma $*" "$(nlrdma "$@")" "$want"
}

# eventually SECONDS CMD...: retry CMD every 0.1 s until it succeeds or
# SECONDS pass; the last attempt's output is shown.  For state that
# settles asynchronously (work queued by notifiers): a fixed sleep would
# flake on a loaded machine, a bound still fails a real hang.
eventually() {
	local secs=$1 end
	shift
	# OOT_TIMEOUT_SCALE: the debug kernel is several times slower.
	end=$(($(date +%s) + secs * ${OOT_TIMEOUT_SCALE:-1}))
	while [ "$(date +%s)" -lt "$end" ]; do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	"$@"
}

# No rdma_cm id left, `rdma res show cm_id` empty (for eventually).
no_cm_ids() {
	expect_eq "rdma res show cm_id" "$(rdma res show cm_id)" ""
}

# expect_eq WHAT: prints the mismatch, returns its truth.
expect_eq() {
	if [ "$2" != "$3" ]; then
		echo "$1: got '$2', want '$3'"
		return 1
	fi
}

# expect_output CMD...: CMD's output (stdout and stderr, within 60 s
# times OOT_TIMEOUT_SCALE) is exactly this function's stdin; else prints
# both.
expect_output() {
	local got want
	want=$(cat)
	got=$(timeout $((60 * ${OOT_TIMEOUT_SCALE:-1})) "$@" 2>&1)
	[ "$got" = "$want" ] && return 0
	echo "${*##*/}: got"
	echo "$got"
	echo "want"
	echo "$want"
	return 1
}

# A veth pair with a fixed MAC on the first end, both ends up, and the
# addresses the GID tests expect: the node GUID of an rxe on it is then
# 0011:22ff:fe33:4455 on any stack.
VETH=veth0
VETH_PEER=veth1
VETH_MAC=02:11:22:33:44:55
VETH_GUID=0011:22ff:fe33:4455
veth_setup() {
	veth_teardown
	ip -batch - <<-EOF
	link add $VETH type veth peer name $VETH_PEER
	link set $VETH address $VETH_MAC
	link set $VETH up
	link set $VETH_PEER up
	EOF
}

# link_ready NETDEV [NS]: NETDEV's operstate is up.  Until linkwatch has
# seen the carrier, the device transmits through noop_qdisc, which drops
# every packet (an injector's, a tool's); linkwatch runs late under load
# (the debug kernel's "link becomes ready" came tens of seconds after
# the test's setup, and rxe_hostile's injected packets were all lost).
link_ready() {
	local ns=${2:+ip netns exec $2}
	if [ -z "$ns" ]; then
		eventually 30 operstate_up "$1" && return 0
	else
		eventually 30 $ns grep -qx up "/sys/class/net/$1/operstate" &&
			return 0
	fi
	echo "$1: operstate $($ns cat "/sys/class/net/$1/operstate")"
	return 1
}

# operstate_up NETDEV: in this namespace, with the shell's own read.
operstate_up() {
	local s
	read -r s <"/sys/class/net/$1/operstate" && [ "$s" = up ]
}

veth_teardown() {
	[ ! -e "/sys/class/net/$VETH" ] || ip link del "$VETH" 2>/dev/null
	true
}

# rxe_del DEV: rdma link del DEV if it exists here (no process if not).
rxe_del() {
	[ ! -e "/sys/class/infiniband/$1" ] || rdma link del "$1" 2>/dev/null
}

# Device index numbers depend on what was created before: tool output is
# compared with the index replaced by N.
rdma_norm() {
	sed -E 's/^[0-9]+: /N: /; s/"ifindex":[0-9]+/"ifindex":N/g'
}

# rdma_errno CMD...: run an rdma command expected to fail; print its
# error message (the strerror of the kernel's errno, or the tool's own).
rdma_error() {
	"$@" 2>&1 >/dev/null | sed -n 's/^error: //p; s/^Error: //p' | head -n 1
}

# The rxe devices that exist, by name, sorted (the shell's glob: a
# process costs 0.3 to 0.9 s under TCG, and eventually() asks often).
rxe_devices() {
	local d out=
	for d in /sys/class/infiniband/*; do
		[ -e "$d" ] && out+="${d##*/} "
	done
	printf '%s' "$out"
}

# No RDMA device left (for eventually, which runs a command again and
# again: "test -z $(rxe_devices)" would test one expansion forever).
no_rdma_devices() {
	[ -z "$(rxe_devices)" ]
}

# verbs_holder_start DIR ARGS...: start verbs_holder.py (ARGS: its
# options and action) in the background with DIR as its handshake
# directory; HOLDER_PID is its pid.  Returns once it holds the device.
# Its report goes to DIR/out; its stderr to DIR/err.
# With HOLDER_CG set to a cgroup v2 directory, the holder runs in it.
verbs_holder_start() {
	local dir=$1
	shift
	rm -f "$dir/ready" "$dir/go"
	# shellcheck disable=SC2016
	sh -c '[ -z "$1" ] || echo $$ >"$1/cgroup.procs" || exit 1
	       shift; exec python3 "$@"' \
		sh "${HOLDER_CG:-}" "$TESTDIR/verbs_holder.py" --dir "$dir" "$@" \
		>"$dir/out" 2>"$dir/err" &
	HOLDER_PID=$!
	eventually 60 test -e "$dir/ready" && return 0
	echo "the holder never got ready:"
	cat "$dir/err"
	kill $HOLDER_PID
	return 1
}

# removal_under_holder DIR ARGS...: while a verbs_holder.py (ARGS) keeps
# rxe0 open, rdma link del rxe0 must complete without waiting for it:
# the holder, which closes only once DIR/go appears (or its --wait runs
# out), must still be there when the removal returns (stock blocks until
# the holder closes).  No time bound: a debug kernel takes its time.
# Prints the holder's report once it has tried its operation on the
# removed device.
removal_under_holder() {
	local dir=$1 rc=0 waited=0
	shift
	verbs_holder_start "$dir" "$@" || return 1
	rdma link del rxe0 || rc=$?
	kill -0 "$HOLDER_PID" 2>/dev/null || waited=1
	touch "$dir/go"
	wait $HOLDER_PID
	[ $rc = 0 ] || { echo "rdma link del failed ($rc)"; return 1; }
	[ $waited = 0 ] || { echo "rdma link del returned only once the holder had closed"; return 1; }
	cat "$dir/out"
}

# rxe0_up_ipv4: veth_setup with 10.200.0.1/24 and rxe0 on it, waiting
# for the RoCEv2 GID of that address (the one the test modules connect
# through); without it, says so and goes on: the cases that need it fail.
rxe0_up_ipv4() {
	veth_setup
	ip addr add 10.200.0.1/24 dev "$VETH"
	rdma link add rxe0 type rxe netdev "$VETH"
	eventually 10 grep -qx '0000:0000:0000:0000:0000:ffff:0ac8:0001' \
		/sys/class/infiniband/rxe0/ports/1/gids/* ||
		echo "# no IPv4 GID on rxe0"
}

# rxe0_up: veth_setup and rxe0 on it, once its GID 0 (the default GID,
# from the MAC) is there: the GID table is filled asynchronously, and
# address handles and connected QPs need that GID.
rxe0_up() {
	veth_setup &&
	rdma link add rxe0 type rxe netdev "$VETH" &&
	eventually 10 gid0_set rxe0
}

# gid0_set DEV: GID 0 of DEV's port 1 is there (its link-local one).
gid0_set() {
	local g
	read -r g <"/sys/class/infiniband/$1/ports/1/gids/0" &&
		[[ $g != 0000:0000:0000:0000* ]]
}

# raw_module_test MODULE SCRIPT WHAT: the two cases of a test whose
# uverbs_raw.py SCRIPT drives the device of test module MODULE
# (uverbs_ns, uverbs_xrc): "SCRIPT check" must print its cases and
# "done" with no ": got " mismatch (WHAT names the case), then MODULE
# and the stack unload.  Both skip when MODULE.ko is not installed
# (scripts/vm --ko, see the test's head).
raw_checked() {	# OUT: SCRIPT's output, its verdict
	cat "$1"
	grep -q "^done$" "$1" && ! grep -q ": got " "$1"
}
raw_unloaded() {	# MODULE
	modprobe -r "$1" && rdma_unload_all
}
raw_module_test() {
	local module=$1 script=$2 what=$3 dir

	ktap_set_plan 2
	rdma_unload_all
	modprobe ib_uverbs
	if ! modprobe "$module" 2>/dev/null; then
		ktap_test_skip "$what" "$module.ko not installed (scripts/vm --ko, see the head of this test)"
		ktap_test_skip "the module unloads afterwards" "$module.ko not installed"
		return
	fi
	dir=$(mktemp -d)
	python3 "$TESTDIR/$script" check >"$dir/out" 2>&1
	ktap_test_result "$what" raw_checked "$dir/out"
	ktap_test_result "the module unloads afterwards" raw_unloaded "$module"
	rm -rf "$dir"
}
