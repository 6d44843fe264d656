# SPDX-License-Identifier: GPL-2.0
# Two rdma_rxe devices on a veth pair, for the RoCE end-to-end tests. Sourced
# after lib.bash.
#
# rdma_rxe in 6.12 has no network namespace support (its UDP socket and its
# devices live in the initial namespace), so both ends stay in the initial
# namespace. Two local addresses would normally talk through the loopback
# device; policy routing sends them over the veth instead:
#
#   vRA 198.18.4.1/24 rxeA  <== veth ==>  vRB 198.18.4.2/24 rxeB
#
# - the rule for the local table moves from priority 0 to 1000;
# - packets that arrive on vRA or vRB are delivered locally (priority 100);
# - packets to the peer's address leave through the own end (priority 200,
#   tables 41 and 42), with that end's address as source;
# - accept_local lets an end accept packets whose source is a local address,
#   rp_filter is off on both ends;
# - IPv4 multicast (224/4) may leave through either end (rxe names the
#   interface; the VM has no default route). IPv6 has ff00::/8 per link.
# IPv6: fd00:198:18:4::1/64 and ::2 the same way (nodad).
# shellcheck shell=bash disable=SC2034
RXE_A=rxeA RXE_B=rxeB
RADDR_A=198.18.4.1 RADDR_B=198.18.4.2
RADDR6_A=fd00:198:18:4::1 RADDR6_B=fd00:198:18:4::2

rxe_active() {
	rdma link show "$RXE_A/1" | grep -q 'state ACTIVE' &&
		rdma link show "$RXE_B/1" | grep -q 'state ACTIVE'
}

rxe_cleanup() {
	local f
	rdma link delete "$RXE_A" 2>/dev/null || true
	rdma link delete "$RXE_B" 2>/dev/null || true
	ip link delete vRA 2>/dev/null || true
	for f in -4 -6; do
		ip $f rule del pref 100 iif vRA lookup local 2>/dev/null || true
		ip $f rule del pref 100 iif vRB lookup local 2>/dev/null || true
		ip $f rule del pref 200 lookup 41 2>/dev/null || true
		ip $f rule del pref 200 lookup 42 2>/dev/null || true
		ip $f rule show pref 0 | grep -q lookup ||
			ip $f rule add pref 0 lookup local 2>/dev/null || true
		ip $f rule del pref 1000 lookup local 2>/dev/null || true
		ip $f route flush table 41 2>/dev/null || true
		ip $f route flush table 42 2>/dev/null || true
	done
}

setup_rxe_pair() {
	local f d
	trap 'cleanup; rxe_cleanup' EXIT
	ip link add vRA type veth peer name vRB
	for d in all vRA vRB; do
		sysctl -qw "net.ipv4.conf.$d.accept_local=1" "net.ipv4.conf.$d.rp_filter=0"
	done
	ip addr add "$RADDR_A/24" dev vRA
	ip addr add "$RADDR_B/24" dev vRB
	ip addr add "$RADDR6_A/64" dev vRA nodad
	ip addr add "$RADDR6_B/64" dev vRB nodad
	ip link set vRA up
	ip link set vRB up
	for f in -4 -6; do
		ip $f rule add pref 1000 lookup local
		ip $f rule del pref 0 lookup local
		ip $f rule add pref 100 iif vRA lookup local
		ip $f rule add pref 100 iif vRB lookup local
	done
	ip -4 rule add pref 200 to "$RADDR_B" lookup 41
	ip -4 rule add pref 200 to "$RADDR_A" lookup 42
	ip -4 route add "$RADDR_B" dev vRA src "$RADDR_A" table 41
	ip -4 route add "$RADDR_A" dev vRB src "$RADDR_B" table 42
	ip -4 route add 224.0.0.0/4 dev vRA
	ip -4 route append 224.0.0.0/4 dev vRB
	ip -6 rule add pref 200 to "$RADDR6_B" lookup 41
	ip -6 rule add pref 200 to "$RADDR6_A" lookup 42
	ip -6 route add "$RADDR6_B" dev vRA src "$RADDR6_A" table 41
	ip -6 route add "$RADDR6_A" dev vRB src "$RADDR6_B" table 42
	rdma link add "$RXE_A" type rxe netdev vRA
	rdma link add "$RXE_B" type rxe netdev vRB
	wait_for 10 "$RXE_A and $RXE_B ACTIVE" rxe_active
	wait_for 10 "ping $RADDR_B from $RADDR_A" ping -c 1 -W 1 -I "$RADDR_A" "$RADDR_B"
	# The echo must have crossed the veth, not the loopback device.
	ip -4 route get "$RADDR_B" from "$RADDR_A" | grep -q 'dev vRA' ||
		fail "$RADDR_B is not routed through vRA: $(ip -4 route get "$RADDR_B" from "$RADDR_A")"
	say "topology: vRA $RADDR_A $RXE_A <-> vRB $RADDR_B $RXE_B (initial namespace)"
	rdma link show
}

# rxe_routes_back_a: vRA's routes to B after vRA was down (IPv4 drops a
# netdev's routes with it): table 41's and the multicast one.
rxe_routes_back_a() {
	ip -4 route replace "$RADDR_B" dev vRA src "$RADDR_A" table 41
	ip -4 route append 224.0.0.0/4 dev vRA 2>/dev/null || true
}

# rx_packets DEV: packets received on DEV.
rx_packets() { cat "/sys/class/net/$1/statistics/rx_packets"; }
