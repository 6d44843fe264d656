#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# A RoCE peer's MAC changed under a connected id: in-tree rdma_cm delivers
# RDMA_CM_EVENT_UNREACHABLE with status -ETIMEDOUT (-110) to the active id
# whose destination's neighbour now has another MAC (cma_netevent_callback);
# a neighbour update that keeps the MAC delivers nothing. Both stacks.
#
# rxe-lib's pair: the client on rxeA (vRA) connects to the server on rxeB
# (vRB) and holds the connection; vRB's MAC changes and vRA's neighbour
# entry for it is updated (what the peer's gratuitous ARP would do).
# shellcheck source=tests/e2e/lib.bash
. "$(dirname "$0")/lib.bash"
# shellcheck source=tests/e2e/rxe-lib.bash
. "$(dirname "$0")/rxe-lib.bash"
# shellcheck source=tests/e2e/cmprobe.bash
. "$(dirname "$0")/cmprobe.bash"
setup_rxe_pair
PORT=7620 NEWMAC=02:00:c6:12:04:42

established() { grep -q '^event ESTABLISHED ' "/tmp/$1.log"; }

bg /tmp/neigh-server.log "$CMPROBE" -s -b "$RADDR_B" -p $PORT -n 0 -T 20
server=$LAST_PID
wait_for 10 "the server listening" listening neigh-server
bg /tmp/neigh-client.log "$CMPROBE" -c -b "$RADDR_A" -a "$RADDR_B" -p $PORT -H 4000 -T 8
client=$LAST_PID
wait_for 10 "the client ESTABLISHED" established neigh-client
old=$(cat /sys/class/net/vRB/address)
# The same MAC again: no event.
ip neigh replace "$RADDR_B" lladdr "$old" dev vRA nud reachable
sleep 0.3
grep -q UNREACHABLE /tmp/neigh-client.log && fail "UNREACHABLE for an unchanged MAC"
ip link set vRB address "$NEWMAC"
ip neigh replace "$RADDR_B" lladdr "$NEWMAC" dev vRA nud reachable
say "vRB $old -> $NEWMAC; $(ip neigh show "$RADDR_B" dev vRA)"
rc=0
wait_pid "$client" "$STEP" || rc=$?
show /tmp/neigh-client.log
has_line neigh-client "result UNREACHABLE status -110"
[ "$rc" -eq 1 ] || fail "client exit status $rc, want 1"
kill "$server" 2>/dev/null || true
wait_pid "$server" "$STEP" || true
show /tmp/neigh-server.log
# As in-tree, only the active side's id tracks its neighbour.
! grep -q UNREACHABLE /tmp/neigh-server.log || fail "UNREACHABLE on the server"
say "ok: peer MAC change under a connected RoCE id: UNREACHABLE -110"
