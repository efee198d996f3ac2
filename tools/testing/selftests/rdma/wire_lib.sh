# SPDX-License-Identifier: GPL-2.0-only
#
# Two rxe devices on a veth pair whose traffic really crosses the veth
# (datapath.md, "Two devices"): rxe1 on ve0 (10.203.0.1), rxe2 on ve1
# (10.203.0.2).  Both addresses are local, so by default the kernel
# would deliver between them over lo; rules for locally generated
# packets (iif lo) to each address send them out of the other end's
# veth first, and the local table moves behind those rules.  Sourced
# after lib.sh.

. "$(dirname "${BASH_SOURCE[0]}")/rxe_topo.sh"

WIRE_A=$TWO_IP1
WIRE_B=$TWO_IP2

# wire_up [NO_RXE2]: the veth pair, the routing, rxe1 (and rxe2 unless
# NO_RXE2 is given), their IPv4 GIDs present: rxe_topo.sh's two-device
# topology.
wire_up() {
	topo_two_up "$@"
}

wire_down() {
	topo_two_clean
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
