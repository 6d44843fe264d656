#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Unloading the CM while it is in use is refused cleanly and changes nothing:
# with a live rping connection (ids listening and connected, rdma_ucm files
# open), `rmmod rdma_ucm`, `rmmod rdma_cm` and `rmmod iw_cm` fail with "in
# use" within their deadline; every module stays loaded with the same
# reference count, the connection keeps running, and afterwards a new
# connection works. No CM id is left.
# shellcheck source=tests/e2e/lib.bash
. "$(dirname "$0")/lib.bash"
setup_pair
PORT=7470
MODS="rdma_ucm rdma_cm iw_cm"

refcnts() { for m in $MODS; do printf '%s=%s ' "$m" "$(cat "/sys/module/$m/refcnt")"; done; }

bg /tmp/busy-server.log "${IN_B[@]}" rping -s -a "$ADDR_B" -p $PORT -C 1000000
server=$LAST_PID
wait_for 10 "rping server listening" cm_id_listening $PORT
bg /tmp/busy-client.log "${IN_A[@]}" rping -c -v -a "$ADDR_B" -p $PORT -C 1000000 -S 64
client=$LAST_PID
wait_for 10 "connected" \
	bash -c "rdma res show cm_id | grep -q 'siwB/1 .*state CONNECT .*src-addr $ADDR_B:$PORT'"
before=$(refcnts)
say "module reference counts: $before"
for m in $MODS; do
	rc=0
	run_to "/tmp/rmmod-$m.log" 10 rmmod "$m" || rc=$?
	[ "$rc" -ne 124 ] || fail "rmmod $m hung"
	[ "$rc" -ne 0 ] || fail "rmmod $m succeeded while in use"
	grep -q 'in use' "/tmp/rmmod-$m.log" || fail "rmmod $m: not refused as 'in use'"
	[ -d "/sys/module/$m" ] || fail "$m is gone"
done
after=$(refcnts)
[ "$before" = "$after" ] || fail "reference counts changed: $before -> $after"
for p in "$server" "$client"; do kill -0 "$p" || fail "an rping ended during the rmmod attempts"; done
# The connection still carries traffic: the client's ping log keeps growing.
cm_ids | grep -q "siwB/1 .*state CONNECT .*src-addr $ADDR_B:$PORT" || { cm_ids; fail "the connection is gone"; }
s0=$(stat -c %s /tmp/busy-client.log)
wait_for 10 "the rping client still pinging" bash -c "[ \$(stat -c %s /tmp/busy-client.log) -gt $s0 ]"
kill -KILL "$client" "$server"
wait_pid "$client" 10 || true
wait_pid "$server" 10 || true
wait_for 10 "no CM id left after the busy rping" cm_ids_empty

# The stack still works.
bg /tmp/after-server.log "${IN_B[@]}" rping -s -v -V -a "$ADDR_B" -p $PORT -C 3
server=$LAST_PID
wait_for 10 "rping server listening again" cm_id_listening $PORT
rc=0
run_to /tmp/after-client.log "$STEP" "${IN_A[@]}" rping -c -v -V -a "$ADDR_B" -p $PORT -C 3 || rc=$?
src=0
wait_pid "$server" "$STEP" || src=$?
[ "$rc" -eq 0 ] || fail "rping after the rmmod attempts: client exit status $rc"
[ "$src" -eq 0 ] || fail "rping after the rmmod attempts: server exit status $src"
wait_for 10 "no CM id left" cm_ids_empty
say "ok: rmmod of a busy CM refused, counts unchanged, the stack works ($after)"
