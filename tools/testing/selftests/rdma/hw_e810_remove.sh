#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The modelled E810's RDMA device goes away under running applications,
# and comes back: irdma (whichever modprobe finds: ours on our core,
# Debian's on stock or --without irdma) on ice's ice.roce auxiliary
# device, server
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
#	scripts/vm --hw e810 [--stock|--without irdma] -- tools/testing/selftests/rdma/run_tests.sh hw_e810_remove.sh
# and skips on a guest without an 8086:159b function.
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/removal_lib.sh"

HOWS=(pci reset roce devlink rmmod)
PLAN=$((1 + REMOVAL_ROUND_CASES * ${#HOWS[@]} + 3))
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

# traffic PORT: removal_traffic on irdma's device as it is now.
traffic() {
	removal_traffic "$1" "$E810_IB" "$E810_GIDX"
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

# pingpong: removal_pingpong on irdma's device, back.
pingpong() {
	removal_pingpong "$E810_IB" "$E810_GIDX"
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
		for ((i = 1; i <= REMOVAL_ROUND_CASES; i++)); do
			ktap_test_skip "$what case $i" "$DEVLINK_SKIP"
		done
		continue
	fi
	removal_round "$what" $how $port "the device"
	port=$((port + 1))
done

ktap_test_result "no kernel complaint" kernel_clean "$before"
ktap_test_result "irdma logs no error" irdma_log_clean "$before" "$E810_IB"
ktap_test_result "the stack unloads" rdma_unload_all
ktap_finished
