#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# REREG_MR moving an MR to another PD (IB_MR_REREG_PD), raw through
# write() and ioctl's INVOKE_WRITE (uverbs_rereg.py), answers as stock,
# and leaves the PDs' use counts right: on ours the MR moves (rxe's
# rereg_user_mr, rxe_rereg.sh tests it with traffic), the new PD is busy
# while the MR lives on it and the old one deallocates; stock's rxe has
# no rereg_user_mr and answers EOPNOTSUPP, the new PD deallocates and the
# old one is busy (measured).
# The in-place move runs on the test-only device umap0 (modules/umap_test,
# whose rereg_user_mr moves an MR in place as hardware drivers do): an MR
# hops from PD to PD, each PD it left deallocated at once, while
# `rdma res show mr` dumps it in a loop; umap_test's fill_res_mr_entry
# loads the MR's PD, sleeps, and counts the dumps whose PD changed under
# them (freed: slub poison).  None may: the old PD's count drops only
# after the dumps that could see it (stock, Debian's 6.1.0-57, fences
# them the same way: measured, none).
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"

ktap_print_header
ktap_set_plan 3

rdma_unload_all
rxe0_up
modprobe ib_uverbs
base=$(rdma res show | rdma_norm)

rereg() {
	local out stock=
	ours || stock=--stock
	out=$(python3 "$TESTDIR/uverbs_rereg.py" check $stock 2>&1)
	echo "$out" | grep -v '^done$'
	echo "$out" | grep -qx done && ! echo "$out" | grep -q ': got '
}
ktap_test_result "REREG_MR to another PD: the answer of the stack, PD counts right" rereg

clean() {
	expect_eq "rdma res" "$(rdma res show | rdma_norm)" "$base"
}
ktap_test_result "no object outlives its file" clean

rdma link del rxe0
veth_teardown

# In place, under dumps, on umap0.
dumps() {
	while [ ! -e "$1" ]; do
		rdma res show mr dev umap0 >/dev/null 2>&1
	done
}
inplace() {
	local dir out stale rc=0 pid dev

	rdma_unload_all
	modprobe umap_test && modprobe ib_uverbs || return 1
	eventually 10 test -e /sys/class/infiniband/umap0 || return 1
	dev=$(grep -lx umap0 /sys/class/infiniband_verbs/uverbs*/ibdev)
	dev=/dev/infiniband/$(basename "$(dirname "$dev")")
	dir=$(mktemp -d)
	dumps "$dir/stop" &
	pid=$!
	out=$(python3 "$TESTDIR/uverbs_rereg.py" race "$dev" "$(soak 200)" 2>&1)
	touch "$dir/stop"
	wait $pid
	rm -rf "$dir"
	stale=$(cat /sys/module/umap_test/parameters/stale_pd)
	echo "$out; dumps that saw their PD change: $stale"
	expect_eq "moves" "$out" "moved $(soak 200)" || rc=1
	modprobe -r umap_test && rdma_unload_all || rc=1
	[ "$stale" = 0 ] || rc=1
	return $rc
}
if modinfo umap_test >/dev/null 2>&1; then
	ktap_test_result "REREG_MR in place under dumps: no PD freed under them" inplace
else
	ktap_test_skip "REREG_MR in place under dumps: no PD freed under them" \
		"umap_test.ko not installed (scripts/vm --ko)"
fi
ktap_finished
