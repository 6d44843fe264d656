# SPDX-License-Identifier: GPL-2.0
# Helpers for the tests that point the adversarial MPA peer (tools/mpa-peer,
# built on the host by `make progs`) at an iWARP listener. Source it after
# lib.bash and cmprobe.bash. The listener is a cmprobe server that accepts
# every request (rping -s -P is no good here: a child's event on the shared
# channel ends its accept loop) in $NS_B on $ADDR_B:$PEER_PORT; the peer and
# the good clients run in $NS_A.
# shellcheck shell=bash disable=SC2034

MPA_PEER=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/build/progs/mpa-peer
[ -x "$MPA_PEER" ] || fail "$MPA_PEER is missing (make progs)"
PEER_PORT=${PEER_PORT:-7300}
# The listener's own deadline for an MPA request (siw: 10 s) must fit in it.
PEER_TIMEOUT=${PEER_TIMEOUT:-20}
BAD='reject,close,rst' # a clean end of a bad handshake

# start_listener: the server the peer attacks (serves for 600 s at most).
start_listener() {
	bg /tmp/peer-listener.log "${IN_B[@]}" "$CMPROBE" -s -b "$ADDR_B" -p "$PEER_PORT" -n 0 -T 600
	LISTENER=$LAST_PID
	(wait_for 10 "the listener on $ADDR_B:$PEER_PORT" cm_id_listening "$PEER_PORT") || {
		show /tmp/peer-listener.log
		fail "no listener on $ADDR_B:$PEER_PORT"
	}
}

# listener_alive: the server still runs (no call of it failed on the input).
listener_alive() {
	kill -0 "$LISTENER" 2>/dev/null || { show /tmp/peer-listener.log; fail "the listener died"; }
}

# stop_listener: end it and check that it had served without a failed call.
stop_listener() {
	listener_alive
	kill -TERM "$LISTENER"	# INT: ignored by background jobs
	wait_pid "$LISTENER" 10 || true
	if grep -q '^error ' /tmp/peer-listener.log; then
		show /tmp/peer-listener.log
		fail "a call of the listener failed"
	fi
	say "listener: $(grep -c '^event CONNECT_REQUEST' /tmp/peer-listener.log) requests," \
		"$(grep -c '^event ESTABLISHED' /tmp/peer-listener.log) established"
}

# peer NAME EXPECT ARGS...: one scenario from $NS_A; fails unless the
# listener did one of EXPECT (comma separated outcomes, see mpa-peer).
peer() {
	local name=$1 expect=$2 rc=0
	shift 2
	run_to "/tmp/peer-$name.log" "$((PEER_TIMEOUT + 10))" "${IN_A[@]}" "$MPA_PEER" \
		-a "$ADDR_B" -p "$PEER_PORT" -t "$PEER_TIMEOUT" -e "$expect" "$@" || rc=$?
	[ "$rc" -eq 0 ] || { listener_alive; fail "$name: mpa-peer exit status $rc (want $expect)"; }
}

# bad NAME EXPECT ARGS...: peer, then the listener must still serve.
bad() {
	peer "$@"
	serves "$1"
}

# peer_bg NAME EXPECT ARGS...: the same in the background (the slow cases run
# side by side); peer_wait collects them.
PEER_BG=()
peer_bg() {
	local name=$1 expect=$2
	shift 2
	bg "/tmp/peer-$name.log" "${IN_A[@]}" "$MPA_PEER" -a "$ADDR_B" -p "$PEER_PORT" \
		-t "$PEER_TIMEOUT" -e "$expect" "$@"
	PEER_BG+=("$name:$LAST_PID")
}
peer_wait() {
	local e rc bad=()
	for e in "${PEER_BG[@]}"; do
		rc=0
		wait_pid "${e#*:}" "$((PEER_TIMEOUT + 30))" || rc=$?
		show "/tmp/peer-${e%%:*}.log"
		[ "$rc" -eq 0 ] || bad+=("${e%%:*} (exit status $rc)")
	done
	PEER_BG=()
	[ ${#bad[@]} -eq 0 ] || fail "mpa-peer: ${bad[*]}"
}

# serves NAME: a good RDMA client connects to the listener (ESTABLISHED,
# held 200 ms, disconnected).
serves() {
	expect_result "serves-$1" "$STEP" "ESTABLISHED status 0" \
		"${IN_A[@]}" "$CMPROBE" -c -a "$ADDR_B" -p "$PEER_PORT" -H 200 -T 15
	listener_alive
	say "$1: the listener still serves a good client"
}

# no_kmemleak PATTERN: after a kmemleak scan, no unreferenced object whose
# report mentions PATTERN (kmemleak ignores objects younger than 5 s). The
# whole run is scanned again at the end (vm:kmemleak).
no_kmemleak() {
	local f=/sys/kernel/debug/kmemleak
	[ -w "$f" ] || { say "kmemleak unavailable"; return 0; }
	sleep 6
	echo scan >"$f"
	if grep -qE "$1" "$f"; then
		sed 's/^/  [kmemleak] /' "$f" | head -n 80
		fail "kmemleak reports objects of $1"
	fi
	say "kmemleak: nothing of $1"
}
