#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The seeded MPA/FPDU mutation fuzzer (tools/mpa-peer fuzz, fuzz-listen)
# against our host-stack iWARP CM and softrnic:
#  1. mpa-peer in orcmA connects to a softrnic listener (cmprobe -s on srB)
#     $MPA_FUZZ_INPUTS times: mutated MPA requests (the host CM's request
#     parser), and after good handshakes mutated RTRs (a peer-to-peer
#     responder's check) and FPDUs (DDP/RDMAP headers, lengths, STags,
#     MSN/MO, READ requests, TERMINATEs: softrnic's receive path);
#  2. mpa-peer listens in orcmA and answers $MPA_FUZZ_REPLIES connects of a
#     softrnic client (cmprobe -c on srB) with mutated replies and FPDUs
#     (the host CM's reply parser, softrnic as initiator).
# No input may get a reply or an FPDU that breaks MPA, a refused connect,
# a hung client, or a dead listener; afterwards the listener still serves,
# a real rping works both ways, and no CM id, QP or TCP connection is left.
# Every input asked for must have been sent: mpa-peer's figures must count
# exactly $MPA_FUZZ_INPUTS inputs in phase 1 and $MPA_FUZZ_REPLIES in phase 2
# (one per client; fuzz-listen says "short" when clients did not come). A
# client must end with a CM event within its own deadline: the host CM's
# MPA reply timeout is cut to 1 s for this, so a client that reaches its
# deadline (cmprobe's exit 3) is a hang, as is one killed by timeout(1).
# The run is deterministic from MPA_FUZZ_SEED (default 0x5eed): mpa-peer
# prints it with its figures (inputs, distinct outcomes) and every finding
# with its index; `mpa-peer --seed S --first I --count 1 --verbose fuzz`
# replays input I.
# orcm-timeout: 300
# shellcheck source=tests/e2e/lib.bash
. "$(dirname "$0")/lib.bash"
# shellcheck source=tests/e2e/cmprobe.bash
. "$(dirname "$0")/cmprobe.bash"
# shellcheck source=tests/e2e/iwhost-lib.bash
. "$(dirname "$0")/iwhost-lib.bash"
need_softrnic
PEER_TIMEOUT=10
# shellcheck source=tests/e2e/mpa-peer.bash
. "$(dirname "$0")/mpa-peer.bash"

SEED=${MPA_FUZZ_SEED:-0x5eed}
INPUTS=${MPA_FUZZ_INPUTS:-1000}
REPLIES=${MPA_FUZZ_REPLIES:-40}
REPLY_PORT=7351
say "fuzz seed $SEED: $INPUTS inputs at the listener, $REPLIES replies to a client"

# The listener's half-open connections end fast: a truncated request waits
# mpa_req_timeout_ms, an RTR that never comes rtr_timeout_ms.
iwcm_param mpa_req_timeout_ms 1000
iwcm_param rtr_timeout_ms 1000
# And a client's wait for a whole reply (phase 2) ends in 1 s, well inside
# the client's deadline.
iwcm_param mpa_rep_timeout_ms 1000
setup_pair siw softrnic
# start_listener's server, but a fuzzer's connection that is gone before
# rdma_accept() is no failure of the listener (-E: "accept-failed")
bg /tmp/peer-listener.log "${IN_B[@]}" "$CMPROBE" -s -E -b "$ADDR_B" -p "$PEER_PORT" -n 0 -T 600
LISTENER=$LAST_PID
wait_for 10 "the listener on $ADDR_B:$PEER_PORT" cm_id_listening "$PEER_PORT"
serves before

# ---- 1. requests, RTRs, FPDUs at the softrnic listener ----
# The fuzzer's plain TCP clients (no SO_REUSEADDR) leave their ports in
# TIME_WAIT in orcmA for a minute; siw binds the socket of each later
# client in orcmA to the port rdma_cm picked at random from the same range
# (a rping of section 3 failed so in a CI run), and
# such a port refuses the bind (EADDRINUSE: about one connect in 30 after
# 1,000 inputs; the in-tree stack alike). The fuzzer takes its ports from a
# range of their own.
PORTS_A=$("${IN_A[@]}" sysctl -n net.ipv4.ip_local_port_range | tr -s '\t ' ' ')
"${IN_A[@]}" sysctl -qw net.ipv4.ip_local_port_range="20000 29999"
t0=$(date +%s)
rc=0
run_to /tmp/fuzz-connect.log 120 "${IN_A[@]}" "$MPA_PEER" -a "$ADDR_B" -p "$PEER_PORT" \
	-e fuzzed --seed "$SEED" --count "$INPUTS" --workers 16 --wait 300 --reply-wait 5000 fuzz || rc=$?
say "connect fuzz: $(($(date +%s) - t0)) s"
[ "$rc" -eq 0 ] || { listener_alive; fail "mpa-peer fuzz: exit status $rc (seed $SEED)"; }
# fuzzed_inputs LOG: how many inputs mpa-peer's figures line counts.
fuzzed_inputs() {
	sed -n 's/^mpa-peer: fuzz figures: seed [0-9a-fx]*, \([0-9]*\) inputs in .*/\1/p' "$1" | tail -n 1
}
n=$(fuzzed_inputs /tmp/fuzz-connect.log)
[ "${n:-0}" -eq "$INPUTS" ] ||
	fail "mpa-peer fuzz sent ${n:-no} inputs, $INPUTS asked (seed $SEED)"
listener_alive
# the listener answers the requests in order: its connections must drain
# (only its own id left) before a good client can be served in time
ids_le() { [ "$(cat "$ORCM_IDS_FILE")" -le "$1" ]; }
wait_for 90 "the listener's connections drained" ids_le 1
"${IN_A[@]}" sysctl -qw net.ipv4.ip_local_port_range="$PORTS_A"
serves after-fuzz
stop_listener
say "accepts that failed as the fuzzer left: $(grep -c '^accept-failed' /tmp/peer-listener.log)"

# ---- 2. replies (and FPDUs) to a softrnic client ----
# -t: the 40 clients take about 22 s; a client that never comes leaves the
# fuzzer "short" at this deadline.
bg /tmp/fuzz-listen.log "${IN_A[@]}" "$MPA_PEER" -a "$ADDR_A" -p "$REPLY_PORT" -t 120 \
	-e fuzzed --seed "$SEED" --count "$REPLIES" --wait 2000 fuzz-listen
fuzzer=$LAST_PID
wait_for 10 "the reply fuzzer listening" grep -q '^mpa-peer: bound' /tmp/fuzz-listen.log
t0=$(date +%s)
# Clients, 4 at a time. The fuzzer ends every connection within about 3 s
# (its --wait, then RST or FIN) and the host CM gives up on a partial reply
# after 1 s, so each client gets its last event well inside its own
# deadline (-T 10): its exit 3 (that deadline) or 124/137 (timeout(1))
# is a hang. Each client's exit status goes to /tmp/fuzz-clients.rc.
: >/tmp/fuzz-clients.rc
client_loop() {
	local i rc
	for ((i = $1; i < REPLIES; i += 4)); do
		rc=0
		timeout -k 2 20 "${IN_B[@]}" "$CMPROBE" -c -a "$ADDR_A" -p "$REPLY_PORT" -r 2000 \
			-H 0 -T 10 >"/tmp/fuzz-client-$i.log" 2>&1 || rc=$?
		echo "$i $rc" >>/tmp/fuzz-clients.rc
	done
}
pids=()
for k in 0 1 2 3; do
	client_loop "$k" &
	pids+=($!)
done
for p in "${pids[@]}"; do wait "$p" || true; done
rc=0
wait_pid "$fuzzer" 130 || rc=$?
show /tmp/fuzz-listen.log
say "reply fuzz: $(($(date +%s) - t0)) s"
# clients_with RC...: how many clients ended with one of these statuses.
clients_with() {
	local want=" $* "
	awk -v want="$want" 'index(want, " " $2 " ") { n++ } END { print n + 0 }' /tmp/fuzz-clients.rc
}
ran=$(grep -c . /tmp/fuzz-clients.rc || true)
ok=$(clients_with 0) clean=$(clients_with 1) hung=$(clients_with 3 124 137)
say "reply fuzz clients: $ran ran, $ok established and disconnected," \
	"$clean failed cleanly (a CM event), $hung hung"
if [ "$hung" -gt 0 ]; then
	while read -r i r; do
		case $r in 3 | 124 | 137) say "client $i hung (exit status $r): $(tail -n 1 "/tmp/fuzz-client-$i.log")" ;; esac
	done </tmp/fuzz-clients.rc
	fail "$hung softrnic clients hung on a fuzzed reply (no CM event by their deadline; seed $SEED)"
fi
if [ "$ran" -ne "$REPLIES" ] || [ $((ok + clean)) -ne "$REPLIES" ]; then
	fail "of $REPLIES clients $ran ran, $((ok + clean)) ended with exit status 0 or 1 ($(awk '{ print $2 }' /tmp/fuzz-clients.rc | sort | uniq -c | tr '\n' ' '))"
fi
n=$(fuzzed_inputs /tmp/fuzz-listen.log)
[ "${n:-0}" -eq "$REPLIES" ] ||
	fail "mpa-peer fuzz-listen answered ${n:-no} clients with a fuzzed reply, $REPLIES asked (seed $SEED)"
[ "$rc" -eq 0 ] || fail "mpa-peer fuzz-listen: exit status $rc (seed $SEED)"

# ---- 3. the stack still serves, nothing left ----
wait_for 15 "no CM id left after the fuzz" cm_ids_empty
sr_qps() { rdma res show qp | grep -c 'srB' || true; }
wait_for 10 "no softrnic QP left" test "$(sr_qps)" -eq 0
est() { in_b ss -tnH state established | grep -c . || true; }
wait_for 15 "no TCP connection of softrnic left" test "$(est)" -eq 0
rping_pair fuzz-rping-b2a "$NS_A" "$ADDR_A" "$NS_B" "$ADDR_A" 7360
rping_pair fuzz-rping-a2b "$NS_B" "$ADDR_B" "$NS_A" "$ADDR_B" 7361
no_kmemleak 'softrnic|iw_cm|rdma_cm'
say "ok: the stack survived the fuzz (seed $SEED) and serves"
