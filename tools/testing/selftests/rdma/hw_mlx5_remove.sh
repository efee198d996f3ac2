#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The modelled ConnectX-4 Lx goes away under running applications, and
# comes back: Debian's unmodified mlx5_core and mlx5_ib, server and
# client of ib_write_bw and of rping on mlx5_0 in one guest (as
# hw_mlx5_verbs runs them), and ibv_asyncwatch with mlx5_0 open.  Twice:
#   - echo 1 > /sys/bus/pci/devices/BDF/remove, then /sys/bus/pci/rescan;
#   - devlink dev reload pci/BDF (mlx5_core's DRIVER_REINIT: it deletes
#     its auxiliary devices, mlx5_ib's among them, so mlx5_0 is
#     unregistered, and adds them again);
#   - a fatal firmware error: the model's x-fault-inject register
#     (mlx5-model.rst, "Faults") takes the firmware down; mlx5_core's
#     health poll sees it, raises MLX5_DEV_EVENT_SYS_ERROR (which mlx5_ib
#     turns into IB_EVENT_DEVICE_FATAL and, for kernel QPs, their flush),
#     and its devlink fw_fatal reporter recovers: the driver unloads
#     without a command to the dead firmware, resets the function and
#     loads again;
#   - a long case: modprobe -r mlx5_ib (the open files do not hold the
#     module of a driver that can disassociate), then modprobe mlx5_ib.
# Each time the removal returns within a bound while the tools still
# hold the device (mlx5_ib disassociates their contexts: the core does
# not wait for them), the watcher reads IBV_EVENT_DEVICE_FATAL, both
# rpings get RDMA_CM_EVENT_DEVICE_REMOVAL, the tools end (whatever their
# status) rather than hang, ib_write_bw's destroys after the removal
# succeed (as stock answers them), nothing of theirs is left (`rdma res`:
# no user context, no cm_id), and once the device is back
# ibv_rc_pingpong runs on the new mlx5_0.  At the end the kernel log has
# no complaint and no error of mlx5's, and the stack unloads.
# Needs a guest booted with the model:
#	scripts/vm --hw mlx5 -- tools/testing/selftests/rdma/run_tests.sh hw_mlx5_remove.sh
# and skips on a guest without a 15b3:1015 function.
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/removal_lib.sh"

HOWS=(pci devlink fatal rmmod)
PLAN=$((3 + REMOVAL_ROUND_CASES * ${#HOWS[@]} + 3))
ktap_print_header
ktap_set_plan $PLAN

mlx5_or_skip $PLAN "mlx5 removal"
ADDR=192.0.2.1
BDF=$(mlx5_function)
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
SCALE=${OOT_TIMEOUT_SCALE:-1}
# ib_write_bw's -D: perftest's client learns nothing of the removal (its
# CQ is its own memory, which no one writes to once the device is gone),
# so it ends with its duration.  Long enough to outlast the start of the
# tools and the removal under TCG.
DURATION=$((40 * SCALE))
# Removal, reload and rescan under TCG take seconds to tens of seconds.
BOUND=$((120 * SCALE))

before=$(dmesg | wc -l)
mlx5_roce_cases $ADDR

# traffic PORT: removal_traffic on mlx5_0.
traffic() {
	removal_traffic "$1" mlx5_0 "$MLX5_GIDX"
}

# remove HOW: the device goes under the tools, within BOUND (the write to
# sysfs or devlink is not waited for unbounded, should it hang).
remove() {
	local rc=0

	T_REMOVE=$(date +%s)
	case $1 in
	pci)
		timeout "$BOUND" sh -c "echo 1 >/sys/bus/pci/devices/$BDF/remove" ||
			rc=$?
		;;
	devlink)
		timeout "$BOUND" devlink dev reload "pci/$BDF" || rc=$?
		;;
	rmmod)
		timeout "$BOUND" modprobe -r mlx5_ib || rc=$?
		;;
	fatal)
		fatal_error || rc=$?
		;;
	esac
	echo "$1: status $rc after $(($(date +%s) - T_REMOVE)) s"
	[ $rc = 0 ] || tools_said
	return $rc
}

# fatal_error: the firmware goes down; within BOUND mlx5_core has
# recovered the function.
fatal_error() {
	local since

	since=$(dmesg | wc -l)
	mlx5_fatal_error || return 1
	if ! mlx5_recovered "$since" "$BOUND"; then
		dmesg | tail -n +$((since + 1)) | grep -a mlx5 | tail -n 20
		return 1
	fi
}

# back HOW: mlx5_0 registered again, the netdev (made anew) up with ADDR
# and its RoCE v2 GID; after a PCI removal once the bus is rescanned,
# after mlx5_ib's unload once it is loaded again.
back() {
	case $1 in
	pci)
		[ ! -e "/sys/bus/pci/devices/$BDF" ] ||
			{ echo "$BDF still there"; return 1; }
		echo 1 >/sys/bus/pci/rescan
		;;
	rmmod)
		! module_loaded mlx5_ib || { echo "mlx5_ib still loaded"; return 1; }
		modprobe mlx5_ib || return 1
		;;
	esac
	eventually 180 test -d /sys/class/infiniband/mlx5_0 ||
		{ echo "no mlx5_0"; return 1; }
	mlx5_roce_up $ADDR
}

# pingpong: removal_pingpong on mlx5_0, back.
pingpong() {
	removal_pingpong mlx5_0 "$MLX5_GIDX"
}

port=18515
for how in "${HOWS[@]}"; do
	case $how in
	pci) what="PCI remove" ;;
	devlink) what="devlink dev reload" ;;
	fatal) what="fatal firmware error" ;;
	rmmod) what="modprobe -r mlx5_ib" ;;
	esac
	if [ $how = rmmod ] && ! long_cases; then
		for ((i = 1; i <= REMOVAL_ROUND_CASES; i++)); do
			ktap_test_skip "$what case $i" "$LONG_SKIP"
		done
		continue
	fi
	removal_round "$what" $how $port mlx5_0
	port=$((port + 1))
done

ktap_test_result "no kernel complaint" kernel_clean "$before"
ktap_test_result "mlx5 logs no error" mlx5_log_clean "$before"
ktap_test_result "the stack unloads" rdma_unload_all
ktap_finished
