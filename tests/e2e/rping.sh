#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# rping between two namespaces over siw: 5 verified pings, both ends exit 0.
# shellcheck source=tests/e2e/lib.bash
. "$(dirname "$0")/lib.bash"
setup_pair
PORT=7174 COUNT=5

bg /tmp/rping-server.log "${IN_B[@]}" rping -s -v -V -a "$ADDR_B" -p $PORT -C $COUNT
server=$LAST_PID
wait_for 10 "the rping server listening on $ADDR_B:$PORT" cm_id_listening $PORT

rc=0
run_to /tmp/rping-client.log "$STEP" "${IN_A[@]}" rping -c -v -V -a "$ADDR_B" -p $PORT -C $COUNT || rc=$?
src=0
wait_pid "$server" "$STEP" || src=$?
say "server output:"
show /tmp/rping-server.log
[ "$rc" -eq 0 ] || fail "rping client exit status $rc"
[ "$src" -eq 0 ] || fail "rping server exit status $src"

n=$(grep -c 'ping data: rdma-ping-' /tmp/rping-client.log || true)
[ "$n" -eq $COUNT ] || fail "client printed $n verified pings, want $COUNT"
n=$(grep -c 'ping data: rdma-ping-' /tmp/rping-server.log || true)
[ "$n" -eq $COUNT ] || fail "server printed $n pings, want $COUNT"
wait_for 5 "no CM id left" cm_ids_empty
say "ok: $COUNT verified rpings $ADDR_A -> $ADDR_B"
