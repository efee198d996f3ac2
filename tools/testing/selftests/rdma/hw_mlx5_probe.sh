#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Debian's unmodified mlx5_core on the modelled ConnectX-4 Lx (QEMU's
# `mlx5` device, tools/qemu/hw/mlx5; Documentation/infiniband/
# mlx5-model.rst).  Needs a guest booted with it:
#	scripts/vm --hw mlx5 -- tools/testing/selftests/rdma/run_tests.sh hw_mlx5_probe.sh
# and skips, saying so, on a guest without a 15b3:1015 function.
#
# What the PCI function shows before any driver: the IDs and class, BAR0
# 64-bit prefetchable 32 MiB, an MSI-X capability of 64 vectors.  Then
# modprobe mlx5_core, and probe's progress read from the kernel log:
# the driver's probe runs a fixed sequence of steps, each of which names
# itself in the log when it fails (its mlx5_core_err line), so the first
# failing step says how far probe got.  STAGES lists them in probe order;
# the first REACHED of them must be passed, the later ones are TODO
# (issue 34) until the model grows: raise REACHED as it does (a TODO
# that passes is reported "ok", the sign to raise it).  Probe goes through
# (the device binds) with a netdev that gets carrier.  Then mlx5_ib
# (with ib_uverbs, ib_umad and rdma_cm, whose MAD layer makes QP1):
# mlx5_0 registers, port 1 is ACTIVE over Ethernet, the netdev's IPv4
# and IPv6 addresses become RoCE v2 GIDs (SET_ROCE_ADDRESS), QP1 is in
# RTS, ibv_devinfo sees it all, and mlx5_ib's log holds no error or
# warning.  Also: every command the model fails is one it does not model
# yet (BAD_OP), never a delivery error or a timeout; bound, the health
# poll finds the counter moving; probe or removal leaves no kernel warning
# (the harness's verdict) and the modules unload.
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"

# name|the driver's failure message (a grep -E pattern) for that step.
STAGES=(
	"the command interface comes up|Failed initializing command interface|pre-initializing state|in initializing state"
	"ENABLE_HCA|enable hca failed"
	"QUERY_ISSI and SET_ISSI|failed to set issi|Failed to query ISSI"
	"boot pages (QUERY_PAGES, MANAGE_PAGES)|failed to allocate boot pages"
	"ACCESS_REG HOST_ENDIANNESS|set_hca_ctrl failed"
	"QUERY_HCA_CAP and SET_HCA_CAP|set_hca_cap failed|handle_hca_cap"
	"init pages|failed to allocate init pages"
	"INIT_HCA|init hca failed"
	"capabilities after INIT_HCA|query hca failed"
	"QUERY_ADAPTER (board id)|query board id failed"
	"ALLOC_UAR|Failed allocating uar"
	"the EQs (CREATE_EQ, MSI-X)|Failed to create EQs|Failed to alloc IRQs"
	"flow steering|Failed to init flow steering|Failed to alloc flow steering"
	"the rest of mlx5_load and registration|mlx5_init_one failed"
)
# Passed by the model as it is (the first REACHED stages).
REACHED=14
TODO_REASON="issue 34: the mlx5 model does not go further yet"

ktap_print_header
NCASES=13
ktap_set_plan $((4 + ${#STAGES[@]} + NCASES))

bdf=$(pci_function 0x15b3 0x1015)
if [ -z "$bdf" ]; then
	for ((i = 0; i < 4 + ${#STAGES[@]} + NCASES; i++)); do
		ktap_test_skip "mlx5 probe case $((i + 1))" \
			"no 15b3:1015 PCI function (boot with scripts/vm --hw mlx5)"
	done
	ktap_finished
fi
dev=/sys/bus/pci/devices/$bdf
ktap_print_msg "device $bdf"

# The PCI function before a driver.
ids_ok() {
	expect_eq "class" "$(cat "$dev/class")" 0x020000 &&
		expect_eq "subsystem vendor" "$(cat "$dev/subsystem_vendor")" 0x15b3
}
ktap_test_result "15b3:1015, an Ethernet controller" ids_ok

# resource's first line: start, end, flags of BAR0.
bar0_ok() {
	local start end flags
	read -r start end flags <"$dev/resource"
	expect_eq "BAR0 size" $((end - start + 1)) $((32 << 20)) &&
		# IORESOURCE_MEM_64 (0x100000), IORESOURCE_PREFETCH (0x2000)
		expect_eq "BAR0 64-bit" $((flags & 0x100000)) $((0x100000)) &&
		expect_eq "BAR0 prefetchable" $((flags & 0x2000)) $((0x2000))
}
ktap_test_result "BAR0: 64-bit, prefetchable, 32 MiB" bar0_ok

# The capability list in config space: MSI-X (id 0x11), its table size.
msix_vectors() {
	local cfg ptr n=0
	mapfile -t cfg < <(od -An -v -tu1 -w1 "$dev/config" | tr -d " ")
	ptr=${cfg[0x34]}
	while [ "$ptr" != 0 ] && [ $n -lt 48 ]; do
		if [ "${cfg[ptr]}" = 17 ]; then
			echo $(((cfg[ptr + 2] | (cfg[ptr + 3] << 8)) % 2048 + 1))
			return
		fi
		ptr=${cfg[ptr + 1]}
		n=$((n + 1))
	done
	echo none
}
ktap_test_result "MSI-X with 64 vectors" expect_eq "MSI-X vectors" "$(msix_vectors)" 64

# Probe.  Its log is what the kernel says from here on.
modprobe -r mlx5_ib mlx5_core 2>/dev/null
before=$(dmesg | wc -l)
probe_log() { dmesg | tail -n +$((before + 1)) | grep -a "mlx5"; }
probe_over() {
	[ -e "$dev/driver" ] || probe_log | grep -q "probe of $bdf failed"
}
modprobe_rc=0
modprobe mlx5_core || modprobe_rc=$?
eventually 120 probe_over >/dev/null
log=$(probe_log)
printf '%s\n' "$log" | sed 's/^/# /'
ktap_test_result "modprobe mlx5_core" expect_eq "status" "$modprobe_rc" 0

# The first stage whose failure shows, or past the last if bound.
failed=${#STAGES[@]}
for i in "${!STAGES[@]}"; do
	if printf '%s\n' "$log" | grep -qE "${STAGES[i]#*|}"; then
		failed=$i
		break
	fi
done
if [ "$failed" = ${#STAGES[@]} ] && [ ! -e "$dev/driver" ]; then
	# Probe failed at a step this list does not know: none passes for sure.
	ktap_print_msg "probe failed at an unlisted step"
	failed=0
fi
ktap_print_msg "probe got through ${failed} of ${#STAGES[@]} steps (REACHED=$REACHED)"
stage_passed() { [ "$1" -lt "$failed" ]; }
for i in "${!STAGES[@]}"; do
	name="probe: ${STAGES[i]%%|*}"
	if [ "$i" -lt $REACHED ]; then
		ktap_test_result "$name" stage_passed "$i"
	else
		ktap_test_todo "$name" "$TODO_REASON" stage_passed "$i"
	fi
done

# Commands the model fails: only those it does not model (BAD_OP).
no_bad_status() {
	local bad
	bad=$(printf '%s\n' "$log" | grep -E "failed, status" |
		grep -v "status bad operation(0x2)")
	[ -z "$bad" ] || { echo "$bad"; return 1; }
}
ktap_test_result "every failed command is one not modelled yet (BAD_OP)" no_bad_status
# Bound, the driver polls the health counter every 2 s and calls three
# misses in a row compromised health: let it poll a few times.
if [ -e "$dev/driver" ]; then
	sleep 8
	log=$(probe_log)
fi
no_timeout() {
	! printf '%s\n' "$log" | grep -iE "timeout|delivery|signature|health compromised|fatal"
}
ktap_test_result "no command timed out, no delivery error, healthy" no_timeout
bound() { [ -e "$dev/driver" ] && expect_eq driver "$(basename "$(readlink "$dev/driver")")" mlx5_core; }
ktap_test_result "mlx5_core is bound" bound
# The Ethernet function: mlx5e's netdev, up, with carrier once the
# driver sets the port up (PAOS) and the vport state follows.  Going up
# needs the ICOSQ's NOP to come back as CQE, EQE and interrupt, else the
# driver warns "Failed to get min RX wqes" after 20 s.
ifname=$(ls "$dev"/net 2>/dev/null | head -1)
netdev() { [ -n "$ifname" ]; }
ktap_test_result "a netdev on the function (mlx5e)" netdev
carrier() { [ "$(cat "/sys/class/net/$ifname/carrier" 2>/dev/null)" = 1 ]; }
link_up() {
	[ -n "$ifname" ] && ip link set "$ifname" up &&
		eventually 60 carrier >/dev/null
}
ktap_test_result "ip link set up: carrier" link_up
log=$(probe_log)
no_errors() {
	! printf '%s\n' "$log" | grep -iE "failed|error|err\(|missing|warn|timeout|Failed to get"
}
ktap_test_result "probe and link up log no error" no_errors

# mlx5_ib on the function.  Addresses first, so that the RDMA core
# finds them when the device registers (and later ones would do too).
[ -n "$ifname" ] && ip addr add 192.0.2.1/24 dev "$ifname" &&
	ip -6 addr add 2001:db8::1/64 dev "$ifname" nodad
ib_before=$(dmesg | wc -l)
ib_log() { dmesg | tail -n +$((ib_before + 1)); }
ibdev=/sys/class/infiniband/mlx5_0
rdma_dev() {
	modprobe mlx5_ib && modprobe ib_uverbs && modprobe ib_umad &&
		modprobe rdma_cm && eventually 30 test -d "$ibdev" >/dev/null
}
# The later cases wait for the device's state only if it is there.
ib_wait() { [ -d "$ibdev" ] && eventually "$@"; }
ktap_test_result "mlx5_ib registers mlx5_0" rdma_dev
port_active() {
	expect_eq "port state" "$(cat "$ibdev/ports/1/state" 2>/dev/null)" \
		"4: ACTIVE" &&
		expect_eq "link layer" \
			"$(cat "$ibdev/ports/1/link_layer" 2>/dev/null)" Ethernet
}
ktap_test_result "port 1 ACTIVE, link layer Ethernet" ib_wait 30 port_active
# A GID of the given value with type RoCE v2.
roce_v2_gid() {
	local g i
	for g in "$ibdev"/ports/1/gids/*; do
		[ "$(cat "$g" 2>/dev/null)" = "$1" ] || continue
		i=${g##*/}
		[ "$(cat "$ibdev/ports/1/gid_attrs/types/$i")" = "RoCE v2" ] &&
			return 0
	done
	return 1
}
roce_gids() {
	roce_v2_gid 0000:0000:0000:0000:0000:ffff:c000:0201 &&
		roce_v2_gid 2001:0db8:0000:0000:0000:0000:0000:0001
}
ktap_test_result "RoCE v2 GIDs of 192.0.2.1 and 2001:db8::1" ib_wait 30 roce_gids
# The MAD layer's QP1 on port 1: mlx5_ib's GSI QP, a QP1 of the model's.
qp1_rts() {
	rdma res show qp link mlx5_0/1 2>/dev/null |
		grep -E "lqpn 1 .*type GSI state RTS"
}
ktap_test_result "QP1 (GSI) in RTS" ib_wait 30 qp1_rts
devinfo() {
	local out
	out=$(ibv_devinfo -v -d mlx5_0 2>&1)
	printf '%s\n' "$out" | grep -E "hca_id|state:|link_layer|GID" |
		sed 's/^/# /'
	printf '%s\n' "$out" | grep -q "PORT_ACTIVE" &&
		printf '%s\n' "$out" | grep -q "link_layer:.*Ethernet" &&
		printf '%s\n' "$out" | grep -q "::ffff:192.0.2.1, RoCE v2"
}
ktap_test_result "ibv_devinfo: mlx5_0, PORT_ACTIVE, Ethernet, RoCE v2" devinfo
# ib_core and mlx5_ib name themselves; the model's refusals would show
# as mlx5_cmd_out_err lines of mlx5_core.
# Loading our unsigned modules taints the kernel, which it says: not the
# device's business.
ib_no_errors() {
	! ib_log | grep -avE "module verification failed|out-of-tree module" |
		grep -aiE "mlx5|infiniband|ib_|rdma" |
		grep -aiE "failed|error|err\(|warn|timeout|couldn't|unable"
}
ktap_test_result "mlx5_ib's log: no error, no warning" ib_no_errors
ktap_test_result "mlx5_ib and mlx5_core unload" modprobe -r mlx5_ib mlx5_core

ktap_finished
