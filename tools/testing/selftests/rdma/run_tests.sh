#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Run selftests and print one KTAP document: each test's own KTAP output
# as "# " diagnostics, then "ok N name" / "not ok N name" / "# SKIP", and
# a closing line "selftests: N passed, N failed, N skipped".
#
#	run_tests.sh [TEST...]     default: TEST_PROGS of the Makefile
#	run_tests.sh --list [TEST...]  print the tests it would run, one a
#				   line, and run none
#
# A test is killed after the timeout of ./settings (kselftest's format).
# With OOT_TESTS set (a space-separated list of names or shell patterns),
# only the matching tests run.
#
# With OOT_QUEUE set to a directory that several runners see (guests of
# scripts/check sharing one over 9p), the runners share the list: each
# claims a test by creating OOT_QUEUE/NAME, which only one mkdir(2) can
# do, runs it, and goes on to the next unclaimed one, so that the tests
# spread over the runners by how long each takes.  The plan line then
# comes last, counting the tests this runner ran (TAP 13 allows that).
cd "$(dirname "$0")" || exit 1

list_only=0
if [ "${1:-}" = --list ]; then
	list_only=1
	shift
fi
tests=("$@")
[ ${#tests[@]} -gt 0 ] || mapfile -t tests < <(make -s list)

if [ -n "${OOT_TESTS:-}" ]; then
	sel=()
	for t in "${tests[@]}"; do
		for p in $OOT_TESTS; do
			# shellcheck disable=SC2053
			if [[ $t == $p || ${t%.sh} == $p ]]; then
				sel+=("$t")
				break
			fi
		done
	done
	tests=("${sel[@]}")
fi

if [ ${#tests[@]} = 0 ]; then
	echo "run_tests.sh: no test selected" >&2
	exit 1
fi
if [ $list_only = 1 ]; then
	printf '%s\n' "${tests[@]%.sh}"
	exit 0
fi

timeout=$(sed -n 's/^timeout=//p' settings 2>/dev/null)
timeout=${timeout:-300}
# Slow kernels (the debug-kernel tier: KASAN and lockdep under TCG) scale
# every bound instead of each test carrying its own.
timeout=$((timeout * ${OOT_TIMEOUT_SCALE:-1}))

queue=${OOT_QUEUE:-}
if [ -n "$queue" ] && [ ! -d "$queue" ]; then
	echo "run_tests.sh: OOT_QUEUE=$queue is not a directory" >&2
	exit 1
fi

echo "TAP version 13"
echo "KTAP version 1"
[ -n "$queue" ] || echo "1..${#tests[@]}"
n=0 pass=0 fail=0 skip=0
for t in "${tests[@]}"; do
	[ -z "$queue" ] || mkdir "$queue/${t%.sh}" 2>/dev/null || continue
	n=$((n + 1))
	name=${t%.sh}
	echo "# selftests: rdma: $name"
	rc=0 t0=$SECONDS
	timeout -k 5 "$timeout" "./$t" 2>&1 | sed -u 's/^/# /'
	rc=${PIPESTATUS[0]}
	# What each test costs the suite's time (make check's budget).
	echo "# $name: $((SECONDS - t0)) s"
	case $rc in
	0) pass=$((pass + 1)); echo "ok $n selftests: rdma: $name" ;;
	4) skip=$((skip + 1)); echo "ok $n selftests: rdma: $name # SKIP" ;;
	124) fail=$((fail + 1)); echo "not ok $n selftests: rdma: $name # TIMEOUT ${timeout}s" ;;
	*) fail=$((fail + 1)); echo "not ok $n selftests: rdma: $name # exit=$rc" ;;
	esac
done
[ -z "$queue" ] || echo "1..$n"
echo "# Totals: pass:$pass fail:$fail xfail:0 xpass:0 skip:$skip error:0"
echo "selftests: $pass passed, $fail failed, $skip skipped"
[ $fail = 0 ]
