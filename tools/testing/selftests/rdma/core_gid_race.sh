#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# GID entries dropped by their holders while the table churns.  An
# address handle holds the GID attr it was made with and puts it at
# destroy; addresses added to and deleted from the netdev meanwhile
# delete GIDs, whose entries are then freed by the table's reclaim work
# once their last holder puts them.  The last put must not touch the
# entry after its decrement (the reclaim may already have freed it).
# That window is a few instructions wide and cannot be hit reliably: the
# loop is a bounded regression guard; the harness catches a use after
# free or refcount complaint should it ever be hit.
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"

SECS=${SECS:-12}

ktap_print_header
ktap_set_plan 2

rdma_unload_all
modprobe rdma_rxe
modprobe ib_uverbs

gid_churn() {
	local dir i pid rc=0
	dir=$(mktemp -d)
	veth_setup || return 1
	rdma link add rxe0 type rxe netdev "$VETH" || return 1
	python3 "$TESTDIR/core_verbs_churn.py" gids "$SECS" >"$dir/out" 2>&1 &
	pid=$!
	i=0
	while kill -0 $pid 2>/dev/null; do
		i=$((i + 1))
		ip addr add 192.0.2.$((i % 8 + 1))/24 dev "$VETH" 2>/dev/null
		ip addr add 2001:db8::$((i % 8 + 1))/64 dev "$VETH" nodad \
			2>/dev/null
		ip addr flush dev "$VETH" scope global
	done
	wait $pid || rc=1
	cat "$dir/out"
	grep -q '^ok ' "$dir/out" || rc=1
	echo "$i address rounds"
	rm -rf "$dir"
	rdma link del rxe0 || rc=1
	return $rc
}
ktap_test_result "GID attrs put while addresses come and go" gid_churn

# Every deleted GID was freed: the device and its netdev go cleanly.
gone_cleanly() {
	eventually 10 no_rdma_devices && timeout 20 ip link del "$VETH"
}
ktap_test_result "the device and netdev go afterwards" gone_cleanly

rdma_unload_all
ktap_finished
