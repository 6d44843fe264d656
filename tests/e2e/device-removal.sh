#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# RDMA devices going away and coming back under live ids:
# - `rdma link delete` of a device with a listener bound to it, a connected
#   id on it and a wildcard listener's per-device listener completes (the CM
#   sends DEVICE_REMOVAL; rdma_ucm closes the ids), and the processes bound
#   to it see the removal and exit by themselves: the rping server bound to
#   siwB (and connected) prints "cma detected device removal!!!!" and exits
#   with status 255 (exit(-1)), a cmprobe listener bound to siwB prints
#   DEVICE_REMOVAL and exits 1;
# - the wildcard listener survives, and a device added later gets a
#   listener too: a client connects through it.
# shellcheck source=tests/e2e/lib.bash
. "$(dirname "$0")/lib.bash"
# shellcheck source=tests/e2e/cmprobe.bash
. "$(dirname "$0")/cmprobe.bash"
setup_pair
BOUND=7180 ANY=7181 PROBE=7182

# No -v: with its ping log on stdout, rping's exit can lose the stderr line.
bg /tmp/rm-bound.log "${IN_B[@]}" rping -s -a "$ADDR_B" -p $BOUND -C 1000000
bound=$LAST_PID
bg /tmp/rm-any.log "${IN_B[@]}" rping -s -v -V -a 0.0.0.0 -p $ANY -C 2
# A wildcard listener's per-device ids: the stock rdma_cm lists them without a
# port ("siwB/-"); either form is fine.
any=$LAST_PID
wait_for 10 "listener on $ADDR_B:$BOUND" cm_id_listening $BOUND
wait_for 10 "wildcard listener on siwB" \
	bash -c "rdma res show cm_id | grep -qE 'siwB/(1|-) .*state LISTEN .*:$ANY( |\$)'"
bg /tmp/rm-probe.log "${IN_B[@]}" "$CMPROBE" -s -b "$ADDR_B" -p $PROBE -T 60
probe=$LAST_PID
wait_for 10 "cmprobe listener on $ADDR_B:$PROBE" listening rm-probe
bg /tmp/rm-client.log "${IN_A[@]}" rping -c -a "$ADDR_B" -p $BOUND -C 1000000 -S 64
client=$LAST_PID
wait_for 10 "connected to $ADDR_B:$BOUND" \
	bash -c "rdma res show cm_id | grep -q 'siwB/1 .*state CONNECT .*src-addr $ADDR_B:$BOUND'"
say "before the removal:"
cm_ids

rc=0
run_to /tmp/rm-delete.log 20 rdma link delete siwB || rc=$?
[ "$rc" -eq 0 ] || fail "rdma link delete siwB: status $rc (124 = hung)"
rc=0
wait_pid "$bound" 10 || rc=$?
say "rping server bound to siwB after the removal (exit status $rc):"
show /tmp/rm-bound.log
[ "$rc" -ne 124 ] || fail "the rping server bound to siwB did not exit by itself"
grep -qx 'cma detected device removal!!!!' /tmp/rm-bound.log ||
	fail "the rping server bound to siwB did not report the device removal"
[ "$rc" -eq 255 ] || fail "the rping server bound to siwB: exit status $rc, want 255 (its error exit)"
rc=0
wait_pid "$probe" 10 || rc=$?
show /tmp/rm-probe.log
[ "$rc" -ne 124 ] || fail "the cmprobe listener bound to siwB did not exit by itself"
has_line rm-probe "event DEVICE_REMOVAL status 0 pdata 0"
[ "$rc" -eq 1 ] || fail "the cmprobe listener bound to siwB: exit status $rc, want 1"
kill -0 "$any" 2>/dev/null || { show /tmp/rm-any.log; fail "the wildcard server died with siwB"; }
if cm_ids | grep -q 'siwB'; then cm_ids; fail "ids left on the removed siwB"; fi
# The client (on siwA) sees its peer go; rping 44 then sometimes exits and
# sometimes sleeps forever after "rping client failed" (seen on the stock
# stack too): not asserted.
kill -KILL "$client" 2>/dev/null || true
wait_pid "$client" 10 || true
show /tmp/rm-client.log

# A device that comes back gets the wildcard listener too.
in_b rdma link add siwB type siw netdev vB
wait_for 10 "siwB ACTIVE again" siw_active
wait_for 10 "wildcard listener on the new siwB" \
	bash -c "rdma res show cm_id | grep -qE 'siwB/(1|-) .*state LISTEN .*:$ANY( |\$)'"
run_to /tmp/rm-again.log "$STEP" "${IN_A[@]}" rping -c -v -V -a "$ADDR_B" -p $ANY -C 2 ||
	fail "rping through the re-added siwB failed"
src=0
wait_pid "$any" "$STEP" || src=$?
[ "$src" -eq 0 ] || { show /tmp/rm-any.log; fail "wildcard server: exit status $src"; }
wait_for 10 "no CM id left" cm_ids_empty
say "ok: removal under live ids completes; wildcard listeners follow devices"
