#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The Debian package (make deb) installed as a user installs it, in a
# guest booted with the in-tree stack (scripts/deb-check runs it; not in
# make check: DKMS compiles the whole tree under TCG).  OOT_DEB names the
# .deb.  apt installs it offline (its dependencies are the host's
# packages, seen through the guest's overlay); dh_dkms's postinst has DKMS build and install the modules
# for the running kernel; their build proved each CRC adopted from
# Debian's (kabi-crc's "0 unproven": Debian's upper-layer modules load on
# them); modprobe finds ours under updates/dkms/, `modprobe rdma_cm
# rdma_ucm` loads them, `rdma link add` and ibv_rc_pingpong run on them,
# and Debian's rpcrdma loads on their core.  `apt remove` takes them out
# and modprobe loads the in-tree modules again; purge removes the cache
# of the kABI proof.
#
# The proof's cache (scripts/stock-symtypes: Debian's core modules built
# from linux-source-6.1, minutes of compiling) is seeded from OOT_SEED
# when set, as a machine that built once has it.
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rxe_topo.sh"

PKG=oot-rdma-dkms
CACHE=/var/cache/oot-rdma
MODS="ib_core ib_uverbs ib_umad ib_cm iw_cm rdma_cm rdma_ucm rdma_rxe"
DKMS_LOG=/var/lib/dkms/oot-rdma/$OOT_VERSION/$OOT_KVER/x86_64/log/make.log

ktap_print_header
ktap_set_plan 8

skip_all() {
	local i
	for i in $(seq 8); do
		ktap_test_skip "install_deb case $i" "$1"
	done
	ktap_finished
}
if [ -z "${OOT_DEB:-}" ] || [ ! -f "$OOT_DEB" ]; then
	skip_all "no package: OOT_DEB names the .deb (scripts/deb-check)"
fi
if ours; then
	skip_all "the package installs the modules: boot the in-tree stack (--stock)"
fi

if [ -n "${OOT_SEED:-}" ] && [ -d "$OOT_SEED" ]; then
	mkdir -p "$CACHE" && cp -a "$OOT_SEED" "$CACHE/"
fi

# The package's ib_core is the one loaded.
package_core() {
	expect_eq "ib_core version" "$(cat /sys/module/ib_core/version 2>/dev/null)" \
		"$OOT_VERSION"
}

# Every 5 minutes while DKMS builds: how far it got (objects compiled,
# the last line of its log), so that a run which times out says where.
build_progress() {
	local objs
	while sleep 300; do
		objs=$(find /var/lib/dkms/oot-rdma -name '*.o' 2>/dev/null | wc -l)
		echo "# $((SECONDS - $1)) s: $objs objects; $(tail -n 1 \
			"/var/lib/dkms/oot-rdma/$OOT_VERSION/build/make.log" 2>/dev/null)"
	done
}

apt_install() {
	local t0=$SECONDS rc=0 prog
	build_progress "$t0" &
	prog=$!
	# Offline: every dependency is installed already (apt's
	# --no-download would say so, but refuses a .deb given by path).
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
		"$OOT_DEB" >/tmp/apt-install.log 2>&1 || rc=$?
	kill "$prog" 2>/dev/null
	wait "$prog" 2>/dev/null
	[ $rc = 0 ] || { tail -n 40 /tmp/apt-install.log; return 1; }
	echo "apt install took $((SECONDS - t0)) s"
	dkms status oot-rdma | grep -q "$OOT_KVER, x86_64: installed" ||
		{ dkms status; tail -n 40 /tmp/apt-install.log; return 1; }
}
ktap_test_result "apt install builds and installs the modules for $OOT_KVER" apt_install

proved() {
	local line
	[ -f "$DKMS_LOG" ] || { echo "no $DKMS_LOG"; return 1; }
	line=$(grep '^kabi-crc: ' "$DKMS_LOG" | tail -n 1)
	echo "$line"
	case "$line" in
	*" 0 unproven"*) ;;
	*) return 1 ;;
	esac
}
ktap_test_result "the DKMS build proved every CRC it adopted" proved

from_dkms() {
	local m path
	for m in $MODS; do
		path=$(modinfo -n "$m") || return 1
		case "$path" in
		/lib/modules/"$OOT_KVER"/updates/dkms/*) ;;
		*) echo "$m: $path, not updates/dkms/"; return 1 ;;
		esac
		expect_eq "$m version" "$(modinfo -F version "$m")" "$OOT_VERSION" ||
			return 1
	done
}
ktap_test_result "modprobe finds every module under updates/dkms/" from_dkms

loads_ours() {
	modprobe rdma_cm && modprobe rdma_ucm && package_core
}
ktap_test_result "modprobe rdma_cm rdma_ucm loads ours" loads_ours

traffic() {
	modprobe ib_uverbs && topo_one_up && package_core || return 1
	pingpong "" "$ONE_DEV" "$ONE_IP" "" "$ONE_DEV" "$ONE_IP" \
		ibv_rc_pingpong -n 5 -c
}
ktap_test_result "rdma link add and ibv_rc_pingpong on the package's modules" traffic
topo_down

ulp() {
	modprobe rpcrdma && package_core || return 1
	case "$(modinfo -n rpcrdma)" in
	/lib/modules/"$OOT_KVER"/kernel/*) ;;
	*) echo "rpcrdma is not Debian's"; return 1 ;;
	esac
	modprobe -r rpcrdma
}
ktap_test_result "Debian's rpcrdma loads on the package's core" ulp
rdma_unload_all

removed() {
	local m
	DEBIAN_FRONTEND=noninteractive apt-get remove -y -q "$PKG" \
		>/tmp/apt-remove.log 2>&1 ||
		{ tail -n 40 /tmp/apt-remove.log; return 1; }
	for m in $MODS; do
		case "$(modinfo -n "$m")" in
		/lib/modules/"$OOT_KVER"/kernel/*) ;;
		*) echo "$m: $(modinfo -n "$m") after remove"; return 1 ;;
		esac
	done
	modprobe rdma_cm && modprobe rdma_ucm || return 1
	# Debian's modules carry no version.
	[ ! -e /sys/module/ib_core/version ] ||
		{ echo "ib_core version $(cat /sys/module/ib_core/version)"; return 1; }
}
ktap_test_result "apt remove: modprobe loads the in-tree modules again" removed
rdma_unload_all

purged() {
	DEBIAN_FRONTEND=noninteractive apt-get purge -y -q "$PKG" \
		>/tmp/apt-purge.log 2>&1 ||
		{ tail -n 40 /tmp/apt-purge.log; return 1; }
	[ ! -e "$CACHE" ] || { echo "$CACHE left"; return 1; }
	[ ! -e "/usr/src/oot-rdma-$OOT_VERSION" ] ||
		{ echo "/usr/src/oot-rdma-$OOT_VERSION left"; return 1; }
}
ktap_test_result "apt purge leaves neither sources nor the proof's cache" purged

ktap_finished
