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
ulp_topology() {
	ip link add "$T_IF" index 201 type veth peer name "$H_IF" index 202
	ip addr add "$T_ADDR/24" dev "$T_IF"
	ip addr add "$H_ADDR/24" dev "$T_IF"
	ip link set "$T_IF" up
	ip link set "$H_IF" up
	rdma link add "$T_DEV" type rxe netdev "$T_IF"
	wait_for 10 "$T_DEV ACTIVE" dev_active "$T_DEV"
	say "topology (init_net): $T_IF $T_ADDR $H_ADDR $T_DEV (loopback)"
	rdma link show "$T_DEV/1"
}
ulp_devs_active() { dev_active "$T_DEV"; }
ulp_topology_down() {
	if rdma link show "$T_DEV/1" >/dev/null 2>&1; then
		ulp_link_delete "$T_DEV"
	fi
	ip link del "$T_IF" 2>/dev/null || true
}
iser_portal_make() {
	mkdir "$TPG/np/$PORTAL" || fail "making the portal $PORTAL"
}
iser_main
