#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The in-tree siw as a distribution ships it, built out of tree from the
# pristine drivers/infiniband/sw/siw of a Debian kernel source package:
#
#   tools/build-siw-pristine.sh        for the UML test kernel: from
#       $ORCM_SRC_TARBALL against the UML build directory (KDIR, ARCH=um).
#       The UML kernel's own siw.ko carries
#       tools/uml/patches/0002-rdma-siw-callback-lock-bh.patch; tools/vm/run.sh
#       --siw pristine loads this one in place of it, so that the softrnic <->
#       siw tests also run against the siw a user's peer has.
#   tools/build-siw-pristine.sh KREL   for Debian's kernel KREL, which builds
#       no siw (`# CONFIG_RDMA_SIW is not set` on 6.1 and 6.12): from that
#       series' linux-source package against its linux-headers, for the
#       parity scenarios of the Debian VM (tools/debian-vm/run.sh: softrnic
#       needs our iw_cm, so the iWARP scenarios need siw on both stacks).
#       A test module: never installed, never DKMS.
#
# Prints the path of siw.ko (log: <dir>.log). Cached: rebuilt only when the
# tarball, the target kernel or this script changes.
set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/lib.sh"

K=${1:-}
if [ -z "$K" ]; then
	KDIR=$(orcm_uml_dir)
	[ -f "$KDIR/.orcm-build-ok" ] || die "no UML kernel yet: run tools/uml/build.sh"
	TARBALL=$ORCM_SRC_TARBALL series=6.12 what=UML mk=(ARCH=um) sub=''
else
	series=$(sed -E 's/^([0-9]+\.[0-9]+).*/\1/' <<<"$K")
	TARBALL=/usr/src/linux-source-$series.tar.xz
	KDIR=/usr/src/linux-headers-$K
	ensure_pkgs "linux-source-$series" "linux-headers-$K" build-essential
	what=$K mk=() sub=$K/
fi
[ -r "$TARBALL" ] || die "$TARBALL is missing (apt-get install linux-source-$series)"
key=$({
	stat -c '%s %Y' "$TARBALL"
	sha256sum <"$KDIR/Module.symvers"
	sha256sum <"$0"
} | sha256sum | cut -c1-32)
dest=$ORCM_CACHE/siw-pristine/$sub$key
LOG=$dest.log
if [ -f "$dest/siw.ko" ]; then
	echo "$dest/siw.ko"
	exit 0
fi

log "building the unpatched siw.ko for $what (KDIR=$KDIR) in $dest"
mkdir -p "$ORCM_CACHE/siw-pristine/$sub"
tmp=$(mktemp -d "$ORCM_CACHE/siw-pristine/$sub.build.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
tar -C "$tmp" -xJf "$TARBALL" --strip-components=5 \
	"linux-source-$series/drivers/infiniband/sw/siw"
# The patch must not be in these sources: they stand for the distribution's.
if patch -d "$tmp" -p5 -R -s -f --dry-run \
	<"$ORCM_REPO/tools/uml/patches/0002-rdma-siw-callback-lock-bh.patch" >/dev/null 2>&1; then
	die "the siw sources of $TARBALL already carry the callback-lock patch"
fi
if ! make -C "$KDIR" "${mk[@]}" M="$tmp" CONFIG_RDMA_SIW=m -j"$ORCM_JOBS" modules >"$LOG" 2>&1; then
	tail -n 40 "$LOG" >&2
	die "the unpatched siw does not build for $what (log: $LOG)"
fi
mkdir -p "$dest"
cp "$tmp/siw.ko" "$dest/siw.ko.tmp"
mv "$dest/siw.ko.tmp" "$dest/siw.ko"
echo "$dest/siw.ko"
