#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Native InfiniBand across the two VMs: each VM puts a softib CA (ib0) on
# vec0, so that the two ports form one IB link between the two kernels.
# VM a runs stock opensm on its port; it brings both ports ACTIVE (VM b's
# through directed-route SMPs over the link) and answers both VMs' SA
# queries. Both VMs run stock IPoIB, 198.18.7.1 and .2 on its netdevs.
# Then, each VM once server and once client: rping (3 verified pings) and
# ucmatose (4 connections x 10 messages) over the IPoIB addresses. A
# connect resolves the peer by ARP over IPoIB, asks the SA in VM a for the
# path, and the two CMs (stock in one VM, ours in the other) talk IB CM
# MADs between the two ports: REQ, REP, RTU, DREQ, DREP. Then RDS over
# RDMA (tests/interop/rds.bash): both VMs send to each other at once over
# the IPoIB addresses, rds_rdma's connection an rdma_cm one over IB. Last of the
# interop scripts (zz-): it leaves vec0 up without addresses, as found.
# shellcheck source=tests/interop/lib.bash
. "$(dirname "$0")/lib.bash"
# shellcheck source=tests/e2e/softib-lib.bash
. "$(dirname "$0")/../e2e/softib-lib.bash"
# shellcheck source=tests/interop/rds.bash
. "$(dirname "$0")/rds.bash"

if [ "$ROLE" = a ]; then LADDR=198.18.7.1 PADDR=198.18.7.2; else LADDR=198.18.7.2 PADDR=198.18.7.1; fi
# pair_case refreshes the peer's neighbour entry: over IPoIB here (IPv4).
neigh_fresh() { wait_for 30 "ping $PADDR over IPoIB" ping -c 1 -W 1 "$PADDR"; }
ib0_active() { [ "$(sib_state ib0)" = ACTIVE ]; }
ipoib_carrier() { [ "$(cat "/sys/class/net/$IPOIB/carrier")" = 1 ]; }

ip link show vec0 >/dev/null || fail "no vec0: the VM was not started by tools/vm/interop.sh"
ip link set vec0 up
sib_load
[ -d /sys/module/ib_umad ] ||
	modprobe -d "$ORCM_MODROOT" -S "$ORCM_KREL" ib_umad || fail "modprobe ib_umad"
rdma link add ib0 type softib netdev vec0 || fail "rdma link add ib0 type softib netdev vec0"
barrier sib-dev
if [ "$ROLE" = a ]; then
	command -v opensm >/dev/null || fail "no opensm (Debian package opensm)"
	# shellcheck disable=SC2119 # no opensm arguments
	sib_sm_start
	trap 'rds_unload_quiet; sib_sm_stop; sib_cleanup' EXIT
else
	trap 'rds_unload_quiet; sib_cleanup' EXIT
fi
wait_for 60 "ib0 ACTIVE (the SM in VM a)" ib0_active
say "ib0 on vec0: $(rdma link show ib0/1 | grep -o 'lid [0-9]* sm_lid [0-9]*')"

[ -d /sys/module/ib_ipoib ] ||
	modprobe -d "$ORCM_MODROOT" -S "$ORCM_KREL" ib_ipoib || fail "modprobe ib_ipoib"
wait_for 10 "ib0's IPoIB netdev" sib_ipoib_of ib0
IPOIB=$(sib_ipoib_of ib0)
ip addr add "$LADDR/24" dev "$IPOIB"
ip link set "$IPOIB" up
wait_for 30 "$IPOIB carrier (broadcast group joined through the SA)" ipoib_carrier
barrier ipoib
neigh_fresh
say "IPoIB: $IPOIB $LADDR, peer $(ip neigh show "$PADDR" dev "$IPOIB")"

for s in a b; do
	if [ "$s" = a ]; then srv=198.18.7.1; else srv=198.18.7.2; fi
	pair_case "ib-rping-$s" "$s" 7350 rping_ok \
		rping -s -v -V -a "$srv" -p 7350 -C 3 -- rping -c -v -V -a "$srv" -p 7350 -C 3
	pair_case "ib-ucmatose-$s" "$s" 7351 cmatose_ok \
		ucmatose -b "$srv" -p 7351 -c 4 -C 10 -- ucmatose -s "$srv" -p 7351 -c 4 -C 10
done
rds_load
rds_case rds-ib "$LADDR" "$PADDR"
rds_unload
barrier end
