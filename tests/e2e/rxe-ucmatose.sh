#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# ucmatose (RDMA_PS_TCP) over RoCE (rdma_rxe, client and server on rxe0):
# 4 connections, 20 messages each, both ends exit 0, no CM id left; then 2
# connections with a type of service (rdma_set_service_type(): the path's
# traffic class and SL) and an ACK timeout (rdma_set_ack_timeout(): the
# QP's timeout) set on the client.
# shellcheck source=tests/e2e/lib.bash
. "$(dirname "$0")/lib.bash"
setup_rxe
PORT=7571

bg /tmp/rxe-ucmatose-server.log ucmatose -b "$ADDR_R" -P tcp -p $PORT -c 4 -C 20
server=$LAST_PID
wait_for 10 "the ucmatose server listening on $ADDR_R:$PORT" cm_id_listening $PORT
rc=0 src=0
run_to /tmp/rxe-ucmatose-client.log "$STEP" ucmatose -s "$ADDR_R" -b "$ADDR_R" -P tcp -p $PORT -c 4 -C 20 || rc=$?
wait_pid "$server" "$STEP" || src=$?
say "server output:"
show /tmp/rxe-ucmatose-server.log
[ "$rc" -eq 0 ] || fail "ucmatose client exit status $rc"
[ "$src" -eq 0 ] || fail "ucmatose server exit status $src"
for f in /tmp/rxe-ucmatose-client.log /tmp/rxe-ucmatose-server.log; do
	grep -q 'data transfers complete' "$f" || fail "$f: no 'data transfers complete'"
	grep -q 'return status 0' "$f" || fail "$f: no 'return status 0'"
done
wait_for 10 "no CM id left" cm_ids_empty
say "ok: ucmatose over rxe0, 4 connections x 20 messages"

PORT=7572
bg /tmp/rxe-ucmatose-tos-server.log ucmatose -b "$ADDR_R" -P tcp -p $PORT -c 2 -C 10
server=$LAST_PID
wait_for 10 "the ucmatose server listening on $ADDR_R:$PORT" cm_id_listening $PORT
rc=0 src=0
run_to /tmp/rxe-ucmatose-tos-client.log "$STEP" ucmatose -s "$ADDR_R" -P tcp -p $PORT -c 2 -C 10 -t 96 -a 18 || rc=$?
wait_pid "$server" "$STEP" || src=$?
show /tmp/rxe-ucmatose-tos-server.log
[ "$rc" -eq 0 ] || fail "ucmatose -t 96 -a 18: client exit status $rc"
[ "$src" -eq 0 ] || fail "ucmatose -t 96 -a 18: server exit status $src"
grep -q 'data transfers complete' /tmp/rxe-ucmatose-tos-client.log ||
	fail "ucmatose -t 96 -a 18: no 'data transfers complete'"
wait_for 10 "no CM id left" cm_ids_empty
say "ok: ucmatose over rxe0 with ToS 96 and ACK timeout 18"
