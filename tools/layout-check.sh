#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The private layout that stock ib_core reads, against the target kernel
# itself: nldev and restrack in Debian's ib_core.ko do container_of(res,
# struct rdma_id_private, res) on our ids (DESIGN.md), so our struct must
# lay out its members from id through ece as that ib_core was compiled.
#
#   tools/layout-check.sh [debian]     Debian's 6.12 ($ORCM_HDR_KREL)
#   tools/layout-check.sh debian-6.1   Debian 12's 6.1 ($ORCM_HDR_KREL_6_1)
#
# Theirs: the BTF of the target's ib_core.ko (Debian builds modules with
# CONFIG_DEBUG_INFO_BTF_MODULES), read by pahole over the base BTF of the
# target's vmlinux (unpacked from /boot/vmlinuz-KREL of its linux-image
# package, installed here). Ours: the DWARF of our rdma_cm.ko built against
# the target's headers (tools/build-modules.sh).
#
# Tests, one line each, then "N passed, N failed":
#   layout:rdma_id_private  every member of the target's struct has the same
#                           offset (and bit offset) and size in ours, in order
#   layout:rdma_cm_state    the enum's names and values are the target's
set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/lib.sh"

target=${1:-debian}
KREL=$(orcm_target_krel "$target")
ensure_pkgs pahole xz-utils zstd "linux-headers-$KREL" "$(orcm_image_pkg "$KREL")"

orcm_tally
echo "---- kernel $KREL"

W=$ORCM_CACHE/layout/$KREL
mkdir -p "$W"
# The target's vmlinux, unpacked from its bzImage: the first xz or zstd
# stream in it is the compressed kernel (whichever the config chose).
VMLINUZ=/boot/vmlinuz-$KREL
stamp=$(stat -c '%s %Y' "$VMLINUZ")
if [ "$(cat "$W/.vmlinux-key" 2>/dev/null)" != "$stamp" ]; then
	rm -f "$W/vmlinux"
	for magic in '\xfd7zXZ\x00:xz' '\x28\xb5\x2f\xfd:zstd'; do
		off=$(LC_ALL=C grep -obUaP "${magic%:*}" "$VMLINUZ" | head -n 1 | cut -d: -f1 || true)
		[ -n "$off" ] || continue
		tail -c +$((off + 1)) "$VMLINUZ" | "${magic#*:}" -dcq >"$W/vmlinux.tmp" 2>/dev/null || true
		if [[ "$(readelf -S "$W/vmlinux.tmp" 2>/dev/null)" == *" .BTF "* ]]; then
			mv "$W/vmlinux.tmp" "$W/vmlinux"
			break
		fi
	done
	rm -f "$W/vmlinux.tmp"
	[ -f "$W/vmlinux" ] || die "no vmlinux with BTF found in $VMLINUZ"
	echo "$stamp" >"$W/.vmlinux-key"
fi
ko=$(find "/lib/modules/$KREL/kernel/drivers/infiniband/core" -name 'ib_core.ko*' | head -n 1)
[ -n "$ko" ] || die "no ib_core.ko in /lib/modules/$KREL"
case "$ko" in
*.xz) xz -dc "$ko" >"$W/ib_core.ko" ;;
*.zst) zstd -dcq "$ko" >"$W/ib_core.ko" ;;
*) cp "$ko" "$W/ib_core.ko" ;;
esac
theirs() { pahole -F btf --btf_base "$W/vmlinux" -C "$1" "$W/ib_core.ko"; }

if ! out=$("$ORCM_REPO/tools/build-modules.sh" "$target"); then
	fail layout:rdma_id_private "our modules do not build for $KREL"
	fail layout:rdma_cm_state "our modules do not build for $KREL"
	summary
	exit 1
fi
ours() { pahole -F dwarf -C "$1" "$out/rdma_cm/rdma_cm.ko"; }

# members: the top-level members of a pahole struct listing, one a line:
# "name offset[:bit] size" (an anonymous union is "(union)").
members() {
	awk '
		/^\t[^\t]/ && /\/\*.*\*\/$/ && !/^\t\/\*/ {
			c = $0; sub(/.*\/\*[ \t]*/, "", c); sub(/[ \t]*\*\/$/, "", c)
			gsub(/: +/, ":", c)
			d = $0; sub(/[ \t]*\/\*.*$/, "", d); sub(/;$/, "", d)
			n = split(d, w, /[ \t*]+/); name = w[n]
			if (d ~ /^\t}$/) name = "(union)"
			sub(/:[0-9]+$/, "", name); sub(/\[.*$/, "", name)
			print name, c
		}'
}

if ! t=$(theirs rdma_id_private) || [ -z "$t" ]; then
	fail layout:rdma_id_private "no struct rdma_id_private in the BTF of $ko"
else
	o=$(ours rdma_id_private || true)
	tm=$(members <<<"$t")
	om=$(members <<<"$o" | head -n "$(grep -c . <<<"$tm")")
	bad=$(paste -d'|' <(echo "$tm") <(echo "$om") | awk -F'|' '{
		split($1, a, " "); split($2, b, " ")
		if (a[2] != b[2] || a[3] != b[3])
			printf "    %s at %s size %s in %s; ours: %s at %s size %s\n", a[1], a[2], a[3], K, b[1], b[2], b[3]
	}' K="$KREL")
	if [ -n "$bad" ]; then
		fail layout:rdma_id_private "$(grep -c . <<<"$bad") member(s) of $(grep -c . <<<"$tm") differ:"
		echo "$bad"
	else
		pass "layout:rdma_id_private ($(grep -c . <<<"$tm") members, $(tail -n 1 <<<"$tm" | cut -d' ' -f1) ends at $(tail -n 1 <<<"$tm" | awk '{ print $2 + $3 }'))"
	fi
fi

if ! t=$(theirs rdma_cm_state) || [ -z "$t" ]; then
	fail layout:rdma_cm_state "no enum rdma_cm_state in the BTF of $ko"
elif d=$(diff <(echo "$t") <(ours rdma_cm_state 2>&1)); then
	pass layout:rdma_cm_state
else
	fail layout:rdma_cm_state "ours differs from $KREL's (< theirs, > ours):"
	while IFS= read -r l; do echo "    $l"; done <<<"$d"
fi
summary
