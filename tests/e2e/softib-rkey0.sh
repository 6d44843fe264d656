#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# R_Key 0 from anyone on the Ethernet segment against a live kernel RC
# connection (issue 42, first defect). The connection: stock IPoIB in
# connected mode between ib0 and ib1 (softib-ipoib.sh's setup, ib1's IPoIB
# netdev in netns B): IPoIB's own ib_cm client brings up kernel RC QPs
# (kernel PDs, so rdmavt's DMA MR answers R_Key 0; ib_cm grants them remote
# write). 60,000-byte pings (DF) cross the RC QP from ib0 to ib1, while a
# raw socket on ib0's carrier (softib-rkey0.py) learns from the frames what
# any host on the segment sees: ib1's LID, the QPN of IPoIB's receiving QP
# there, the last PSN, the SLID, the P_Key and both MACs. Its view must be
# the kernel's (the QP's rq-psn, `rdma res`). Once the link is quiet it
# sends to that QP, as ib0 and with the next PSN: an RDMA WRITE with R_Key
# 0 of "rkey0!" to the nodename of init_uts_ns (the hostname; its address
# from /proc/kallsyms), an RDMA READ and a FETCH_ADD with R_Key 0 of its
# sysname. Asserted: the hostname unchanged; no READ response and no
# atomic ACK came back, a NAK remote access error did; ib1 counted 3
# `rkey` drops; the QP's rq-psn did not move (nothing was executed). Then
# the connection is unharmed: the same QP, still RTS, carries 3 more
# pings of 60,000 bytes with a pattern (ping checks every byte) and its
# rq-psn moves by their packets; ib0's NAK for a PSN it never sent is only
# dropped (`psn`).
# Before the fix (51944f3, softib_rc_rkey_ok()), the WRITE was executed:
# the hostname reads "rkey0!" and the test fails there ("kernel memory
# changed"); past that, ib1 counts no `rkey` drop (the READ and the
# FETCH_ADD, now behind r_psn, were duplicates) and the rq-psn moved.
# IPoIB's QPs have no remote read or atomic access (ib_cm grants them only
# with responder resources, which IPoIB-CM does not ask for), so the READ
# and the FETCH_ADD are refused on old code too (`rkey`, NAK invalid
# request): they show the refusal and that no data leaves, the WRITE is
# what fails on old code. READ and atomics with R_Key 0 on a QP that grants
# them are KUnit's (sibrc_rkey0). The stale duplicate READ (second defect)
# needs a responder that answered a READ across the link from an MR its
# ULP then invalidated: ulp-srp-softib.sh replays one (and KUnit's
# sibrc_dup_read_stale).
# Ours only (sib_stock_check): a device test of softib, the same driver
# under either CM; the stock VM runs only what is an oracle for ours.
# orcm-timeout: 180
# shellcheck source=tests/e2e/lib.bash
. "$(dirname "$0")/lib.bash"
# shellcheck source=tests/e2e/softib-lib.bash
. "$(dirname "$0")/softib-lib.bash"
sib_stock_check
sib_load
sib_subnet_up
sib_ipoib_up
LOG=/tmp/rkey0-attack.log GO=/tmp/rkey0.go
rm -f "$GO"
wait_for 20 "ping $SIB_IP1 over IPoIB" ping -c 1 -W 1 -I "$SIB_I0" "$SIB_IP1"
# Nothing but the test's pings on the RC QPs: no IPv6 neighbour discovery,
# no ARP probe of ib1's address (below: a permanent neighbour, with the
# address of connected mode, its RC flag set).
sysctl -qw "net.ipv6.conf.$SIB_I0.disable_ipv6=1"
in_b sysctl -qw "net.ipv6.conf.$SIB_I1.disable_ipv6=1"
ipoib_mode - "$SIB_I0" connected
ipoib_mode "$NS_B" "$SIB_I1" connected
wait_for 20 "ping $SIB_IP1 in connected mode" ping -c 1 -W 1 -I "$SIB_I0" "$SIB_IP1"
wait_for 10 "RC QPs of ib_ipoib on ib0 and ib1" \
	bash -c "$(declare -f rc_psns); [ -n \"\$(rc_psns ib0)\" ] && [ -n \"\$(rc_psns ib1)\" ]"
ip neigh replace "$SIB_IP1" lladdr "$(in_b cat "/sys/class/net/$SIB_I1/address")" nud permanent dev "$SIB_I0" ||
	fail "a permanent neighbour for $SIB_IP1"

# big_pings NAME: 3 pings of 60,000 bytes (DF: one IPoIB packet, so RC
# only) with a pattern that ping checks in every reply
big_pings() {
	run_to "/tmp/rkey0-$1.log" "$STEP" ping -M "do" -c 3 -i 0.2 -W 3 -s 60000 \
		-p 72b0e1c3 -I "$SIB_I0" "$SIB_IP1" ||
		fail "$1: 60,000-byte pings over IPoIB-CM: $(tail -n 2 "/tmp/rkey0-$1.log")"
	! grep -qi 'wrong data' "/tmp/rkey0-$1.log" || fail "$1: a reply's data differs"
}

# The kernel addresses (root reads them with kptr_restrict at most 1).
kp=$(cat /proc/sys/kernel/kptr_restrict)
[ "$kp" -le 1 ] || echo 1 >/proc/sys/kernel/kptr_restrict
uts=$(awk '$3 == "init_uts_ns" { print $1; exit }' /proc/kallsyms)
[ "$kp" -le 1 ] || echo "$kp" >/proc/sys/kernel/kptr_restrict
if [ -z "$uts" ] || [ "$((16#$uts))" -eq 0 ]; then
	fail "no address of init_uts_ns in /proc/kallsyms"
fi
# struct uts_namespace starts with struct new_utsname: sysname[65], nodename[65]
sysname_va=$((16#$uts)) nodename_va=$((16#$uts + 65))
host0=$(cat /proc/sys/kernel/hostname)
lid1=$(sib_lid ib1)
say "init_uts_ns at 0x$uts (hostname \"$host0\"); ib1 LID $lid1"

bg "$LOG" python3 "$(dirname "$0")/softib-rkey0.py" vA "$lid1" "$GO" "$nodename_va" "$sysname_va"
ATT=$LAST_PID
wait_for 10 "the raw socket listening" grep -q listening "$LOG"
big_pings before
wait_for 20 "the raw socket learned the connection" grep -q '^learned ' "$LOG"
read -r _ _ slid qpn_hex psn nxt <<<"$(grep '^learned ' "$LOG")"
qpn=$((qpn_hex))
rc_psns ib1 >/tmp/rkey0-psn0
kpsn=$(awk -v q="$qpn" '$1 == q { print $2 }' /tmp/rkey0-psn0)
say "learned on the wire: QPN $qpn_hex at LID $lid1 from SLID $slid, last PSN $psn; the kernel's rq-psn: ${kpsn:-none}"
[ -n "$kpsn" ] || fail "QPN $qpn_hex is no RC QP of ib_ipoib on ib1: $(tr '\n' ' ' </tmp/rkey0-psn0)"
[ "$kpsn" = "$nxt" ] || fail "the wire says the next PSN is $nxt, ib1's QP $qpn_hex expects $kpsn"
rkey0=$(sib_drops ib1 rkey) psn0=$(sib_drops ib0 psn)
touch "$GO"
wait_pid "$ATT" 30 || { show "$LOG"; fail "the raw sender failed"; }
show "$LOG"

# Nothing executed: kernel memory, the answers, ib1's counters and r_psn.
host1=$(cat /proc/sys/kernel/hostname)
[ "$host1" = "$host0" ] ||
	fail "kernel memory changed: the hostname is \"$host1\" after an RDMA WRITE with R_Key 0 (was \"$host0\")"
say "ok: the hostname (init_uts_ns) unchanged after an RDMA WRITE with R_Key 0 to it"
ans=$(grep '^answers ' "$LOG")
n() { sed -n "s/.* $1=\([0-9]*\).*/\1/p" <<<"$ans"; }
[ "$(n read_resp)" = 0 ] || fail "ib1 answered an RDMA READ with R_Key 0 ($ans)"
[ "$(n atomic_ack)" = 0 ] || fail "ib1 answered a FETCH_ADD with R_Key 0 ($ans)"
[ "$(n nak_rem_access)" -ge 1 ] || fail "no NAK remote access error for the WRITE with R_Key 0 ($ans)"
wait_for 5 "ib1's rkey drops counting 3" \
	bash -c "[ \$(awk '\$1 == \"rkey\" { print \$2 }' $SIB_DEBUGFS/ib1/drops) -ge $((rkey0 + 3)) ]"
got=$(($(sib_drops ib1 rkey) - rkey0))
[ "$got" -eq 3 ] || fail "ib1 counted $got rkey drops for 3 requests with R_Key 0"
kpsn1=$(rc_psns ib1 | awk -v q="$qpn" '$1 == q { print $2 }')
[ "$kpsn1" = "$kpsn" ] || fail "ib1's QP $qpn_hex moved its rq-psn from $kpsn to ${kpsn1:-gone}: a request was executed"
say "ok: WRITE, READ, FETCH_ADD with R_Key 0 refused (3 rkey drops, no data back, $ans), rq-psn still $kpsn"

# The connection unharmed: the same QP carries verified data.
big_pings after
kpsn2=$(rc_psns ib1 | awk -v q="$qpn" '$1 == q { print $2 }')
[ -n "$kpsn2" ] || fail "ib1's QP $qpn_hex is gone: IPoIB-CM reconnected"
moved=$(((kpsn2 - kpsn + 16777216) % 16777216))
# 60,028 bytes of IPoIB packet: 15 packets at 4,096 bytes of path MTU
[ "$moved" -ge 45 ] || fail "ib1's QP $qpn_hex received $moved packets, not the 45 or more of 3 pings"
rdma res show qp link ib1/1 lqpn "$qpn" | grep -q 'state RTS' ||
	fail "ib1's QP $qpn_hex not RTS: $(rdma res show qp link ib1/1 lqpn "$qpn")"
rdma res show qp link ib0/1 | grep "rqpn $qpn type RC state RTS " | grep -q ib_ipoib ||
	fail "no RC QP of ib_ipoib on ib0 in RTS connected to $qpn_hex: $(rdma res show qp link ib0/1)"
say "ok: the same connection carried 3 verified pings of 60,000 bytes after ($moved packets), both QPs RTS;" \
	"ib0 dropped $(($(sib_drops ib0 psn) - psn0)) answer(s) for PSNs it never sent"
