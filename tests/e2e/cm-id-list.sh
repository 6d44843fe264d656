#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# `rdma res show cm_id` (the stock ib_core reading our ids through restrack)
# lists a listening rping server with its device, state, port space and address,
# then the connected ids on both sides, and nothing once everything is gone.
# shellcheck source=tests/e2e/lib.bash
. "$(dirname "$0")/lib.bash"
setup_pair
PORT=7177

cm_ids_empty || { cm_ids; fail "CM ids listed before the test started"; }
# rping has no delay between pings: a huge count keeps the connection up until
# we kill both ends (no -v, so nothing floods the log).
bg /tmp/cmid-server.log "${IN_B[@]}" rping -s -a "$ADDR_B" -p $PORT -C 1000000
server=$LAST_PID
wait_for 10 "a LISTEN id on $ADDR_B:$PORT" cm_id_listening $PORT
say "while the server listens:"
cm_ids | tee /tmp/cmid-listen.txt
line=$(grep -E "state LISTEN .*:$PORT( |$)" /tmp/cmid-listen.txt)
[[ $line == link\ siwB/1\ * ]] || fail "the listening id is not on siwB/1: $line"
[[ $line == *" ps TCP "* ]] || fail "the listening id is not in port space TCP: $line"
[[ $line == *"src-addr $ADDR_B:$PORT"* ]] || fail "no src-addr $ADDR_B:$PORT: $line"
[[ $line == *"comm rping"* ]] || fail "no comm rping: $line"

bg /tmp/cmid-client.log "${IN_A[@]}" rping -c -a "$ADDR_B" -p $PORT -C 1000000 -S 64
client=$LAST_PID
wait_for 10 "CONNECT ids on both sides" \
	bash -c "rdma res show cm_id | grep -q 'siwA/1 .*state CONNECT .*dst-addr $ADDR_B:$PORT' &&
		rdma res show cm_id | grep -q 'siwB/1 .*state CONNECT .*src-addr $ADDR_B:$PORT'"
say "while connected:"
cm_ids
kill -KILL "$client" "$server"
wait_pid "$client" 10 || true
wait_pid "$server" 10 || true
wait_for 10 "no CM id left" cm_ids_empty
say "ok: listening and connected ids listed, none left"
