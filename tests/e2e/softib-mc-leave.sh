#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# A leave takes the join it names (issue 41: rdma_ucm's multicast context
# used after free). One UD id, bound to ib0's IPoIB address, joins one group
# twice through rdma_ucm's write() ABI (tests/progs/mc_leave.c: uids 1 and
# 2), leaves the second join by its rdma_ucm id, and then ib0's port flaps:
# the SA reports the error to the group's members, and the one left must
# be join 1. rdma_ucm frees join 2's object when the leave returns; a CM
# that left join 1 instead (rdma_leave_multicast() taking the first join of
# the address, as in-tree does) delivers MULTICAST_ERROR to the freed
# object: KASAN slab-use-after-free in ucma_create_uevent.
#
# Our stack only: the in-tree CM has that use-after-free, deterministically
# here, and the report would end the stock VM (panic_on_warn) and every
# test after this one. A deliberate difference, in tests/parity/deviations.
# orcm-timeout: 240
# shellcheck source=tests/e2e/lib.bash
. "$(dirname "$0")/lib.bash"
# shellcheck source=tests/e2e/softib-lib.bash
. "$(dirname "$0")/softib-lib.bash"
[ "${ORCM_STACK:-}" != stock ] ||
	skip "the in-tree CM leaves the first join of an address, and rdma_ucm then uses the freed context of the second (KASAN): it would end the stock VM"
PROG=$ORCM_REPO/build/progs/mc_leave
[ -x "$PROG" ] || fail "no $PROG (make progs)"
sib_load
sib_subnet_up
sib_ipoib_up
wait_for 20 "ping $SIB_IP1 over IPoIB" ping -c 1 -W 1 "$SIB_IP1"

GROUP=239.18.9.7
rm -f /tmp/mc-leave.ready
bg /tmp/mc-leave.log stdbuf -oL "$PROG" "$SIB_IP0" "$GROUP" /tmp/mc-leave.ready 60
prog=$LAST_PID
wait_for 30 "two joins, the second left" test -e /tmp/mc-leave.ready
show /tmp/mc-leave.log
grep -c '^event 12 ' /tmp/mc-leave.log | grep -qx 2 || fail "not two MULTICAST_JOIN events"

# The flap: ib0's port goes DOWN (IB_EVENT_PORT_ERR) and comes back.
ip link set vA down
wait_for 10 "ib0 DOWN" bash -c "[ \"\$(rdma link show ib0/1 | sed -n 's/.* state \([A-Z_]*\).*/\1/p')\" = DOWN ]"
ip link set vA up
rc=0
wait_pid "$prog" 75 || rc=$?
show /tmp/mc-leave.log
case $rc in
0) ;;
1) fail "an event for the join that was left (or of an unknown uid)" ;;
3) fail "the port's flap brought no MULTICAST_ERROR to join 1 (the test proved nothing)" ;;
*) fail "mc_leave exit status $rc" ;;
esac
grep -q '^event 13 uid 1 ' /tmp/mc-leave.log || fail "no MULTICAST_ERROR of uid 1"
wait_for 60 "ib0 and ib1 ACTIVE again" sib_both ACTIVE
wait_for 10 "no CM id left" cm_ids_empty
say "ok: the leave took the second join; the flap's MULTICAST_ERROR went to join 1 alone"
