#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# softib sends a frame to the MAC its DLID was learned behind, not to
# broadcast (issue 42): stock IPoIB on a softib link under stock opensm
# (softib-ipoib.sh's setup), each CA's neighbour table (debugfs neigh) holds
# the other's LID behind the other's carrier MAC, and while ARP (over the
# IPoIB broadcast group) and 20 pings cross the link a raw socket on each
# carrier (softib-framecount.py) counts the frames it receives: none to a
# unicast LID went to the Ethernet broadcast address, at least 20 each way
# went to the peer's MAC and to no other, and the multicast LIDs (the ARP
# request) and the permissive LID (opensm's directed-route sweeps) stayed
# broadcast. Before the change every frame went to broadcast.
# orcm-timeout: 180
# shellcheck source=tests/e2e/lib.bash
. "$(dirname "$0")/lib.bash"
# shellcheck source=tests/e2e/softib-lib.bash
. "$(dirname "$0")/softib-lib.bash"
sib_stock_check
sib_load
sib_subnet_up
sib_ipoib_up
I0=$SIB_I0
wait_for 20 "ping $SIB_IP1 over IPoIB" ping -c 1 -W 1 -I "$I0" "$SIB_IP1"
ma=$(cat /sys/class/net/vA/address)
mb=$(cat /sys/class/net/vB/address)
lid0=$(sib_lid ib0)
lid1=$(sib_lid ib1)
say "ib0: LID $lid0 on vA $ma; ib1: LID $lid1 on vB $mb"

# learned: each CA knows the other's LID behind the other's carrier
knows() { grep -q "^$2 $3 " "$SIB_DEBUGFS/$1/neigh"; }
for t in "ib0 $lid1 $mb" "ib1 $lid0 $ma"; do
	# shellcheck disable=SC2086 # three words
	knows $t || { cat "$SIB_DEBUGFS/${t%% *}/neigh"; fail "${t%% *} does not know LID ${t#* }"; }
done
say "ok: ib0 knows LID $lid1 behind $mb, ib1 LID $lid0 behind $ma"

# one counter on each carrier: each sees the frames the other CA sent
# (a socket bound to one EtherType is not shown the frames sent)
for v in vA vB; do
	bg "/tmp/unicast-$v.log" python3 "$(dirname "$0")/softib-framecount.py" "$v"
	eval "fc_$v=\$LAST_PID"
	wait_for 10 "the frame counter on $v listening" grep -q listening "/tmp/unicast-$v.log"
done
ip neigh flush dev "$I0"
in_b ip neigh flush dev "$SIB_I1"
run_to /tmp/unicast-ping.log 30 ping -c 20 -i 0.2 -W 2 -I "$I0" "$SIB_IP1" ||
	fail "20 pings over IPoIB"
# shellcheck disable=SC2154 # set by eval
for pid in "$fc_vA" "$fc_vB"; do
	kill -TERM "$pid"
	wait_pid "$pid" 10 || fail "a frame counter did not stop"
done
show /tmp/unicast-vA.log
show /tmp/unicast-vB.log
# n FROM DLID DEST: frames ib0 (FROM ib0: counted on vB) or ib1 sent
n() {
	local log=/tmp/unicast-vA.log
	[ "$1" = ib1 ] || log=/tmp/unicast-vB.log
	awk -v k="in $2 $3" 'index($0, k " ") == 1 { print $4; f = 1 } END { if (!f) print 0 }' "$log"
}
for v in vA vB; do
	[ "$(awk '$1 == "drops" { print $2 }' "/tmp/unicast-$v.log")" = 0 ] ||
		fail "the frame counter's socket on $v dropped frames"
done
for d in ib0 ib1; do
	[ "$(n "$d" ucast bcast)" = 0 ] || fail "$(n "$d" ucast bcast) frames from $d to a unicast LID went to broadcast"
	[ "$(n "$d" ucast ucast)" -ge 20 ] || fail "only $(n "$d" ucast ucast) frames from $d to a unicast LID went unicast"
	for k in "mcast ucast" "mcast mcast" "perm ucast" "perm mcast"; do
		# shellcheck disable=SC2086 # two words
		[ "$(n "$d" $k)" = 0 ] || fail "$(n "$d" $k) frames from $d of DLID/destination $k"
	done
done
[ "$(n ib0 mcast bcast)" -ge 1 ] || fail "no ARP request over the IPoIB broadcast group reached vB (to broadcast)"
bad=$(awk -v m="$mb" '$1 == "ucast_to" && $2 != m' /tmp/unicast-vB.log
	awk -v m="$ma" '$1 == "ucast_to" && $2 != m' /tmp/unicast-vA.log)
[ -z "$bad" ] || fail "unicast frames to a MAC that is not the peer carrier's: $bad"
say "ok: $(n ib0 ucast ucast) frames from ib0 and $(n ib1 ucast ucast) from ib1 to unicast LIDs went to the peer's MAC, none to broadcast; $(n ib0 mcast bcast) multicast-LID frames to broadcast"
