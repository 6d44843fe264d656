# SPDX-License-Identifier: GPL-2.0
# The topology of a ULP test over RoCE (ulp-nvme-rxe.sh, ulp-iser-rxe.sh,
# ulp-rnbd-rxe.sh): one rdma_rxe device on ulpT holding both the target's
# and the host's address (rxe in 6.12 lives in the initial namespace only),
# so a connection is rxe's loopback. Sourced after the ULP's own file;
# T_DEV/H_DEV name the device (each test its own).
# shellcheck shell=bash disable=SC2034
# RoCE connections are ib_cm's: ulp_check_stack checks that one too.
ULP_CMS=${ULP_CMS:-rdma_cm iw_cm ib_cm}
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
