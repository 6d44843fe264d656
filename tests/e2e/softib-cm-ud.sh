#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# rdma_cm over native InfiniBand, UD: a softib subnet under stock opensm with
# stock IPoIB on both CAs (ib1's IPoIB netdev in netns B), and rdma_cm's
# IB half driven by stock rdmacm-utils over the IPoIB addresses, both
# stacks (the in-tree CM is the oracle; softib is a driver, not a CM):
#   - udaddy: ARP over IPoIB resolves the peer's 20-byte address, the SA
#     answers the path record query, SIDR finds the server across the
#     namespaces, 2 UD "connections" x 10 messages each way;
#   - mckey: a full member and a send-only sender join an IPv4 group
#     through the SA (MCMemberRecord), 3 messages received.
# orcm-timeout: 240
# shellcheck source=tests/e2e/lib.bash
. "$(dirname "$0")/lib.bash"
# shellcheck source=tests/e2e/softib-lib.bash
. "$(dirname "$0")/softib-lib.bash"
sib_load
sib_subnet_up
sib_ipoib_up
wait_for 20 "ping $SIB_IP1 over IPoIB" ping -c 1 -W 1 "$SIB_IP1"

# udaddy: the server in netns B on ib1's IPoIB address (udaddy's port: 7174).
transfer_pair sib-udaddy 7174 "${IN_B[@]}" udaddy -b "$SIB_IP1" -c 2 -C 10 -- \
	udaddy -s "$SIB_IP1" -b "$SIB_IP0" -c 2 -C 10
wait_for 10 "no CM id left after udaddy" cm_ids_empty
say "ok: udaddy over IPoIB addresses, 2 UD peers x 10 messages"

# mckey: receiver (full member) in netns B, the sender a send-only member.
GROUP=239.3.0.1
bg /tmp/sib-mckey-recv.log "${IN_B[@]}" stdbuf -oL mckey -m "$GROUP" -b "$SIB_IP1" -C 3
recv=$LAST_PID
wait_for 20 "the receiver joined $GROUP" grep -q 'joined dgid' /tmp/sib-mckey-recv.log
sleep 1		# its QP is attached right after the join event
src=0
for ((i = 0; i < 10; i++)); do
	kill -0 "$recv" 2>/dev/null || break
	run_to /tmp/sib-mckey-send.log "$STEP" mckey -m "$GROUP" -b "$SIB_IP0" -s -o -C 5 ||
		fail "mckey sender (send-only) failed: $(tail -n 1 /tmp/sib-mckey-send.log)"
	grep -q 'joined dgid' /tmp/sib-mckey-send.log || fail "the sender did not join"
	sleep 0.5
done
wait_pid "$recv" 20 || src=$?
show /tmp/sib-mckey-recv.log
[ "$src" -eq 0 ] || fail "mckey receiver exit status $src"
grep -q 'data transfers complete' /tmp/sib-mckey-recv.log || fail "the mckey receiver did not get 3 messages"
wait_for 10 "no CM id left after mckey" cm_ids_empty
say "ok: mckey over IB, a send-only sender and a full member, after $i sender runs"
