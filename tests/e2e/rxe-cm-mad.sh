#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# orcm-timeout: 150
# Crafted and fuzzed CM MADs from the wire (tools/cmfuzz/cmfuzz.py): a fake
# remote CM that exists only as frames written on vRp, the peer end of rxe0's
# veth, and read back from there. RoCEv2 UD to QP1 with a correct ICRC, so
# each MAD goes through the stock rxe and ib_mad into the ib_cm under test,
# behind a cmprobe listener that accepts everything.
#   1. stale: a REQ, then a REQ from the same remote QPN and CA GUID with a new
#      comm id (REJ STALE_CONN), then a fresh REQ must still get its REP
#      (issue 30, defect 0: ours used to hang its MAD completion work here);
#   2. dreq-unknown: a DREQ for a comm id nobody has gets a DREP;
#   3. fuzz: ORCM_FUZZ_COUNT (default 2000) seeded, stateful mutations
#      (ORCM_FUZZ_SEED, default 30) of REQ/REP/RTU/REJ/MRA/DREQ/DREP/LAP/APR/
#      SIDR and random MADs for live comm ids; then a valid REQ is answered,
#      a real rping over rxe0 works and every CM id drains. The fuzzer's
#      draws are the seed's alone: a dry run (no wire) prints the same
#      count and CRC. The CM is shown to have taken every attribute
#      (rxe0's cm_rx_msgs, both stacks) and the fuzzer requires the
#      answers of the REQ, DREQ and SIDR_REQ handlers; on ours the ib_cm
#      counters show the checks that refused MADs (malformed, unknown id,
#      bad state) were reached.
# The stock stack runs the same script: the in-tree CM is the oracle.
# shellcheck source=tests/e2e/lib.bash
. "$(dirname "$0")/lib.bash"
# shellcheck source=tests/e2e/cmprobe.bash
. "$(dirname "$0")/cmprobe.bash"
CMFUZZ=$(cd "$(dirname "$0")/../.." && pwd)/tools/cmfuzz/cmfuzz.py
setup_rxe
PORT=7630 FAKE_IP=198.18.2.77
SEED=${ORCM_FUZZ_SEED:-30} COUNT=${ORCM_FUZZ_COUNT:-2000}
mac_of() { cat "/sys/class/net/$1/address"; }
# The fake peer's address resolves to vRp: the CM's answers land there.
ip neigh replace "$FAKE_IP" lladdr "$(mac_of vRp)" dev vR nud permanent
FUZZ=(python3 "$CMFUZZ" --iface vRp --src-mac "$(mac_of vRp)"
	--dst-mac "$(mac_of vR)" --src-ip "$FAKE_IP" --dst-ip "$ADDR_R"
	--port "$PORT" --seed "$SEED")

counters() {
	[ "$ORCM_STACK" = ours ] || return 0
	say "ib_cm counters ($1):"
	sed 's/^/  /' /sys/kernel/debug/ib_cm/counters
}

bg /tmp/cm-mad-server.log "$CMPROBE" -s -b "$ADDR_R" -p $PORT -k 0 -n 0 -T 120
server=$LAST_PID
wait_for 10 "the listener on $ADDR_R:$PORT" cm_id_listening $PORT
counters before

# diag WHAT: the state behind a failure, then fail.
diag() {
	say "the listener's output (last 20 lines):"
	tail -n 20 /tmp/cm-mad-server.log | sed 's/^/  /'
	kill -0 "$server" 2>/dev/null || say "the listener is gone"
	cm_ids | tail -n 20
	counters "at the failure"
	fail "$1"
}
run_to /tmp/cm-mad-stale.log 30 "${FUZZ[@]}" stale || diag "stale REQ scenario"
run_to /tmp/cm-mad-dreq.log 30 "${FUZZ[@]}" dreq-unknown || diag "DREQ for an unknown comm id"
RX=/sys/class/infiniband/rxe0/ports/1/cm_rx_msgs
ATTRS='req mra rej rep rtu dreq drep sidr_req lap apr'
declare -A RX0=()
for a in $ATTRS; do RX0[$a]=$(cat "$RX/$a"); done
cnt0=0 uid0=0 bs0=0
if [ "$ORCM_STACK" = ours ]; then
	cnt0=$(ibcm_counter rx_malformed) uid0=$(ibcm_counter rx_unknown_comm_id) bs0=$(ibcm_counter rx_bad_state)
fi
run_to /tmp/cm-mad-dry.log 60 "${FUZZ[@]}" --count "$COUNT" --dry-run fuzz || fail "the fuzzer's dry run"
run_to /tmp/cm-mad-fuzz.log 100 "${FUZZ[@]}" --count "$COUNT" fuzz || diag "fuzz, seed $SEED"
counters after
dry=$(grep '^draws ' /tmp/cm-mad-dry.log) real=$(grep '^draws ' /tmp/cm-mad-fuzz.log || true)
[ -n "$dry" ] && [ "$dry" = "$real" ] ||
	fail "the fuzz is not the seed's alone: dry run '$dry', run '$real'"
say "fuzz seed $SEED: $real, as its dry run"
took=''
for a in $ATTRS; do
	d=$(($(cat "$RX/$a") - RX0[$a]))
	took="$took $a=$d"
	[ "$d" -gt 0 ] || fail "rxe0's CM took no $a MAD of the fuzz (cm_rx_msgs/$a)"
done
say "taken by the CM (cm_rx_msgs):$took"
if [ "$ORCM_STACK" = ours ]; then
	for c in rx_malformed:$cnt0 rx_unknown_comm_id:$uid0 rx_bad_state:$bs0; do
		[ "$(ibcm_counter "${c%%:*}")" -gt "${c#*:}" ] ||
			fail "ours: no MAD of the fuzz reached the ${c%%:*} check"
	done
fi

kill -TERM "$server" 2>/dev/null || true
wait_pid "$server" 10 || true
# A real connection still works over the fuzzed port.
bg /tmp/cm-mad-rping-server.log rping -s -v -V -a "$ADDR_R" -p $((PORT + 1)) -C 3
rs=$LAST_PID
wait_for 10 "the rping server" cm_id_listening $((PORT + 1))
rc=0
run_to /tmp/cm-mad-rping.log "$STEP" rping -c -v -V -a "$ADDR_R" -p $((PORT + 1)) -C 3 || rc=$?
wait_pid "$rs" "$STEP" || true
[ "$rc" -eq 0 ] || fail "rping after the fuzz: exit status $rc"
[ "$(grep -c 'ping data: rdma-ping-' /tmp/cm-mad-rping.log)" -eq 3 ] ||
	fail "rping after the fuzz: not 3 verified pings"
wait_for 30 "every CM id drained after the fuzz" cm_ids_empty
if [ "$ORCM_STACK" = ours ]; then
	n=$(cat /sys/kernel/debug/ib_cm/ids)
	wait_for 30 "every ib_cm id drained (now $n)" test "$(cat /sys/kernel/debug/ib_cm/ids)" -eq 0
fi
say "ok: crafted and $COUNT fuzzed CM MADs (seed $SEED); the CM still serves"
