#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# orcm-timeout: 240
# RNBD over RoCE: the body of tests/e2e/ulp-rnbd.bash (rnbd_server exports a
# loop device, rnbd_client maps it over RTRS, three sets of random data
# verified on the device and in the backing file, unmap, no CM id left) on
# one rdma_rxe device holding both addresses (rxe in 6.12 lives in the
# initial namespace only), as ulp-iser-rxe.sh. Both stacks: the in-tree CM
# is the oracle that this works.
# shellcheck source=tests/e2e/ulp-rnbd.bash
. "$(dirname "$0")/ulp-rnbd.bash"

T_DEV=rxeN H_DEV=rxeN RNBD_OVER=rxe
ulp_topology() {
	ip link add "$T_IF" index 201 type veth peer name "$H_IF" index 202
	ip addr add "$T_ADDR/24" dev "$T_IF"
	ip addr add "$H_ADDR/24" dev "$T_IF"
	ip link set "$T_IF" up
	ip link set "$H_IF" up
	rdma link add "$T_DEV" type rxe netdev "$T_IF"
	wait_for 10 "$T_DEV ACTIVE" dev_active "$T_DEV"
	say "topology (init_net): $T_IF $T_ADDR $H_ADDR $T_DEV (loopback)"
}
ulp_devs_active() { dev_active "$T_DEV"; }
ulp_topology_down() {
	if rdma link show "$T_DEV/1" >/dev/null 2>&1; then
		ulp_link_delete "$T_DEV"
	fi
	ip link del "$T_IF" 2>/dev/null || true
}
rnbd_main
