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

# pd_holder N: a process with a context and N PDs; it creates $dir/ready,
# then waits for $dir/go (at most 20 s), tries one more PD and reports.
pd_holder() {
	rm -f "$dir/ready" "$dir/go"
	# stderr aside: after removal, pyverbs' destructors fail with EIO
	# at exit, as libibverbs reports destroys on a disassociated device.
	N=$1 DIR=$dir python3 - 2>"$dir/holder.err" <<'PY' &
import errno, os, time
from pyverbs.device import Context
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsRDMAError
d = os.environ["DIR"]
ctx = Context(name="rxe0")
pds = [PD(ctx) for _ in range(int(os.environ["N"]))]
open(d + "/ready", "w").close()
end = time.time() + 20
while not os.path.exists(d + "/go") and time.time() < end:
    time.sleep(0.1)
try:
    PD(ctx)
    print("holder: PD created")
except PyverbsRDMAError as e:
    print("holder: PD failed: " + errno.errorcode.get(e.error_code, str(e.error_code)))
PY
	holder=$!
	eventually 60 test -e "$dir/ready"
}

res_count() {	# res_count TYPE: the device's count of TYPE in rdma res
	rdma -j res | python3 -c "import json,sys; print(json.load(sys.stdin)[0]['$1'])"
}

base_pd=$(res_count pd)
pd_holder 3
# It will be killed with SIGKILL: no job report from the shell, please.
disown $holder

user_pds() {
	rdma res show pd | grep ' comm python3 $' |
		sed -E 's/pdn [0-9]+/pdn N/; s/ctxn [0-9]+/ctxn N/; s/pid [0-9]+/pid P/'
}
listed() {
	expect_eq "user PDs" "$(user_pds | sort -u)" \
		"dev rxe0 pdn N local_dma_lkey 0x0 users 0 ctxn N pid P comm python3 " &&
	expect_eq "user PD count" "$(user_pds | wc -l)" 3 &&
	expect_eq "their pid" "$(rdma res show pd | grep -c " pid $holder comm python3 ")" 3 &&
	expect_eq "pd summary" "$(res_count pd)" $((base_pd + 3))
}
ktap_test_result "rdma res show pd lists the process's PDs as stock" listed

ctx_listed() {
	expect_eq "ctx" "$(rdma res show ctx | sed -E 's/ctxn [0-9]+/ctxn N/')" \
		"dev rxe0 ctxn N pid $holder comm python3 "
}
ktap_test_result "rdma res show ctx lists its context" ctx_listed

killed() {
	kill -9 $holder
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

removal() {
	local t0 t1 out
	pd_holder 5
	t0=$(date +%s)
	rdma link del rxe0 || { echo "rdma link del failed"; return 1; }
	t1=$(date +%s)
	touch "$dir/go"
	wait $holder
	[ $((t1 - t0)) -lt 5 ] || { echo "rdma link del took $((t1 - t0))s"; return 1; }
}
removal_eio() {
	local out
	out=$(removal) || { echo "$out"; return 1; }
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
