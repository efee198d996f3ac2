#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# /sys/class/infiniband/rxe0 is stock's tree: the same files with the
# same modes and values, the device under /sys/devices/virtual, ports/1
# with every attribute, 1024 GID and 1 P_Key entries, per-port
# hw_counters, the parent attribute udev matches on, a writable
# node_desc.  Values measured on the stock stack.
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"

ktap_print_header
ktap_set_plan 10

rdma_unload_all
veth_setup
rdma link add rxe0 type rxe netdev "$VETH"
D=/sys/class/infiniband/rxe0
P=$D/ports/1

ktap_test_result "the device lives in /sys/devices/virtual/infiniband" \
	expect_eq "path" "$(readlink -f $D)" /sys/devices/virtual/infiniband/rxe0

modes() {
	(cd "$1" && stat -c '%A %n' * | sort | tr '\n' ';')
}
ktap_test_result "device directory: files and modes" expect_eq "device dir" "$(modes $D)" \
	"-r--r--r-- fw_ver;-r--r--r-- node_guid;-r--r--r-- node_type;-r--r--r-- parent;-r--r--r-- sys_image_guid;-rw-r--r-- node_desc;-rw-r--r-- uevent;drwxr-xr-x ports;drwxr-xr-x power;lrwxrwxrwx subsystem;"

values() {
	local f
	for f in "$@"; do
		printf '%s=%s;' "${f##*/}" "$(cat "$f")"
	done
}
ktap_test_result "device attribute values" expect_eq "device values" \
	"$(values $D/node_type $D/node_guid $D/sys_image_guid $D/fw_ver $D/node_desc $D/parent)" \
	"node_type=1: CA;node_guid=$VETH_GUID;sys_image_guid=$VETH_GUID;fw_ver=;node_desc=rxe;parent=$VETH;"

ktap_test_result "uevent names the device" expect_eq "uevent" "$(cat $D/uevent)" "NAME=rxe0"

ktap_test_result "ports/1: files and modes" expect_eq "port dir" "$(modes $P)" \
	"-r--r--r-- cap_mask;-r--r--r-- lid;-r--r--r-- lid_mask_count;-r--r--r-- link_layer;-r--r--r-- phys_state;-r--r--r-- rate;-r--r--r-- sm_lid;-r--r--r-- sm_sl;-r--r--r-- state;drwxr-xr-x gid_attrs;drwxr-xr-x gids;drwxr-xr-x hw_counters;drwxr-xr-x pkeys;"

ktap_test_result "ports/1 attribute values" expect_eq "port values" \
	"$(values $P/state $P/phys_state $P/rate $P/link_layer $P/lid $P/lid_mask_count $P/sm_lid $P/sm_sl $P/cap_mask)" \
	"state=4: ACTIVE;phys_state=5: LinkUp;rate=10 Gb/sec (1X FDR10);link_layer=Ethernet;lid=0x0;lid_mask_count=0;sm_lid=0x0;sm_sl=0;cap_mask=0x00010000;"

tables() {
	expect_eq "gids" "$(ls $P/gids | wc -l)" 1024 &&
	expect_eq "types" "$(ls $P/gid_attrs/types | wc -l)" 1024 &&
	expect_eq "ndevs" "$(ls $P/gid_attrs/ndevs | wc -l)" 1024 &&
	expect_eq "pkeys" "$(ls $P/pkeys | tr '\n' ' ')" "0 " &&
	expect_eq "pkey 0" "$(cat $P/pkeys/0)" 0xffff &&
	expect_eq "gid modes" "$(stat -c %A $P/gids/0 $P/gid_attrs/types/0 $P/gid_attrs/ndevs/0 $P/pkeys/0 | sort -u)" "-r--r--r--"
}
ktap_test_result "GID and P_Key tables: sizes, modes" tables

counters() {
	expect_eq "names" "$(ls $P/hw_counters | tr '\n' ' ')" \
		"ack_deferred completer_retry_err duplicate_request lifespan link_downed out_of_seq_request rcvd_pkts rcvd_rnr_err rcvd_seq_err rdma_recvs rdma_sends retry_exceeded_err retry_rnr_exceeded_err send_err send_rnr_err sent_pkts " &&
	expect_eq "lifespan" "$(cat $P/hw_counters/lifespan)" 12 &&
	expect_eq "lifespan mode" "$(stat -c %A $P/hw_counters/lifespan)" "-rw-r--r--" &&
	expect_eq "sent_pkts" "$(cat $P/hw_counters/sent_pkts)" 0 &&
	[ ! -e $D/hw_counters ] || { echo "rxe has no device-level counters"; return 1; }
}
ktap_test_result "per-port hw_counters, none per device" counters

# Stock keeps what was written, newline included, and shows it with one
# more; a zero-length write changes nothing.
node_desc() {
	echo "my node" >$D/node_desc || return 1
	expect_eq "node_desc bytes" "$(od -An -c $D/node_desc | tr -s ' ')" \
		" m y n o d e \n \n" || return 1
	echo -n "" >$D/node_desc || return 1
	expect_eq "node_desc after an empty write" "$(cat $D/node_desc)" "my node"
}
ktap_test_result "node_desc is writable, as stock stores it" node_desc

port_is() {
	expect_eq "port" "$(values $P/state $P/phys_state)" "$1"
}
link_state() {
	ip link set "$VETH" down
	eventually 10 port_is "state=1: DOWN;phys_state=3: Disabled;" || return 1
	expect_eq "rdma link" "$(rdma link)" \
		"link rxe0/1 state DOWN physical_state DISABLED netdev $VETH " || return 1
	ip link set "$VETH" up
	eventually 10 port_is "state=4: ACTIVE;phys_state=5: LinkUp;"
}
ktap_test_result "link down/up shows in state and phys_state" link_state

rdma link del rxe0
veth_teardown
rdma_unload_all
ktap_finished
