#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build the User-Mode Linux test kernel (ARCH=um) from Debian's linux-source-6.12,
# with tools/uml/config.fragment merged over `make ARCH=um defconfig`.
#
#   tools/uml/build.sh            build (cached; a warm run takes seconds)
#   tools/uml/build.sh --print    print the build directory (KDIR) and exit
#
# Result, under ${XDG_CACHE_HOME:-~/.cache}/openrdma-cm/uml/<srcversion>-<fragment sha>/:
#   linux            the UML kernel binary
#   Module.symvers   its exports (KDIR for `make KDIR=... ARCH=um`)
#   modroot/         `make modules_install INSTALL_MOD_PATH=modroot` (+ depmod)
#   build.log        the build output
# and the symlink .../openrdma-cm/uml/current pointing at it.
set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/../lib.sh"

if [ "${1:-}" = --print ]; then
	orcm_uml_dir
	exit 0
fi

if [ -n "${ORCM_UML_DIR:-}" ]; then
	[ -f "$ORCM_UML_DIR/.orcm-build-ok" ] || die "ORCM_UML_DIR=$ORCM_UML_DIR is not a finished UML build"
	echo "$ORCM_UML_DIR"
	exit 0
fi

ensure_pkgs "${ORCM_PKGS[@]}"
[ -r "$ORCM_SRC_TARBALL" ] || die "$ORCM_SRC_TARBALL missing (package $ORCM_SRC_PKG)"

mkdir -p "$ORCM_CACHE/src" "$ORCM_CACHE/uml"
# One kernel build at a time, whoever starts it.
exec 9>"$ORCM_CACHE/uml/.lock"
if ! flock -n 9; then
	log "another UML build is running; waiting for it"
	flock 9
fi

# 1. The kernel source, extracted once per package version.
SRC=$ORCM_CACHE/src/linux-source-6.12
srcver=$(orcm_src_version)
if [ "$(cat "$SRC/.orcm-src-version" 2>/dev/null)" != "$srcver" ]; then
	log "extracting $ORCM_SRC_TARBALL ($srcver) into $SRC"
	tmp=$(mktemp -d "$ORCM_CACHE/src/.extract.XXXXXX")
	tar -C "$tmp" -xJf "$ORCM_SRC_TARBALL"
	rm -rf "$SRC"
	mv "$tmp/linux-source-6.12" "$SRC"
	rmdir "$tmp"
	echo "$srcver" >"$SRC/.orcm-src-version"
fi

# 1b. Patches of the test VM's kernel (tools/uml/patches/*.patch, -p1): bugs of
#     UML drivers that the tests trip over, nothing we ship. Applied once to
#     the extracted source; an applied patch is recognised and left alone.
for p in "$ORCM_REPO"/tools/uml/patches/*.patch; do
	[ -f "$p" ] || continue
	if patch -d "$SRC" -p1 -R -s -f --dry-run <"$p" >/dev/null 2>&1; then
		continue
	fi
	log "patching the kernel source: $(basename "$p")"
	patch -d "$SRC" -p1 -N -s <"$p" >&2 || die "$(basename "$p") does not apply to $SRC"
done

O=$(orcm_uml_dir)
if [ -f "$O/.orcm-build-ok" ] && [ -x "$O/linux" ]; then
	ln -sfn "$(basename "$O")" "$ORCM_CACHE/uml/current"
	log "UML kernel up to date: $O"
	echo "$O"
	exit 0
fi

mkdir -p "$O"
rm -f "$O/.orcm-build-ok"
LOG=$O/build.log
: >"$LOG"
mk() { make -C "$SRC" O="$O" ARCH=um "$@" >>"$LOG" 2>&1; }
fail() {
	tail -n 60 "$LOG" >&2 || true
	die "$* (full log: $LOG)"
}

# 2. Configuration: defconfig + fragment, then check that every line of the
#    fragment survived (Kconfig silently drops what it cannot satisfy).
start=$(date +%s)
log "configuring $O"
mk defconfig || fail "make defconfig failed"
"$SRC/scripts/kconfig/merge_config.sh" -m -O "$O" "$O/.config" "$ORCM_FRAGMENT" >>"$LOG" 2>&1 ||
	fail "merge_config.sh failed"
mk olddefconfig || fail "make olddefconfig failed"

bad=0
while IFS= read -r line; do
	case "$line" in
	CONFIG_*=*)
		if ! grep -qxF -- "$line" "$O/.config"; then
			got=$(grep -E "^(# )?${line%%=*}[= ]" "$O/.config" || echo "(absent)")
			log "config check FAILED: want '$line', got '$got'"
			bad=1
		fi
		;;
	"# CONFIG_"*" is not set")
		opt=${line#\# }
		opt=${opt%% *}
		if grep -q "^$opt=" "$O/.config"; then
			log "config check FAILED: want '$line', got '$(grep "^$opt=" "$O/.config")'"
			bad=1
		fi
		;;
	esac
done <"$ORCM_FRAGMENT"
[ "$bad" -eq 0 ] || die "the final .config does not have every option of $ORCM_FRAGMENT"
log "config check: every option of the fragment is set"

# 3. Build the kernel and its modules, install the modules into modroot.
log "building linux + modules with -j$ORCM_JOBS (cold: ~10-20 min; log: $LOG)"
mk -j"$ORCM_JOBS" all || fail "kernel build failed"
rm -rf "$O/modroot"
mk INSTALL_MOD_PATH="$O/modroot" modules_install || fail "modules_install failed"
[ -f "$O/Module.symvers" ] || fail "no Module.symvers"
krel=$(orcm_uml_krel "$O")
for m in ib_core ib_uverbs rdma_cm iw_cm ib_cm rdma_ucm siw rdma_rxe veth \
	nvme-rdma nvmet-rdma ib_iser ib_isert rpcrdma loop nf_tables rdmavt ib_umad \
	ib_ipoib; do
	modinfo -k "$krel" -b "$O/modroot" -n "$m" >/dev/null 2>&1 || fail "module $m was not built"
done

date -u +%FT%TZ >"$O/.orcm-build-ok"
ln -sfn "$(basename "$O")" "$ORCM_CACHE/uml/current"
log "UML kernel $krel built in $(($(date +%s) - start)) s: $O"
echo "$O"
