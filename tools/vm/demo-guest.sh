#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The demo, inside the VM (tools/vm/init.sh runs it after loading the stack):
# show which rdma_cm is loaded, then rping between two namespaces, with the
# connection events.
set -euo pipefail
# shellcheck source=tests/e2e/lib.bash
. "$ORCM_REPO/tests/e2e/lib.bash"

say "loaded modules:"
lsmod | grep -E '^(Module|rdma_ucm|rdma_cm|iw_cm|ib_cm|ib_uverbs|ib_core|siw|rdma_rxe) '
for m in rdma_cm iw_cm; do
	[ -d /sys/module/$m ] || continue
	say "$m: srcversion $(cat /sys/module/$m/srcversion), version $(cat /sys/module/$m/version 2>/dev/null || echo '(none: in-tree)')"
	for f in "${ORCM_OURS_DIR:-/nonexistent}/$m/$m.ko" "$(modinfo -b "$ORCM_MODROOT" -k "$ORCM_KREL" -n $m)"; do
		[ -f "$f" ] || continue
		if [ "$(modinfo -F srcversion "$f")" = "$(cat /sys/module/$m/srcversion)" ]; then
			say "$m: the loaded module is $f"
			modinfo "$f" | grep -E '^(filename|version|description|author|license|srcversion|depends):'
		fi
	done
done
say "modules using rdma_cm: $(cd /sys/module/rdma_cm/holders && echo *)"

setup_pair
bg /tmp/demo-server.log "${IN_B[@]}" rping -s -d -v -V -a "$ADDR_B" -p 7174 -C 3
server=$LAST_PID
wait_for 10 "the rping server listening" cm_id_listening 7174
say "rdma res show cm_id (server listening):"
cm_ids
say "rping client ($ADDR_A in $NS_A) -> server ($ADDR_B in $NS_B):"
rc=0
run_to /tmp/demo-client.log 30 "${IN_A[@]}" rping -c -d -v -V -a "$ADDR_B" -p 7174 -C 3 || rc=$?
src=0
wait_pid "$server" 30 || src=$?
say "server side:"
show /tmp/demo-server.log
say "connection events seen by the client:"
grep -o 'RDMA_CM_EVENT_[A-Z_]*' /tmp/demo-client.log | uniq | sed 's/^/  /'
say "connection events seen by the server:"
grep -o 'RDMA_CM_EVENT_[A-Z_]*' /tmp/demo-server.log | uniq | sed 's/^/  /'
say "client exit status $rc, server exit status $src"
[ "$rc" -eq 0 ] && [ "$src" -eq 0 ]
