#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# cmtime (librdmacm's connection setup timer) over RoCE, on two rxe devices
# on a veth pair: 50 connections set up and torn down, none failing.
# (perftest's ib_write_bw -R connects and transfers here too, but it cannot
# report in this VM: it samples the CPU clock, which is too noisy under UML
# ("Correlation coefficient r^2 < 0.9"), and one side then waits for the
# other for good; it is left out of the suite.)
# orcm-timeout: 240
# shellcheck source=tests/e2e/lib.bash
. "$(dirname "$0")/lib.bash"
# shellcheck source=tests/e2e/rxe-lib.bash
. "$(dirname "$0")/rxe-lib.bash"
setup_rxe_pair

bg /tmp/cmtime-server.log cmtime -b "$RADDR_B" -p 7342
server=$LAST_PID
wait_for 10 "cmtime server listening" cm_id_listening 7342
rc=0
run_to /tmp/cmtime-client.log "$STEP" cmtime -s "$RADDR_B" -p 7342 -c 50 || rc=$?
# The server serves until it is stopped.
kill "$server" 2>/dev/null || true
wait_pid "$server" "$STEP" || true
show /tmp/cmtime-server.log
[ "$rc" -eq 0 ] || fail "cmtime client exit status $rc"
grep -q 'connect' /tmp/cmtime-client.log || fail "cmtime printed no connect step"
if grep -qE '^failure|^event:|ERROR' /tmp/cmtime-client.log; then
	fail "cmtime reported a failure"
fi
wait_for 20 "no CM id left after cmtime" cm_ids_empty
say "ok: cmtime over rxe, 50 connections"
