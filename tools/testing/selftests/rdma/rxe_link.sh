#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# rdma link add/del of an rxe device, seen through the rdma tool: the
# output of dev, -d dev, -j dev, link, -d link, sys and stat is stock's
# for the same setup, rdma_rxe autoloads through its rdma-link-rxe alias,
# and both `rdma link del` and `ip link del` of the netdev remove the
# device promptly.
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"

ktap_print_header
ktap_set_plan 12

rdma_unload_all
veth_setup

add() {
	rdma link add rxe0 type rxe netdev "$VETH" || return 1
	module_loaded rdma_rxe || { echo "rdma_rxe not loaded"; return 1; }
	[ -d /sys/class/infiniband/rxe0 ] || { echo "no sysfs device"; return 1; }
}
ktap_test_result "rdma link add autoloads rdma_rxe and creates rxe0" add

ktap_test_result "rdma dev" expect_eq "rdma dev" "$(rdma dev | rdma_norm)" \
	"N: rxe0: node_type ca node_guid $VETH_GUID sys_image_guid $VETH_GUID "

caps="BAD_PKEY_CNTR, BAD_QKEY_CNTR, AUTO_PATH_MIG, CHANGE_PHY_PORT, UD_AV_PORT_ENFORCE_PORT_ENFORCE, PORT_ACTIVE_EVENT, SYS_IMAGE_GUID, RC_RNR_NAK_GEN, SRQ_RESIZE, MEM_WINDOW, MEM_MGT_EXTENSIONS, MEM_WINDOW_TYPE_2B"
# Ours has ATOMIC WRITE too (rxe_atomic_write.sh), bit 40, which the
# rdma tool of Debian 12 has no name for.
! ours || caps="$caps, UNKNOWN"
ktap_test_result "rdma -d dev" expect_eq "rdma -d dev" "$(rdma -d dev | rdma_norm)" \
	"N: rxe0: node_type ca node_guid $VETH_GUID sys_image_guid $VETH_GUID adaptive-moderation off 
    caps: <$caps>"

ktap_test_result "rdma -j dev" expect_eq "rdma -j dev" "$(rdma -j dev | rdma_norm)" \
	"[{\"ifindex\":N,\"ifname\":\"rxe0\",\"node_type\":\"ca\",\"node_guid\":\"$VETH_GUID\",\"sys_image_guid\":\"$VETH_GUID\"}]"

ktap_test_result "rdma link" expect_eq "rdma link" "$(rdma link)" \
	"link rxe0/1 state ACTIVE physical_state LINK_UP netdev $VETH "

ifindex=$(cat "/sys/class/net/$VETH/ifindex")
ktap_test_result "rdma -d link names the netdev index" \
	expect_eq "rdma -d link" "$(rdma -d link)" \
	"link rxe0/1 state ACTIVE physical_state LINK_UP netdev $VETH netdev_index $ifindex "

ktap_test_result "rdma sys" expect_eq "rdma sys" "$(rdma sys)" \
	"netns shared copy-on-fork on"

counters="sent_pkts 0 rcvd_pkts 0 duplicate_request 0 out_of_seq_request 0 rcvd_rnr_err 0 send_rnr_err 0 rcvd_seq_err 0 ack_deferred 0 retry_exceeded_err 0 retry_rnr_exceeded_err 0 completer_retry_err 0 send_err 0 link_downed 0 rdma_sends 0 rdma_recvs 0"
ktap_test_result "rdma stat lists rxe's port counters" \
	expect_eq "rdma stat" "$(rdma stat)" "link rxe0/1 $counters "

# Stock's MAD layer holds a PD, CQ and QP (QP1) per device; until ours
# has one, those three may be 0 or 1, everything else must be 0.
res_summary() {
	local out
	out=$(rdma res | rdma_norm)
	echo "$out" | grep -qE '^N: rxe0: pd [01] cq [01] qp [01] cm_id 0 mr 0 ctx 0 srq 0 $' ||
		{ echo "rdma res: '$out'"; return 1; }
}
ktap_test_result "rdma res summarises the device's resources" res_summary

del() {
	rdma link del rxe0 || return 1
	[ ! -e /sys/class/infiniband/rxe0 ] || { echo "rxe0 still in sysfs"; return 1; }
	expect_eq "rdma dev after del" "$(rdma dev)" ""
}
ktap_test_result "rdma link del removes the device" del

netdev_del() {
	local t0 t1 scale=${OOT_TIMEOUT_SCALE:-1}
	rdma link add rxe0 type rxe netdev "$VETH" || return 1
	t0=$(date +%s)
	timeout $((30 * scale)) ip link del "$VETH" ||
		{ echo "ip link del failed or hung"; return 1; }
	t1=$(date +%s)
	# the device goes away asynchronously, but promptly
	eventually 5 test ! -e /sys/class/infiniband/rxe0 ||
		{ echo "rxe0 outlived its netdev"; return 1; }
	# A netdev held past its unregistration takes 10 s and more (the
	# kernel's "waiting for ... to become free"); the debug kernel
	# (OOT_TIMEOUT_SCALE) is slower at all of it.
	[ $((t1 - t0)) -lt $((5 * scale)) ] ||
		{ echo "ip link del took $((t1 - t0))s"; return 1; }
}
ktap_test_result "ip link del of the netdev removes the device promptly" netdev_del

unload() {
	veth_setup || return 1
	rdma link add rxe0 type rxe netdev "$VETH" || return 1
	modprobe -r rdma_rxe || return 1
	[ ! -e /sys/class/infiniband/rxe0 ] || { echo "rxe0 outlived rdma_rxe"; return 1; }
	timeout 30 ip link del "$VETH"
}
ktap_test_result "unloading rdma_rxe removes its devices" unload

veth_teardown
rdma_unload_all
ktap_finished
