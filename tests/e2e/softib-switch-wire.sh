#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# softib's switch on the wire (issue 42): a switch and two CAs under stock
# opensm (on ib0). 1. Unicast: after LID-routed SMPs (smpquery nodeinfo)
# each way have taught every port its neighbours, a raw socket on each of the four
# netdevs (softib-framecount.py) counts the frames it receives while 10
# more cross: none to a unicast LID went to broadcast, at least 10 went
# unicast, and only to that netdev's own MAC. 2. Management: a LID-routed
# SubnSet(P_KeyTable) for the switch, sent into its port 2 (ib1's side)
# while its SM is behind port 1, is refused (the switch's "mgmt" drops)
# and changes nothing smpquery reads; with mgmt_policy open the same frame
# is taken. Before the change every frame went to broadcast and the
# SubnSet was taken.
# orcm-timeout: 180
# shellcheck source=tests/e2e/lib.bash
. "$(dirname "$0")/lib.bash"
# shellcheck source=tests/e2e/softib-lib.bash
. "$(dirname "$0")/softib-lib.bash"
sib_stock_check
sib_load
command -v smpquery >/dev/null || fail "no smpquery (Debian package infiniband-diags)"
POLICY=/sys/module/softib/parameters/mgmt_policy
sib_fabric 2
sib_fabric_sm
trap 'echo sm-only >$POLICY; sib_sm_stop; sib_cleanup' EXIT
lid0=$(sib_lid ib0)
lid1=$(sib_lid ib1)
swlid=$(cat "$SIB_SWITCH/sw0/lid")
say "ib0 LID $lid0 (vA0 - vS1), ib1 LID $lid1 (vA1 - vS2), sw0 LID $swlid"
pq() {
	run_to "/tmp/sww-pq-$1.log" 20 smpquery -C "$1" nodeinfo "$2" >/dev/null ||
		{ show "/tmp/sww-pq-$1.log"; fail "smpquery -C $1 nodeinfo $2"; }
}
pq ib0 "$lid1"
pq ib1 "$lid0"

nds=(vA0 vA1 vS1 vS2)
pids=()
for v in "${nds[@]}"; do
	bg "/tmp/sww-$v.log" python3 "$(dirname "$0")/softib-framecount.py" "$v"
	pids+=("$LAST_PID")
	wait_for 10 "the frame counter on $v listening" grep -q listening "/tmp/sww-$v.log"
done
for ((i = 0; i < 5; i++)); do pq ib0 "$lid1"; pq ib1 "$lid0"; done
for p in "${pids[@]}"; do
	kill -TERM "$p"
	wait_pid "$p" 10 || fail "a frame counter did not stop"
done
n() { awk -v k="in $2 $3" 'index($0, k " ") == 1 { print $4; f = 1 } END { if (!f) print 0 }' "/tmp/sww-$1.log"; }
for v in "${nds[@]}"; do
	show "/tmp/sww-$v.log"
	mac=$(cat "/sys/class/net/$v/address")
	[ "$(awk '$1 == "drops" { print $2 }' "/tmp/sww-$v.log")" = 0 ] || fail "the frame counter on $v dropped frames"
	[ "$(n "$v" ucast bcast)" = 0 ] || fail "$(n "$v" ucast bcast) frames into $v to a unicast LID went to broadcast"
	[ "$(n "$v" ucast ucast)" -ge 10 ] || fail "only $(n "$v" ucast ucast) frames into $v went unicast"
	bad=$(awk -v m="$mac" '$1 == "ucast_to" && $2 != m' "/tmp/sww-$v.log")
	[ -z "$bad" ] || fail "unicast frames into $v for another MAC: $bad"
done
say "ok: every frame to a unicast LID through the switch went to the next hop's MAC ($(n vS1 ucast ucast), $(n vA1 ucast ucast), $(n vS2 ucast ucast), $(n vA0 ucast ucast) on the four links)"

mgmt() { awk '$1 == "mgmt" { print $2 }' "$SIB_SWITCH/sw0/drops"; }
pkeys() { smpquery -C ib0 pkeys "$swlid" 0 2>&1; }
send() { SIB_SRC_MAC=${2:-} python3 "$(dirname "$0")/softib-rawsend.py" vA1 1 "pkeyset,$swlid,$lid1,$1" || fail "raw sender"; }
before=$(mgmt)
send 0x8123
wait_for 10 "the switch refuses the SubnSet from port 2" bash -c "[ \$(awk '\$1 == \"mgmt\" { print \$2 }' $SIB_SWITCH/sw0/drops) -gt $before ]"
pkeys >/tmp/sww-pkeys.log
! grep -q 0x8123 /tmp/sww-pkeys.log || { cat /tmp/sww-pkeys.log; fail "a SubnSet from port 2 rewrote the switch's P_Key table"; }
say "ok: a SubnSet for the switch from port 2 (its SM is behind port 1) refused"
echo open >"$POLICY"
send 0x8125
wait_for 10 "the switch's P_Key 0x8125 (mgmt_policy open)" bash -c "smpquery -C ib0 pkeys $swlid 0 2>&1 | grep -q 0x8125"
echo sm-only >"$POLICY"
say "ok: with mgmt_policy open it is taken"
