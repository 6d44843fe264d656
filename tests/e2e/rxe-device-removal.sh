#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# An RoCE device (rdma_rxe) going away and coming back under live ids that
# sit on ib_cm: `rdma link delete rxe0` with a listener bound to it, a
# connection on it (both ends on rxe0), a cmprobe listener and a wildcard
# listener's per-device listener completes; the processes bound to it see
# DEVICE_REMOVAL and exit by themselves (rping server: "cma detected device
# removal!!!!", status 255; cmprobe: DEVICE_REMOVAL, status 1); the
# wildcard listener survives, and the re-added rxe0 gets a listener too: a
# client connects through it.
# shellcheck source=tests/e2e/lib.bash
. "$(dirname "$0")/lib.bash"
# shellcheck source=tests/e2e/cmprobe.bash
. "$(dirname "$0")/cmprobe.bash"
setup_rxe
BOUND=7680 ANY=7681 PROBE=7682

# No -v: with its ping log on stdout, rping's exit can lose the stderr line.
bg /tmp/rxm-bound.log rping -s -a "$ADDR_R" -p $BOUND -C 1000000
bound=$LAST_PID
bg /tmp/rxm-any.log rping -s -v -V -a 0.0.0.0 -p $ANY -C 2
any=$LAST_PID
wait_for 10 "listener on $ADDR_R:$BOUND" cm_id_listening $BOUND
wait_for 10 "wildcard listener on rxe0" \
	bash -c "rdma res show cm_id | grep -qE 'rxe0/(1|-) .*state LISTEN .*:$ANY( |\$)'"
bg /tmp/rxm-probe.log "$CMPROBE" -s -b "$ADDR_R" -p $PROBE -T 60
probe=$LAST_PID
wait_for 10 "cmprobe listener on $ADDR_R:$PROBE" listening rxm-probe
bg /tmp/rxm-client.log rping -c -a "$ADDR_R" -p $BOUND -C 1000000 -S 64
client=$LAST_PID
wait_for 10 "connected to $ADDR_R:$BOUND" \
	bash -c "rdma res show cm_id | grep -q 'rxe0/1 .*state CONNECT .*src-addr $ADDR_R:$BOUND'"
say "before the removal:"
cm_ids

rc=0
run_to /tmp/rxm-delete.log 20 rdma link delete rxe0 || rc=$?
[ "$rc" -eq 0 ] || fail "rdma link delete rxe0: status $rc (124 = hung)"
rc=0
wait_pid "$bound" 10 || rc=$?
say "rping server bound to rxe0 after the removal (exit status $rc):"
show /tmp/rxm-bound.log
[ "$rc" -ne 124 ] || fail "the rping server bound to rxe0 did not exit by itself"
grep -qx 'cma detected device removal!!!!' /tmp/rxm-bound.log ||
	fail "the rping server bound to rxe0 did not report the device removal"
[ "$rc" -eq 255 ] || fail "the rping server bound to rxe0: exit status $rc, want 255"
rc=0
wait_pid "$probe" 10 || rc=$?
show /tmp/rxm-probe.log
[ "$rc" -ne 124 ] || fail "the cmprobe listener bound to rxe0 did not exit by itself"
has_line rxm-probe "event DEVICE_REMOVAL status 0 pdata 0"
[ "$rc" -eq 1 ] || fail "the cmprobe listener bound to rxe0: exit status $rc, want 1"
kill -0 "$any" 2>/dev/null || { show /tmp/rxm-any.log; fail "the wildcard server died with rxe0"; }
kill -KILL "$client" 2>/dev/null || true
wait_pid "$client" 10 || true
show /tmp/rxm-client.log
if cm_ids | grep -q 'rxe0'; then cm_ids; fail "ids left on the removed rxe0"; fi

# A device that comes back gets the wildcard listener too.
rdma link add rxe0 type rxe netdev vR
wait_for 10 "rxe0 ACTIVE again" rxe_active
wait_for 10 "wildcard listener on the new rxe0" \
	bash -c "rdma res show cm_id | grep -qE 'rxe0/(1|-) .*state LISTEN .*:$ANY( |\$)'"
run_to /tmp/rxm-again.log "$STEP" rping -c -v -V -a "$ADDR_R" -p $ANY -C 2 ||
	fail "rping through the re-added rxe0 failed"
src=0
wait_pid "$any" "$STEP" || src=$?
[ "$src" -eq 0 ] || { show /tmp/rxm-any.log; fail "wildcard server: exit status $src"; }
wait_for 10 "no CM id left" cm_ids_empty
say "ok: RoCE device removal under live ids completes; wildcard listeners follow"
