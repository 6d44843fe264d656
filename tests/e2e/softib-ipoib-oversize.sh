#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# UD packets too large for IPoIB's receive buffers, from anyone on the
# Ethernet segment (issue 42): stock IPoIB on a softib link under stock
# opensm (softib-ipoib.sh's setup: ib1's IPoIB netdev in netns B), then a
# raw socket on ib0's carrier sends, more times than IPoIB's receive queue
# holds WQEs (recv_queue_size, 256), a UD SEND of 6,000 bytes (IPoIB posts
# 4,096 + 40) to the QPN of ib1's IPoIB netdev, then one to the IPoIB
# broadcast group. ib1 drops each as no_rwqe (counted: every one reached
# the QP), and none costs IPoIB a receive WQE: a ping across the link still
# works, after a neighbour flush that makes ARP cross the broadcast group.
# Before the fix each took one of IPoIB's WQEs for good (IPoIB stopped
# receiving) and leaked an MR reference (the device's removal at the end
# stalled in rvt_check_refs and warned).
# Both stacks: softib is our driver, and the stock VM loads it on the
# in-tree ib_core too.
# orcm-timeout: 180
# shellcheck source=tests/e2e/lib.bash
. "$(dirname "$0")/lib.bash"
# shellcheck source=tests/e2e/softib-lib.bash
. "$(dirname "$0")/softib-lib.bash"
sib_load
sib_subnet_up
sib_ipoib_up
I0=$SIB_I0
ping_b() { run_to "/tmp/oversize-ping-$1.log" "$STEP" ping -c 3 -W 2 -I "$I0" "$SIB_IP1"; }
wait_for 20 "ping $SIB_IP1 over IPoIB" ping -c 1 -W 1 -I "$I0" "$SIB_IP1"

# ib1's IPoIB UD QPN: octets 2-4 of its 20-byte hardware address
a=$(in_b cat "/sys/class/net/$SIB_I1/address")
qpn=0x${a:3:2}${a:6:2}${a:9:2}
lid=$(sib_lid ib1)
rq=$(cat /sys/module/ib_ipoib/parameters/recv_queue_size 2>/dev/null || echo 256)
n=$((rq + rq / 2))
# The Q_Key and MLID of the IPv4 broadcast group (opensm's: Q_Key 0x0b1b)
mgid=ff12:401b:ffff::ffff:ffff
saquery -g >/tmp/oversize-groups.log 2>&1 || true
mlid=$(awk -v g="$mgid" '$1 ~ /^MGID/ { sub(/^MGID\.*/, "", $1); m = ($1 == g) }
	m && $1 ~ /^Mlid/ { sub(/^Mlid\.*/, "", $1); print $1; exit }' /tmp/oversize-groups.log)
[ -n "$mlid" ] || { cat /tmp/oversize-groups.log; fail "no MLID for $mgid in saquery -g"; }
say "ib1: LID $lid, IPoIB QPN $qpn ($SIB_I1), receive queue $rq; broadcast group MLID $mlid"

# send KIND: n oversized frames of KIND from vA; every one must reach ib1's
# QP (no_rwqe counts it), or the test tests nothing
send() {
	local before got
	before=$(sib_drops ib1 no_rwqe)
	python3 "$(dirname "$0")/softib-rawsend.py" vA "$n" "$1" || fail "raw sender failed"
	wait_for 10 "ib1 drops $n oversized frames ($2)" \
		bash -c "[ \$(awk '\$1 == \"no_rwqe\" { print \$2 }' $SIB_DEBUGFS/ib1/drops) -ge $((before + n)) ]"
	got=$(($(sib_drops ib1 no_rwqe) - before))
	[ "$got" -eq "$n" ] || fail "ib1 counted $got no_rwqe drops for $n oversized frames ($2)"
	say "ok: $n frames of 6000 bytes ($2) dropped as no_rwqe"
}
send "ud,$lid,$qpn,0x0b1b,6000" "to IPoIB's QPN"
ping_b unicast || fail "IPoIB ping after $n oversized frames to its QPN (queue of $rq)"
say "ok: IPoIB still receives after $n oversized frames to its QPN"
send "mc,$mlid,$mgid,0x0b1b,6000" "to the broadcast group"
ip neigh flush dev "$I0"
in_b ip neigh flush dev "$SIB_I1"
ping_b multicast || fail "IPoIB ping (ARP over the broadcast group) after $n oversized multicast frames"
say "ok: IPoIB still receives (ARP over the broadcast group, then unicast) after $n oversized multicast frames"
