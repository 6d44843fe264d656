#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# A two-CA InfiniBand subnet on softib, managed by stock opensm: ib0 and ib1
# on a veth pair (one IB link), opensm bound to ib0's port. opensm discovers
# both ports with directed-route SMPs through ib0's QP0 (ib_mad's SMI, our
# SMA on both ends), gives them LIDs and brings them INIT -> ARMED -> ACTIVE;
# then infiniband-diags query the subnet: ibstat, sminfo, smpquery
# (NodeInfo, PortInfo, NodeDescription over LID-routed SMPs on the wire),
# saquery (SA records from opensm through QP1), perfquery (our PMA),
# ibnetdiscover (both CAs). Then SM failover: a second opensm on ib1's
# port, of lower priority, stays STANDBY; the master is killed; within a
# bounded time the standby is MASTER, every port's MasterSMLID names ib1's
# LID, each port raised IB_EVENT_SM_CHANGE (ibv_asyncwatch sees it through
# ib_uverbs), and no LID moved. Then traps (drivers/softib/sma.c): opensm
# on ib0 again, with its periodic sweep off (-s 0); the carrier flaps (vB
# down, up): both ports go DOWN, then INIT, and each sends trap 128 to the
# SM; opensm logs the notice, represses it (our debugfs counts it) and
# sweeps at once: both ports ACTIVE again within seconds, which without the
# trap would never happen. Our stack only (softib is ours).
# orcm-timeout: 180
# shellcheck source=tests/e2e/lib.bash
. "$(dirname "$0")/lib.bash"
# shellcheck source=tests/e2e/softib-lib.bash
. "$(dirname "$0")/softib-lib.bash"
sib_stock_check
sib_load
sib_subnet_up

run_to /tmp/ibstat.log "$STEP" ibstat ib1 || fail "ibstat ib1"
grep -q 'State: Active' /tmp/ibstat.log || fail "ibstat: ib1 not Active"
run_to /tmp/ibstat0.log "$STEP" ibstat ib0 || fail "ibstat ib0"
lid0=$(sed -n 's/.*Base lid: \([0-9]*\).*/\1/p' /tmp/ibstat0.log | head -n 1)
lid1=$(sed -n 's/.*Base lid: \([0-9]*\).*/\1/p' /tmp/ibstat.log | head -n 1)
smlid=$(sed -n 's/.*SM lid: \([0-9]*\).*/\1/p' /tmp/ibstat.log | head -n 1)
if [ -z "$lid0" ] || [ "$lid0" -eq 0 ] || [ -z "$lid1" ] || [ "$lid1" -eq 0 ]; then
	fail "no LIDs (ib0 '$lid0', ib1 '$lid1')"
fi
[ "$lid0" != "$lid1" ] || fail "ib0 and ib1 share LID $lid0"
[ "$smlid" = "$lid0" ] || fail "ib1's SM LID is $smlid, not ib0's $lid0"

run_to /tmp/sminfo.log "$STEP" sminfo -C ib1 || fail "sminfo -C ib1"
grep -q "sm lid $lid0 " /tmp/sminfo.log || fail "sminfo does not name ib0's LID $lid0"
run_to /tmp/smp-ni.log "$STEP" smpquery -C ib0 nodeinfo "$lid1" || fail "smpquery nodeinfo $lid1"
grep -q 'NodeType:.*Channel Adapter' /tmp/smp-ni.log || fail "NodeInfo of ib1: not a CA"
g1=$(cat /sys/class/infiniband/ib1/node_guid)
grep -q "^Guid:.*0x${g1//:/}" /tmp/smp-ni.log || fail "NodeInfo of LID $lid1 is not ib1's GUID"
run_to /tmp/smp-pi.log "$STEP" smpquery -C ib0 portinfo "$lid1" 1 || fail "smpquery portinfo"
grep -q "LinkState:.*Active" /tmp/smp-pi.log || fail "PortInfo of ib1: not Active"
grep -q "Lid:.*$lid1\$" /tmp/smp-pi.log || fail "PortInfo of ib1: not LID $lid1"
run_to /tmp/smp-nd.log "$STEP" smpquery -C ib0 nodedesc "$lid1" || fail "smpquery nodedesc"
run_to /tmp/saquery.log "$STEP" saquery -C ib1 || fail "saquery -C ib1 (NodeRecords)"
[ "$(grep -c 'NodeRecord dump' /tmp/saquery.log)" -eq 2 ] || fail "saquery: not 2 NodeRecords"
run_to /tmp/saquery-pr.log "$STEP" saquery -C ib1 -p "$lid1" "$lid0" || fail "saquery PathRecord"
grep -Eq "dlid\.+$lid0\$" /tmp/saquery-pr.log && grep -Eq "slid\.+$lid1\$" /tmp/saquery-pr.log ||
	fail "no PathRecord from LID $lid1 to LID $lid0"
# 4096-byte path MTU (selector "exactly" 2, MTU code 5): the carriers' 9000.
grep -Eq 'mtu\.+0x85$' /tmp/saquery-pr.log || fail "PathRecord: MTU not 4096"
run_to /tmp/perfquery.log "$STEP" perfquery -C ib0 "$lid1" 1 || fail "perfquery $lid1"
pkts=$(sed -n 's/^PortRcvPkts:\.*\([0-9]*\)/\1/p' /tmp/perfquery.log)
[ "${pkts:-0}" -gt 0 ] || fail "perfquery: ib1 received no packets"
run_to /tmp/ibnd.log "$STEP" ibnetdiscover -C ib0 || fail "ibnetdiscover"
[ "$(grep -c '^Ca' /tmp/ibnd.log)" -eq 2 ] || fail "ibnetdiscover: not 2 CAs"
say "diags: sminfo, smpquery nodeinfo/portinfo/nodedesc, saquery nodes+path, perfquery ($pkts packets), ibnetdiscover"
say "ok: opensm brought a two-CA softib subnet ACTIVE"

# SM failover (sib_sm_standby_start, softib-lib.bash).
t_fo=$SECONDS
sib_sm_standby_start ib1
wait_sm 2 20 ib0 "$lid1" || { tail -n 30 /tmp/opensm-b.log; fail "ib1's opensm is not STANDBY: $(sminfo -C ib0 "$lid1" 2>&1)"; }
[ "$(sminfo_state ib1)" = 3 ] || fail "ib0's opensm is not MASTER: $(sminfo -C ib1 2>&1)"
say "$(sminfo -C ib0 "$lid1")"
watchers=()
for d in ib0 ib1; do
	bg "/tmp/asyncwatch-$d.log" stdbuf -oL ibv_asyncwatch -d "$d"
	watchers+=("$LAST_PID")
done
for d in ib0 ib1; do # the device open: events from now on reach it
	wait_for 10 "ibv_asyncwatch on $d" grep -q 'async event FD' "/tmp/asyncwatch-$d.log"
done
t0=$SECONDS
sib_sm_stop
sib_failover_wait "$lid1"
say "failover: ib1's opensm MASTER after $((SECONDS - t0)) s; both ports' SM LID $lid1"
for d in ib0 ib1; do
	wait_for 10 "$d: IB_EVENT_SM_CHANGE" grep -q SM_CHANGE "/tmp/asyncwatch-$d.log"
done
# The watchers hold the devices open (rdmavt cannot disassociate them).
kill -TERM "${watchers[@]}"
for p in "${watchers[@]}"; do wait_pid "$p" 10 || true; done
show /tmp/asyncwatch-ib0.log
run_to /tmp/ibstat-after.log "$STEP" ibstat ib0 || fail "ibstat ib0"
[ "$(sed -n 's/.*Base lid: \([0-9]*\).*/\1/p' /tmp/ibstat-after.log)" = "$lid0" ] || fail "ib0's LID moved"
run_to /tmp/smp-pi-after.log "$STEP" smpquery -C ib1 portinfo "$lid0" 1 || fail "smpquery portinfo $lid0"
grep -q "SMLid:.*$lid1\$" /tmp/smp-pi-after.log || fail "PortInfo of ib0 (LID-routed from ib1): SMLid not $lid1"
[ "$(sib_state ib0)" = ACTIVE ] && [ "$(sib_state ib1)" = ACTIVE ] || fail "a port left ACTIVE"
rdma link show ib1/1 | grep -q "lid $lid1 " || fail "ib1's LID moved"
run_to /tmp/saquery-after.log "$STEP" saquery -C ib0 -p "$lid0" "$lid1" || fail "saquery PathRecord from the new SA"
grep -Eq "dlid\.+$lid1\$" /tmp/saquery-after.log || fail "the new SA gave no PathRecord to LID $lid1"
say "ok: SM failover to the standby, SM_CHANGE on both ports, LIDs $lid0 and $lid1 kept ($((SECONDS - t_fo)) s)"

# Traps: opensm sweeps only when a trap asks it to (-s 0).
t_tr=$SECONDS
kill -TERM "$SIB_SM_B" 2>/dev/null || true
wait_pid "$SIB_SM_B" 10 || true
sib_sm_start -s 0
for d in ib0 ib1; do
	wait_for 20 "$d's MasterSMLID $lid0 again" bash -c "rdma link show $d/1 | grep -q 'sm_lid $lid0 '"
done
wait_for 10 "both ports ACTIVE under the new SM" sib_both ACTIVE
# sib_trap DEV COUNTER: /sys/kernel/debug/softib/DEV/traps
sib_trap() { awk -v k="$2" '$1 == k { print $2 }' "$SIB_DEBUGFS/$1/traps"; }
# The SMs' IsSM changes sent traps 144: answered (or given up) before the flap.
trap_idle() { [ "$(sib_trap ib0 pending)" = 0 ] && [ "$(sib_trap ib1 pending)" = 0 ]; }
wait_for 10 "no trap outstanding" trap_idle
rep0=$(sib_trap ib1 repressed)
n0=$(wc -l </tmp/opensm.log)
ip link set vB down
wait_for 5 "ib1 DOWN" bash -c "rdma link show ib1/1 | grep -q 'state DOWN'"
sleep 0.5
ip link set vB up
t0=$SECONDS
for ((i = 0; i < 100; i++)); do sib_both ACTIVE && break; sleep 0.1; done
tail -n "+$((n0 + 1))" /tmp/opensm.log >/tmp/opensm-trap.log
if ! sib_both ACTIVE; then
	tail -n 30 /tmp/opensm-trap.log
	cat "$SIB_DEBUGFS/ib1/traps"
	fail "no sweep after the flap: ib0 $(sib_state ib0), ib1 $(sib_state ib1)"
fi
dt=$((SECONDS - t0))
# Both ports lose their link, so both send trap 128; ib0's (the SM's own
# port) may bring the sweep that makes both ACTIVE before ib1's is logged.
trap_logged() {
	tail -n "+$((n0 + 1))" /tmp/opensm.log >/tmp/opensm-trap.log
	grep -E "Received Generic Notice type:1 num:128 .*Producer:1 .*from LID:$1 " /tmp/opensm-trap.log
}
for ((i = 0; i < 50; i++)); do trap_logged "$lid1" >/dev/null && break; sleep 0.1; done
trap_logged "$lid1" ||
	{ tail -n 30 /tmp/opensm-trap.log; cat "$SIB_DEBUGFS/ib1/traps"; fail "opensm logged no trap 128 from ib1 (LID $lid1) within 5 s"; }
repressed_more() { [ "$(sib_trap ib1 repressed)" -gt "$rep0" ]; }
wait_for 5 "ib1's trap repressed" repressed_more
show "$SIB_DEBUGFS/ib1/traps"
[ "$(sib_lid ib1)" = "$lid1" ] || fail "ib1's LID moved"
say "ok: carrier flap, trap 128 from ib1 (LID $lid1) repressed, opensm -s 0 swept: both ports ACTIVE after $dt s ($((SECONDS - t_tr)) s)"
