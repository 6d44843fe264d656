#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Destroying ids mid-setup: SIGKILL the client (its rdma_cm file is closed, which
# destroys its ids) (1) while the address resolves towards an address that
# never answers ARP, (2) while the connection is being made towards a MAC that
# nobody owns (a permanent neighbour entry: the address resolves, the SYN goes
# nowhere). Each time the process must go away at once and leave no CM id; then
# a normal rping must still work.
# shellcheck source=tests/e2e/lib.bash
. "$(dirname "$0")/lib.bash"
setup_pair

kill_midway() { # NAME ADDR
	local name=$1 addr=$2 pid rc=0
	bg "/tmp/$name.log" "${IN_A[@]}" rping -c -d -v -a "$addr" -p 7175 -C 1
	pid=$LAST_PID
	sleep 1
	kill -0 "$pid" 2>/dev/null || { show "/tmp/$name.log"; fail "$name: the client ended before the kill"; }
	say "$name: SIGKILL to the client during setup; its ids:"
	cm_ids || true
	kill -KILL "$pid"
	wait_pid "$pid" 10 || rc=$?
	show "/tmp/$name.log"
	[ "$rc" -ne 124 ] || fail "$name: the killed client did not exit within 10 s"
	wait_for 10 "no CM id left after $name" cm_ids_empty
	say "$name: ok"
}

# (1) Address resolution: nobody has $ADDR_NOBODY.
kill_midway resolve-addr "$ADDR_NOBODY"

# (2) Connecting: the address resolves to a MAC nobody owns.
in_a ip neigh replace 198.18.0.77 lladdr 02:00:5e:00:00:77 dev vA nud permanent
kill_midway connect 198.18.0.77

# The stack still works.
bg /tmp/after-server.log "${IN_B[@]}" rping -s -v -V -a "$ADDR_B" -p 7176 -C 2
server=$LAST_PID
wait_for 10 "rping server listening" cm_id_listening 7176
run_to /tmp/after-client.log "$STEP" "${IN_A[@]}" rping -c -v -V -a "$ADDR_B" -p 7176 -C 2 ||
	fail "rping after the kills failed"
src=0
wait_pid "$server" "$STEP" || src=$?
[ "$src" -eq 0 ] || fail "rping server after the kills: exit status $src"
wait_for 5 "no CM id left" cm_ids_empty
say "ok: killed mid-resolution and mid-connect, nothing left, rping works"
