#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# rdma_cm over native InfiniBand: a softib subnet under stock opensm with
# stock IPoIB on both CAs (ib1's IPoIB netdev in netns B), and rdma_cm's
# IB half driven by stock rdmacm-utils over the IPoIB addresses, both
# stacks (the in-tree CM is the oracle; softib is a driver, not a CM):
#   - udaddy: ARP over IPoIB resolves the peer's 20-byte address, the SA
#     answers the path record query, SIDR finds the server across the
#     namespaces, 2 UD "connections" x 10 messages each way;
#   - mckey: a full member and a send-only sender join an IPv4 group
#     through the SA (MCMemberRecord), 3 messages received;
#   - rping: an RC connection (REQ/REP/RTU with the SA's path: LIDs, MTU)
#     between the IPoIB addresses, 3 verified pings, over softib's RC;
#   - AF_IB (softib-afib.bash): bind/resolve with struct sockaddr_ib, RC
#     connections between the GIDs (the SA's route, then rdma_set_ib_path()
#     from userspace), and librdmacm's AF_IB probe (mckey -o joins
#     send-only); transcripts compared with the in-tree CM's;
#   - SA load: 20 UD ids from ib1 resolve routes to one destination and
#     service; the SA PathRecord queries that reach the SA's port (opensm
#     runs on ib0) are counted on the wire (softib-madcount.py on vA). The
#     in-tree CM asks once per id; ours, with its path cache, once, and its
#     debugfs counters say so (1 miss, 19 hits or waits). Then opensm
#     restarts (it reregisters every port: CLIENT_REREGISTER), our cache
#     drops ib1's record, and the next resolutions ask again, once.
# orcm-timeout: 270
# shellcheck source=tests/e2e/lib.bash
. "$(dirname "$0")/lib.bash"
# shellcheck source=tests/e2e/softib-lib.bash
. "$(dirname "$0")/softib-lib.bash"
# shellcheck source=tests/e2e/softib-afib.bash
. "$(dirname "$0")/softib-afib.bash"
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

# rping: RC through ib_cm with an IB path record; the server in netns B.
rping_pair sib-rping "$NS_B" "$SIB_IP1" - "$SIB_IP1" 7321
say "ok: rping over IPoIB addresses (RC over softib), 3 verified pings"

t0=$SECONDS
afib_tests
say "AF_IB block: $((SECONDS - t0)) s ($ORCM_STACK)"

# SA load: the udaddy client in netns B (ib1: its SA queries cross the
# link to opensm on ib0), the server here; PathRecord queries counted on vA.
PC=/sys/kernel/debug/rdma_cm/path_cache
pc() { awk -v k="$1" '$1 == k { print $2 }' "$PC"; }
sa_load() {
	local name=$1 n=$2 counter q
	bg "/tmp/$name-count.log" python3 "$(dirname "$0")/softib-madcount.py" vA
	counter=$LAST_PID
	wait_for 10 "$name: the MAD counter listening" grep -q listening "/tmp/$name-count.log"
	transfer_pair "$name" 7174 udaddy -b "$SIB_IP0" -c "$n" -C 1 -- \
		"${IN_B[@]}" udaddy -s "$SIB_IP0" -b "$SIB_IP1" -c "$n" -C 1
	kill -TERM "$counter"
	wait_pid "$counter" 10 || fail "$name: the MAD counter did not stop"
	q=$(awk '$1 == "pathrecord_queries" { print $2 }' "/tmp/$name-count.log")
	[ -n "$q" ] || fail "$name: no count"
	say "$name: $n route resolutions from ib1, $q SA PathRecord queries on the wire ($ORCM_STACK)"
	SA_QUERIES=$q
}
[ "$ORCM_STACK" != ours ] || [ -r "$PC" ] || fail "no $PC"
[ "$ORCM_STACK" != ours ] || { cat "$PC"; h0=$(pc hits) c0=$(pc coalesced) m0=$(pc misses); }
sa_load sib-saload 20
if [ "$ORCM_STACK" = stock ]; then
	# In-tree: one query per route resolution.
	[ "$SA_QUERIES" -ge 20 ] || fail "stock: $SA_QUERIES PathRecord queries for 20 resolutions, expected one each"
else
	cat "$PC"
	[ "$SA_QUERIES" -eq 1 ] || fail "ours: $SA_QUERIES PathRecord queries for 20 resolutions to one destination, want 1"
	[ $(($(pc misses) - m0)) -eq 1 ] || fail "path cache: $(($(pc misses) - m0)) misses, want 1"
	[ $(($(pc hits) - h0 + $(pc coalesced) - c0)) -eq 19 ] ||
		fail "path cache: hits + waits $(($(pc hits) - h0 + $(pc coalesced) - c0)), want 19"
	# opensm again: it reregisters every port; ib1's record goes.
	i0=$(pc invalidated)
	sib_sm_stop
	sib_sm_start
	wait_for 20 "path cache invalidated by the SM's restart" bash -c "[ \$(awk '\$1 == \"invalidated\" { print \$2 }' $PC) -gt $i0 ]"
	wait_for 20 "ping $SIB_IP1 over IPoIB after the SM restart" ping -c 1 -W 1 "$SIB_IP1"
	sa_load sib-saload2 5
	[ "$SA_QUERIES" -eq 1 ] || fail "ours after the SM restart: $SA_QUERIES PathRecord queries for 5 resolutions, want 1"
fi
wait_for 10 "no CM id left after the SA load" cm_ids_empty
say "ok: SA load measured ($ORCM_STACK)"
