# SPDX-License-Identifier: GPL-2.0-only
#
# Two rxe devices on a veth pair whose traffic really crosses the veth
# (datapath.md, "Two devices"): rxe1 on ve0 (10.203.0.1), rxe2 on ve1
# (10.203.0.2).  Both addresses are local, so by default the kernel
# would deliver between them over lo; rules for locally generated
# packets (iif lo) to each address send them out of the other end's
# veth first, and the local table moves behind those rules.  Sourced
# after lib.sh.

WIRE_A=10.203.0.1
WIRE_B=10.203.0.2

# wire_up [NO_RXE2]: the veth pair, the routing, rxe1 (and rxe2 unless
# NO_RXE2 is given), their IPv4 GIDs present.
wire_up() {
	local d
	wire_down
	ip link add ve0 type veth peer name ve1 || return 1
	ip addr add "$WIRE_A/24" dev ve0 && ip addr add "$WIRE_B/24" dev ve1 &&
	ip link set ve0 up && ip link set ve1 up &&
	link_ready ve0 && link_ready ve1 || return 1
	for d in all default ve0 ve1; do
		sysctl -qw "net.ipv4.conf.$d.rp_filter=0"
		sysctl -qw "net.ipv4.conf.$d.accept_local=1"
	done
	ip rule add pref 100 iif lo to "$WIRE_B" lookup 100 &&
	ip rule add pref 101 iif lo to "$WIRE_A" lookup 101 &&
	ip route add "$WIRE_B" dev ve0 src "$WIRE_A" table 100 &&
	ip route add "$WIRE_A" dev ve1 src "$WIRE_B" table 101 || return 1
	if ip rule show pref 0 | grep -q local; then
		ip rule add pref 1000 lookup local && ip rule del pref 0 lookup local || return 1
	fi
	rdma link add rxe1 type rxe netdev ve0 || return 1
	[ -n "${1:-}" ] || rdma link add rxe2 type rxe netdev ve1 || return 1
	eventually 10 grep -q ffff /sys/class/infiniband/rxe1/ports/1/gids/1 || return 1
	[ -n "${1:-}" ] || eventually 10 grep -q ffff /sys/class/infiniband/rxe2/ports/1/gids/1
}

wire_down() {
	rdma link del rxe1 2>/dev/null
	rdma link del rxe2 2>/dev/null
	ip link del ve0 2>/dev/null
	ip rule del pref 100 2>/dev/null
	ip rule del pref 101 2>/dev/null
	if ip rule show pref 1000 | grep -q local; then
		ip rule add pref 0 lookup local && ip rule del pref 1000 lookup local
	fi
	true
}

# wire_counters DEV: the device's hw counters, "name value" a line.
wire_counters() {
	local f
	for f in /sys/class/infiniband/"$1"/ports/1/hw_counters/*; do
		echo "${f##*/} $(cat "$f")"
	done
}

# The capture ends on a marker: a datagram to the discard port (9) of
# the far end, sent after the traffic over the captured veth.  Once
# tcpdump has written it, it has written everything before it: under
# TCG tcpdump can lag the traffic by seconds, and a fixed wait lost the
# last case's packets.
CAPTURE_MARK_PORT=9

# capture_start IFACE FILE PEER: tcpdump of RoCEv2 on IFACE into FILE, in
# the background (CAPTURE_PID), once it listens; PEER is the address at
# the other end of IFACE, where capture_stop sends its marker.
capture_start() {
	CAPTURE_FILE=$2
	CAPTURE_PEER=$3
	tcpdump -i "$1" -s 0 -U -w "$2" \
		"udp port 4791 or (udp dst port $CAPTURE_MARK_PORT and dst host $3)" \
		2>"$2.log" &
	CAPTURE_PID=$!
	eventually 20 grep -q listening "$2.log"
}

capture_marked() {
	echo oot-capture-mark >"/dev/udp/$CAPTURE_PEER/$CAPTURE_MARK_PORT"
	sleep 0.2
	tcpdump -r "$CAPTURE_FILE" -c 1 "udp dst port $CAPTURE_MARK_PORT" 2>/dev/null |
		grep -q .
}

# capture_stop: ends the capture once its marker is written, and leaves
# only the RoCEv2 packets in the file.
capture_stop() {
	eventually 30 capture_marked ||
		echo "# capture: the marker never reached the capture file"
	kill -INT "$CAPTURE_PID" 2>/dev/null
	wait "$CAPTURE_PID" 2>/dev/null
	tcpdump -r "$CAPTURE_FILE" -w "$CAPTURE_FILE.roce" udp port 4791 2>/dev/null &&
		mv "$CAPTURE_FILE.roce" "$CAPTURE_FILE"
	true
}
