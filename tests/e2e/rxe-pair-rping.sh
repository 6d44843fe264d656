#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# rping between two rxe devices on a veth pair (RoCE v2): 5 verified pings,
# both ends exit 0, and the traffic crossed the veth.
# shellcheck source=tests/e2e/lib.bash
. "$(dirname "$0")/lib.bash"
# shellcheck source=tests/e2e/rxe-lib.bash
. "$(dirname "$0")/rxe-lib.bash"
setup_rxe_pair
PORT=7180 COUNT=5
before=$(rx_packets vRB)
bg /tmp/rping-server.log rping -s -v -V -a "$RADDR_B" -p $PORT -C $COUNT
server=$LAST_PID
wait_for 10 "the rping server listening on $RADDR_B:$PORT" cm_id_listening $PORT
rc=0
run_to /tmp/rping-client.log "$STEP" rping -c -v -V -I "$RADDR_A" -a "$RADDR_B" -p $PORT -C $COUNT || rc=$?
src=0
wait_pid "$server" "$STEP" || src=$?
show /tmp/rping-server.log
[ "$rc" -eq 0 ] || fail "rping client exit status $rc"
[ "$src" -eq 0 ] || fail "rping server exit status $src"
n=$(grep -c 'ping data: rdma-ping-' /tmp/rping-client.log || true)
[ "$n" -eq $COUNT ] || fail "client printed $n verified pings, want $COUNT"
after=$(rx_packets vRB)
[ $((after - before)) -ge $((COUNT * 4)) ] || fail "only $((after - before)) packets crossed the veth"
rdma res show cm_id
wait_for 5 "no CM id left" cm_ids_empty
say "ok: $COUNT verified rpings $RADDR_A -> $RADDR_B over the veth ($((after - before)) packets)"
