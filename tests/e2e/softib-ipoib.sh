#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Stock IPoIB (ib_ipoib, datagram mode) over a softib subnet that stock
# opensm manages: each CA's IPoIB netdev comes up and joins the broadcast
# group through the SA; ib1's goes to a namespace of its own, so that the
# ping crosses the IB link; ARP over IPoIB resolves the peer's 20-byte
# hardware address (QPN + port GID), which `ip neigh` shows; ping works.
# Our stack only (softib is ours).
# orcm-timeout: 180
# shellcheck source=tests/e2e/lib.bash
. "$(dirname "$0")/lib.bash"
# shellcheck source=tests/e2e/softib-lib.bash
. "$(dirname "$0")/softib-lib.bash"
sib_stock_check
sib_load
sib_subnet_up

[ -d /sys/module/ib_ipoib ] ||
	modprobe -d "$ORCM_MODROOT" -S "$ORCM_KREL" ib_ipoib || fail "modprobe ib_ipoib"
# ipoib_of DEV: the IPoIB netdev whose hardware address ends with DEV's
# port GUID (an IPoIB address: 4 octets of flags and QPN, then the GID).
ipoib_of() {
	local g n a
	g=$(tr -d ':' <"/sys/class/infiniband/$1/node_guid")
	for n in /sys/class/net/*; do
		[ "$(cat "$n/type" 2>/dev/null)" = 32 ] || continue
		a=$(cat "$n/address")
		a=${a//:/}
		[ "${a: -16}" = "$g" ] && { echo "${n##*/}"; return 0; }
	done
	return 1
}
wait_for 10 "IPoIB netdevs of ib0 and ib1" bash -c "$(declare -f ipoib_of); ipoib_of ib0 && ipoib_of ib1"
I0=$(ipoib_of ib0) I1=$(ipoib_of ib1)
say "IPoIB: ib0 -> $I0, ib1 -> $I1"
ip netns add "$NS_B"
# Back to the initial namespace before the namespace goes (a parent IPoIB
# netdev belongs to its CA, not to the namespace).
trap 'in_b ip link set "$I1" netns 1 2>/dev/null; sib_sm_stop; sib_cleanup' EXIT
ip link set "$I1" netns "$NS_B" || fail "cannot move $I1 to $NS_B"
ip addr add 198.18.9.1/24 dev "$I0"
ip link set "$I0" up
in_b ip addr add 198.18.9.2/24 dev "$I1"
in_b ip link set "$I1" up
wait_for 20 "$I0 carrier (broadcast group joined)" bash -c "[ \$(cat /sys/class/net/$I0/carrier) = 1 ]"
wait_for 20 "$I1 carrier" in_b bash -c "[ \$(cat /sys/class/net/$I1/carrier) = 1 ]"
run_to /tmp/ipoib-ping.log "$STEP" ping -c 3 -W 2 -I "$I0" 198.18.9.2 || {
	ip neigh show dev "$I0"
	fail "ping over IPoIB failed"
}
ip neigh show dev "$I0" | tee /tmp/ipoib-neigh.log
g1=$(cat /sys/class/infiniband/ib1/node_guid)
# The neighbour's address: flags/QPN, fe80::, then ib1's port GUID.
grep -q "lladdr [0-9a-f:]*${g1:0:2}:${g1:2:2}:${g1:5:2}:${g1:7:2}:${g1:10:2}:${g1:12:2}:${g1:15:2}:${g1:17:2}" \
	/tmp/ipoib-neigh.log || fail "the ARP entry of 198.18.9.2 is not ib1's IPoIB address"
say "ok: ping over IPoIB (datagram mode), ARP resolved ib1's 20-byte address"
