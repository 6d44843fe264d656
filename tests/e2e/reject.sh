#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Connecting to a port nobody listens on fails cleanly and quickly: the client
# sees REJECTED (the event, when the connection is made asynchronously) or
# "Connection refused" (rdma_connect's own error, e.g. stock siw connects
# synchronously), exits non-zero within its deadline, and no CM id is left.
# Two clients: ucmatose (event API) and rdma_client (synchronous rdma_cma API).
# (rping is not used here: after a refused connect, rping 44.0 itself never
# exits, with every thread asleep in user space.)
# shellcheck source=tests/e2e/lib.bash
. "$(dirname "$0")/lib.bash"
setup_pair
PORT=7999

refused() { # NAME CMD...
	local name=$1 rc=0
	shift
	run_to "/tmp/$name.log" 20 "${IN_A[@]}" "$@" || rc=$?
	case $rc in 124 | 137) fail "$name: the client hung (timeout)" ;; esac
	[ "$rc" -ne 0 ] || fail "$name: the client exited 0 although nobody listens"
	grep -Eq 'REJECTED|Connection refused' "/tmp/$name.log" ||
		fail "$name: no REJECTED or Connection refused in its output"
	if grep -q 'ESTABLISHED' "/tmp/$name.log"; then fail "$name: the client saw ESTABLISHED"; fi
	wait_for 5 "no CM id left after $name" cm_ids_empty
	say "$name: refused (rc=$rc)"
}

refused ucmatose ucmatose -s "$ADDR_B" -b "$ADDR_A" -P tcp -p $PORT -c 2 -C 1
refused rdma_client rdma_client -s "$ADDR_B" -p $PORT
say "ok: connecting to $ADDR_B:$PORT is refused, cleanly"
