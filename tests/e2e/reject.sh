#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Connecting to a port nobody listens on fails cleanly and quickly: the client
# sees REJECTED (the event) or "Connection refused" (rdma_connect's error), and
# exits non-zero; no CM id is left behind.
# shellcheck source=tests/e2e/lib.bash
. "$(dirname "$0")/lib.bash"
setup_pair
PORT=7999

rc=0
run_to /tmp/reject-client.log 20 "${IN_A[@]}" rping -c -d -v -a "$ADDR_B" -p $PORT -C 1 || rc=$?
case $rc in 124 | 137) fail "the client hung (timeout)" ;; esac
[ "$rc" -ne 0 ] || fail "the client exited 0 although nobody listens"
grep -Eq 'REJECTED|Connection refused' /tmp/reject-client.log ||
	fail "the client did not report REJECTED or Connection refused"
grep -q 'ESTABLISHED' /tmp/reject-client.log && fail "the client saw ESTABLISHED"
wait_for 5 "no CM id left" cm_ids_empty
say "ok: connect to $ADDR_B:$PORT refused (client rc=$rc)"
