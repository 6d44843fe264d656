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

sib_ipoib_up
I0=$SIB_I0
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
