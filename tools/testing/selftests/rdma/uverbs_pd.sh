#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Protection domains from an unmodified libibverbs application (pyverbs):
# created PDs and the context show in rdma res as on stock (pid, comm,
# context number), they go when the process is killed, a thousand PDs
# come and go, and removing the device under live PDs completes with the
# application getting EIO afterwards (stock blocks).  Stock's MAD layer
# owns one more, kernel, PD: user objects are compared with their
# numbers normalised.
. "$(dirname "$0")/ktap_helpers.sh"
. "$(dirname "$0")/lib.sh"

ktap_print_header
ktap_set_plan 6

rdma_unload_all
veth_setup
rdma link add rxe0 type rxe netdev "$VETH"
modprobe ib_uverbs
dir=$(mktemp -d)

res_count() {	# res_count TYPE: the device's count of TYPE in rdma res
	rdma -j res | python3 -c "import json,sys; print(json.load(sys.stdin)[0]['$1'])"
}

base_pd=$(res_count pd)
verbs_holder_start "$dir" --pds 3 --wait 20 pd
# It will be killed with SIGKILL: no job report from the shell, please.
disown $HOLDER_PID

user_pds() {
	rdma res show pd | grep ' comm python3 $' |
		sed -E 's/pdn [0-9]+/pdn N/; s/ctxn [0-9]+/ctxn N/; s/pid [0-9]+/pid P/'
}
listed() {
	expect_eq "user PDs" "$(user_pds | sort -u)" \
		"dev rxe0 pdn N local_dma_lkey 0x0 users 0 ctxn N pid P comm python3 " &&
	expect_eq "user PD count" "$(user_pds | wc -l)" 3 &&
	expect_eq "their pid" "$(rdma res show pd | grep -c " pid $HOLDER_PID comm python3 ")" 3 &&
	expect_eq "pd summary" "$(res_count pd)" $((base_pd + 3))
}
ktap_test_result "rdma res show pd lists the process's PDs as stock" listed

ctx_listed() {
	expect_eq "ctx" "$(rdma res show ctx | sed -E 's/ctxn [0-9]+/ctxn N/')" \
		"dev rxe0 ctxn N pid $HOLDER_PID comm python3 "
}
ktap_test_result "rdma res show ctx lists its context" ctx_listed

killed() {
	kill -9 $HOLDER_PID
	eventually 10 expect_eq "pd summary" "$(res_count pd)" "$base_pd" &&
	expect_eq "ctx summary" "$(res_count ctx)" 0
}
ktap_test_result "kill -9 frees the process's PDs and context" killed

many() {
	python3 - <<'PY' || return 1
from pyverbs.device import Context
from pyverbs.pd import PD
ctx = Context(name="rxe0")
pds = [PD(ctx) for _ in range(1000)]
for pd in pds:
    pd.close()
ctx.close()
PY
	expect_eq "pd summary" "$(res_count pd)" "$base_pd"
}
ktap_test_result "a thousand PDs come and go" many

removal_eio() {
	local out
	out=$(removal_under_holder "$dir" --pds 5 --wait 20 pd) ||
		{ echo "$out"; return 1; }
	expect_eq "holder" "$out" "holder: PD failed: EIO"
}
if ours; then
	ktap_test_result "removal under live PDs completes; then EIO" removal_eio
else
	ktap_test_skip "removal under live PDs completes; then EIO" \
		"stock 6.1 blocks removal until the holder closes (measured)"
	rdma link del rxe0
fi

ktap_test_result "the stack unloads afterwards" rdma_unload_all

veth_teardown
rm -rf "$dir"
ktap_finished
