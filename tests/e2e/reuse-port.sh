#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# A port comes back as soon as its owner is gone, and not before:
# - a server that served and exited is restarted on the same port at once:
#   rping, rdma_server, cmprobe without and with RDMA_OPTION_ID_REUSEADDR;
# - a server SIGKILLed with a live connection: its port is free again at once
#   (a new listener on it serves) while the old client finds out by itself;
# - while a listener holds the port, a second bind fails, with the errno the
#   stock stack gives: same address EADDRINUSE, a wildcard on either side
#   EADDRNOTAVAIL, with REUSEADDR too (a listening id does not share its
#   port; rdma_listen clears the listener's REUSEADDR);
# - two clients on one source address and port: refused without REUSEADDR,
#   allowed with it on both.
# No CM id is left.
# shellcheck source=tests/e2e/lib.bash
. "$(dirname "$0")/lib.bash"
# shellcheck source=tests/e2e/cmprobe.bash
. "$(dirname "$0")/cmprobe.bash"
setup_pair
PORT=7440

# served NAME SERVER-PID CLIENT-RC: both ends of one run finished well.
served() {
	local src=0
	wait_pid "$2" 10 || src=$?
	show "/tmp/$1-server.log"
	[ "$3" -eq 0 ] || fail "$1: client exit status $3"
	[ "$src" -eq 0 ] || fail "$1: server exit status $src"
}

for i in 1 2; do
	bg "/tmp/rping-$i-server.log" "${IN_B[@]}" rping -s -v -a "$ADDR_B" -p $PORT -C 1
	server=$LAST_PID
	wait_for 10 "rping server $i listening" cm_id_listening $PORT
	rc=0
	run_to "/tmp/rping-$i.log" "$STEP" "${IN_A[@]}" rping -c -v -a "$ADDR_B" -p $PORT -C 1 || rc=$?
	served "rping-$i" "$server" "$rc"
done
say "rping restarted on port $PORT"

for i in 1 2; do
	bg "/tmp/rdma_server-$i-server.log" "${IN_B[@]}" rdma_server -s "$ADDR_B" -p $PORT
	server=$LAST_PID
	wait_for 10 "rdma_server $i listening" cm_id_listening $PORT
	rc=0
	run_to "/tmp/rdma_server-$i.log" "$STEP" "${IN_A[@]}" rdma_client -s "$ADDR_B" -p $PORT || rc=$?
	served "rdma_server-$i" "$server" "$rc"
	grep -q 'rdma_client: end 0' "/tmp/rdma_server-$i.log" || fail "rdma_server-$i: no 'rdma_client: end 0'"
done
say "rdma_server restarted on port $PORT"

for reuse in '' -R '' -R; do
	name=cmprobe${reuse}
	bg "/tmp/$name-server.log" "${IN_B[@]}" "$CMPROBE" -s $reuse -b "$ADDR_B" -p $PORT -n 1 -T 20
	server=$LAST_PID
	wait_for 10 "$name server listening" listening "$name-server"
	expect_result "$name" "$STEP" "ESTABLISHED status 0" "${IN_A[@]}" "$CMPROBE" -c -a "$ADDR_B" -p $PORT
	served "$name" "$server" 0
done
say "cmprobe restarted with and without REUSEADDR"

# A server killed with a live connection.
bg /tmp/killed-server.log "${IN_B[@]}" rping -s -a "$ADDR_B" -p $PORT -C 1000000
server=$LAST_PID
wait_for 10 "rping server listening" cm_id_listening $PORT
bg /tmp/orphan-client.log "${IN_A[@]}" "$CMPROBE" -c -a "$ADDR_B" -p $PORT -H 60000 -T 90
client=$LAST_PID
wait_for 10 "connected" \
	bash -c "rdma res show cm_id | grep -q 'siwB/1 .*state CONNECT .*src-addr $ADDR_B:$PORT'"
kill -KILL "$server"
wait_pid "$server" 10 || true
bg /tmp/after-kill-server.log "${IN_B[@]}" "$CMPROBE" -s -b "$ADDR_B" -p $PORT -n 1 -T 20
after=$LAST_PID
wait_for 10 "a new server on port $PORT" listening after-kill-server
expect_result after-kill "$STEP" "ESTABLISHED status 0" "${IN_A[@]}" "$CMPROBE" -c -a "$ADDR_B" -p $PORT
served after-kill "$after" 0
rc=0
wait_pid "$client" 15 || rc=$?
show /tmp/orphan-client.log
[ "$rc" -ne 124 ] || fail "the client of the killed server did not end by itself"
has_line orphan-client "result DISCONNECTED status 0"
say "the port of a SIGKILLed server serves again at once; its client saw DISCONNECTED"

# REUSEADDR between ids that do not listen: a client holds source port 7441
# (with REUSEADDR); a second client from the same address and port is refused
# at bind (rdma_resolve_addr: EADDRINUSE) unless it sets REUSEADDR too, and
# then it connects (to another server port: a distinct TCP 4-tuple).
bg /tmp/src-server.log "${IN_B[@]}" "$CMPROBE" -s -b "$ADDR_B" -p $PORT -T 20
src_server=$LAST_PID
bg /tmp/src-server2.log "${IN_B[@]}" "$CMPROBE" -s -b "$ADDR_B" -p 7442 -T 20
src_server2=$LAST_PID
wait_for 10 "source-port servers listening" bash -c 'grep -q ^listening /tmp/src-server.log &&
	grep -q ^listening /tmp/src-server2.log'
bg /tmp/src-first.log "${IN_A[@]}" "$CMPROBE" -c -a "$ADDR_B" -p $PORT -b "$ADDR_A" -S 7441 -R -H 3000
first=$LAST_PID
wait_for 10 "the first client connected from port 7441" grep -qx 'event ESTABLISHED status 0 pdata 0' /tmp/src-first.log
probe src-plain 10 "${IN_A[@]}" "$CMPROBE" -c -a "$ADDR_B" -p 7442 -b "$ADDR_A" -S 7441
want_line src-plain "result error rdma_resolve_addr EADDRINUSE"
probe src-reuse 10 "${IN_A[@]}" "$CMPROBE" -c -a "$ADDR_B" -p 7442 -b "$ADDR_A" -S 7441 -R
want_line src-reuse "result ESTABLISHED status 0"
grep -qE "^route $ADDR_A port 7441 on siwA$" /tmp/src-reuse.log || mismatch "src-reuse: not from port 7441"
rc=0
wait_pid "$first" 10 || rc=$?
show /tmp/src-first.log
[ "$rc" -eq 0 ] || fail "the first client on source port 7441: exit status $rc"
kill "$src_server" "$src_server2" 2>/dev/null || true
wait_pid "$src_server" 5 || true
wait_pid "$src_server2" 5 || true

# Conflicts while a listener holds the port.
# conflict NAME WANT CMPROBE-OPTIONS...: a second server in orcmB fails to bind.
conflict() {
	local name=$1 want=$2
	shift 2
	probe "$name" 10 "${IN_B[@]}" "$CMPROBE" -s -p $PORT -T 5 "$@"
	want_line "$name" "$want"
	want_rc "$name" "$PROBE_RC" 1
}
# Names: <holder>-<second bind>, "R" = with REUSEADDR.
for reuse in '' -R; do
	h=holder${reuse:+-R}
	bg "/tmp/$h.log" "${IN_B[@]}" "$CMPROBE" -s $reuse -b "$ADDR_B" -p $PORT -T 30
	holder=$LAST_PID
	wait_for 10 "$h listening" listening "$h"
	conflict "$h-same-addr" "error rdma_bind_addr EADDRINUSE" -b "$ADDR_B"
	conflict "$h-same-addr-R" "error rdma_bind_addr EADDRINUSE" -b "$ADDR_B" -R
	conflict "$h-wildcard" "error rdma_bind_addr EADDRNOTAVAIL" -b 0.0.0.0
	conflict "$h-wildcard-R" "error rdma_bind_addr EADDRNOTAVAIL" -b 0.0.0.0 -R
	kill -0 "$holder" || fail "$h died"
	expect_result "$h-serves" "$STEP" "ESTABLISHED status 0" "${IN_A[@]}" "$CMPROBE" -c -a "$ADDR_B" -p $PORT
	kill "$holder"
	wait_pid "$holder" 5 || true
done
# A wildcard holder: a specific address on its port conflicts too.
bg /tmp/any-holder.log "${IN_B[@]}" "$CMPROBE" -s -b 0.0.0.0 -p $PORT -T 30
holder=$LAST_PID
wait_for 10 "any-holder listening" listening any-holder
conflict any-holder-same-addr "error rdma_bind_addr EADDRNOTAVAIL" -b "$ADDR_B"
conflict any-holder-wildcard "error rdma_bind_addr EADDRNOTAVAIL" -b 0.0.0.0
kill "$holder"
wait_pid "$holder" 5 || true
mismatches_fail
wait_for 10 "no CM id left" cm_ids_empty
say "ok: ports are reused at once, and conflicts fail with the stock errnos"
