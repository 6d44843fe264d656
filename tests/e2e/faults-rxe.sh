#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# orcm-timeout: 300
# Allocation failures injected into our modules only: failslab and
# fail_page_alloc with the stack-trace filter set to one module's text at a
# time (rdma_cm, ib_cm; /proc/modules gives each module's address and
# size), so that an allocation fails only when that module is on the stack.
# Under injection (and not when rdma_rxe's own text is on the stack): RoCE
# connects over rxe0 (rdma_cm + ib_cm), each client with a deadline.
# Every failure must be a clean error: no splat (the VM's judge fails the
# test on one), no hang (the deadlines), no leak (the run's kmemleak scan),
# and once injection stops a real rping works and every CM id is gone.
# rdma_ucm (stock) is a target too: its allocations in our handlers' calls
# have its error paths call back into our rdma_cm; one of them destroys the
# new id inside its own CONNECT_REQUEST handler, which hung ours (and hangs
# in-tree) before rdma_destroy_id() learned to defer that destroy.
# Figures: allocations failed per module (the fault attributes' counters).
# Ours only: the in-tree modules are not ours to inject into.
# shellcheck source=tests/e2e/lib.bash
. "$(dirname "$0")/lib.bash"
# shellcheck source=tests/e2e/cmprobe.bash
. "$(dirname "$0")/cmprobe.bash"
[ "${ORCM_STACK:-}" = ours ] || skip "fault injection targets our modules (the in-tree ones are not ours to inject into)"
FS=/sys/kernel/debug/failslab FP=/sys/kernel/debug/fail_page_alloc
[ -d "$FS" ] && [ -d "$FP" ] || fail "no failslab/fail_page_alloc in debugfs"
ROUNDS=${ORCM_FAULT_ROUNDS:-6} FAULT_PCT=${ORCM_FAULT_PCT:-10}

fault_off() {
	local d
	for d in "$FS" "$FP"; do
		echo 0 >"$d/probability"
		echo 0 >"$d/times"
	done
}
trap 'fault_off; cleanup' EXIT

# fault_on MODULE PERCENT: fail PERCENT % of the allocations made with
# MODULE's text on the stack (at most 32 frames deep).
fault_on() {
	local m=$1 pct=$2 size addr d
	# shellcheck disable=SC2046 # two words on purpose
	set -- $(awk -v m="$m" '$1 == m { print $2, $6 }' /proc/modules)
	size=${1:-} addr=${2:-}
	[ -n "$addr" ] && [ "$addr" != 0x0000000000000000 ] ||
		fail "no address of module $m in /proc/modules"
	for d in "$FS" "$FP"; do
		echo "$addr" >"$d/require-start"
		printf '0x%x\n' $((addr + size)) >"$d/require-end"
		echo 32 >"$d/stacktrace-depth"
		echo 0 >"$d/verbose"
		echo 0 >"$d/space"
		echo 1 >"$d/interval"
		echo N >"$d/task-filter"
		echo $BIG >"$d/times"
		echo "$pct" >"$d/probability"
	done
	# Not when rdma_rxe is on the stack too: its own error paths are
	# the in-tree driver's (a stock siw's destroy_listen was seen using a
	# freed endpoint after an injected failure in its create_listen).
	# shellcheck disable=SC2046
	set -- $(awk '$1 == "rdma_rxe" { print $2, $6 }' /proc/modules)
	for d in "$FS" "$FP"; do
		echo "$2" >"$d/reject-start"
		printf '0x%x\n' $(($2 + $1)) >"$d/reject-end"
	done
	echo N >"$FS/ignore-gfp-wait"
	echo N >"$FP/ignore-gfp-wait"
	echo N >"$FP/ignore-gfp-highmem"
	echo 0 >"$FP/min-order"
}

# The failures injected since fault_on: "times" counts down from BIG.
BIG=1000000
injected() { echo $((2 * BIG - $(cat "$FS/times") - $(cat "$FP/times"))); }

# connect_loop NAME SERVER_CMD... -- CLIENT_CMD...: a server started without
# injection, then ROUNDS client connects with FAULT_PCT % of the allocations
# of FAULT_MOD failing; each may fail, none may hang.
connect_loop() {
	local name=$1 i ok=0 bad=0 srv=() cli=()
	shift
	while [ "$1" != -- ]; do srv+=("$1"); shift; done
	shift
	cli=("$@")
	fault_off
	bg "/tmp/$name-server.log" "${srv[@]}"
	local server=$LAST_PID
	wait_for 10 "$name: the server listening" grep -q '^listening' "/tmp/$name-server.log"
	fault_on "$FAULT_MOD" "$FAULT_PCT"
	for ((i = 0; i < ROUNDS; i++)); do
		if timeout -k 2 15 "${cli[@]}" >>"/tmp/$name-client.log" 2>&1; then
			ok=$((ok + 1))
		else
			rc=$?
			[ "$rc" -ne 124 ] && [ "$rc" -ne 137 ] || {
				show "/tmp/$name-client.log"
				fail "$name: client round $i hung under fault injection"
			}
			bad=$((bad + 1))
			say "$name: round $i: $(tail -n 1 "/tmp/$name-client.log")"
		fi
	done
	kill -TERM "$server" 2>/dev/null || true
	wait_pid "$server" 15 || true
	say "$name: $ok connected, $bad failed cleanly"
}

# ---- RoCE over rxe0: rdma_cm and ib_cm ----
setup_rxe
PORT=7700
for m in rdma_cm ib_cm rdma_ucm; do
	FAULT_MOD=$m
	connect_loop "faults-rxe-$m" \
		"$CMPROBE" -s -b "$ADDR_R" -p $PORT -k 0 -n 0 -T 60 -- \
		"$CMPROBE" -c -a "$ADDR_R" -p $PORT -T 5
	n=$(injected)
	fault_off
	say "$m: $n allocations failed"
	[ "$n" -gt 0 ] || fail "$m: no allocation failed: the injection missed the module"
	PORT=$((PORT + 1))
done
wait_for 30 "no CM id left after the RoCE rounds" cm_ids_empty

# With injection off, a real connection works on the same device. (An
# earlier version deleted rxe0 here and then blamed the CM for rping's "No
# RDMA devices were detected".)
bg /tmp/faults-rping-server.log rping -s -v -V -a "$ADDR_R" -p $PORT -C 3
rs=$LAST_PID
wait_for 10 "the rping server" cm_id_listening $PORT
rc=0
run_to /tmp/faults-rping.log "$STEP" rping -c -v -V -a "$ADDR_R" -p $PORT -C 3 || rc=$?
wait_pid "$rs" "$STEP" || true
[ "$rc" -eq 0 ] || fail "rping after the injection: exit status $rc"
wait_for 30 "no CM id left after the rping" cm_ids_empty
say "ok: allocation failures in rdma_cm, ib_cm and rdma_ucm end cleanly"
