#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# perftest over RoCE (rdma_rxe, client and server on rxe0): ib_write_bw,
# ib_read_bw and ib_send_bw -R (rdma_cm connections: perftest's parameter
# connection, then the data QP), 64 KiB messages. Under UML perftest's
# bandwidth figure is unreliable (it samples a noisy CPU clock), so the test
# is that the transfer completes: the result row (size and iteration count)
# is printed, or both ends exit 0; no CM id is left. 40 x 64 KiB (2.6 MB,
# about 1,800 RoCE packets per run): the CM is what is under test, and a
# run costs the suite's longest lane seconds per message.
# orcm-timeout: 300
# shellcheck source=tests/e2e/lib.bash
. "$(dirname "$0")/lib.bash"
setup_rxe
SIZE=65536 ITERS=40

# pt NAME TOOL PORT
pt() {
	local name=$1 tool=$2 port=$3 rc=0 src=0 server
	bg "/tmp/$name-server.log" "$tool" -R -d rxe0 -p "$port" -s $SIZE -n $ITERS -F
	server=$LAST_PID
	wait_for 10 "$name: $tool server listening" cm_id_listening "$port"
	# The client at the lowest priority: perftest's server answers its
	# parameter handshake before it listens for the data QP (see
	# softrnic-perftest.sh); on the VM's one CPU the server then wins.
	run_to "/tmp/$name.log" 60 nice -n 19 "$tool" -R -d rxe0 -p "$port" -s $SIZE \
		-n $ITERS -F "$ADDR_R" || rc=$?
	wait_pid "$server" 30 || src=$?
	perftest_verdict "$name" "$rc" "$src"
}

pt rxe-write ib_write_bw 7280
pt rxe-read ib_read_bw 7281
pt rxe-send ib_send_bw 7282
say "ok: perftest transfers complete over rxe0 through $ORCM_STACK rdma_cm"
