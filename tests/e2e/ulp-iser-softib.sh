#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# orcm-timeout: 360
# iSER over native InfiniBand: the body of ulp-iser.sh (LIO target with
# ib_isert, open-iscsi initiator with ib_iser, ext4 on the LUN, files
# verified after a remount and a new login) over softib under stock opensm,
# the portal and both ends on ib0's stock IPoIB netdev
# (tests/e2e/ulp-softib.bash: ARP over IPoIB, an SA PathRecord to ib0's own
# LID, softib's loopback). ib_isert's listener is an rdma_cm id, no TCP
# socket, so the portal and its iSER listener share the address and port,
# as over rxe. Both stacks: the in-tree CM is the oracle that this works.
# shellcheck source=tests/e2e/ulp-iser.bash
. "$(dirname "$0")/ulp-iser.bash"
# shellcheck source=tests/e2e/ulp-softib.bash
. "$(dirname "$0")/ulp-softib.bash"

ISER_OVER=softib
iser_portal_make() {
	mkdir "$TPG/np/$PORTAL" || fail "making the portal $PORTAL"
}
iser_main
