# SPDX-License-Identifier: GPL-2.0-only
# Shared helpers for the scripts in scripts/.  Sourced, never run.

log() { printf '%s: %s\n' "${0##*/}" "$*" >&2; }
die() { log "error: $*"; exit 1; }

# The cache holds what is downloaded or built once per machine (the guest
# kernel, initramfs).  It survives fresh clones of the repository.
oot_cache() {
	local d=${OOT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/oot-rdma}
	mkdir -p "$d" && echo "$d"
}

# The target kernel release: $KVER if set, else the newest installed
# Debian amd64 headers (the host's own kernel is not the target).
oot_kver() {
	if [ -n "${KVER:-}" ]; then echo "$KVER"; return; fi
	ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | sed 's|.*/linux-headers-||' |
		sort -V | tail -n 1
}

# Modules that build (and are checked) but are not installed or loaded
# by default: a driver still short of its issue's acceptance, which must
# not take the place of the distribution's on a user's machine.
# OOT_PREVIEW=1 (scripts/vm --preview, make install OOT_PREVIEW=1) takes
# them too.  None now: our mlx5_ib (issue 35) and our irdma (issue 36)
# were, each until it met its issue's acceptance.
OOT_PREVIEW_MODULES=""

# OOT_WITHOUT: modules of ours to leave out all the same (scripts/vm
# --without, make install OOT_WITHOUT=), so that the distribution's of
# the same name is found: our core with Debian's mlx5_ib or irdma, to
# compare the two drivers on one core, or a host that keeps Debian's
# irdma for iWARP (dkms.conf).

# The modules the last build made, as absolute .ko paths, in build order,
# the preview ones only with OOT_PREVIEW=1, none of OOT_WITHOUT.
# modules.order names them relative (older kbuild, .o) or absolute (.ko).
oot_built_modules() {
	local repo=$1 m
	[ -f "$repo/modules.order" ] || return 1
	while read -r m; do
		m=${m%.o}
		m=${m%.ko}
		if [ "${OOT_PREVIEW:-0}" != 1 ]; then
			case " $OOT_PREVIEW_MODULES " in
			*" ${m##*/} "*) continue ;;
			esac
		fi
		case " ${OOT_WITHOUT:-} " in
		*" ${m##*/} "*) continue ;;
		esac
		case "$m" in
		/*) echo "$m.ko" ;;
		*) echo "$repo/$m.ko" ;;
		esac
	done <"$repo/modules.order"
}
