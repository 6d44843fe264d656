# SPDX-License-Identifier: GPL-2.0
# The topology of a ULP test over native InfiniBand (ulp-nvme-softib.sh,
# ulp-iser-softib.sh): softib's ib0 and ib1 on a veth pair under stock
# opensm, stock IPoIB on ib0 holding both the target's and the host's
# address (the initial namespace: the kernel ULPs live there). A connect
# to a local address resolves by ARP over IPoIB to ib0's own 20-byte
# address, the route is an SA PathRecord from ib0's GID to itself (DLID =
# ib0's LID), and the CM's MADs and the queues' RC traffic go through
# softib's loopback (a packet to the port's own LID, as an HCA does).
# Sourced after the ULP's own file (ulp-lib.bash's functions are here).
# shellcheck shell=bash disable=SC2034
# shellcheck source=tests/e2e/softib-lib.bash
. "$(dirname "${BASH_SOURCE[0]}")/softib-lib.bash"

T_DEV=ib0 H_DEV=ib0
ulp_topology() {
	local ipoib
	sib_load
	sib_subnet_up
	trap ulp_exit EXIT
	[ -d /sys/module/ib_ipoib ] ||
		modprobe -d "$ORCM_MODROOT" -S "$ORCM_KREL" ib_ipoib || fail "modprobe ib_ipoib"
	wait_for 10 "ib0's IPoIB netdev" sib_ipoib_of ib0
	ipoib=$(sib_ipoib_of ib0)
	ip addr add "$T_ADDR/24" dev "$ipoib"
	ip addr add "$H_ADDR/24" dev "$ipoib"
	ip link set "$ipoib" up
	wait_for 20 "$ipoib carrier (broadcast group joined)" \
		bash -c "[ \$(cat /sys/class/net/$ipoib/carrier) = 1 ]"
	say "topology (init_net): ib0 lid $(sib_lid ib0) -> $ipoib $T_ADDR $H_ADDR (softib loopback)"
}
ulp_devs_active() { dev_active ib0; }
ulp_topology_down() {
	local d
	sib_sm_stop
	for d in ib0 ib1; do
		if rdma link show "$d/1" >/dev/null 2>&1; then
			ulp_link_delete "$d"
		fi
	done
	ip link del vA 2>/dev/null || true
}
# sib_ulp_counters: softib's drop counters of ib0, for the log.
sib_ulp_counters() {
	say "softib ib0 counters: $(tr '\n' ' ' <"$SIB_DEBUGFS/ib0/drops" 2>/dev/null)"
}
