#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# udaddy (RDMA_PS_UDP, UD QPs, SIDR through ib_cm) over RoCE (rdma_rxe,
# client and server on rxe0): 2 "connections", 10 messages each way, both
# ends exit 0, no CM id left. The server listens on the wildcard address,
# so its request goes through the per-device listener of rxe0.
# shellcheck source=tests/e2e/lib.bash
. "$(dirname "$0")/lib.bash"
setup_rxe

# udaddy listens on its fixed port, 7174, in the UDP port space.
transfer_pair rxe-udaddy 7174 udaddy -c 2 -C 10 -- udaddy -s "$ADDR_R" -b "$ADDR_R" -c 2 -C 10
for f in /tmp/rxe-udaddy-client.log /tmp/rxe-udaddy-server.log; do
	grep -q 'return status 0' "$f" || fail "$f: no 'return status 0'"
done
wait_for 10 "no CM id left" cm_ids_empty
say "ok: udaddy over rxe0, 2 UD peers x 10 messages"
