#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build our modules for one target kernel, in a private copy of the tree, so the
# UML build, the Debian-headers build and a developer's in-tree build never mix
# objects.
#
#   tools/build-modules.sh uml      against the UML kernel (tools/uml/build.sh)
#   tools/build-modules.sh debian   against /usr/src/linux-headers-<ORCM_HDR_KREL>,
#                                   as DKMS does (with KBUILD_SYMTYPES=1)
#   tools/build-modules.sh debian-6.1  the same against Debian 12's default
#                                   kernel, linux-headers-<ORCM_HDR_KREL_6_1>
#   tools/build-modules.sh debian-parity, debian-6.1-parity
#                                   the same, plus the parity scenarios
#                                   (tests/parity/cm_parity.ko) for the Debian
#                                   VM (tools/debian-vm/run.sh, parity); DKMS never
#                                   builds them
#
# Prints the build directory on success (it holds rdma_cm/rdma_cm.ko,
# iw_cm/iw_cm.ko, ib_cm/ib_cm.ko, drivers/softrnic/softrnic.ko and
# Module.symvers; for uml also the test modules, tests/*/*.ko); the log is
# <dir>.log. Exits non-zero, with the compiler's errors, when the build fails.
set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/lib.sh"

target=${1:-}
case "$target" in
uml)
	KDIR=$(orcm_uml_dir)
	[ -f "$KDIR/.orcm-build-ok" ] || die "no UML kernel yet: run tools/uml/build.sh"
	# ORCM_TESTS=1: the test modules too (Kbuild), for the test VM only.
	args=(KDIR="$KDIR" ARCH=um ORCM_TESTS=1)
	;;
debian)
	ensure_pkgs "linux-headers-$ORCM_HDR_KREL" build-essential
	KDIR=$ORCM_HDR_DIR
	args=(KDIR="$KDIR" KBUILD_SYMTYPES=1)
	;;
debian-6.1)
	krel=$(orcm_target_krel "$target")
	ensure_pkgs "linux-headers-$krel" build-essential
	KDIR=/usr/src/linux-headers-$krel
	args=(KDIR="$KDIR" KBUILD_SYMTYPES=1)
	;;
debian-parity | debian-6.1-parity)
	krel=$(orcm_target_krel "${target%-parity}")
	ensure_pkgs "linux-headers-$krel" build-essential
	KDIR=/usr/src/linux-headers-$krel
	args=(KDIR="$KDIR" ORCM_TESTS=parity)
	;;
*) die "usage: $0 uml|debian|debian-6.1|debian-parity|debian-6.1-parity" ;;
esac

dest=$(orcm_ours_dir "$target")
LOG=$dest.log
mkdir -p "$(dirname "$dest")"
tarball=$(mktemp "$dest.src.XXXXXX")
trap 'rm -f "$tarball"' EXIT
tree_tar "$tarball"
# Same sources, same kernel, same arguments: the last build stands.
key=$({
	sha256sum <"$tarball"
	echo "${args[*]}"
	sha256sum <"$KDIR/Module.symvers"
} | sha256sum | cut -c1-32)
if [ "$(cat "$dest/.orcm-build-key" 2>/dev/null)" = "$key" ]; then
	log "our modules for $target are up to date: $dest"
	echo "$dest"
	exit 0
fi

log "building our modules for $target (KDIR=$KDIR) in $dest"
rm -rf "$dest"
mkdir -p "$dest"
tar -C "$dest" -xf "$tarball"
if ! make -C "$dest" "${args[@]}" -j"$ORCM_JOBS" modules >"$LOG" 2>&1; then
	grep -E -A3 'error:|Error [0-9]|ERROR:|undefined!' "$LOG" | head -n 60 >&2 ||
		tail -n 40 "$LOG" >&2
	die "our modules do not build for $target (log: $LOG)"
fi
grep -E 'warning:|WARNING:' "$LOG" >&2 || true
echo "$key" >"$dest/.orcm-build-key"
echo "$dest"
