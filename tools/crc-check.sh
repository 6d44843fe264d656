#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# ABI check against a distro kernel the project targets, as DKMS would build:
# build our modules against /usr/src/linux-headers-KREL (MODVERSIONS=y) and
# compare our Module.symvers with Debian's.
#
#   tools/crc-check.sh [debian]     Debian's 6.12, KREL=$ORCM_HDR_KREL
#   tools/crc-check.sh debian-6.1   Debian 12's default 6.1, $ORCM_HDR_KREL_6_1
#
# Tests, one line each, then "N passed, N failed":
#   crc:<module>      every symbol we export that the in-tree module exports has
#                     the same CRC and namespace (else stock rdma_ucm, rpcrdma,
#                     ib_iser... refuse to load against ours)
#   exports:<module>  every symbol the in-tree module exports, we export too
#                     (the list comes from Debian's Module.symvers and, when
#                     ../shared/reference/abi-<series>.md is there, from it as well)
# for rdma_cm and iw_cm, and for ib_cm once ib_cm/ holds sources; and, with
# Debian's modules of that kernel (linux-image-KREL, installed here),
#   consumer:<module> every stock module that imports from them (rdma_ucm,
#                     rpcrdma, ib_iser, nvme-rdma, ...) finds each symbol it
#                     imports exported by us with the CRC it was built against
# On a mismatch, compare the *.symtypes of our build (KBUILD_SYMTYPES=1) with
# those of the in-tree file built the same way.
set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/lib.sh"

target=${1:-debian}
KREL=$(orcm_target_krel "$target")
HDR_DIR=/usr/src/linux-headers-$KREL
series=$(sed -n 's/^\([0-9]*\.[0-9]*\).*/\1/p' <<<"$KREL")
DEB_SYMVERS=${ORCM_DEB_SYMVERS:-$HDR_DIR/Module.symvers}
ABI_MD=${ORCM_ABI_MD:-$ORCM_REPO/../shared/reference/abi-$series.md}
# The stock importers of that kernel (below) come with its image.
ensure_pkgs "linux-headers-$KREL" "$(orcm_image_pkg "$KREL")"
echo "---- kernel $KREL"

mods=(rdma_cm iw_cm)
if compgen -G "$ORCM_REPO/ib_cm/*.c" >/dev/null; then mods+=(ib_cm); fi

orcm_tally

if ! out=$("$ORCM_REPO/tools/build-modules.sh" "$target"); then
	for m in "${mods[@]}"; do
		fail "crc:$m" "our modules do not build against $HDR_DIR"
		fail "exports:$m" "our modules do not build against $HDR_DIR"
	done
	summary
	exit 1
fi
OUR_SYMVERS=$out/Module.symvers
[ -f "$DEB_SYMVERS" ] || die "$DEB_SYMVERS missing"

# expected MOD: the in-tree exports of MOD ("crc symbol namespace" lines).
expected() {
	awk -F'\t' -v m="drivers/infiniband/core/$1" '$3 == m { print $1, $2, $4, $5 }' "$DEB_SYMVERS" | sort -k2,2
}
# ours MOD: our exports from MOD's .ko, whatever path Kbuild recorded for it.
ours() {
	awk -F'\t' -v m="$1" '{ n = split($3, p, "/") } p[n] == m { print $1, $2, $4, $5 }' "$OUR_SYMVERS" | sort -k2,2
}
# listed MOD: the exports abi-<series>.md lists for MOD.ko (empty without the file).
listed() {
	[ -r "$ABI_MD" ] || return 0
	awk -v h="## $1.ko exports" '
		index($0, h) == 1 { on = 1; next }
		on && /^## / { exit }
		on && NF { for (i = 1; i <= NF; i++) print $i }' "$ABI_MD" | sort -u
}

[ -r "$ABI_MD" ] || log "note: $ABI_MD not found; export lists come from $DEB_SYMVERS only"
for m in "${mods[@]}"; do
	exp=$(expected "$m")
	got=$(ours "$m")
	echo "---- $m: in-tree exports $(grep -c . <<<"$exp" || true), ours $(grep -c . <<<"$got" || true)"

	# CRCs, export types (EXPORT_SYMBOL or _GPL: a GPL-only export breaks
	# a non-GPL consumer) and namespaces of the symbols both export.
	bad=$(join -1 2 -2 2 -a 1 -o '0 1.1 2.1 1.3 2.3 1.4 2.4' -e '-' \
		<(sort -k2,2 <<<"$got") <(sort -k2,2 <<<"$exp") |
		awk '$3 != "-" && ($2 != $3 || $4 != $5 || $6 != $7) { printf "    %s: ours %s %s%s, in-tree %s %s%s\n", $1, $2, $4, ($6 == "-" ? "" : " ns " $6), $3, $5, ($7 == "-" ? "" : " ns " $7) }')
	if [ -z "$got" ]; then
		fail "crc:$m" "we export nothing from $m.ko"
	elif [ -n "$bad" ]; then
		fail "crc:$m" "$(grep -c . <<<"$bad") CRC/export type/namespace mismatch(es):"
		echo "$bad"
	else
		pass "crc:$m"
	fi
	extra=$(comm -23 <(awk '{ print $2 }' <<<"$got" | sort -u) <(awk '{ print $2 }' <<<"$exp" | sort -u) | tr '\n' ' ')
	[ -z "${extra// /}" ] || echo "    (ours only, not in the in-tree ABI: $extra)"

	# Every in-tree export is ours too.
	want=$(sort -u <(awk '{ print $2 }' <<<"$exp") <(listed "$m"))
	absent=$(comm -23 <(echo "$want") <(awk '{ print $2 }' <<<"$got" | sort -u) | grep . | tr '\n' ' ' || true)
	if [ -z "$want" ]; then
		fail "exports:$m" "no expected export list for $m"
	elif [ -n "$absent" ]; then
		fail "exports:$m" "missing $(wc -w <<<"$absent") of $(grep -c . <<<"$want"): $absent"
	else
		pass "exports:$m"
	fi
done

# The stock consumers themselves, Debian's modules for that kernel (package
# linux-image-KREL): every symbol that rdma_ucm, rpcrdma, ib_iser,
# nvme-rdma... import from the modules we replace must be exported by us with
# the CRC they were built against.
MODDIR=/lib/modules/$KREL
if [ -r "$MODDIR/modules.dep" ]; then
	replaced=$(printf '%s\n' "${mods[@]}")
	theirs=$(for m in "${mods[@]}"; do expected "$m"; done | awk '{ print $2 }' | sort -u)
	ourcrc=$(for m in "${mods[@]}"; do ours "$m"; done | awk '{ print $2, $1 }' | sort -u)
	awk -F: -v re="/($(paste -sd'|' <<<"$replaced"))[.]ko" '$2 ~ re { print $1 }' "$MODDIR/modules.dep" >"$out/consumers"
	while read -r rel; do
		name=$(basename "$rel")
		name=${name%%.ko*}
		case "$rel" in kernel/drivers/infiniband/core/*) grep -qxF "$name" <<<"$replaced" && continue ;; esac
		imports=$(modprobe --dump-modversions "$MODDIR/$rel" | awk '{ print $2, $1 }' | sort -u)
		bad=$(join <(echo "$imports") <(echo "$theirs") |
			join -a 1 -e MISSING -o '0 1.2 2.2' - <(echo "$ourcrc") |
			awk '$2 != $3 { printf "    %s: imports %s, ours %s\n", $1, $2, $3 }')
		n=$(join <(echo "$imports") <(echo "$theirs") | grep -c . || true)
		if [ -n "$bad" ]; then
			fail "consumer:$name" "$(grep -c . <<<"$bad") of its $n imports from ${mods[*]} do not match ours:"
			echo "$bad"
		else
			pass "consumer:$name"
		fi
	done <"$out/consumers"
else
	# Not a pass: say so, so that a run without them is visibly weaker.
	fail "consumer:*" "$MODDIR/modules.dep absent (linux-image-$KREL did not install?)"
fi
summary
