#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# An InfiniBand subnet of two softib switch nodes and thirteen CAs under
# stock opensm: switch sw0 (16 ports, /sys/class/softib_switch) with ib0,
# ib1 and ib3..ib7 on its ports 1, 2 and 3..7, switch sw1 with ib2 and
# ib8..ib12 on its ports 1 and 2..6, sw0's port 16 linked to sw1's port 16
# (a veth pair each link); opensm on ib0's port. opensm discovers both
# switches with directed-route SMPs that they relay (C14-9/C14-13: sw0
# passes the SMPs on to sw1 and its CAs) and answer (their SMA), gives them
# and the CAs LIDs, programs their linear and multicast forwarding tables
# and brings every port ACTIVE. Then, on our stack (softib is our driver):
# - infiniband-diags see two switches and thirteen CAs (ibnetdiscover,
#   ibswitches, smpquery switchinfo/nodeinfo over LID-routed and
#   directed-route SMPs of one, two and three hops, ibroute's LFTs,
#   saquery's records);
# - bad input from a raw socket on ib3's carrier (short frames, bad LVer,
#   a DLID without a route, DR SMPs with hop pointer 0, hop count 64, a
#   next port past the switch, a return to an SM on the switch, a bad ICRC,
#   a short MAD): each dropped and counted in sw0's drops by its reason;
# - data between ib1 and ib2, which crosses both switches' LFTs:
#   ibv_rc_pingpong -c (every byte checked), ibv_ud_pingpong, and IPoIB
#   ping between two namespaces (ARP's broadcast rides both MFTs).
# On both stacks (the CM's part, the in-tree CM the oracle):
# - SA load to ten destinations, ten CAs (ib3..ib12, each an IPoIB address
#   198.19.K.1 of its own): udaddy in netns B (ib1's IPoIB, 198.19.K.2)
#   resolves routes to each, 20 per destination (10 on the stock stack);
#   the PathRecord queries that reach the SA (opensm on ib0) are counted
#   on ib0's carrier: ours asks once per destination (its path cache), the
#   in-tree CM once per resolution.
# Then, ours again: a link flap (vA2 down, up: sw1's port goes DOWN,
# SwitchInfo's PortStateChange makes opensm's sweep notice, and ib2 is
# ACTIVE again with its LID) and teardown (a port unbound under a live CA,
# a CA's carrier and another switch's netdev refused, the switches deleted
# with their ports bound).
# orcm-timeout: 300
# shellcheck source=tests/e2e/lib.bash
. "$(dirname "$0")/lib.bash"
# shellcheck source=tests/e2e/softib-lib.bash
. "$(dirname "$0")/softib-lib.bash"
sib_load
ours() { [ "$ORCM_STACK" = ours ]; }
NCA=13
sib_fabric 2 16
echo "+sw1 16" >"$SIB_SWITCH/switches" || fail "cannot create switch sw1"
sib_veth vS16 vT16
echo "16 vS16" >"$SIB_SWITCH/sw0/bind" || fail "bind sw0 port 16"
echo "16 vT16" >"$SIB_SWITCH/sw1/bind" || fail "bind sw1 port 16"
sib_attach 2 sw1 1 vT1
for k in 3 4 5 6 7; do sib_attach "$k" sw0 "$k" "vS$k"; done
for k in 8 9 10 11 12; do sib_attach "$k" sw1 $((k - 6)) "vT$((k - 6))"; done
say "fabric built at t=$SECONDS s"
t0=$SECONDS
sib_fabric_sm
say "opensm: $NCA CAs and 2 switches ACTIVE in $((SECONDS - t0)) s"
cat "$SIB_SWITCH/sw0/ports" "$SIB_SWITCH/sw1/ports"
swlid=$(cat "$SIB_SWITCH/sw0/lid") sw1lid=$(cat "$SIB_SWITCH/sw1/lid")
declare -A lid
for d in "${SIB_FABRIC_CAS[@]}"; do lid[$d]=$(sib_lid "$d"); done
say "LIDs: sw0 $swlid sw1 $sw1lid, CAs ${lid[*]}"
[ "$(printf '%s\n' "${lid[@]}" "$swlid" "$sw1lid" | sort -u | grep -vc '^0*$')" -eq $((NCA + 2)) ] ||
	fail "not $((NCA + 2)) distinct LIDs"

sib_diags() {
	for d in ib1 ib2; do
		rdma link show "$d/1" | grep -q "sm_lid ${lid[ib0]} " || fail "$d's SM LID is not ib0's"
	done

	# The topology as the diags see it.
	run_to /tmp/ibnd.log 30 ibnetdiscover -C ib0 || fail "ibnetdiscover"
	[ "$(grep -c '^Switch.*16 ' /tmp/ibnd.log)" -eq 2 ] || fail "ibnetdiscover: not two 16-port switches"
	[ "$(grep -c '^Ca' /tmp/ibnd.log)" -eq $NCA ] || fail "ibnetdiscover: not $NCA CAs"
	guid=$(tr -d ':' <"$SIB_SWITCH/sw0/node_guid") guid1=$(tr -d ':' <"$SIB_SWITCH/sw1/node_guid")
	grep -q "^Switch.*\"S-$guid\"" /tmp/ibnd.log || fail "ibnetdiscover: not sw0's GUID $guid"
	grep -Eq "^\[16\].*\"S-$guid1\"\[16\]" /tmp/ibnd.log || fail "ibnetdiscover: sw0:16 is not linked to sw1:16"
	[ "$(grep -Ec '^\[[0-9]+\].*"H-' /tmp/ibnd.log)" -eq $NCA ] || fail "ibnetdiscover: not $NCA CAs on switch ports"
	run_to /tmp/ibsw.log 20 ibswitches -C ib1 || fail "ibswitches"
	[ "$(grep -c '^Switch' /tmp/ibsw.log)" -eq 2 ] || fail "ibswitches: not two switches"
	run_to /tmp/si.log 20 smpquery -C ib1 switchinfo "$swlid" || fail "smpquery switchinfo"
	grep -Eq '^LinearFdbCap:\.*49152$' /tmp/si.log || fail "SwitchInfo: LinearFdbCap"
	top=$(sed -n 's/^LinearFdbTop:\.*//p' /tmp/si.log)
	[ "${top:-0}" -ge "$(printf '%s\n' "${lid[@]}" | sort -n | tail -n 1)" ] ||
		fail "SwitchInfo: LinearFdbTop $top below the CAs' LIDs"
	# Directed routes from ib2: out of its port 1 into sw1's port 1; on out of
	# sw1's port 16 into sw0's; on out of sw0's port 2 to ib1 (and back).
	run_to /tmp/dr-ni.log 20 smpquery -C ib2 -D nodeinfo 0,1 || fail "smpquery -D nodeinfo 0,1"
	grep -q "^Guid:.*0x$guid1" /tmp/dr-ni.log || fail "DR NodeInfo 0,1 is not sw1"
	grep -Eq '^LocalPort:\.*1$' /tmp/dr-ni.log || fail "DR NodeInfo 0,1: arrival port not 1"
	run_to /tmp/dr-ni2.log 20 smpquery -C ib2 -D nodeinfo 0,1,16 || fail "smpquery -D nodeinfo 0,1,16"
	grep -q "^Guid:.*0x$guid" /tmp/dr-ni2.log || fail "DR NodeInfo 0,1,16 is not sw0"
	grep -Eq '^LocalPort:\.*16$' /tmp/dr-ni2.log || fail "DR NodeInfo 0,1,16: arrival port not 16"
	run_to /tmp/dr-ni3.log 20 smpquery -C ib2 -D nodeinfo 0,1,16,2 || fail "smpquery -D nodeinfo 0,1,16,2"
	g1=$(tr -d ':' <"/sys/class/infiniband/ib1/node_guid")
	grep -q "^Guid:.*0x$g1" /tmp/dr-ni3.log || fail "DR NodeInfo 0,1,16,2 is not ib1"
	# lft_has LOG LID PORT: the LFT dump maps LID to PORT
	lft_has() { grep -Eq "^0x0*$(printf '%x' "$2") 0*$3 " "$1"; }
	run_to /tmp/ibroute.log 20 ibroute -C ib1 "$swlid" || fail "ibroute sw0"
	lft_has /tmp/ibroute.log "${lid[ib0]}" 1 && lft_has /tmp/ibroute.log "${lid[ib1]}" 2 &&
		lft_has /tmp/ibroute.log "${lid[ib2]}" 16 || fail "ibroute: sw0's LFT"
	run_to /tmp/ibroute1.log 20 ibroute -C ib1 "$sw1lid" || fail "ibroute sw1"
	lft_has /tmp/ibroute1.log "${lid[ib0]}" 16 && lft_has /tmp/ibroute1.log "${lid[ib1]}" 16 &&
		lft_has /tmp/ibroute1.log "${lid[ib2]}" 1 || fail "ibroute: sw1's LFT"
	run_to /tmp/saq.log 20 saquery -C ib2 || fail "saquery"
	[ "$(grep -c 'NodeRecord dump' /tmp/saq.log)" -eq $((NCA + 2)) ] || fail "saquery: not $((NCA + 2)) NodeRecords"
	run_to /tmp/saq-pr.log 20 saquery -C ib1 -p "${lid[ib1]}" "${lid[ib2]}" || fail "saquery PathRecord"
	grep -Eq 'mtu\.+0x85$' /tmp/saq-pr.log || fail "PathRecord ib1 -> ib2: MTU not 4096"
	say "ok: ibnetdiscover, ibswitches, smpquery (LID and DR), ibroute, saquery"
}

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
# Bad input from the wire: raw frames out of ib3's carrier reach sw0's port
# 3, each dropped and counted by its reason; the switch forwards on.
swdrop() { awk -v r="$1" '$1 == r { print $2 }' "$SIB_SWITCH/sw0/drops"; }
bad_input() {
	local -A d0
	local r n=20
	for r in short smp smp_bad no_route; do d0[$r]=$(swdrop "$r"); done
	python3 "$(dirname "$0")/softib-rawsend.py" vA3 "$n" short lver dlid \
		sw-hop0 sw-hopcnt sw-port sw-ret sw-icrc sw-len || fail "raw sender failed"
	wait_for 10 "sw0 counts the bad SMPs" bash -c \
		"[ \$(awk '\$1 == \"smp_bad\" { print \$2 }' $SIB_SWITCH/sw0/drops) -ge $((d0[smp_bad] + 2 * n)) ]"
	sleep 0.5
	cat "$SIB_SWITCH/sw0/drops"
	[ "$(swdrop short)" -eq $((d0[short] + 2 * n)) ] || fail "sw0: short/lver frames not counted as short"
	[ "$(swdrop smp_bad)" -eq $((d0[smp_bad] + 2 * n)) ] || fail "sw0: bad-ICRC/length SMPs not counted"
	[ "$(swdrop smp)" -ge $((d0[smp] + 4 * n)) ] || fail "sw0: discarded DR SMPs not counted"
	[ "$(swdrop no_route)" -ge $((d0[no_route] + n)) ] || fail "sw0: a DLID without a route not counted"
	say "ok: bad input: $((9 * n)) frames, each dropped and counted by sw0"
	SW_BAD=$(sw_bad)
}
# sw_bad: the malformed frames both switches dropped
sw_bad() { cat "$SIB_SWITCH"/sw*/drops | awk '$1 == "short" || $1 == "smp_bad" { s += $2 } END { print s + 0 }'; }

if ours; then
	t0=$SECONDS
	sib_diags
	bad_input
	say "diags: $((SECONDS - t0)) s"
	pp ibv_rc_pingpong 18601 -c -s 8192 -n 200 -m 1024
	pp ibv_ud_pingpong 18602 -s 1024 -n 200
fi

# IPoIB: ib1's netdev in netns B (198.18.11.2, and 198.19.K.2 for the ten
# destinations), ib2's in netns A (198.18.11.1), ib3..ib12's here
# (198.19.K.1, K = 1..10). Only the netdev that holds an address answers
# ARP for it (arp_ignore 1 here, put back at exit).
modprobe -d "$ORCM_MODROOT" -S "$ORCM_KREL" ib_ipoib || fail "modprobe ib_ipoib"
ipoibs() { sib_ipoib_map; [ "${#SIB_IPOIB[@]}" -ge $NCA ]; }
wait_for 20 "IPoIB netdevs" ipoibs
sib_ipoib_map
i1=${SIB_IPOIB[ib1]} i2=${SIB_IPOIB[ib2]}
t0=$SECONDS
arp_ignore=$(sysctl -n net.ipv4.conf.all.arp_ignore)
ip netns add "$NS_A"
ip netns add "$NS_B"
# fabric_down: the CAs' links down first, then the CAs deleted (ib0, the
# SM's port, last): a port that goes away ACTIVE leaves its multicast groups
# through the SA, and each deletion waits for those leaves, about 14 s
# apiece when the SM is slow to answer or gone (sib_links_down).
fabric_down() {
	local k t=$SECONDS
	sib_links_down
	for ((k = ${#SIB_FABRIC_CAS[@]} - 1; k >= 0; k--)); do
		[ ! -e "/sys/class/infiniband/${SIB_FABRIC_CAS[k]}" ] ||
			rdma link delete "${SIB_FABRIC_CAS[k]}" 2>/dev/null || true
	done
	say "the $NCA CAs deleted in $((SECONDS - t)) s"
}
# ipoib_home: ib1's and ib2's IPoIB netdevs back here (if they still are)
ipoib_home() {
	if in_b test -e "/sys/class/net/$i1"; then in_b ip link set "$i1" netns 1 || true; fi
	if in_a test -e "/sys/class/net/$i2"; then in_a ip link set "$i2" netns 1 || true; fi
}
trap 'ipoib_home; sysctl -qw net.ipv4.conf.all.arp_ignore=$arp_ignore; fabric_down; sib_sm_stop; sib_cleanup' EXIT
sysctl -qw net.ipv4.conf.all.arp_ignore=1
ip link set "$i1" netns "$NS_B"
ip link set "$i2" netns "$NS_A"
in_b ip addr add 198.18.11.2/24 dev "$i1"
in_a ip addr add 198.18.11.1/24 dev "$i2"
for ((k = 1; k <= 10; k++)); do
	n=${SIB_IPOIB[ib$((k + 2))]}
	ip addr add "198.19.$k.1/24" dev "$n"
	ip link set "$n" up
	in_b ip addr add "198.19.$k.2/24" dev "$i1"
done
in_b ip link set "$i1" up
in_a ip link set "$i2" up
carriers() {
	local k c
	for ((k = 3; k <= 12; k++)); do
		read -r c <"/sys/class/net/${SIB_IPOIB[ib$k]}/carrier" && [ "$c" = 1 ] || return 1
	done
	in_b bash -c "[ \$(cat /sys/class/net/$i1/carrier) = 1 ]"
}
wait_for 30 "the IPoIB netdevs' carriers (broadcast group joined)" carriers
say "IPoIB: 12 netdevs up, addressed, joined ($((SECONDS - t0)) s)"
if ours; then
	wait_for 20 "$i2 carrier" in_a bash -c "[ \$(cat /sys/class/net/$i2/carrier) = 1 ]"
	run_to /tmp/ping.log 30 "${IN_B[@]}" ping -c 5 -i 0.2 -W 5 198.18.11.1 || fail "IPoIB ping across the switches"
	in_b ip neigh show dev "$i1" | grep -q '198.18.11.1 lladdr' || fail "no ARP entry for ib2's address"
	run_to /tmp/ibroute-m.log 20 ibroute -C ib1 -M "$swlid" || fail "ibroute -M"
	grep -Eq '^0xc0' /tmp/ibroute-m.log || fail "ibroute -M: no multicast entry"
	say "ok: RC and UD pingpong, IPoIB ping (ARP over the MFTs) across the switches"
fi

# SA load to ten destinations. ib1's IPoIB resolves its own paths to the
# ten (a ping each, all at once) before the count starts.
PC=/sys/kernel/debug/rdma_cm/path_cache
pc() { awk -v k="$1" '$1 == k { print $2 }' "$PC"; }
pids=()
for ((k = 1; k <= 10; k++)); do
	in_b ping -c 1 -W 5 "198.19.$k.1" >/dev/null 2>&1 &
	pids+=($!)
done
wait "${pids[@]}" || true
for ((k = 1; k <= 10; k++)); do
	wait_for 20 "ping 198.19.$k.1 (ib$((k + 2))) from netns B" in_b ping -c 1 -W 1 "198.19.$k.1"
done
SA10_N=20
ours || SA10_N=10
! ours || m0=$(pc misses)
mc_start sib-sa10 vA0
t0=$SECONDS
for ((k = 1; k <= 10; k++)); do
	transfer_pair "sib-sa10-$k" 7174 udaddy -b "198.19.$k.1" -c "$SA10_N" -C 1 -- \
		"${IN_B[@]}" udaddy -s "198.19.$k.1" -b "198.19.$k.2" -c "$SA10_N" -C 1
done
mc_stop sib-sa10
say "sib-sa10: $((10 * SA10_N)) route resolutions from ib1 to 10 CAs, $MC_Q SA PathRecord" \
	"queries on the wire ($ORCM_STACK, $((SECONDS - t0)) s)"
if ours; then
	cat "$PC"
	[ "$MC_Q" -eq 10 ] || fail "ours: $MC_Q PathRecord queries for $SA10_N resolutions to each of 10 CAs, want 10"
	[ $(($(pc misses) - m0)) -eq 10 ] || fail "path cache: $(($(pc misses) - m0)) misses for 10 CAs, want 10"
else
	[ "$MC_Q" -ge $((10 * SA10_N)) ] ||
		fail "stock: $MC_Q PathRecord queries for $((10 * SA10_N)) resolutions, expected one each"
fi
wait_for 10 "no CM id left after the SA load" cm_ids_empty
say "SA load done at t=$SECONDS s"
ours || { say "ok: SA load to ten CAs behind the switches ($ORCM_STACK)"; exit 0; }

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
rx=$(awk '$1 == 16 { print $6 }' "$SIB_SWITCH/sw1/ports")
[ "${rx:-0}" -gt 1000 ] || fail "sw1's port 16 forwarded few packets ($rx)"
[ "$(sw_bad)" -eq "$SW_BAD" ] || fail "a switch dropped malformed packets besides the raw sender's"

# Teardown: unbind a port under a live CA; then, the CAs gone, delete the
# switches with their ports still bound.
echo 2 >"$SIB_SWITCH/sw0/unbind" || fail "unbind sw0 port 2"
grep -q '^2 - DOWN' "$SIB_SWITCH/sw0/ports" || fail "sw0 port 2 still bound"
echo "2 vA0" >"$SIB_SWITCH/sw0/bind" 2>/dev/null && fail "bound a CA's carrier to a switch"
echo "2 vT1" >"$SIB_SWITCH/sw0/bind" 2>/dev/null && fail "bound sw1's port's netdev to sw0"
fabric_down
echo -sw0 >"$SIB_SWITCH/switches" || fail "delete sw0"
echo -sw1 >"$SIB_SWITCH/switches" || fail "delete sw1"
[ ! -e "$SIB_SWITCH/sw0" ] && [ ! -e "$SIB_SWITCH/sw1" ] || fail "a switch is still there"
say "ok: two switches and $NCA CAs under opensm (t=$SECONDS s)"
