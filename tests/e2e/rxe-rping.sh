#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# rping over RoCE (rdma_rxe, client and server on rxe0): 5 verified pings
# over IPv4, 3 over IPv6; both ends exit 0, no CM id left.
# shellcheck source=tests/e2e/lib.bash
. "$(dirname "$0")/lib.bash"
setup_rxe
PORT=7274 COUNT=5

bg /tmp/rxe-rping-server.log rping -s -v -V -a "$ADDR_R" -p $PORT -C $COUNT
server=$LAST_PID
wait_for 10 "the rping server listening on $ADDR_R:$PORT" cm_id_listening $PORT

rc=0
run_to /tmp/rxe-rping-client.log "$STEP" rping -c -v -V -a "$ADDR_R" -p $PORT -C $COUNT || rc=$?
src=0
wait_pid "$server" "$STEP" || src=$?
say "server output:"
show /tmp/rxe-rping-server.log
[ "$rc" -eq 0 ] || fail "rping client exit status $rc"
[ "$src" -eq 0 ] || fail "rping server exit status $src"
n=$(grep -c 'ping data: rdma-ping-' /tmp/rxe-rping-client.log || true)
[ "$n" -eq $COUNT ] || fail "client printed $n verified pings, want $COUNT"
wait_for 10 "no CM id left" cm_ids_empty
say "ok: $COUNT verified rpings over rxe0 ($ADDR_R)"

# IPv6 (the GID of a global address; rdma_cm header with IP version 6).
PORT=7275
bg /tmp/rxe-rping6-server.log rping -s -v -V -a "$ADDR_R6" -p $PORT -C 3
server=$LAST_PID
wait_for 10 "the rping server listening on [$ADDR_R6]:$PORT" cm_id_listening $PORT
rc=0 src=0
run_to /tmp/rxe-rping6-client.log "$STEP" rping -c -v -V -a "$ADDR_R6" -p $PORT -C 3 || rc=$?
wait_pid "$server" "$STEP" || src=$?
show /tmp/rxe-rping6-server.log
[ "$rc" -eq 0 ] || fail "rping (IPv6) client exit status $rc"
[ "$src" -eq 0 ] || fail "rping (IPv6) server exit status $src"
[ "$(grep -c 'ping data: rdma-ping-' /tmp/rxe-rping6-client.log)" -eq 3 ] ||
	fail "rping (IPv6): not 3 verified pings"
wait_for 10 "no CM id left" cm_ids_empty
say "ok: 3 verified rpings over rxe0 ($ADDR_R6)"
