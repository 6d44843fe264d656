#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Management from the wire (issue 42): a softib port whose M_Key is 0 takes
# SubnSet only from its SM (mgmt_policy sm-only, the default: the Ethernet
# source its first SubnSet since link up came from). On a softib link under
# stock opensm (on ib0, so ib1's SM is behind vA's MAC), a raw socket on vA
# sends ib1 a LID-routed SubnSet(P_KeyTable) from another source address
# (another host on the segment), with the SM's LID as SLID: ib1 counts it
# as a "mgmt" drop and its P_Key table does not change. The same frame from
# vA's own address (the SM's) is taken, and so is the foreign one with
# mgmt_policy open: the frame is a good SubnSet. Before the change the
# foreign SubnSet rewrote the table.
# orcm-timeout: 120
# shellcheck source=tests/e2e/lib.bash
. "$(dirname "$0")/lib.bash"
# shellcheck source=tests/e2e/softib-lib.bash
. "$(dirname "$0")/softib-lib.bash"
sib_stock_check
sib_load
POLICY=/sys/module/softib/parameters/mgmt_policy
[ -f "$POLICY" ] || fail "no $POLICY"
[ "$(cat "$POLICY")" = sm-only ] || fail "mgmt_policy is $(cat "$POLICY"), not sm-only by default"
sib_subnet_start "echo sm-only >$POLICY; sib_sm_stop; sib_cleanup"
lid0=$(sib_lid ib0)
lid1=$(sib_lid ib1)
PK=/sys/class/infiniband/ib1/ports/1/pkeys/1
FOREIGN=02:00:00:00:42:42
send() { SIB_SRC_MAC=${2:-} python3 "$(dirname "$0")/softib-rawsend.py" vA 1 "pkeyset,$lid1,$lid0,$1" || fail "raw sender"; }
mgmt() { sib_drops ib1 mgmt; }
pk_is() { wait_for 10 "ib1's P_Key 1 $1" bash -c "[ \"\$(cat $PK)\" = $1 ]"; }
say "ib1: LID $lid1, SM LID $lid0 behind $(cat /sys/class/net/vA/address); P_Key 1 $(cat $PK)"

before=$(mgmt)
send 0x8123 "$FOREIGN"
wait_for 10 "ib1 refuses the foreign SubnSet" bash -c "[ \$(awk '\$1 == \"mgmt\" { print \$2 }' $SIB_DEBUGFS/ib1/drops) -gt $before ]"
sleep 1
[ "$(cat $PK)" != 0x8123 ] || fail "a SubnSet from $FOREIGN rewrote ib1's P_Key table"
[ "$(sib_state ib1)" = ACTIVE ] || fail "ib1 $(sib_state ib1) after the foreign SubnSet"
say "ok: a SubnSet from $FOREIGN (SLID $lid0, the SM's) refused: mgmt drops $before -> $(mgmt)"

send 0x8124
pk_is 0x8124
say "ok: the same SubnSet from the SM's source is taken"

echo open >"$POLICY"
send 0x8125 "$FOREIGN"
pk_is 0x8125
echo sm-only >"$POLICY"
say "ok: with mgmt_policy open the foreign SubnSet is taken (as IBA has it)"
