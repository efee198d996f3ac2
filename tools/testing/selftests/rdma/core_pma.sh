#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# ports/<N>/counters/, the PMA counters a device with process_mad shows,
# decoded the same on either stack without hardware: the test-only
# module pma_test (modules/pma_test) registers four devices of two
# ports whose process_mad answers PerfMgmt Gets with canned counters,
# each field a value of its own near the top of its width that also
# depends on the port (pma_value below is the module's formula):
#	pmaext0		ClassPortInfo says EXT_WIDTH (and NOIETF): 21 files,
#			data and packet counters from PortCountersExtended
#	pmanoietf0	EXT_WIDTH_NOIETF: 17 files, without unicast_* and
#			multicast_*
#	pmabasic0	neither: 17 files, all from PortCounters
#	pmafail0	never a reply: the PortCounters files, every read
#			EINVAL
# Each file must be mode 0444 and read its field; a read must be one new
# Get (the module's mads count, and its writable delta moves
# port_xmit_data); no request may be malformed (a Get of PerfMgmt
# version 1 with the port in PortSelect); a per-namespace compat device
# and rxe (no process_mad) have no counters/; an open file reads ENODEV
# once the device is gone.
#
#	make -C tools/testing/selftests/rdma/modules/pma_test
#	OOT_TESTS=core_pma scripts/vm --ko \
#	    tools/testing/selftests/rdma/modules/pma_test/pma_test.ko \
#	    -- tools/testing/selftests/rdma/run_tests.sh
# and with "stock" and --stock .../stock/pma_test.ko on the stock stack.
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"

MODULE=pma_test
PARAMS=/sys/module/$MODULE/parameters
NS=pmatest
IB=/sys/class/infiniband
DESCS=(
	"pma_test registers pmaext0, pmanoietf0, pmabasic0, pmafail0"
	"pmaext0 (EXT_WIDTH): the extended group, each file its field"
	"pmanoietf0 (EXT_WIDTH_NOIETF): the extended group without unicast/multicast, each file its field"
	"pmabasic0 (neither): the PortCounters group, each file its field"
	"pmafail0 (no reply): the PortCounters group, every read EINVAL"
	"a read is one new PMA Get"
	"every request a PerfMgmt Get with the port in PortSelect"
	"a per-namespace compat device has no counters/"
	"rxe0 (no process_mad) has no counters/"
	"an open counters file reads ENODEV after the module goes"
)
ktap_print_header
ktap_set_plan ${#DESCS[@]}

rdma_unload_all
if ! modinfo "$MODULE" >/dev/null 2>&1; then
	for d in "${DESCS[@]}"; do
		ktap_test_skip "$d" "module $MODULE not built (scripts/vm --ko, see the head of this test)"
	done
	ktap_finished
	exit 0
fi

loaded() {
	modprobe "$MODULE" || return 1
	for d in pmaext0 pmanoietf0 pmabasic0 pmafail0; do
		test -d "$IB/$d/ports/2" || { echo "no $d"; return 1; }
	done
}
ktap_test_result "${DESCS[0]}" loaded

# check DEV GROUP: the files of both ports of DEV, their modes and
# values, against GROUP (basic, noietf, ext, fail) and the module's
# formula.
check() {
	python3 - "$IB/$1" "$2" "$(cat $PARAMS/delta)" <<'EOF'
import errno, os, stat, sys

dev, group, delta = sys.argv[1], sys.argv[2], int(sys.argv[3])
M64 = (1 << 64) - 1

def pc(p):
    """PortCounters as pma_test fills them for port p."""
    return {
        "symbol_error": 0xfe00 + p,
        "link_error_recovery": 0xa0 + p,
        "link_downed": 0xb0 + p,
        "port_rcv_errors": 0x1200 + p,
        "port_rcv_remote_physical_errors": 0x2300 + p,
        "port_rcv_switch_relay_errors": 0x3400 + p,
        "port_xmit_discards": 0x4500 + p,
        "port_xmit_constraint_errors": 0xc0 + p,
        "port_rcv_constraint_errors": 0xd0 + p,
        "local_link_integrity_errors": 8 + p,
        "excessive_buffer_overrun_errors": 15 - p,
        "VL15_dropped": 0x5600 + p,
        "port_xmit_data": (0xf0000000 + p + delta) & 0xffffffff,
        "port_rcv_data": 0xe0000000 + p,
        "port_xmit_packets": 0xd0000000 + p,
        "port_rcv_packets": 0xc0000000 + p,
        "port_xmit_wait": 0xb0000000 + p,
    }

def pcx(p):
    """PortCountersExtended as pma_test fills them for port p."""
    return {
        "port_xmit_data": (0x0123456789abcd00 + p + delta) & M64,
        "port_rcv_data": 0xfedcba9876543200 + p,
        "port_xmit_packets": 0x1111111111111100 + p,
        "port_rcv_packets": 0x2222222222222200 + p,
        "unicast_xmit_packets": 0x3333333333333300 + p,
        "unicast_rcv_packets": 0x4444444444444400 + p,
        "multicast_xmit_packets": 0x5555555555555500 + p,
        "multicast_rcv_packets": 0x6666666666666600 + p,
    }

IETF = ("unicast_xmit_packets", "unicast_rcv_packets",
        "multicast_xmit_packets", "multicast_rcv_packets")

def expected(p):
    want = pc(p)
    if group in ("ext", "noietf"):
        want.update(pcx(p))
    if group == "noietf":
        for n in IETF:
            del want[n]
    return want

bad = 0
for p in (1, 2):
    d = f"{dev}/ports/{p}/counters"
    want = expected(p)
    names = sorted(os.listdir(d))
    if names != sorted(want):
        print(f"port {p}: files {names}, want {sorted(want)}")
        bad += 1
        continue
    for n in names:
        f = f"{d}/{n}"
        mode = stat.S_IMODE(os.stat(f).st_mode)
        try:
            with open(f) as fh:
                got = fh.read()
        except OSError as e:
            got = f"error {errno.errorcode.get(e.errno, e.errno)}"
        exp = "error EINVAL" if group == "fail" else f"{want[n]}\n"
        if mode != 0o444 or got != exp:
            print(f"port {p} {n}: mode {mode:o} {got!r}, want 444 {exp!r}")
            bad += 1
print(f"{dev}: {group}, {bad} mismatches")
sys.exit(1 if bad else 0)
EOF
}
ktap_test_result "${DESCS[1]}" check pmaext0 ext
ktap_test_result "${DESCS[2]}" check pmanoietf0 noietf
ktap_test_result "${DESCS[3]}" check pmabasic0 basic
ktap_test_result "${DESCS[4]}" check pmafail0 fail

# One Get per read, answered afresh: the count moves by one a read and a
# new delta shows at once, in both attributes' port_xmit_data.
fresh() {
	local before after ext basic
	before=$(cat $PARAMS/mads)
	cat $IB/pmaext0/ports/1/counters/symbol_error >/dev/null
	after=$(cat $PARAMS/mads)
	echo "Gets for one read: $((after - before))"
	[ $((after - before)) = 1 ] || return 1
	echo 7 >$PARAMS/delta
	ext=$(cat $IB/pmaext0/ports/2/counters/port_xmit_data)
	basic=$(cat $IB/pmabasic0/ports/2/counters/port_xmit_data)
	echo "with delta 7: extended $ext, basic $basic"
	echo 0 >$PARAMS/delta
	[ "$ext" = $((0x0123456789abcd00 + 2 + 7)) ] &&
		[ "$basic" = $((0xf0000000 + 2 + 7)) ]
}
ktap_test_result "${DESCS[5]}" fresh

well_formed() {
	echo "malformed requests: $(cat $PARAMS/bad_mads), answered: $(cat $PARAMS/mads)"
	[ "$(cat $PARAMS/bad_mads)" = 0 ]
}
ktap_test_result "${DESCS[6]}" well_formed

# In shared mode every namespace sees each device through a compat
# device of its own, with ports but without counters.
compat() {
	ip netns del $NS 2>/dev/null
	rdma system set netns shared 2>/dev/null
	ip netns add $NS || return 1
	eventually 10 ip netns exec $NS test -d $IB/pmaext0/ports/1/gids
	ip netns exec $NS ls $IB/pmaext0/ports/1 | tr '\n' ' '
	echo
	ip netns exec $NS test -d $IB/pmaext0/ports/1/gids &&
		! ip netns exec $NS test -e $IB/pmaext0/ports/1/counters
	local rc=$?
	ip netns del $NS
	return $rc
}
ktap_test_result "${DESCS[7]}" compat

no_rxe_counters() {
	modprobe rdma_rxe
	rxe0_up || { echo "no rxe0"; return 1; }
	ls $IB/rxe0/ports/1 | tr '\n' ' '
	echo
	local rc=0
	test -e $IB/rxe0/ports/1/counters && rc=1
	rdma link del rxe0
	return $rc
}
ktap_test_result "${DESCS[8]}" no_rxe_counters

# The file stays open across the removal of its directory.
gone() {
	local out
	exec 9<$IB/pmaext0/ports/1/counters/port_rcv_data
	modprobe -r "$MODULE" || { exec 9<&-; return 1; }
	out=$(cat <&9 2>&1)
	exec 9<&-
	echo "read after removal: $out"
	[[ $out == *"No such device"* ]] && ! test -e $IB/pmaext0
}
ktap_test_result "${DESCS[9]}" gone
rdma_unload_all

ktap_finished
