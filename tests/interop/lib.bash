# SPDX-License-Identifier: GPL-2.0
# Helpers for the interoperability tests: two UML VMs (tools/vm/interop.sh),
# VM a with one stack and VM b with the other, joined by the Ethernet link
# vec0, each with an rxe device on it:
#
#   VM a: vec0 198.18.6.1/24 rxe0  <== link ==>  VM b: vec0 198.18.6.2/24 rxe0
#
# Both VMs run the same scripts in the same order; a script runs in both at
# once and the two halves meet at barriers (files in the shared directory).
# Sourced by tests/interop/*.sh, after tests/e2e/lib.bash.
# shellcheck shell=bash disable=SC2034
# Two VMs share the host's two cores: a server's step also covers the other
# VM's way to the barrier and its client's run, so steps get twice the time.
ORCM_STEP_TIMEOUT=${ORCM_STEP_TIMEOUT:-60}
# shellcheck source=tests/e2e/lib.bash
. "$(dirname "${BASH_SOURCE[0]}")/../e2e/lib.bash"

ROLE=${ORCM_ROLE:?ORCM_ROLE is not set: run these through tools/vm/interop.sh}
SHARED=/run/orcm/shared
TEST=$(basename "$0" .sh)
if [ "$ROLE" = a ]; then
	PEER=b LADDR=198.18.6.1 PADDR=198.18.6.2
	LADDR6=fd00:198:18:6::1 PADDR6=fd00:198:18:6::2
else
	PEER=a LADDR=198.18.6.2 PADDR=198.18.6.1
	LADDR6=fd00:198:18:6::2 PADDR6=fd00:198:18:6::1
fi
say "role $ROLE ($ORCM_STACK stack): $LADDR, peer $PADDR"

# barrier NAME [SECONDS]: wait until the other VM reached the same point.
barrier() {
	local name=$1 secs=${2:-60}
	: >"$SHARED/$TEST.$name.$ROLE"
	wait_for "$secs" "VM $PEER at barrier $name" test -e "$SHARED/$TEST.$name.$PEER"
}

link_cleanup() {
	cleanup
	rdma link delete rxe0 2>/dev/null || true
	# Never down: UML's fd transport closes its fd on down, for good.
	ip addr flush dev vec0 2>/dev/null || true
}

rxe0_active() { rdma link show rxe0/1 | grep -q 'state ACTIVE'; }

setup_link() {
	trap link_cleanup EXIT
	ip link show vec0 >/dev/null || fail "no vec0: the VM was not started by tools/vm/interop.sh"
	ip link set vec0 up
	ip addr add "$LADDR/24" dev vec0
	ip addr add "$LADDR6/64" dev vec0 nodad
	rdma link add rxe0 type rxe netdev vec0
	wait_for 10 "rxe0 ACTIVE" rxe0_active
	barrier link
	# The neighbour entries first: resolution under the CM's 2 s deadline
	# (rping's) is not what these tests are about, and two busy UML VMs
	# sometimes need longer for IPv6 neighbour discovery.
	neigh_fresh
	say "link: vec0 $LADDR rxe0 <-> $PADDR (VM $PEER)"
}

# neigh_fresh: the peer's IPv4 and IPv6 neighbours answer now.
neigh_fresh() {
	wait_for 20 "ping $PADDR" ping -c 1 -W 1 "$PADDR"
	wait_for 20 "ping $PADDR6" ping -6 -c 1 -W 1 "$PADDR6"
}

# last_words LOG: the last non-empty line of LOG, for a failure's reason.
last_words() { grep -v '^[[:space:]]*$' "$1" 2>/dev/null | tail -n 1 | cut -c1-160; }

# lines_in_order LOG LINE...: every LINE is a whole line of LOG, in this
# order; else prints the first one missing and returns 1.
lines_in_order() {
	local log=$1
	shift
	awk 'BEGIN { for (i = 1; i < ARGC; i++) want[i] = ARGV[i]; n = ARGC - 1; ARGC = 1; k = 1 }
		k <= n && $0 == want[k] { k++ }
		END { if (k <= n) { print "no line \"" want[k] "\" (or not in order)"; exit 1 } }' \
		"$@" <"$log"
}

# The checks of pair_case: CHECK server|client LOG returns 0 when the
# output in LOG shows the program did all it was asked to, else prints why.
# ucmatose and udaddy print "test complete" whatever happened (their main
# prints it after the run, failed or not) and print no line per
# connection: what they do print is a line per phase, reached only once
# every connection asked for (-c) is ESTABLISHED (RC) or resolved (UD) and
# its messages (-C) have completed, and a line for each connection that
# failed ("event: ..., error: N", "failing connection request", a failed
# call). So: every phase line in order, "return status 0" (their exit
# status is the same int, truncated), and no failure line. (Neither checks
# the status of its work completions nor the data it receives: rping -V
# does, see rping_ok.)
cmatose_ok() {
	local why
	if [ "$1" = server ]; then
		why=$(lines_in_order "$2" "cmatose: starting server" "initiating data transfers" \
			"completing sends" "receiving data transfers" "data transfers complete" \
			"cmatose: disconnecting" "disconnected" "test complete" "return status 0")
	else
		why=$(lines_in_order "$2" "cmatose: starting client" "cmatose: connecting" \
			"receiving data transfers" "sending replies" "data transfers complete" \
			"test complete" "return status 0")
	fi || { echo "$why"; return 1; }
	no_failure_line cmatose "$2"
}
udaddy_ok() {
	local why
	if [ "$1" = server ]; then
		why=$(lines_in_order "$2" "udaddy: starting server" "receiving data transfers" \
			"sending replies" "data transfers complete" "test complete" "return status 0")
	else
		why=$(lines_in_order "$2" "udaddy: starting client" "udaddy: connecting" \
			"initiating data transfers" "receiving data transfers" "data transfers complete" \
			"test complete" "return status 0")
	fi || { echo "$why"; return 1; }
	no_failure_line udaddy "$2"
}
# no_failure_line PROG LOG: none of the lines PROG prints for a failed
# connection, call or transfer.
no_failure_line() {
	local bad
	bad=$(grep -E "^$1: (event: |failing |failure|unable |failed |.* failed)|^failed |verification failed|^No RDMA devices" "$2" | head -n 1)
	[ -z "$bad" ] || { echo "failure line: $bad"; return 1; }
}
# rping_ok ROLE LOG: the third of rping -V -C 3's verified pings arrived.
rping_ok() {
	grep -q 'ping data: rdma-ping-2' "$2" || { echo "no line 'ping data: rdma-ping-2'"; return 1; }
}

# pair_case NAME SERVER_ROLE PORT CHECK SERVER_CMD... -- CLIENT_CMD...: the
# server half runs SERVER_CMD in the VM with role SERVER_ROLE, waits for its
# listener on PORT, and the other VM runs CLIENT_CMD; both must exit 0, and
# CHECK (cmatose_ok, udaddy_ok or rping_ok, above) must pass on the output
# of both.
pair_case() {
	local name=$1 srole=$2 port=$3 check=$4 scmd=() ccmd=() rc=0 pid why
	shift 4
	while [ $# -gt 0 ] && [ "$1" != -- ]; do scmd+=("$1"); shift; done
	shift
	ccmd=("$@")
	if [ "$ROLE" = "$srole" ]; then
		bg "/tmp/$name-server.log" "${scmd[@]}"
		pid=$LAST_PID
		wait_for 30 "$name: server listening on $port" cm_id_listening "$port"
		barrier "$name-listen"
		wait_pid "$pid" "$STEP" || rc=$?
		show "/tmp/$name-server.log"
		[ "$rc" -eq 0 ] ||
			fail "$name: server ($ORCM_STACK) exit status $rc: $(last_words "/tmp/$name-server.log")"
		why=$("$check" server "/tmp/$name-server.log") ||
			fail "$name: server ($ORCM_STACK): $why"
	else
		barrier "$name-listen"
		# The neighbour afresh: the setup's ping may be a minute old, its
		# entry stale or failed when two busy VMs missed a probe.
		neigh_fresh
		run_to "/tmp/$name-client.log" "$STEP" "${ccmd[@]}" || rc=$?
		[ "$rc" -eq 0 ] ||
			fail "$name: client ($ORCM_STACK) exit status $rc: $(last_words "/tmp/$name-client.log")"
		why=$("$check" client "/tmp/$name-client.log") ||
			fail "$name: client ($ORCM_STACK): $why"
	fi
	wait_for 10 "$name: no CM id left" cm_ids_empty
	barrier "$name-done"
	say "$name: ok ($([ "$ROLE" = "$srole" ] && echo server || echo client), $ORCM_STACK)"
}
