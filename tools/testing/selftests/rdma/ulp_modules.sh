#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Debian's own in-tree modules that link against the RDMA core load on it
# unmodified: every one of the 23 that depend on the modules we replace
# (modules.dep of the target kernel) loads with a plain modprobe, from
# kernel/ while the core comes from updates/ on ours (mlx5_ib and irdma,
# which ours shadow there, from their files), with no symbol refused
# ("disagrees about version of symbol", "Unknown symbol"); the
# hardware drivers bind nothing (no device in the VM); each unloads, and
# then the whole stack does.  On ours this is what the exported ABI with
# Debian's CRCs is for (core.rst, "The exported ABI").
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"

ULPS=(9pnet_rdma hfi1 ib_ipoib ib_iser ib_isert ib_mthca ib_qib ib_srp
	ib_srpt irdma iw_cxgb4 mlx4_ib mlx5_ib nvme-rdma nvmet-rdma ocrdma qedr
	rdmavt rds_rdma rpcrdma smc smc_diag usnic_verbs)

ktap_print_header
ktap_set_plan $((${#ULPS[@]} + 2))

rdma_unload_all

# The kernel log lines since line $1 that refuse a module's symbols.
refused_since() {
	dmesg | tail -n +$(($1 + 1)) |
		grep -E 'disagrees about version of symbol|Unknown symbol'
}

# debian_file M: the distribution's M.ko (kernel/), or nothing.
debian_file() {
	find "/lib/modules/$OOT_KVER/kernel/" -name "${1//-/_}.ko*" | head -n 1
}

# loads M: the distribution's M loads, with modprobe; where one of ours
# shadows it (mlx5_ib, irdma: ours are in updates/), from its file with
# lib.sh's module_use (its dependencies by modinfo first; the module
# loaded must be that file, by its version: Debian's has none).
loads() {
	local m=$1 sysname=${1//-/_} path lines refused
	path=$(modinfo -n "$m") || return 1
	lines=$(dmesg | wc -l)
	case "$path" in
	*/kernel/*)
		modprobe "$m" || { refused_since "$lines"; return 1; }
		;;
	*/updates/*)
		path=$(debian_file "$m")
		[ -n "$path" ] || { echo "$m: no distribution's file"; return 1; }
		module_use "$sysname" "$path" || { refused_since "$lines"; return 1; }
		;;
	*) echo "$m: $path is not the distribution's module"; return 1 ;;
	esac
	module_loaded "$sysname" || { echo "$m: not in /sys/module"; return 1; }
	refused=$(refused_since "$lines")
	[ -z "$refused" ] || { echo "$refused"; return 1; }
}
for m in "${ULPS[@]}"; do
	# The debug kernel (scripts/debug-kernel) builds the ULPs, not the
	# hardware drivers (scripts/lib/debug-kernel.modules says why).
	if [ "${OOT_KERNEL:-}" = debug ] && [ -z "$(debian_file "$m")" ]; then
		ktap_test_skip "modprobe $m (Debian's binary) loads" \
			"the debug kernel does not build it"
		continue
	fi
	ktap_test_result "modprobe $m (Debian's binary) loads" loads "$m"
done

core_is_ours() {
	if ours; then
		expect_eq "ib_core's module" "$(modinfo -n ib_core)" \
			"/lib/modules/$OOT_KVER/updates/ib_core.ko"
	else
		case "$(modinfo -n ib_core)" in
		*/kernel/*) ;;
		*) echo "stock run with ib_core from $(modinfo -n ib_core)"; return 1 ;;
		esac
	fi
}
ktap_test_result "the core they loaded on is the stack under test" core_is_ours

# One module may use another of the list (smc_diag smc, hfi1 rdmavt):
# passes over the list until each is gone, at most one per module.
unload_all() {
	local m _ left=()
	for _ in "${ULPS[@]}"; do
		left=()
		for m in "${ULPS[@]}"; do
			module_loaded "${m//-/_}" || continue
			modprobe -r "$m" 2>/dev/null || left+=("$m")
		done
		[ ${#left[@]} -gt 0 ] || break
	done
	if [ ${#left[@]} -gt 0 ]; then
		echo "still loaded: ${left[*]}"
		modprobe -r "${left[@]}"
		return 1
	fi
	rdma_unload_all || { echo "the RDMA stack did not unload"; return 1; }
	for m in $RDMA_MODULES; do
		if module_loaded "$m"; then
			echo "$m still loaded"
			return 1
		fi
	done
}
ktap_test_result "each unloads, then the whole stack does" unload_all

ktap_finished
