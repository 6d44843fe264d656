#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# orcm-timeout: 120
# A DREQ waiting for its DREP when its source GID leaves the GID table
# (our ib_cm's cm_cancel_stale_sends(); docs/tracking.md). One rxe device
# (rxeS on vS0, a veth); a cmprobe client connects to a cmprobe server on
# vS0's address; once ESTABLISHED the server process is stopped (SIGSTOP),
# so that the DISCONNECTED its id gets stays unread and no DREP answers the
# client's DREQ; the DREQ is sent (ib_cm's tx counter moves) and waits.
# Then the address is removed: ib_core deletes its GID, which the ids'
# AHs name by index. Ours cancels the waiting DREQ at once
# (tx_stale_cancelled) and ends it as a timeout (the client gets
# DISCONNECTED, the cm id enters timewait); it never resends it through the
# old AH (cm_tx_retries/dreq stays 0); QP1 stays RTS, and with the address
# back a new connection works. (A bond failover deletes the GIDs the same
# way, but also delivers ADDR_CHANGE, on which the client gives up first.)
# Not on the stock stack: the in-tree CM resends the DREQ through the old
# AH about 5 s later, rxe fails that send and leaves the port's QP1 in error
# for good, which would end every RoCE test after this one in the stock VM.
if [ "${ORCM_STACK:-}" = stock ]; then
	echo "## SKIP: on the stock stack the in-tree CM resends the DREQ through the stale AH and rxe puts QP1 in error for good (see the head of this script)"
	exit 77 # a skip (tests/e2e/lib.bash: skip)
fi
# shellcheck source=tests/e2e/lib.bash
. "$(dirname "$0")/lib.bash"
# shellcheck source=tests/e2e/cmprobe.bash
. "$(dirname "$0")/cmprobe.bash"
ADDR=198.18.10.5 PORT=7612
CNT=/sys/kernel/debug/ib_cm/counters
SYS=/sys/class/infiniband/rxeS/ports/1
stale_cleanup() {
	rdma link delete rxeS 2>/dev/null || true
	ip link delete vS0 2>/dev/null || true
}
trap 'cleanup; stale_cleanup' EXIT
ip link add vS0 type veth peer name vS1
ip link set vS1 up
ip addr add "$ADDR/24" dev vS0
ip link set vS0 up
rdma link add rxeS type rxe netdev vS0
rxes_active() { rdma link show rxeS/1 | grep -q 'state ACTIVE'; }
wait_for 10 "rxeS ACTIVE" rxes_active

gids() { local i; for i in 0 1 2 3; do printf '%s:%s ' "$i" "$(cat "$SYS/gids/$i" 2>/dev/null)"; done; }
gsi_state() { qp1_state rxeS; }
established() { grep -q '^event ESTABLISHED ' "/tmp/$1.log"; }
dreq_sent() { [ "$(ibcm_counter tx)" -gt "$tx0" ]; }
stale_cancelled() { [ "$(ibcm_counter tx_stale_cancelled)" -gt "$st0" ]; }

cmprobe_server stale-server -b "$ADDR" -p $PORT -n 1 -T 40
server=$SERVER
bg /tmp/stale-client.log "$CMPROBE" -c -a "$ADDR" -p $PORT -H 1000 -T 30
client=$LAST_PID
wait_for 10 "the server's connection ESTABLISHED" established stale-server
kill -STOP "$server"
tx0=$(ibcm_counter tx) st0=$(ibcm_counter tx_stale_cancelled)
wait_for 10 "the client's DREQ sent" dreq_sent
sleep 0.3
kill -0 "$client" 2>/dev/null || fail "the client ended before its DREQ was answered: $(tail -n 2 /tmp/stale-client.log)"
say "GIDs with the DREQ waiting: $(gids)"
ip addr del "$ADDR/24" dev vS0
for ((i = 0; i < 100; i++)); do stale_cancelled && break; sleep 0.1; done
say "GIDs after the address went: $(gids)"
say "ib_cm (ours): $(grep -E '^(tx|tx_err|tx_stale_cancelled|timeout) ' "$CNT" | tr '\n' ' ')"
stale_cancelled || fail "the waiting DREQ was not cancelled within 10 s of the address removal"
say "the waiting DREQ cancelled $((i / 10)).$((i % 10)) s after the address removal"
wait_pid "$client" 10 || true
kill -0 "$client" 2>/dev/null && fail "the client still waits for its DISCONNECTED"
show /tmp/stale-client.log
grep -q '^event DISCONNECTED ' /tmp/stale-client.log || fail "the client's id got no DISCONNECTED"
kill -CONT "$server"
wait_pid "$server" "$STEP" || true
show /tmp/stale-server.log
[ "$(cat "$SYS/cm_tx_retries/dreq")" = 0 ] ||
	fail "the DREQ was resent: cm_tx_retries/dreq $(cat "$SYS/cm_tx_retries/dreq")"
[ "$(gsi_state)" = "state RTS" ] || fail "QP1 is not RTS after the address removal: $(gsi_state)"
wait_for 10 "no CM id left" cm_ids_empty

# The port still carries CM MADs: with the address back, a new connection.
ip addr add "$ADDR/24" dev vS0
cmprobe_server stale-server2 -b "$ADDR" -p $PORT -n 1 -T 20
server=$SERVER
rc=0
run_to /tmp/stale-client2.log "$STEP" "$CMPROBE" -c -a "$ADDR" -p $PORT -H 100 -T 15 || rc=$?
wait_pid "$server" "$STEP" || true
show /tmp/stale-client2.log
[ "$rc" -eq 0 ] || fail "a new connection after the address came back: client exit status $rc"
[ "$(gsi_state)" = "state RTS" ] || fail "QP1 is not RTS after the new connection: $(gsi_state)"
wait_for 10 "no CM id left" cm_ids_empty
say "ok: a DREQ waiting when its GID went was cancelled, not resent; QP1 RTS; a new connection works"
