#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# A bond failover under connected ids on RoCE: in-tree rdma_cm delivers
# RDMA_CM_EVENT_ADDR_CHANGE (status 0) to every id bound to the bond whose
# source MAC is no longer the bond's (cma_netdev_callback). Both stacks.
#
#   bondT (active-backup, fail_over_mac active) over vBa1 and vBa2 (veths,
#   peers vBb1/vBb2 up), 198.18.10.1/24, rxeT on bondT
#
# A cmprobe server listens on the bond's address and a cmprobe client
# connects to it (one rxe device, as ULP setups run); once ESTABLISHED the
# active slave moves to vBa2, which gives the bond vBa2's MAC. Then: the
# client's id ends its hold with ADDR_CHANGE, the server's listener and its
# connection get ADDR_CHANGE; a failover back to vBa1 (the ids' own MAC)
# delivers nothing more. Second part: a bond with fail_over_mac none keeps
# its MAC over a failover: no event within the client's hold.
# shellcheck source=tests/e2e/lib.bash
. "$(dirname "$0")/lib.bash"
# shellcheck source=tests/e2e/cmprobe.bash
. "$(dirname "$0")/cmprobe.bash"
MP=(modprobe -d "$ORCM_MODROOT" -S "$ORCM_KREL")
BADDR=198.18.10.1 PORT=7610

bond_cleanup() {
	rdma link delete rxeT 2>/dev/null || true
	ip link delete bondT 2>/dev/null || true
	ip link delete vBa1 2>/dev/null || true
	ip link delete vBa2 2>/dev/null || true
}
trap 'cleanup; bond_cleanup' EXIT
timeout -k 2 "$STEP" "${MP[@]}" bonding || fail "modprobe bonding"

rxet_active() { rdma link show rxeT/1 | grep -q 'state ACTIVE'; }

# setup_bond FAIL_OVER_MAC: the topology above.
setup_bond() {
	local s
	bond_cleanup
	ip link add bondT type bond mode active-backup fail_over_mac "$1"
	for s in 1 2; do
		ip link add "vBa$s" type veth peer name "vBb$s"
		ip link set "vBb$s" up
		ip link set "vBa$s" master bondT
	done
	ip link set bondT type bond active_slave vBa1
	ip addr add "$BADDR/24" dev bondT
	ip link set bondT up
	rdma link add rxeT type rxe netdev bondT
	wait_for 10 "rxeT ACTIVE" rxet_active
	say "bondT fail_over_mac $1: $(ip -br link show bondT)"
}

# failover SLAVE: make SLAVE the bond's active slave.
failover() {
	ip link set bondT type bond active_slave "$1"
	say "active slave $1: bond MAC $(cat /sys/class/net/bondT/address)"
}

established() { grep -q '^event ESTABLISHED ' "/tmp/$1.log"; }

setup_bond active
mac1=$(cat /sys/class/net/bondT/address)
cmprobe_server bond-server -b "$BADDR" -p $PORT -n 0 -T 6
server=$SERVER
bg /tmp/bond-client.log "$CMPROBE" -c -a "$BADDR" -p $PORT -H 5000 -T 8
client=$LAST_PID
wait_for 10 "the client ESTABLISHED" established bond-client
failover vBa2
[ "$(cat /sys/class/net/bondT/address)" != "$mac1" ] ||
	fail "fail_over_mac active kept the MAC: no test"
rc=0
wait_pid "$client" "$STEP" || rc=$?
show /tmp/bond-client.log
has_line bond-client "result ADDR_CHANGE status 0"
[ "$rc" -eq 1 ] || fail "client exit status $rc, want 1 (an event ended its hold)"
# The server's listener and its connection, both bound to the bond.
two_changes() { [ "$(grep -c '^event ADDR_CHANGE status 0 pdata 0$' /tmp/bond-server.log)" -ge 2 ]; }
wait_for 5 "the server's two ADDR_CHANGE" two_changes
# Back to the ids' own MAC: nothing more (in-tree compares with it).
failover vBa1
sleep 0.5
rc=0
wait_pid "$server" "$STEP" || rc=$?
show /tmp/bond-server.log
# -n 0: it serves until its deadline (-T), then exits 0; a failed call is 1.
[ "$rc" -eq 0 ] || fail "server exit status $rc, want 0 (served until its deadline)"
n=$(grep -c '^event ADDR_CHANGE ' /tmp/bond-server.log || true)
[ "$n" -eq 2 ] || fail "server: $n ADDR_CHANGE events, want 2 (listener, connection)"
wait_for 10 "no CM id left" cm_ids_empty
say "ok: bond failover with a new MAC: ADDR_CHANGE to the client, the listener and the connection"

# fail_over_mac none: the bond keeps its MAC; no ADDR_CHANGE. (The client's
# disconnect after such a failover is not answered in this loopback setup,
# on either stack, so the client's hold, not its disconnect, is what is
# checked.) The client: its hold of 1.5 s ends with no event (an event would
# end it with "result EVENT", exit 1), then its disconnect waits for
# DISCONNECTED until its deadline: exit 3 after "result deadline", its
# events ADDR_RESOLVED, ROUTE_RESOLVED, ESTABLISHED and nothing else (or
# exit 0 with DISCONNECTED, should the disconnect be answered). The server:
# exit 0 at its deadline, the connection ESTABLISHED (and DISCONNECTED if
# the client's was), no other event, no failed call.
setup_bond none
cmprobe_server bond-none-server -b "$BADDR" -p $PORT -n 0 -T 4
server=$SERVER
bg /tmp/bond-none-client.log "$CMPROBE" -c -a "$BADDR" -p $PORT -H 1500 -T 3
client=$LAST_PID
wait_for 10 "the client ESTABLISHED" established bond-none-client
failover vBa2
crc=0 src=0
wait_pid "$client" "$STEP" || crc=$?
wait_pid "$server" "$STEP" || src=$?
show /tmp/bond-none-client.log
show /tmp/bond-none-server.log
! grep -q 'ADDR_CHANGE' /tmp/bond-none-client.log /tmp/bond-none-server.log ||
	fail "ADDR_CHANGE although the bond kept its MAC"
# events LOG: the CM events a cmprobe printed, one line.
events() { awk '$1 == "event" { printf "%s%s", sep, $2; sep = " " }' "$1"; }
ev=$(events /tmp/bond-none-client.log)
case $crc in
3)
	want_ev="ADDR_RESOLVED ROUTE_RESOLVED ESTABLISHED" want_res="result deadline"
	want_sev="CONNECT_REQUEST ESTABLISHED"
	;;
0)
	want_ev="ADDR_RESOLVED ROUTE_RESOLVED ESTABLISHED DISCONNECTED" want_res="result ESTABLISHED status 0"
	want_sev="CONNECT_REQUEST ESTABLISHED DISCONNECTED"
	# Ours: a DREQ refused at once (the slave's new MAC doomed the
	# bond's GID entries for a moment, ib_cm/gid_doom.c) ends the
	# client's disconnect with DISCONNECTED -ETIMEDOUT, as a DREQ lost on
	# the wire (docs/ib_cm.md); the server then hears nothing.
	if grep -q '^event DISCONNECTED status -110 ' /tmp/bond-none-client.log; then
		[ "${ORCM_STACK:-}" = ours ] || fail "stock: the client's DREQ timed out"
		want_sev="CONNECT_REQUEST ESTABLISHED"
	fi
	;;
*) fail "client exit status $crc, want 3 (its hold ended without an event, its disconnect unanswered) or 0" ;;
esac
[ "$ev" = "$want_ev" ] || fail "client (exit status $crc): events '$ev', want '$want_ev'"
[ "$(grep '^result ' /tmp/bond-none-client.log | tail -n 1)" = "$want_res" ] ||
	fail "client (exit status $crc): no final line '$want_res'"
[ "$src" -eq 0 ] || fail "server exit status $src, want 0 (served until its deadline)"
ev=$(events /tmp/bond-none-server.log)
[ "$ev" = "$want_sev" ] || fail "server: events '$ev', want '$want_sev'"
! grep -q '^error ' /tmp/bond-none-server.log || fail "server: a call failed"
say "ok: bond failover keeping the MAC: no event (client exit status $crc, server 0)"
