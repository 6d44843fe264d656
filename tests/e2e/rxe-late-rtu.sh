#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# orcm-timeout: 120
# A late RTU over RoCE (two rxe devices on a veth pair). The client reads its
# answer 7 s after rdma_connect(); librdmacm sends the IB CM's RTU only then.
# That is past the server's REP timeout (twice the packet life time, 2 x 268
# ms, plus the client's CM response timeout in the REQ, 4.3 s), so the
# server's CM repeats its REP. rdma_cm asked for a delayed MRA when the first
# REP arrived (as in-tree): the repeat is answered with it, the server waits
# the MRA's service timeout instead of repeating again, and the connection
# completes on both ends. dumpcap on the veth sees the CM MADs: one REQ, at
# least two REPs, an MRA for the REP, one RTU, no REJ. The stock stack does
# the same (the in-tree CM is the oracle: the script runs on both).
# shellcheck source=tests/e2e/lib.bash
. "$(dirname "$0")/lib.bash"
# shellcheck source=tests/e2e/rxe-lib.bash
. "$(dirname "$0")/rxe-lib.bash"
# shellcheck source=tests/e2e/cmprobe.bash
. "$(dirname "$0")/cmprobe.bash"
RDMA_PROGS="$RDMA_PROGS|dumpcap"
setup_rxe_pair
PORT=7620 WAIT_MS=7000 PCAP=/tmp/rxe-late-rtu.pcap

rm -f "$PCAP"
bg /tmp/dumpcap-late-rtu.log dumpcap -q -i vRA -f "udp port 4791" -w "$PCAP"
dc=$LAST_PID
wait_for 10 "dumpcap capturing on vRA" test -s "$PCAP"

bg /tmp/late-rtu-server.log "$CMPROBE" -s -b "$RADDR_B" -p $PORT -k 0 -n 1 -T 40
server=$LAST_PID
wait_for 10 "the server listening on $RADDR_B:$PORT" listening late-rtu-server
expect_result late-rtu-client 45 "ESTABLISHED status 0" \
	"$CMPROBE" -c -b "$RADDR_A" -a "$RADDR_B" -p $PORT -W $WAIT_MS -T 40
[ "$PROBE_MS" -ge $WAIT_MS ] || fail "the client took $PROBE_MS ms, less than its wait"
src=0
wait_pid "$server" 20 || src=$?
show /tmp/late-rtu-server.log
[ "$src" -eq 0 ] || fail "server exit status $src"
has_line late-rtu-server "event ESTABLISHED status 0 pdata 0"
sleep 0.5
kill -INT "$dc"
wait_pid "$dc" 10 || true

# The CM MADs (management class 0x07) in capture order, by attribute.
tshark -n -r "$PCAP" -Y 'infiniband.mad.mgmtclass == 0x07' \
	-T fields -e infiniband.mad.attributeid >/tmp/late-rtu-mads.txt 2>/dev/null ||
	fail "tshark cannot read $PCAP"
count() { grep -ciE "^0x0*$1\$" /tmp/late-rtu-mads.txt || true; }
req=$(count 10) mra=$(count 11) rej=$(count 12) rep=$(count 13) rtu=$(count 14)
say "CM MADs on the wire: REQ $req, REP $rep, MRA $mra, RTU $rtu, REJ $rej"
[ "$req" -eq 1 ] || fail "$req REQs on the wire, want 1"
[ "$rep" -ge 2 ] || fail "$rep REPs on the wire: the server did not repeat its REP"
[ "$mra" -ge 1 ] || fail "no MRA on the wire: the repeated REP was not answered"
[ "$rtu" -eq 1 ] || fail "$rtu RTUs on the wire, want 1"
[ "$rej" -eq 0 ] || fail "$rej REJs on the wire"
# After the MRA the server waits: no REP is repeated again before the RTU.
awk '/^0x0*13$/ { rep++ } /^0x0*11$/ { mra = 1 } /^0x0*14$/ { exit }
	mra && /^0x0*13$/ { late++ } END { exit late > 0 }' /tmp/late-rtu-mads.txt ||
	fail "a REP was repeated after the MRA: $(tr '\n' ' ' </tmp/late-rtu-mads.txt)"
wait_for 10 "no CM id left" cm_ids_empty
say "ok: a 7 s late RTU over RoCE: the repeated REP answered with an MRA, the connection completed"
