#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The modules modprobe picks are ours: found under updates/ (depmod's
# search order puts it before kernel/), versioned, GPL, carrying the
# in-tree aliases that autoloading relies on.  On the stock stack the same
# test asserts the opposite: the in-tree modules are the ones found.
# Debian's own ib_uverbs.ko (kernel/ of the target) is refused by our
# ib_core, cleanly: it would pass its own layout of the structures the
# core's modules share (struct ib_uqp_object to ib_create_qp_user, ...),
# so those exports keep our own CRC (core.rst, "The exported ABI", class
# 3): "disagrees about version of symbol", EINVAL, no taint but our O and
# E, no WARN.  On stock the same file loads on its own ib_core.
# Debian's other modules of our set (ib_cm, iw_cm, rdma_cm, rdma_ucm,
# ib_umad, rdma_rxe) import only exports with Debian's CRC, yet share
# core-private layouts with ib_core (ib_client_nl_info, ...): our ib_core's
# module guard refuses each (its dependencies, ours, loaded first):
# ENOEXEC, one "ib_core: refusing the in-tree ..." line, no reference left
# on ib_core, no taint but O and E, no WARN; insmod says "Invalid module
# format".  On stock each file loads on stock's dependencies.
# The reverse: our ib_cm, iw_cm and ib_umad (which need nothing but
# ib_core) on Debian's ib_core are refused by the loader, for want of the
# one export only our ib_core has (ib_core_oot_check): ENOENT, "Unknown
# symbol", nothing left loaded but Debian's ib_core, unloaded after (the
# same case on both stacks: it loads Debian's ib_core by its file).
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"

mods=$(oot_module_names)
ktap_print_header
# Debian's modules of our set that only our ib_core's guard refuses.
GUARDED="ib_cm iw_cm ib_umad rdma_cm rdma_ucm rdma_rxe"
# Ours that Debian's ib_core refuses (each needs only ib_core).
BOUND="ib_cm iw_cm ib_umad"

ktap_set_plan $(( $(echo "$mods" | wc -w) + 4 + $(echo "$GUARDED" | wc -w) +
	$(echo "$BOUND" | wc -w) ))

check_module() {
	local m=$1 path
	path=$(modinfo -n "$m") || return 1
	if ! ours; then
		case "$path" in
		/lib/modules/"$OOT_KVER"/kernel/*) return 0 ;;
		*) echo "$m: $path is not the in-tree module"; return 1 ;;
		esac
	fi
	case "$path" in
	/lib/modules/"$OOT_KVER"/updates/*) ;;
	*) echo "$m: modinfo -n gives $path, not updates/"; return 1 ;;
	esac
	expect_eq "$m version" "$(modinfo -F version "$m")" "$OOT_VERSION" &&
	expect_eq "$m license" "$(modinfo -F license "$m")" "GPL"
}

where=updates
ours || where=kernel
for m in $mods; do
	ktap_test_result "$m is found under $where/" check_module "$m"
done

# module:alias pairs that autoloading depends on (stock's aliases).
ALIASES="ib_core:net-pf-16-proto-20 ib_core:rdma-netlink-subsys-5
	ib_uverbs:rdma-client-uverbs rdma_rxe:rdma-link-rxe
	ib_umad:rdma-client-umad ib_umad:rdma-client-issm
	iw_cm:rdma-netlink-subsys-2
	rdma_ucm:rdma-client-rdma_cm"
check_aliases() {
	local pair m a
	for pair in $ALIASES; do
		m=${pair%%:*}
		a=${pair#*:}
		echo " $mods " | grep -q " $m " || continue
		modinfo -F alias "$m" | grep -qx "$a" ||
			{ echo "$m: no alias $a"; return 1; }
	done
}
ktap_test_result "modules carry the autoload aliases stock has" check_aliases

check_loaded() {
	rdma_unload_all || return 1
	modprobe ib_core || return 1
	if ours; then
		expect_eq "loaded version" "$(cat /sys/module/ib_core/version)" \
			"$OOT_VERSION" &&
		grep -q O /sys/module/ib_core/taint
	else
		! grep -q O /sys/module/ib_core/taint
	fi
}
ktap_test_result "the loaded ib_core is the expected one" check_loaded

# `modprobe -a rdma_cm rdma_ucm` from nothing (without -a, the second
# name would be a parameter of rdma_cm): every RDMA module it loads
# (rdma_cm's and rdma_ucm's dependencies: ib_cm, iw_cm, ib_core,
# ib_uverbs) is the expected one, ours out of tree (taint O) or stock's.
check_cm_set() {
	local m n=0
	rdma_unload_all || return 1
	modprobe -a rdma_cm rdma_ucm || return 1
	for m in $RDMA_MODULES; do
		module_loaded "$m" || continue
		n=$((n + 1))
		if ours; then
			expect_eq "$m version" "$(cat "/sys/module/$m/version")" \
				"$OOT_VERSION" &&
			grep -q O "/sys/module/$m/taint" || return 1
		elif grep -q O "/sys/module/$m/taint"; then
			echo "$m: out of tree on the stock stack"
			return 1
		fi
	done
	module_loaded rdma_cm && module_loaded rdma_ucm &&
	module_loaded ib_cm && module_loaded iw_cm || return 1
	echo "# $n modules loaded"
}
ktap_test_result "modprobe -a rdma_cm rdma_ucm loads only the expected modules" \
	check_cm_set

# finit_module() of FILE: prints the errno's name, or "ok" when it loaded.
finit() {
	python3 - "$1" <<'PY'
import ctypes, errno, os, sys
libc = ctypes.CDLL(None, use_errno=True)
fd = os.open(sys.argv[1], os.O_RDONLY)
rc = libc.syscall(313, fd, b"", 0)	# __NR_finit_module, x86_64
print("ok" if rc == 0 else errno.errorcode[ctypes.get_errno()])
PY
}

# Taint flags other than O (out-of-tree, 4096) and E (unsigned, 8192).
other_taint() {
	echo $(($(cat /proc/sys/kernel/tainted) & ~(4096 | 8192)))
}

# ib_core's references (modules using it), "-" when it is not loaded.
core_refcnt() {
	cat /sys/module/ib_core/refcnt 2>/dev/null || echo -
}

# check_debian_refused M ERRNO LOGPAT: Debian's M.ko, with its dependencies
# loaded by modprobe (ours on ours, the in-tree ones on stock), loads on
# stock; on ours finit_module() fails with ERRNO, the log matches LOGPAT,
# and nothing is left: no WARN, no reference on ib_core, no new taint but
# O and E.
check_debian_refused() {
	local m=$1 want=$2 pat=$3 ko deps lines taint refs rc log
	local -a dep
	ko=/lib/modules/$OOT_KVER/kernel/drivers/infiniband
	ko=$(find "$ko" -name "$m.ko" | head -1)
	[ -n "$ko" ] || { echo "no Debian $m.ko in kernel/"; return 1; }
	deps=$(modinfo -F depends "$ko") || return 1
	rdma_unload_all || return 1
	IFS=, read -ra dep <<<"$deps"
	modprobe -a "${dep[@]}" || { echo "$m: cannot load $deps"; return 1; }
	lines=$(dmesg | wc -l)
	taint=$(other_taint)
	refs=$(core_refcnt)
	rc=$(finit "$ko")
	log=$(dmesg | tail -n +$((lines + 1)))
	[ -z "$log" ] || echo "$log"
	if ! ours; then
		# Stock: the file loads on its own core (it is a valid module).
		expect_eq "finit_module of $m on stock" "$rc" ok || return 1
		rdma_unload_all
		return
	fi
	module_loaded "$m" && { echo "Debian's $m loaded on ours"; return 1; }
	expect_eq "finit_module" "$rc" "$want" || return 1
	if ! echo "$log" | grep -q "$pat"; then
		echo "no '$pat' in the log"
		return 1
	fi
	if echo "$log" | grep -qE 'WARNING:|Call Trace|BUG:'; then
		echo "the refusal left a WARN"
		return 1
	fi
	expect_eq "ib_core refcnt, after" "$(core_refcnt)" "$refs" || return 1
	expect_eq "taint other than O and E, after" "$(other_taint)" "$taint"
}
ktap_test_result "Debian's ib_uverbs.ko: refused by our ib_core, loads on stock's" \
	check_debian_refused ib_uverbs EINVAL \
	'ib_uverbs: disagrees about version of symbol'

# Debian's M.ko: refused by our guard (and insmod says so), loaded on stock.
check_stock_guarded() {
	local m=$1 ko out
	check_debian_refused "$m" ENOEXEC "ib_core: refusing the in-tree $m:" ||
		return 1
	ours || return 0
	# What a user sees.
	ko=$(find "/lib/modules/$OOT_KVER/kernel/drivers/infiniband" \
		-name "$m.ko" | head -1)
	out=$(insmod "$ko" 2>&1) && { echo "insmod loaded $m"; return 1; }
	echo "$out"
	case "$out" in
	*"Invalid module format"*) ;;
	*) echo "insmod: not 'Invalid module format'"; return 1 ;;
	esac
}

for m in $GUARDED; do
	ktap_test_result "Debian's $m.ko: refused by our ib_core's guard, loads on stock's" \
		check_stock_guarded "$m"
done

# check_ours_refused M: our M.ko on Debian's ib_core (the file of
# kernel/, loaded by hand): refused for want of ib_core_oot_check alone.
check_ours_refused() {
	local m=$1 ko core lines rc log
	ko=$OOT_BUILT/drivers/infiniband/core/$m.ko
	core=$(find "/lib/modules/$OOT_KVER/kernel/drivers/infiniband" \
		-name ib_core.ko | head -1)
	[ -f "$ko" ] || { echo "no $ko: not built"; return 1; }
	rdma_unload_all || return 1
	expect_eq "finit_module of Debian's ib_core" "$(finit "$core")" ok ||
		return 1
	if grep -q O /sys/module/ib_core/taint; then
		echo "the ib_core loaded is not Debian's"
		return 1
	fi
	lines=$(dmesg | wc -l)
	rc=$(finit "$ko")
	log=$(dmesg | tail -n +$((lines + 1)))
	[ -z "$log" ] || echo "$log"
	module_loaded "$m" && { echo "our $m loaded on Debian's ib_core"; rc=loaded; }
	rmmod ib_core
	expect_eq "finit_module" "$rc" ENOENT || return 1
	expect_eq "unknown symbols" \
		"$(echo "$log" | grep -o 'Unknown symbol [a-z_0-9]*' | sort -u)" \
		"Unknown symbol ib_core_oot_check"
}

# The same on both stacks: only Debian's ib_core and the built file.
for m in $BOUND; do
	ktap_test_result "our $m.ko: refused by Debian's ib_core" \
		check_ours_refused "$m"
done

rdma_unload_all
ktap_finished
