#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Unmodified libibverbs finds and opens our rxe device: the
# infiniband_verbs class and its attributes, the /dev node, ibv_devices,
# and ibv_devinfo -v identical to stock's but for the ODP caps, which our
# rxe has (golden/, recorded on the stock stack in this VM configuration:
# same MAC, two vCPUs; rxe's num_comp_vectors is the count of possible
# CPUs, which the comparison takes from the guest it runs in).  Removing
# the device while a process holds it open completes at once (stock
# blocks until the process closes it), and the process's next command
# fails with EIO.
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"

ktap_print_header
ktap_set_plan 6

rdma_unload_all
veth_setup
rdma link add rxe0 type rxe netdev "$VETH"
modprobe ib_uverbs
C=/sys/class/infiniband_verbs

class() {
	expect_eq "class abi_version" "$(cat $C/abi_version)" 6 &&
	expect_eq "uverbs0" "$(readlink $C/uverbs0)" \
		../../devices/virtual/infiniband_verbs/uverbs0 &&
	expect_eq "files" "$(ls $C/uverbs0 | tr '\n' ' ')" \
		"abi_version dev ibdev power subsystem uevent " &&
	expect_eq "attrs" "$(cat $C/uverbs0/ibdev $C/uverbs0/abi_version $C/uverbs0/dev | tr '\n' ' ')" \
		"rxe0 2 231:192 " &&
	expect_eq "uevent" "$(cat $C/uverbs0/uevent | tr '\n' ' ')" \
		"MAJOR=231 MINOR=192 DEVNAME=infiniband/uverbs0 DEVMODE=0666 "
}
ktap_test_result "class infiniband_verbs and uverbs0 as stock" class

ktap_test_result "/dev/infiniband/uverbs0 is a 0666 char device 231:192" \
	expect_eq "node" "$(stat -c '%A %t:%T' /dev/infiniband/uverbs0)" "crw-rw-rw- e7:c0"

ktap_test_result "ibv_devices lists rxe0" expect_eq "ibv_devices" "$(ibv_devices)" \
	"    device          	   node GUID
    ------          	----------------
    rxe0            	001122fffe334455"

# The count of possible CPUs ("0-1,4" in sysfs is 3).
possible_cpus() {
	tr , '\n' </sys/devices/system/cpu/possible |
		awk -F- '{ n += NF == 2 ? $2 - $1 + 1 : 1 } END { print n }'
}

# The golden file with its ODP caps replaced by ours: our rxe has ODP
# (rxe_odp.sh), stock's has not; and ATOMIC WRITE (rxe_atomic_write.sh),
# bit 40 of device_cap_flags_ex, which ibv_devinfo 44 has no name for.
odp_ours() {
	local all send

	# RC and XRC every operation, UC and UD send (rxe_param.h).
	all=$(printf '\t\t\t\t\t%s\n' SUPPORT_SEND SUPPORT_RECV SUPPORT_WRITE \
		SUPPORT_READ SUPPORT_ATOMIC SUPPORT_SRQ)
	send=$(printf '\t\t\t\t\t%s\n' SUPPORT_SEND)
	printf '\tgeneral_odp_caps:\n\t\t\t\t\tODP_SUPPORT\n'
	printf '\t%s_odp_caps:\n%s\n' rc "$all" uc "$send" ud "$send" xrc "$all"
}
expected_devinfo() {
	sed "s/^\(\tnum_comp_vectors:\t*\)[0-9]*$/\1$(possible_cpus)/" \
		"$TESTDIR/golden/ibv_devinfo-v-rxe0.txt" |
	if ours; then
		ODP=$(odp_ours) awk '
			/^\tgeneral_odp_caps:/ { print ENVIRON["ODP"]; skip = 1 }
			/^\tcompletion_timestamp_mask/ { skip = 0 }
			/^\tdevice_cap_flags_ex:/ {
				print "\tdevice_cap_flags_ex:\t\t0x10001223C76"
				print "\t\t\t\t\tUnknown flags: 0x10000000000"
				next
			}
			!skip'
	else
		cat
	fi
}

devinfo() {
	local out
	out=$(ibv_devinfo -v -d rxe0 2>&1) || { echo "$out"; return 1; }
	diff -u <(expected_devinfo) <(echo "$out"; echo)
}
ktap_test_result "ibv_devinfo -v is stock's" devinfo

removal() {
	local dir out
	dir=$(mktemp -d)
	out=$(removal_under_holder "$dir" query) || { echo "$out"; return 1; }
	expect_eq "holder" "$out" "holder: query failed: EIO"
}
if ours; then
	ktap_test_result "removal with the device open completes; then EIO" removal
else
	ktap_test_skip "removal with the device open completes; then EIO" \
		"stock 6.1 blocks removal until the holder closes (measured)"
fi

ktap_test_result "the stack unloads afterwards" rdma_unload_all

veth_teardown
ktap_finished
