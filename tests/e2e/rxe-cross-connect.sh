#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Both hosts connect to each other at once, over two rxe devices on a veth
# pair: a ucmatose server on each end and, started together, a client on
# each end connecting 64 RC connections to the other end's server. Each
# CM sends REQs and answers REQs at the same time (REPs must not queue
# behind the REQs it sends); every connection completes, none left behind.
# orcm-timeout: 240
# shellcheck source=tests/e2e/lib.bash
. "$(dirname "$0")/lib.bash"
# shellcheck source=tests/e2e/rxe-lib.bash
. "$(dirname "$0")/rxe-lib.bash"
setup_rxe_pair
N=64
bg /tmp/x-server-a.log ucmatose -b "$RADDR_A" -p 7330 -c $N -C 2
sa=$LAST_PID
bg /tmp/x-server-b.log ucmatose -b "$RADDR_B" -p 7331 -c $N -C 2
sb=$LAST_PID
wait_for 10 "both servers listening" bash -c "rdma res show cm_id | grep -q ':7330 ' && rdma res show cm_id | grep -q ':7331 '"
bg /tmp/x-client-a.log ucmatose -s "$RADDR_B" -p 7331 -b "$RADDR_A" -c $N -C 2
ca=$LAST_PID
bg /tmp/x-client-b.log ucmatose -s "$RADDR_A" -p 7330 -b "$RADDR_B" -c $N -C 2
cb=$LAST_PID
rc=0
for p in $ca $cb $sa $sb; do
	wait_pid "$p" 120 || rc=$?
	[ "$rc" -eq 0 ] || break
done
for f in client-a client-b server-a server-b; do
	say "$f:"
	tail -n 4 "/tmp/x-$f.log" | sed 's/^/  /'
done
[ "$rc" -eq 0 ] || fail "a ucmatose exited with $rc (124: it hung)"
for f in client-a client-b server-a server-b; do
	grep -q 'test complete' "/tmp/x-$f.log" || fail "$f did not complete"
done
wait_for 20 "no CM id left" cm_ids_empty
say "ok: $N connections each way at once"
