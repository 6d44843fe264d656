#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Three CAs behind two of softib's switch nodes, one subnet under stock
# opensm: switch sw0 (8 ports, /sys/class/softib_switch) with ib0 and ib1
# on its ports 1 and 2, switch sw1 with ib2 on its port 1, and sw0's port 8
# linked to sw1's port 8 (a veth pair each link); opensm on ib0's port.
# opensm discovers both switches with directed-route SMPs that they
# forward (C14-9/C14-13: sw0 relays the SMPs to sw1 and ib2) and answer
# (their SMA), gives them and the CAs LIDs, programs their linear and
# multicast forwarding tables and brings every port ACTIVE. Then:
# - infiniband-diags see two switches and three CAs (ibnetdiscover,
#   ibswitches, smpquery switchinfo/nodeinfo over LID-routed and
#   directed-route SMPs of one, two and three hops, ibroute's LFTs,
#   saquery's records);
# - data between ib1 and ib2, which crosses both switches' LFTs:
#   ibv_rc_pingpong -c (every byte checked), ibv_ud_pingpong, and IPoIB
#   ping between two namespaces (ARP's broadcast rides both MFTs);
# - a link flap (vA2 down, up): sw1's port goes DOWN, SwitchInfo's
#   PortStateChange makes opensm's sweep notice, and ib2 is ACTIVE again
#   with its LID;
# - teardown: a port unbound, a CA's carrier refused, the switches deleted
#   with the CAs still up.
# Our stack only (softib is ours).
# orcm-timeout: 240
# shellcheck source=tests/e2e/lib.bash
. "$(dirname "$0")/lib.bash"
# shellcheck source=tests/e2e/softib-lib.bash
. "$(dirname "$0")/softib-lib.bash"
sib_stock_check
sib_load
sib_fabric 2
echo "+sw1 8" >"$SIB_SWITCH/switches" || fail "cannot create switch sw1"
sib_veth vS8 vT8
echo "8 vS8" >"$SIB_SWITCH/sw0/bind" || fail "bind sw0 port 8"
echo "8 vT8" >"$SIB_SWITCH/sw1/bind" || fail "bind sw1 port 8"
sib_veth vA2 vT1
echo "1 vT1" >"$SIB_SWITCH/sw1/bind" || fail "bind sw1 port 1"
rdma link add ib2 type softib netdev vA2 || fail "rdma link add ib2"
SIB_FABRIC_CAS+=(ib2)
sib_fabric_sm
cat "$SIB_SWITCH/sw0/ports" "$SIB_SWITCH/sw1/ports"

declare -A lid
for d in ib0 ib1 ib2; do lid[$d]=$(sib_lid "$d"); done
swlid=$(cat "$SIB_SWITCH/sw0/lid") sw1lid=$(cat "$SIB_SWITCH/sw1/lid")
say "LIDs: ib0 ${lid[ib0]} ib1 ${lid[ib1]} ib2 ${lid[ib2]} sw0 $swlid sw1 $sw1lid"
[ "$(printf '%s\n' "${lid[@]}" "$swlid" "$sw1lid" | sort -u | grep -vc '^0*$')" -eq 5 ] ||
	fail "not five distinct LIDs"
for d in ib1 ib2; do
	rdma link show "$d/1" | grep -q "sm_lid ${lid[ib0]} " || fail "$d's SM LID is not ib0's"
done

# The topology as the diags see it.
run_to /tmp/ibnd.log 30 ibnetdiscover -C ib0 || fail "ibnetdiscover"
[ "$(grep -c '^Switch.*8 ' /tmp/ibnd.log)" -eq 2 ] || fail "ibnetdiscover: not two 8-port switches"
[ "$(grep -c '^Ca' /tmp/ibnd.log)" -eq 3 ] || fail "ibnetdiscover: not 3 CAs"
guid=$(tr -d ':' <"$SIB_SWITCH/sw0/node_guid") guid1=$(tr -d ':' <"$SIB_SWITCH/sw1/node_guid")
grep -q "^Switch.*\"S-$guid\"" /tmp/ibnd.log || fail "ibnetdiscover: not sw0's GUID $guid"
grep -Eq "^\[8\].*\"S-$guid1\"\[8\]" /tmp/ibnd.log || fail "ibnetdiscover: sw0:8 is not linked to sw1:8"
[ "$(grep -Ec '^\[[12]\].*"H-' /tmp/ibnd.log)" -eq 3 ] || fail "ibnetdiscover: CAs not on sw0:1, sw0:2, sw1:1"
run_to /tmp/ibsw.log 20 ibswitches -C ib1 || fail "ibswitches"
[ "$(grep -c '^Switch' /tmp/ibsw.log)" -eq 2 ] || fail "ibswitches: not two switches"
run_to /tmp/si.log 20 smpquery -C ib1 switchinfo "$swlid" || fail "smpquery switchinfo"
grep -Eq '^LinearFdbCap:\.*49152$' /tmp/si.log || fail "SwitchInfo: LinearFdbCap"
top=$(sed -n 's/^LinearFdbTop:\.*//p' /tmp/si.log)
[ "${top:-0}" -ge "$(printf '%s\n' "${lid[@]}" | sort -n | tail -n 1)" ] ||
	fail "SwitchInfo: LinearFdbTop $top below the CAs' LIDs"
# Directed routes from ib2: out of its port 1 into sw1's port 1; on out of
# sw1's port 8 into sw0's; on out of sw0's port 2 to ib1 (and back).
run_to /tmp/dr-ni.log 20 smpquery -C ib2 -D nodeinfo 0,1 || fail "smpquery -D nodeinfo 0,1"
grep -q "^Guid:.*0x$guid1" /tmp/dr-ni.log || fail "DR NodeInfo 0,1 is not sw1"
grep -Eq '^LocalPort:\.*1$' /tmp/dr-ni.log || fail "DR NodeInfo 0,1: arrival port not 1"
run_to /tmp/dr-ni2.log 20 smpquery -C ib2 -D nodeinfo 0,1,8 || fail "smpquery -D nodeinfo 0,1,8"
grep -q 'NodeType:.*Switch' /tmp/dr-ni2.log || fail "DR NodeInfo 0,1,8: not a switch"
grep -Eq '^LocalPort:\.*8$' /tmp/dr-ni2.log || fail "DR NodeInfo 0,1,8: arrival port not 8"
run_to /tmp/dr-ni3.log 20 smpquery -C ib2 -D nodeinfo 0,1,8,2 || fail "smpquery -D nodeinfo 0,1,8,2"
g1=$(tr -d ':' <"/sys/class/infiniband/ib1/node_guid")
grep -q "^Guid:.*0x$g1" /tmp/dr-ni3.log || fail "DR NodeInfo 0,1,8,2 is not ib1"
# lft_has LOG LID PORT: the LFT dump maps LID to PORT
lft_has() { grep -Eq "^0x0*$(printf '%x' "$2") 0*$3 " "$1"; }
run_to /tmp/ibroute.log 20 ibroute -C ib1 "$swlid" || fail "ibroute sw0"
lft_has /tmp/ibroute.log "${lid[ib0]}" 1 && lft_has /tmp/ibroute.log "${lid[ib1]}" 2 &&
	lft_has /tmp/ibroute.log "${lid[ib2]}" 8 || fail "ibroute: sw0's LFT"
run_to /tmp/ibroute1.log 20 ibroute -C ib1 "$sw1lid" || fail "ibroute sw1"
lft_has /tmp/ibroute1.log "${lid[ib0]}" 8 && lft_has /tmp/ibroute1.log "${lid[ib1]}" 8 &&
	lft_has /tmp/ibroute1.log "${lid[ib2]}" 1 || fail "ibroute: sw1's LFT"
run_to /tmp/saq.log 20 saquery -C ib2 || fail "saquery"
[ "$(grep -c 'NodeRecord dump' /tmp/saq.log)" -eq 5 ] || fail "saquery: not 5 NodeRecords"
run_to /tmp/saq-pr.log 20 saquery -C ib1 -p "${lid[ib1]}" "${lid[ib2]}" || fail "saquery PathRecord"
grep -Eq 'mtu\.+0x85$' /tmp/saq-pr.log || fail "PathRecord ib1 -> ib2: MTU not 4096"
say "ok: ibnetdiscover, ibswitches, smpquery (LID and DR), ibroute, saquery"

# Data across the switch, between the two CAs that are not the SM's.
listening() { ss -ltnH "sport = :$1" | grep -q .; }
# pp PROG PORT ARGS...: PROG server on ib1, client on ib2
pp() {
	local prog=$1 port=$2 rc=0 server
	shift 2
	bg "/tmp/$prog-server.log" "$prog" -d ib1 -i 1 -p "$port" "$@"
	server=$LAST_PID
	wait_for 10 "$prog listening" listening "$port"
	run_to "/tmp/$prog.log" 60 "$prog" -d ib2 -i 1 -p "$port" "$@" 127.0.0.1 || rc=$?
	wait_pid "$server" 20 || fail "$prog server: exit $?"
	[ "$rc" -eq 0 ] || fail "$prog client: exit $rc"
	say "$prog: $(grep 'iters in' "/tmp/$prog.log" | head -n 1)"
}
pp ibv_rc_pingpong 18601 -c -s 8192 -n 200 -m 1024
pp ibv_ud_pingpong 18602 -s 1024 -n 200

modprobe -d "$ORCM_MODROOT" -S "$ORCM_KREL" ib_ipoib || fail "modprobe ib_ipoib"
wait_for 10 "IPoIB netdevs" bash -c "$(declare -f sib_ipoib_of); sib_ipoib_of ib1 && sib_ipoib_of ib2"
i1=$(sib_ipoib_of ib1) i2=$(sib_ipoib_of ib2)
ip netns add "$NS_A"
ip netns add "$NS_B"
trap 'in_a ip link set "$i1" netns 1 2>/dev/null; in_b ip link set "$i2" netns 1 2>/dev/null; sib_sm_stop; sib_cleanup' EXIT
ip link set "$i1" netns "$NS_A"
ip link set "$i2" netns "$NS_B"
in_a ip addr add 198.18.11.1/24 dev "$i1"
in_b ip addr add 198.18.11.2/24 dev "$i2"
in_a ip link set "$i1" up
in_b ip link set "$i2" up
wait_for 20 "$i1 carrier (broadcast group joined)" in_a bash -c "[ \$(cat /sys/class/net/$i1/carrier) = 1 ]"
wait_for 20 "$i2 carrier" in_b bash -c "[ \$(cat /sys/class/net/$i2/carrier) = 1 ]"
run_to /tmp/ping.log 30 "${IN_A[@]}" ping -c 5 -i 0.2 -W 5 198.18.11.2 || fail "IPoIB ping across the switch"
in_a ip neigh show dev "$i1" | grep -q '198.18.11.2 lladdr' || fail "no ARP entry for ib2's address"
run_to /tmp/ibroute-m.log 20 ibroute -C ib1 -M "$swlid" || fail "ibroute -M"
grep -Eq '^0xc0' /tmp/ibroute-m.log || fail "ibroute -M: no multicast entry"
say "ok: RC and UD pingpong, IPoIB ping (ARP over the MFT) across the switch"

# A link flap: vA2 down, up.
ip link set vA2 down
wait_for 10 "sw1's port 1 DOWN" grep -q '^1 vT1 DOWN' "$SIB_SWITCH/sw1/ports"
ip link set vA2 up
t0=$SECONDS
wait_for 30 "ib2 ACTIVE again" bash -c "rdma link show ib2/1 | grep -q 'state ACTIVE'"
[ "$(sib_lid ib2)" = "${lid[ib2]}" ] || fail "ib2's LID moved: $(sib_lid ib2), was ${lid[ib2]}"
grep -q '^1 vT1 ACTIVE' "$SIB_SWITCH/sw1/ports" || fail "sw1's port 1 not ACTIVE"
say "ok: flap: ib2 ACTIVE again $((SECONDS - t0)) s after its link came back, LID ${lid[ib2]}"
for s in sw0 sw1; do cat "$SIB_SWITCH/$s/ports" "$SIB_SWITCH/$s/drops"; done
rx=$(awk '$1 == 8 { print $6 }' "$SIB_SWITCH/sw1/ports")
[ "${rx:-0}" -gt 1000 ] || fail "sw1's port 8 forwarded few packets ($rx)"
[ "$(cat "$SIB_SWITCH"/sw*/drops | awk '$1 == "short" || $1 == "smp_bad" { s += $2 } END { print s + 0 }')" -eq 0 ] ||
	fail "a switch dropped malformed packets"

# Teardown with the CAs up: unbind a port, delete the switches.
echo 2 >"$SIB_SWITCH/sw0/unbind" || fail "unbind sw0 port 2"
grep -q '^2 - DOWN' "$SIB_SWITCH/sw0/ports" || fail "sw0 port 2 still bound"
echo "2 vA0" >"$SIB_SWITCH/sw0/bind" 2>/dev/null && fail "bound a CA's carrier to a switch"
echo "2 vT1" >"$SIB_SWITCH/sw0/bind" 2>/dev/null && fail "bound sw1's port's netdev to sw0"
echo -sw0 >"$SIB_SWITCH/switches" || fail "delete sw0"
echo -sw1 >"$SIB_SWITCH/switches" || fail "delete sw1"
[ ! -e "$SIB_SWITCH/sw0" ] && [ ! -e "$SIB_SWITCH/sw1" ] || fail "a switch is still there"
say "ok: two switches and three CAs under opensm"
