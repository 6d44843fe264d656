#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The in-tree siw as a distribution ships it, for the UML test kernel: built
# out of tree from the pristine drivers/infiniband/sw/siw of
# $ORCM_SRC_TARBALL (the UML kernel's own siw.ko carries
# tools/uml/patches/0002-rdma-siw-callback-lock-bh.patch), against the UML
# build directory (KDIR, ARCH=um). tools/vm/run.sh --siw pristine loads it
# in place of the patched one, so that the softrnic <-> siw tests also run
# against the siw a user's peer has.
#
#   tools/build-siw-pristine.sh     prints the path of siw.ko (log: <dir>.log)
#
# Cached: rebuilt only when the tarball or the UML kernel changes.
set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/lib.sh"

KDIR=$(orcm_uml_dir)
[ -f "$KDIR/.orcm-build-ok" ] || die "no UML kernel yet: run tools/uml/build.sh"
[ -r "$ORCM_SRC_TARBALL" ] || die "$ORCM_SRC_TARBALL is missing (apt-get install linux-source-6.12)"
key=$({
	stat -c '%s %Y' "$ORCM_SRC_TARBALL"
	sha256sum <"$KDIR/Module.symvers"
	sha256sum <"$0"
} | sha256sum | cut -c1-32)
dest=$ORCM_CACHE/siw-pristine/$key
LOG=$dest.log
if [ -f "$dest/siw.ko" ]; then
	echo "$dest/siw.ko"
	exit 0
fi

log "building the unpatched siw.ko for UML (KDIR=$KDIR) in $dest"
mkdir -p "$ORCM_CACHE/siw-pristine"
tmp=$(mktemp -d "$ORCM_CACHE/siw-pristine/.build.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
tar -C "$tmp" -xJf "$ORCM_SRC_TARBALL" --strip-components=5 \
	linux-source-6.12/drivers/infiniband/sw/siw
# The patch must not be in these sources: they stand for the distribution's.
if patch -d "$tmp" -p5 -R -s -f --dry-run \
	<"$ORCM_REPO/tools/uml/patches/0002-rdma-siw-callback-lock-bh.patch" >/dev/null 2>&1; then
	die "the siw sources of $ORCM_SRC_TARBALL already carry the callback-lock patch"
fi
if ! make -C "$KDIR" ARCH=um M="$tmp" CONFIG_RDMA_SIW=m -j"$ORCM_JOBS" modules >"$LOG" 2>&1; then
	tail -n 40 "$LOG" >&2
	die "the unpatched siw does not build (log: $LOG)"
fi
mkdir -p "$dest"
cp "$tmp/siw.ko" "$dest/siw.ko.tmp"
mv "$dest/siw.ko.tmp" "$dest/siw.ko"
echo "$dest/siw.ko"
