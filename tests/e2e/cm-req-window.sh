#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# orcm-timeout: 180
# REQ pacing per port (issue 40; ib_cm/pace.c): with ib_cm.req_window=4, at
# most 4 REQs of a port wait for their answer at a time; the others wait in
# order and go out as earlier ones are answered. Over two rxe devices on a
# veth pair (tests/e2e/rxe-lib.bash), stock ucmatose connects 64 RC
# connections at once from rxeA to a ucmatose server on rxeB: every one
# completes with its data, REQs waited for a slot (tx_req_paced in
# /sys/kernel/debug/ib_cm/counters), none was resent (a REQ's timeout
# starts when it is sent), and no CM id is left. The same run with the
# window at 0, the default, queues nothing (as in-tree, which paces
# nothing). Ours only: in-tree has no window.
# shellcheck source=tests/e2e/lib.bash
. "$(dirname "$0")/lib.bash"
# shellcheck source=tests/e2e/rxe-lib.bash
. "$(dirname "$0")/rxe-lib.bash"
[ "${ORCM_STACK:-}" = ours ] || skip "REQ pacing is ours (in-tree sends every REQ at once)"
PARAM=/sys/module/ib_cm/parameters/req_window
CNT=/sys/kernel/debug/ib_cm/counters
[ -w "$PARAM" ] || fail "no $PARAM"
W0=$(cat "$PARAM")
[ "$W0" = 0 ] || fail "ib_cm.req_window is $W0, the default is 0"
window_exit() {
	local rc=$?
	echo "$W0" >"$PARAM" || true
	rxe_cleanup
	cleanup
	exit $rc
}
setup_rxe_pair
trap window_exit EXIT
N=64
SA=/sys/class/infiniband/$RXE_A/ports/1
paced() { awk '$1 == "tx_req_paced" { print $2 }' "$CNT"; }

# storm TAG PORT: N connections at once from rxeA to rxeB; sets PACED (REQs
# that waited) and RESENT (REQ resends from rxeA).
storm() {
	local tag=$1 port=$2 p0 r0 srv cli rc=0
	p0=$(paced) r0=$(cat "$SA/cm_tx_retries/req")
	bg "/tmp/$tag-server.log" ucmatose -b "$RADDR_B" -p "$port" -c $N -C 2
	srv=$LAST_PID
	wait_for 10 "$tag: the server listening" bash -c "rdma res show cm_id | grep -q ':$port '"
	bg "/tmp/$tag-client.log" ucmatose -s "$RADDR_B" -p "$port" -b "$RADDR_A" -c $N -C 2
	cli=$LAST_PID
	wait_pid "$cli" 90 || rc=$?
	[ "$rc" -ne 0 ] || wait_pid "$srv" 30 || rc=$?
	show "/tmp/$tag-client.log" | tail -n 4
	[ "$rc" -eq 0 ] || fail "$tag: a ucmatose exited with $rc (124: it hung)"
	grep -q 'test complete' "/tmp/$tag-client.log" || fail "$tag: the client did not complete"
	grep -q 'test complete' "/tmp/$tag-server.log" || fail "$tag: the server did not complete"
	PACED=$(($(paced) - p0))
	RESENT=$(($(cat "$SA/cm_tx_retries/req") - r0))
	wait_for 20 "$tag: no CM id left" cm_ids_empty
	say "$tag: $N connections at once: $PACED REQ(s) waited for a slot, $RESENT resent"
}

echo 4 >"$PARAM"
storm window4 7520
[ "$PACED" -gt 0 ] || fail "window 4: no REQ of $N at once waited for a slot"
[ "$RESENT" -eq 0 ] || fail "window 4: $RESENT REQ(s) resent"
say "ok: window 4: every connection made, $PACED REQs paced, none resent"

echo 0 >"$PARAM"
storm window0 7521
[ "$PACED" -eq 0 ] || fail "window 0 (the default): $PACED REQ(s) still waited"
say "ok: window 0: nothing paced"
