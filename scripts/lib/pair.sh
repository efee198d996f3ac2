# SPDX-License-Identifier: GPL-2.0-only
# Coordination between the two guests of `scripts/vm --pair`, through the
# directory OOT_SHARED that both mount (9p, cache=none: a file one guest
# creates is visible to the other at once).  Sourced, never run.
#
#	pair_signal NAME [TEXT]   create NAME in OOT_SHARED (with TEXT)
#	pair_wait NAME [SEC]      wait until NAME exists (default 60 s)
#	pair_other                the other guest's role: a or b

pair_signal() {
	printf '%s\n' "${2:-}" >"$OOT_SHARED/$1.tmp" &&
		mv "$OOT_SHARED/$1.tmp" "$OOT_SHARED/$1"
}

pair_wait() {
	local end=$(($(date +%s) + ${2:-60}))
	until [ -e "$OOT_SHARED/$1" ]; do
		if [ "$(date +%s)" -ge "$end" ]; then
			echo "pair: no $1 from the other guest after ${2:-60}s" >&2
			return 1
		fi
		sleep 0.2
	done
}

pair_other() {
	if [ "$OOT_PAIR_ROLE" = a ]; then echo b; else echo a; fi
}
