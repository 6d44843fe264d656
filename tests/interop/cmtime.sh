#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# cmtime (stock rdmacm-utils: 50 connections set up and torn down in
# lockstep phases) across the two VMs over RoCE, each VM once server and once
# client: the client exits 0 with every step reported and no failure. The
# cmtime server runs until it is stopped.
# shellcheck source=tests/interop/lib.bash
. "$(dirname "$0")/lib.bash"
setup_link
for s in a b; do
	name=cmtime-$s
	if [ "$s" = a ]; then srv=198.18.6.1; else srv=198.18.6.2; fi
	if [ "$ROLE" = "$s" ]; then
		bg "/tmp/$name-server.log" cmtime -b "$srv" -p 7340
		pid=$LAST_PID
		wait_for 30 "$name: server listening on 7340" cm_id_listening 7340
		barrier "$name-listen"
		barrier "$name-client" "$STEP"
		kill "$pid" 2>/dev/null || true
		wait_pid "$pid" 10 || true
		show "/tmp/$name-server.log"
	else
		barrier "$name-listen"
		neigh_fresh
		rc=0
		run_to "/tmp/$name-client.log" "$STEP" cmtime -s "$srv" -p 7340 -c 50 || rc=$?
		barrier "$name-client"
		cmtime_verdict "$name" "$rc"
	fi
	wait_for 20 "$name: no CM id left" cm_ids_empty
	barrier "$name-done"
	say "$name: ok ($([ "$ROLE" = "$s" ] && echo server || echo client), $ORCM_STACK)"
done
