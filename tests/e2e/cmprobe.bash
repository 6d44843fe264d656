# SPDX-License-Identifier: GPL-2.0
# Helpers for the e2e scripts that drive the RDMA CM with cmprobe
# (tests/progs/cmprobe.c, built on the host by `make progs`; its head describes
# the options and the output lines). Source it after lib.bash.
# shellcheck shell=bash disable=SC2034

CMPROBE=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/build/progs/cmprobe
[ -x "$CMPROBE" ] || fail "$CMPROBE is missing (make progs)"
RDMA_PROGS="$RDMA_PROGS|cmprobe" # lib.bash's cleanup kills these too

# probe NAME SECONDS CMD...: run a cmprobe (CMD, with its namespace prefix)
# with a deadline, output in /tmp/NAME.log and in the test's output. Sets
# PROBE_RC (its exit status) and PROBE_MS (how long it ran). A deadline (124)
# fails the test: cmprobe has its own (-T) and must never hang.
probe() {
	local name=$1 secs=$2 t0
	shift 2
	t0=$(date +%s%N)
	PROBE_RC=0
	run_to "/tmp/$name.log" "$secs" "$@" || PROBE_RC=$?
	PROBE_MS=$((($(date +%s%N) - t0) / 1000000))
	case $PROBE_RC in 124 | 137) fail "$name: hung (killed after ${secs}s)" ;; esac
}

# has_line NAME LINE: /tmp/NAME.log has exactly this line, else the test fails.
has_line() {
	grep -qxF -- "$2" "/tmp/$1.log" || fail "$1: no line '$2' in its output"
}

# expect_result NAME SECONDS RESULT CMD...: probe a cmprobe client; it must end
# with the line "result RESULT" and exit 0 exactly when RESULT is ESTABLISHED.
expect_result() {
	local name=$1 secs=$2 want=$3 rc_want=1
	shift 3
	probe "$name" "$secs" "$@"
	has_line "$name" "result $want"
	[ "$want" != "ESTABLISHED status 0" ] || rc_want=0
	[ "$PROBE_RC" -eq "$rc_want" ] ||
		fail "$name: exit status $PROBE_RC, want $rc_want"
	say "$name: $want (${PROBE_MS} ms)"
}

# pattern_hex N: the hex string of cmprobe's N-byte private data pattern.
pattern_hex() {
	local i s='' h
	for ((i = 1; i <= $1; i++)); do
		printf -v h '%02x' $((i & 255))
		s+=$h
	done
	printf '%s' "$s"
}

# pdata_field N: "pdata N HEX" as cmprobe prints it ("pdata 0" when empty).
pdata_field() {
	if [ "$1" -eq 0 ]; then printf 'pdata 0'; else printf 'pdata %d %s' "$1" "$(pattern_hex "$1")"; fi
}

# listening NAME: the cmprobe server logging to /tmp/NAME.log is listening.
listening() { grep -q '^listening ' "/tmp/$1.log"; }
# cmprobe_server NAME ARGS...: `cmprobe -s ARGS` in the background ($SERVER,
# log /tmp/NAME.log) until it listens.
cmprobe_server() {
	local name=$1
	shift
	bg "/tmp/$name.log" "$CMPROBE" -s "$@"
	SERVER=$LAST_PID
	wait_for 10 "the server $name listening" listening "$name"
}

# Checks that go on after a mismatch, so that one run reports every
# difference of a scenario matrix: want_line NAME LINE records a missing line,
# want_rc NAME RC WANT a wrong exit status; mismatches_fail fails the test if
# any was recorded.
MISMATCHES=()
mismatch() {
	say "MISMATCH: $*"
	MISMATCHES+=("$*")
}
want_line() { grep -qxF -- "$2" "/tmp/$1.log" || mismatch "$1: no line '$2'"; }
want_rc() { [ "$2" -eq "$3" ] || mismatch "$1: exit status $2, want $3"; }
mismatches_fail() {
	[ ${#MISMATCHES[@]} -eq 0 ] && return 0
	local m
	for m in "${MISMATCHES[@]}"; do say "mismatch: $m"; done
	fail "${#MISMATCHES[@]} mismatch(es), first: ${MISMATCHES[0]}"
}
