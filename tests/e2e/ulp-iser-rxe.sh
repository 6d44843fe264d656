#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# orcm-timeout: 300
# iSER over RoCE: the body of ulp-iser.sh (LIO target with ib_isert, open-iscsi
# initiator with ib_iser, ext4 on the LUN, files verified after a remount and a
# new login) on one rdma_rxe device (rxeI on ulpT, which holds both the
# target's and the initiator's address; rxe in 6.12 lives in the initial
# namespace only). An rxe listener is no TCP socket, so the portal and its
# iSER listener share the address and port in the initial namespace.
# shellcheck source=tests/e2e/ulp-iser.bash
. "$(dirname "$0")/ulp-iser.bash"

T_DEV=rxeI H_DEV=rxeI ISER_OVER=rxe
# shellcheck source=tests/e2e/ulp-rxe.bash
. "$(dirname "$0")/ulp-rxe.bash"
iser_portal_make() {
	mkdir "$TPG/np/$PORTAL" || fail "making the portal $PORTAL"
}
iser_main
