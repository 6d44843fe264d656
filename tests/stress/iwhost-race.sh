#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# A stress run, not part of make check (about 1.5-3 minutes; the same races
# are covered there by KUnit, iw_host_kunit hk_test_race_*). Run it in the
# VM with
#   tools/vm/run.sh --stack ours --no-kunit --e2e-dir tests/stress --e2e iwhost-race
# It passed on 2026-11-26 (every storm ended as expected, the listener
# served a good client afterwards, no splat, no leak); its earlier runs never
# finished because the servers were stopped with SIGINT, which a
# non-interactive shell's background jobs ignore.
# Races of the host-stack iWARP CM's passive side with its user (issue 30,
# defects 2 and 3), stressed for seconds under lockdep and KASAN. The
# adversarial MPA peer (tools/mpa-peer) plays the clients from orcmA, a
# cmprobe server on softrnic (srB) the listener.
#  leave:   a flood of valid requests at a listener that rejects them
#           while the host CM's work is still leaving the listener after
#           the CONNECT_REQUEST upcall. Both used to put the listener's
#           reference, freeing a listener that still listens. (A listener
#           whose rdma_ucm backlog is full rejects from iw_cm's worker, the
#           same path; with backlog 1 under UML the TCP backlog refused the
#           connects first, so the user rejects here.)
#  answer:  each peer sends a byte or a FIN right after its request (a
#           few ms later, so that it comes after the request was taken),
#           which makes the work look at the socket while the user accepts
#           (the socket goes to softrnic) or rejects (it is released).
# Each phase runs once as is and once with iw_cm's race_delay_ms, a test
# kernel's sleep in that window (race_windows picks it), which makes most
# runs hit it. Afterwards a good client is served; nothing may splat (the
# VM panics on a KASAN report or a WARN) and no CM id is left. A few
# seconds per phase.
# orcm-timeout: 300
# shellcheck source=tests/e2e/lib.bash
. "$(dirname "$0")/../e2e/lib.bash"
# shellcheck source=tests/e2e/cmprobe.bash
. "$(dirname "$0")/../e2e/cmprobe.bash"
# shellcheck source=tests/e2e/iwhost-lib.bash
. "$(dirname "$0")/../e2e/iwhost-lib.bash"
need_softrnic
# shellcheck source=tests/e2e/mpa-peer.bash
. "$(dirname "$0")/../e2e/mpa-peer.bash"
setup_pair siw softrnic
STORM_SECS=${STORM_SECS:-2} STORM_PAR=${STORM_PAR:-3}
LEAVE=1 WAITING=2 # iw_cm's race_windows bits (enum hcm_race)

# storm_loop SECS CMD...: CMD again and again for SECS seconds.
storm_loop() {
	local end=$((SECONDS + $1))
	shift
	while [ "$SECONDS" -lt "$end" ]; do "$@" || true; done
}

# storm NAME PORT EXPECT ARGS...: $STORM_PAR loops of mpa-peer ARGS from
# $NS_A at $ADDR_B:PORT for $STORM_SECS s; every run must end in one of
# EXPECT (comma separated).
storm() {
	local name=$1 port=$2 expect=$3 i pids=() runs bad
	shift 3
	for ((i = 1; i <= STORM_PAR; i++)); do
		bg "/tmp/storm-$name-$i.log" "${IN_A[@]}" bash -c "$(declare -f storm_loop); storm_loop \"\$@\"" _ \
			"$STORM_SECS" "$MPA_PEER" -a "$ADDR_B" -p "$port" -t 3 -e "$expect" "$@"
		pids+=("$LAST_PID")
	done
	for i in "${pids[@]}"; do
		wait_pid "$i" $((STORM_SECS + 20)) || fail "$name: a loop of mpa-peer hung"
	done
	cat /tmp/storm-"$name"-*.log >"/tmp/storm-$name.log"
	runs=$(grep -c '^mpa-peer: ' "/tmp/storm-$name.log" || true)
	bad=$(grep '^mpa-peer: ' "/tmp/storm-$name.log" | grep -vc ': ok$' || true)
	say "$name: $runs runs in ${STORM_SECS} s, outcomes:" \
		"$(sed -n 's/.*outcome=\([a-z-]*\) .*/\1/p' "/tmp/storm-$name.log" | sort | uniq -c | xargs)"
	[ "$runs" -gt 0 ] || { show "/tmp/storm-$name.log"; fail "$name: no run of mpa-peer"; }
	[ "$bad" -eq 0 ] || {
		grep '^mpa-peer: ' "/tmp/storm-$name.log" | grep -v ': ok$' | head -n 5
		fail "$name: $bad runs ended otherwise than $expect"
	}
}

# server NAME PORT ARGS...: a cmprobe server on srB for the storm.
server() {
	local name=$1 port=$2
	shift 2
	bg "/tmp/$name.log" "${IN_B[@]}" "$CMPROBE" -s -b "$ADDR_B" -p "$port" "$@"
	SERVER=$LAST_PID
	wait_for 10 "$name listening" listening "$name"
}

# server_done NAME: the server ended cleanly (no call of it failed).
server_done() {
	local rc=0
	# TERM, not INT: a non-interactive shell starts its background jobs
	# with SIGINT ignored (the server used to outlive the INT: rc 124).
	kill -TERM "$SERVER" 2>/dev/null || true
	wait_pid "$SERVER" 10 || rc=$?
	if grep -q '^error ' "/tmp/$1.log" || { [ "$rc" -ne 0 ] && [ "$rc" -ne 143 ]; }; then
		show "/tmp/$1.log"
		fail "$1: exit status $rc or a failed call"
	fi
	say "$1: $(grep -c '^event CONNECT_REQUEST' "/tmp/$1.log") requests," \
		"$(grep -c '^event ESTABLISHED' "/tmp/$1.log") established," \
		"$(grep -c '^accept lost' "/tmp/$1.log") accepts lost to the peer"
}

# leave_phase TAG: a rejecting listener under a flood of good requests.
leave_phase() {
	local tag=$1 port=7471
	server "refusing-$tag" $port -j 0 -n 0 -T 60
	storm "leave-$tag" $port reject,close,rst good --rev 1
	server_done "refusing-$tag"
}

# answer_phase TAG: byte or FIN after the request, the user accepts, then
# rejects.
answer_phase() {
	local tag=$1 port=7472
	server "accepting-$tag" $port -L -n 0 -T 60
	storm "accept-fin-$tag" $port accept,close,rst good --rev 1 --gap 3 --fin --settle 100
	storm "accept-byte-$tag" $port accept,close,rst,terminate good --rev 1 --gap 3 --trailer 1 --settle 100
	server_done "accepting-$tag"
	server "rejecting-$tag" $port -j 0 -n 0 -T 60
	storm "reject-fin-$tag" $port reject,close,rst good --rev 1 --gap 3 --fin
	storm "reject-byte-$tag" $port reject,close,rst good --rev 1 --gap 3 --trailer 1
	server_done "rejecting-$tag"
}

[ -f "$IWCM_PARAMS/race_delay_ms" ] || fail "iw_cm has no race_delay_ms (a kernel without CONFIG_KUNIT?)"
leave_phase plain
answer_phase plain
iwcm_param race_delay_ms 200
iwcm_param race_windows $LEAVE
leave_phase widened
iwcm_param race_delay_ms 100
iwcm_param race_windows $WAITING
answer_phase widened
iwcm_param race_delay_ms 0

start_listener
serves after
stop_listener
wait_for 10 "no CM id left" cm_ids_empty
say "ok"
