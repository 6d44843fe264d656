#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# In the Debian VM (tools/debian-vm/guest.sh; never on a host): a softib
# subnet under stock opensm on Debian's own rdmavt, ib_umad and ib_ipoib
# (two CAs on a veth pair, the second CA's IPoIB netdev in a namespace of
# its own), then ping over IPoIB (ARP over IPoIB) and rping between the
# IPoIB addresses: address resolution to an IB GID, the SA's PathRecord,
# RC through our ib_cm, verified data; no CM id left.
# shellcheck source=tests/e2e/lib.bash
. "$ORCM_REPO/tests/e2e/lib.bash"
# shellcheck source=tests/e2e/softib-lib.bash
. "$ORCM_REPO/tests/e2e/softib-lib.bash"
sib_load
sib_subnet_up
sib_ipoib_up
wait_for 20 "ping $SIB_IP1 over IPoIB" ping -c 1 -W 1 -I "$SIB_I0" "$SIB_IP1"
rping_pair dvm-sib-rping "$NS_B" "$SIB_IP1" - "$SIB_IP1" 7321
wait_for 10 "no CM id left after rping" cm_ids_empty
say "ok: a softib subnet under opensm, ping and rping over IPoIB addresses"
