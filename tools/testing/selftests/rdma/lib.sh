# SPDX-License-Identifier: GPL-2.0-only
#
# Helpers shared by the rdma selftests.  Sourced after ktap_helpers.sh.
# The harness exports OOT_STOCK (1: the in-tree stack is under test),
# OOT_KVER, OOT_REPO and OOT_VERSION; outside it, sane defaults apply.

OOT_STOCK=${OOT_STOCK:-0}
OOT_KVER=${OOT_KVER:-$(uname -r)}
OOT_REPO=${OOT_REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../../../.." && pwd)}

# Every module of the RDMA stack, users before what they use: the order
# in which they can be unloaded.
RDMA_MODULES="rdma_rxe rdma_ucm ib_umad ib_uverbs rdma_cm iw_cm ib_cm ib_core"

TESTDIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# nlrdma ARGS...: one raw NETLINK_RDMA request, see nlrdma.py.
nlrdma() {
	python3 "$TESTDIR/nlrdma.py" "$@"
}

ours() {
	[ "$OOT_STOCK" != 1 ]
}

# The names of the modules this tree builds.
oot_module_names() {
	sed -e 's|.*/||' -e 's/\.k\?o$//' "$OOT_REPO/modules.order"
}

module_loaded() {
	[ -d "/sys/module/$1" ] && [ -e "/sys/module/$1/initstate" ]
}

# Unload the whole RDMA stack, whatever is loaded of it.
rdma_unload_all() {
	local m
	for m in $RDMA_MODULES; do
		if module_loaded "$m"; then
			modprobe -r "$m" || return 1
		fi
	done
}

# The kernel's NETLINK_RDMA sockets (one per netns while ib_core is loaded).
nl_rdma_kernel_socks() {
	awk 'NR > 1 && $2 == 20 && $3 == 0' /proc/net/netlink | wc -l
}

# expect_nl WANT ARGS...: nlrdma's verdict on ARGS must be WANT.
expect_nl() {
	local want=$1
	shift
	expect_eq "nlrdma $*" "$(nlrdma "$@")" "$want"
}

# expect_eq WHAT GOT WANT: prints the mismatch, returns its truth.
expect_eq() {
	if [ "$2" != "$3" ]; then
		echo "$1: got '$2', want '$3'"
		return 1
	fi
}
