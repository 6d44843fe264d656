#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# ucmatose (RDMA_PS_TCP): 4 connections, 20 messages each, both ends exit 0.
# shellcheck source=tests/e2e/lib.bash
. "$(dirname "$0")/lib.bash"
setup_pair
PORT=7471

bg /tmp/ucmatose-server.log "${IN_B[@]}" ucmatose -b "$ADDR_B" -P tcp -p $PORT -c 4 -C 20
server=$LAST_PID
wait_for 10 "the ucmatose server listening on $ADDR_B:$PORT" cm_id_listening $PORT

rc=0
run_to /tmp/ucmatose-client.log "$STEP" "${IN_A[@]}" ucmatose -s "$ADDR_B" -b "$ADDR_A" -P tcp -p $PORT -c 4 -C 20 || rc=$?
src=0
wait_pid "$server" "$STEP" || src=$?
say "server output:"
show /tmp/ucmatose-server.log
[ "$rc" -eq 0 ] || fail "ucmatose client exit status $rc"
[ "$src" -eq 0 ] || fail "ucmatose server exit status $src"
for f in /tmp/ucmatose-client.log /tmp/ucmatose-server.log; do
	grep -q 'data transfers complete' "$f" || fail "$f: no 'data transfers complete'"
	grep -q 'return status 0' "$f" || fail "$f: no 'return status 0'"
done
wait_for 5 "no CM id left" cm_ids_empty
say "ok: ucmatose 4 connections x 20 messages"
