#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Every kind of verbs object from an unmodified libibverbs application
# (verbs_holder.py --objects: PD, MR on malloc'd memory, MW, comp channel,
# CQs, RC/UC/UD QPs, SRQ, AH) shows in rdma res as on stock: the counts
# grow by what it made, each object is attributed to its pid and comm and
# names the PD, context and QP it belongs to; the event files and the
# mmap'd queues are there.  The MR pins its pages.
# kill -9 gives everything back: the counts and the kernel's page-pin
# balance (nr_foll_pin_* in /proc/vmstat) return to where they were.
# Removing the device, or its netdev, while the process holds all of it
# completes, and the process gets EIO afterwards (stock blocks: skipped
# there); after rdma link del its destroys of every object still succeed,
# as stock answers them after a disassociation (hw_mlx5_remove measures
# stock's on mlx5).  Stock's MAD layer owns a PD, a CQ and QP1 of its own: counts
# are compared as deltas, objects by their owner.
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"

ktap_print_header
ktap_set_plan 9

rdma_unload_all
rxe0_up
modprobe ib_uverbs
dir=$(mktemp -d)

counts() {
	res_counts rxe0
}

base=$(counts)
base_pins=$(pinned_pages)
# The holder is killed below: its bound only ends a stuck run, and a
# loaded machine needs it long (30 s ran out before the checks ended).
verbs_holder_start "$dir" --objects --wait 120 pd
# It will be killed with SIGKILL: no job report from the shell, please.
disown $HOLDER_PID

# What the holder made, per type (verbs_holder.py's OBJECTS).
delta() {
	local b c i out=
	read -ra b <<<"$base"
	read -ra c <<<"$(counts)"
	for ((i = 0; i < ${#b[@]}; i += 2)); do
		out+="${b[i]} $((c[i + 1] - b[i + 1])) "
	done
	echo "$out"
}
ktap_test_result "rdma res counts grow by the process's objects" \
	expect_eq "count deltas" "$(delta)" "pd 1 cq 2 qp 3 cm_id 0 mr 1 ctx 1 srq 1 "

# The holder's objects of TYPE as rdma res shows them, object numbers
# replaced by N, the holder's pid by P (any other pid stays visible).
mine() {
	rdma res show "$1" | grep " comm python3 $" |
		sed -E "s/ pid $HOLDER_PID / pid P /;
			s/ (pdn|ctxn|cqn|lqpn|mrn|srqn) [0-9]+/ \1 N/g;
			s/ (rkey|lkey) 0x[0-9a-f]+/ \1 K/g"
}
attributed() {
	expect_eq "ctx" "$(mine ctx)" "dev rxe0 ctxn N pid P comm python3 " &&
	expect_eq "pd" "$(mine pd)" \
		"dev rxe0 pdn N local_dma_lkey 0x0 users 7 ctxn N pid P comm python3 " &&
	expect_eq "cq" "$(mine cq)" \
		"dev rxe0 cqn N cqe 31 users 3 adaptive-moderation off ctxn N pid P comm python3 
dev rxe0 cqn N cqe 31 users 3 adaptive-moderation off ctxn N pid P comm python3 " &&
	expect_eq "qp" "$(mine qp)" \
		"link rxe0/- lqpn N rqpn 0 type RC state RESET rq-psn 0 sq-psn 0 path-mig-state MIGRATED pdn N pid P comm python3 
link rxe0/- lqpn N rqpn 0 type UC state RESET rq-psn 0 sq-psn 0 path-mig-state MIGRATED pdn N pid P comm python3 
link rxe0/- lqpn N type UD state RESET sq-psn 0 pdn N pid P comm python3 " &&
	expect_eq "mr" "$(mine mr)" \
		"dev rxe0 mrn N rkey K lkey K mrlen 1048576 pdn N pid P comm python3 " &&
	expect_eq "srq" "$(mine srq)" \
		"dev rxe0 srqn N type BASIC lqpn N pdn N pid P comm python3 "
}
ktap_test_result "each object is the process's, as stock lists it" attributed

# The numbers tie the objects together: one context, one PD, the SRQ
# serving the RC QP.
field() {	# field TYPE NAME: NAME's values among the holder's TYPE objects
	rdma res show "$1" | grep " pid $HOLDER_PID " |
		sed -nE "s/.* $2 ([0-9]+) .*/\1/p" | sort -u | tr '\n' ' '
}
tied() {
	local pdn ctxn
	ctxn=$(field ctx ctxn)
	pdn=$(field pd pdn)
	expect_eq "PD's context" "$(field pd ctxn)" "$ctxn" &&
	expect_eq "CQs' context" "$(field cq ctxn)" "$ctxn" &&
	expect_eq "QPs' PD" "$(field qp pdn)" "$pdn" &&
	expect_eq "MR's PD" "$(field mr pdn)" "$pdn" &&
	expect_eq "SRQ's PD" "$(field srq pdn)" "$pdn" &&
	expect_eq "SRQ's QP" "$(field srq lqpn)" \
		"$(rdma res show qp | grep " type RC .* pid $HOLDER_PID " |
			sed -nE 's/.* lqpn ([0-9]+) .*/\1 /p')"
}
ktap_test_result "the objects name their context, PD and QP" tied

# The async event file and the comp channel are event fds; each CQ, SQ,
# RQ and SRQ is a shared mapping of the device file (the RC QP takes its
# receives from the SRQ: 2 CQs + 3 SQs + 2 RQs + 1 SRQ).
files() {
	local fd
	expect_eq "event files" "$(for fd in /proc/$HOLDER_PID/fd/*; do readlink "$fd"; done |
		grep -c '^anon_inode:\[infinibandevent\]$')" 2 &&
	expect_eq "queue mappings" \
		"$(grep -c ' rw-s .* /dev/infiniband/uverbs0$' /proc/$HOLDER_PID/maps)" 8
}
ktap_test_result "two event files and eight queue mappings, as stock" files

pinned() {
	expect_eq "VmPin" "$(sed -n 's/^VmPin:[[:space:]]*//p' /proc/$HOLDER_PID/status)" \
		"1024 kB" &&
	expect_eq "pinned pages" "$(pinned_pages)" $((base_pins + 1024 * 1024 / $(getconf PAGESIZE)))
}
ktap_test_result "the MR pins its 1 MiB" pinned

back() {
	expect_eq "counts" "$(counts)" "$base" &&
	expect_eq "pinned pages" "$(pinned_pages)" "$base_pins"
}
killed() {
	kill -9 $HOLDER_PID
	eventually 10 back
}
ktap_test_result "kill -9 gives every object and pinned page back" killed

held_removal() {
	local out
	out=$(removal_under_holder "$dir" --objects --destroy --wait 30 pd) ||
		{ echo "$out"; return 1; }
	expect_eq "holder" "$out" "holder: PD failed: EIO
holder: destroys succeeded"
}
netdev_gone() {
	local rc=0
	verbs_holder_start "$dir" --objects --wait 30 pd || return 1
	ip link del "$VETH" || rc=$?
	eventually 10 test ! -e /sys/class/infiniband/rxe0 || rc=1
	touch "$dir/go"
	wait $HOLDER_PID
	[ $rc = 0 ] || { echo "rxe0 outlived its netdev"; return 1; }
	expect_eq "holder" "$(cat "$dir/out")" "holder: PD failed: EIO"
}
if ours; then
	ktap_test_result "rdma link del under every object completes; then EIO, destroys succeed" \
		held_removal
	rxe0_up
	ktap_test_result "ip link del of the netdev under every object completes; then EIO" \
		netdev_gone
else
	ktap_test_skip "rdma link del under every object completes; then EIO, destroys succeed" \
		"stock 6.1 blocks removal until the holder closes (measured)"
	ktap_test_skip "ip link del of the netdev under every object completes; then EIO" \
		"stock 6.1 blocks ip link del until the holder closes, the netdev waiting for its references (measured)"
	rdma link del rxe0
fi

ktap_test_result "the stack unloads afterwards" rdma_unload_all

veth_teardown
rm -rf "$dir"
ktap_finished
