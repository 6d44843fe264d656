#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# rdma_cm over native InfiniBand: a softib subnet under stock opensm with
# stock IPoIB on both CAs (ib1's IPoIB netdev in netns B), and rdma_cm's
# IB half driven by stock rdmacm-utils over the IPoIB addresses, both
# stacks (the in-tree CM is the oracle; softib is a driver, not a CM):
#   - udaddy: ARP over IPoIB resolves the peer's 20-byte address, the SA
#     answers the path record query, SIDR finds the server across the
#     namespaces, 2 UD "connections" x 10 messages each way;
#   - mckey: a full member and a send-only sender join an IPv4 group, then
#     an IPv6 group, through the SA (MCMemberRecord), 3 messages received;
#   - rping: an RC connection (REQ/REP/RTU with the SA's path: LIDs, MTU)
#     between the IPoIB addresses, 3 verified pings, over softib's RC;
#   - ucmatose (4 connections x 20 messages) and cmtime (20 connections
#     in flight) over the IPoIB addresses;
#   - crafted and fuzzed CM MADs from a fake remote CM on the wire
#     (tools/cmfuzz/cmfuzz.py --transport softib): LAPs for established
#     connections among them; the CM still serves;
#   - CM MADs lost on the link during connects: netem drops 25% of the
#     CM MADs (management class 0x07) leaving both carriers, both ways;
#     6 ucmatose connections still complete (the CM resends on its
#     timeout: cm_tx_retries counts them), no id is left;
#   - perftest -R (ib_write_bw, ib_read_bw, ib_send_bw: 20 x 64 KiB each)
#     between the IPoIB addresses, the server in netns B on ib1;
#   - AF_IB (softib-afib.bash): bind/resolve with struct sockaddr_ib, RC
#     connections between the GIDs (the SA's route, then rdma_set_ib_path()
#     from userspace), and librdmacm's AF_IB probe (mckey -o joins
#     send-only); transcripts compared with the in-tree CM's;
#   - SA load: 1,000 UD ids from ib1 (100 on the stock stack, see below)
#     resolve routes to one destination and service; the SA PathRecord
#     queries that reach the SA's port (opensm runs on ib0) are counted on
#     the wire (softib-madcount.py on vA). The
#     in-tree CM asks once per id; ours, with its path cache, once, and its
#     debugfs counters say so (1 miss, 999 hits or waits). Then opensm
#     restarts (it reregisters every port: CLIENT_REREGISTER), our cache
#     drops ib1's record, and the next resolutions ask again, once (the
#     load to ten destinations, ten CAs behind a switch, is softib-switch's);
#   - the SM killed (at the end): rping, up, goes on passing data; a new
#     route resolution that needs the SA fails with ROUTE_ERROR in time;
#   - an SM-driven LID change (at the end: opensm back with LMC 1): new
#     connections use the new LIDs (our path cache drops the old records);
#   - SM failover under a live connection (last): a standby opensm on ib1
#     takes over from the killed master; rping goes on, LIDs stay, a new
#     connection resolves through the new SA;
#   - IPoIB connected mode: IPoIB's own ib_cm client connects RC QPs on
#     an SRQ, MTU 65520, 65000-byte pings (DF) cross them; back in
#     datagram mode the connections are torn down (see below).
# orcm-timeout: 600
# shellcheck source=tests/e2e/lib.bash
. "$(dirname "$0")/lib.bash"
# shellcheck source=tests/e2e/softib-lib.bash
. "$(dirname "$0")/softib-lib.bash"
# shellcheck source=tests/e2e/softib-afib.bash
. "$(dirname "$0")/softib-afib.bash"
# shellcheck source=tests/e2e/cmprobe.bash
. "$(dirname "$0")/cmprobe.bash"
sib_load
sib_subnet_up
sib_ipoib_up
wait_for 20 "ping $SIB_IP1 over IPoIB" ping -c 1 -W 1 "$SIB_IP1"

# udaddy: the server in netns B on ib1's IPoIB address (udaddy's port: 7174).
transfer_pair sib-udaddy 7174 "${IN_B[@]}" udaddy -b "$SIB_IP1" -c 2 -C 10 -- \
	udaddy -s "$SIB_IP1" -b "$SIB_IP0" -c 2 -C 10
wait_for 10 "no CM id left after udaddy" cm_ids_empty
say "ok: udaddy over IPoIB addresses, 2 UD peers x 10 messages"

# mckey GROUP RECV_ADDR SEND_ADDR: the receiver (a full member) in netns B,
# the sender a send-only member; the receiver gets 3 messages.
mckey_pair() {
	local group=$1 i src=0 recv
	bg /tmp/sib-mckey-recv.log "${IN_B[@]}" stdbuf -oL mckey -m "$group" -b "$2" -C 3
	recv=$LAST_PID
	wait_for 20 "the receiver joined $group" grep -q 'joined dgid' /tmp/sib-mckey-recv.log
	sleep 1		# its QP is attached right after the join event
	for ((i = 0; i < 10; i++)); do
		kill -0 "$recv" 2>/dev/null || break
		run_to /tmp/sib-mckey-send.log "$STEP" mckey -m "$group" -b "$3" -s -o -C 5 ||
			fail "mckey sender (send-only, $group) failed: $(tail -n 1 /tmp/sib-mckey-send.log)"
		grep -q 'joined dgid' /tmp/sib-mckey-send.log || fail "the sender did not join $group"
		sleep 0.5
	done
	wait_pid "$recv" 20 || src=$?
	show /tmp/sib-mckey-recv.log
	[ "$src" -eq 0 ] || fail "mckey receiver ($group) exit status $src"
	grep -q 'data transfers complete' /tmp/sib-mckey-recv.log ||
		fail "the mckey receiver did not get 3 messages of $group"
	wait_for 10 "no CM id left after mckey" cm_ids_empty
	say "ok: mckey over IB, $group: a send-only sender and a full member, after $i sender runs"
}
mckey_pair 239.3.0.1 "$SIB_IP1" "$SIB_IP0"
# An IPv6 group (its MGID is the group address itself), IPoIB's IPv6
# addresses (documentation prefix, inside the VM).
ip addr add 2001:db8:9::1/64 dev "$SIB_I0" nodad
in_b ip addr add 2001:db8:9::2/64 dev "$SIB_I1" nodad
wait_for 20 "ping 2001:db8:9::2 over IPoIB" ping -6 -c 1 -W 1 2001:db8:9::2
mckey_pair ff0e::9:1 2001:db8:9::2 2001:db8:9::1

# rping: RC through ib_cm with an IB path record; the server in netns B.
rping_pair sib-rping "$NS_B" "$SIB_IP1" - "$SIB_IP1" 7321
say "ok: rping over IPoIB addresses (RC over softib), 3 verified pings"

# ucmatose (RDMA_PS_TCP): 4 RC connections at once, 20 messages each.
t0=$SECONDS
transfer_pair sib-ucmatose 7331 "${IN_B[@]}" ucmatose -b "$SIB_IP1" -p 7331 -c 4 -C 20 -- \
	ucmatose -s "$SIB_IP1" -b "$SIB_IP0" -p 7331 -c 4 -C 20
wait_for 10 "no CM id left after ucmatose" cm_ids_empty
say "ok: ucmatose over IPoIB addresses, 4 connections x 20 messages"

# cmtime: 20 connections through every step (resolve address and route,
# connect, disconnect), all in flight at once.
cmtime_pair sib-cmtime 7332 "${IN_B[@]}" cmtime -b "$SIB_IP1" -p 7332 -- \
	cmtime -s "$SIB_IP1" -b "$SIB_IP0" -p 7332 -c 20
say "ok: cmtime over IPoIB addresses, 20 connections (ucmatose and cmtime: $((SECONDS - t0)) s)"

# CM MADs crafted and fuzzed on the wire (tools/cmfuzz.py, softib transport):
# a fake remote CM at LID 0x99 writes IB packets on vB (ib1's carrier) to
# ib0's CM, behind a cmprobe listener on ib0's IPoIB address: valid REQs,
# RTUs (established connections), well-formed and mutated LAPs for them (the
# alternate path code), duplicates, mutated REP/RTU/REJ/MRA/DREQ/DREP/APR/
# SIDR and random MADs; then a valid REQ is still answered and every id
# drains. (ib1 drops the answers to LID 0x99 as not its own.)
CMFUZZ=$(cd "$(dirname "$0")/../.." && pwd)/tools/cmfuzz/cmfuzz.py
sib_cm_fuzz() {
	local port=7340 server lap0 dup0 lap dup
	lap0=$(cat /sys/class/infiniband/ib0/ports/1/cm_rx_msgs/lap)
	dup0=$(cat /sys/class/infiniband/ib0/ports/1/cm_rx_duplicates/lap)
	bg /tmp/sib-fuzz-server.log "$CMPROBE" -s -b "$SIB_IP0" -p $port -k 0 -n 0 -T 120
	server=$LAST_PID
	wait_for 10 "the listener on $SIB_IP0:$port" cm_id_listening $port
	local fz=(python3 "$CMFUZZ" --transport softib --iface vB
		--src-lid 0x99 --dst-lid "$(sib_lid ib0)"
		--src-gid fe80000000000000020000fffe000099
		--dst-gid "$(cat /sys/class/infiniband/ib0/ports/1/gids/0)"
		--src-ip 198.18.9.77 --dst-ip "$SIB_IP0" --port "$port"
		--seed "${ORCM_FUZZ_SEED:-30}" --count "${ORCM_FUZZ_COUNT_IB:-1000}")
	run_to /tmp/sib-cmfuzz-dry.log 60 "${fz[@]}" --dry-run fuzz || fail "the fuzzer's dry run"
	run_to /tmp/sib-cmfuzz.log 120 "${fz[@]}" fuzz || fail "CM MAD fuzz over softib"
	local dry real
	dry=$(grep '^draws ' /tmp/sib-cmfuzz-dry.log) real=$(grep '^draws ' /tmp/sib-cmfuzz.log || true)
	[ -n "$dry" ] && [ "$dry" = "$real" ] ||
		fail "the softib fuzz is not the seed's alone: dry run '$dry', run '$real'"
	# A LAP taken for an established connection stays pending (rdma_cm
	# neither answers nor migrates): the next ones for it are duplicates.
	lap=$(($(cat /sys/class/infiniband/ib0/ports/1/cm_rx_msgs/lap) - lap0))
	dup=$(($(cat /sys/class/infiniband/ib0/ports/1/cm_rx_duplicates/lap) - dup0))
	say "ib0's CM: $lap LAPs received, $dup of them duplicates of a LAP taken"
	[ "$dup" -gt 0 ] || fail "no LAP of the fuzz was taken for an established connection"
	kill -TERM "$server" 2>/dev/null || true
	wait_pid "$server" 10 || true
	wait_for 60 "every CM id drained after the fuzz" cm_ids_empty
	say "ok: crafted and fuzzed CM MADs over IB (LAPs for established connections among them); the CM still serves"
}
sib_cm_fuzz

# CM MADs lost during connects: 25% of the CM MADs leaving each carrier
# dropped (sib_cm_netem).
cm_retries() { # the CM's resends, both ports, every message type
	cat /sys/class/infiniband/ib[01]/ports/1/cm_tx_retries/* | awk '{ n += $1 } END { print n + 0 }'
}
t0=$SECONDS
r0=$(cm_retries)
sib_cm_netem vA 25%
sib_cm_netem vB 25%
# A lost REQ or REP costs the CM's timeout (2 x the path's packet lifetime
# + the peer's CM response time: about 6 s here) before its resend.
STEP=120 transfer_pair sib-cmloss 7335 "${IN_B[@]}" ucmatose -b "$SIB_IP1" -p 7335 -c 6 -C 5 -- \
	ucmatose -s "$SIB_IP1" -b "$SIB_IP0" -p 7335 -c 6 -C 5
t1=$SECONDS
wait_for 60 "no CM id left after the lossy connects" cm_ids_empty
d=$(($(sib_cm_netem_drops vA) + $(sib_cm_netem_drops vB)))
r=$(($(cm_retries) - r0))
tc qdisc del dev vA root
tc qdisc del dev vB root
say "sib-cmloss: $d CM MADs dropped by netem, $r CM resends (cm_tx_retries);" \
	"ucmatose $((t1 - t0)) s, ids gone $((SECONDS - t1)) s later"
[ "$d" -gt 0 ] || fail "netem dropped no CM MAD: the filter matched nothing"
# Every lost CM message but an RTU (the first data packet may establish
# the passive side instead) makes the CM resend one: with 5 or more lost,
# at least one resend is as good as certain (0.2^5 that all were RTUs).
[ "$d" -lt 5 ] || [ "$r" -gt 0 ] || fail "$d CM MADs lost, yet cm_tx_retries counted no resend"
say "ok: 25% of CM MADs lost: 6 connections complete, no id left ($ORCM_STACK, $((SECONDS - t0)) s)"

# perftest -R: its parameter connection, then the data QP, both through
# rdma_cm; the transfer completes (perftest_verdict), no id is left.
t0=$SECONDS SIZE=65536 ITERS=20
for t in write:7341 read:7342 send:7343; do
	perftest_pair "sib-$t" 60 "${t#*:}" "${IN_B[@]}" "ib_${t%:*}_bw" -R -d ib1 \
		-p "${t#*:}" -s $SIZE -n $ITERS -F -- \
		"ib_${t%:*}_bw" -R -d ib0 -p "${t#*:}" -s $SIZE -n $ITERS -F "$SIB_IP1"
done
say "ok: perftest -R over IPoIB addresses ($((SECONDS - t0)) s)"

t0=$SECONDS
afib_tests
say "AF_IB block: $((SECONDS - t0)) s ($ORCM_STACK)"

# SA load: the udaddy client in netns B (ib1: its SA queries cross the
# link to opensm on ib0), the server here; PathRecord queries counted on vA.
sa_load() {
	local name=$1 n=$2
	mc_start "$name" vA
	transfer_pair "$name" 7174 udaddy -b "$SIB_IP0" -c "$n" -C 1 -- \
		"${IN_B[@]}" udaddy -s "$SIB_IP0" -b "$SIB_IP1" -c "$n" -C 1
	mc_stop "$name"
	say "$name: $n route resolutions from ib1, $MC_Q SA PathRecord queries on the wire ($ORCM_STACK)"
	SA_QUERIES=$MC_Q
}
[ "$ORCM_STACK" != ours ] || [ -r "$PC" ] || fail "no $PC"
[ "$ORCM_STACK" != ours ] || { cat "$PC"; h0=$(pc hits) c0=$(pc coalesced) m0=$(pc misses); }
# 1,000 route resolutions to one destination with ours (udaddy: 1,000 UD
# endpoints, about 35 s). The in-tree CM asks the SA once per resolution,
# all at once: at 1,000 it passed on a quiet machine (1,000 queries, 35 s),
# but with two VMs loading the machine opensm fell behind udaddy's 2 s
# route timeout (ROUTE_ERROR -110, 2026-11-27), so the stock VM asks 100.
SA_N=1000
[ "$ORCM_STACK" != stock ] || SA_N=100
STEP=240 sa_load sib-saload $SA_N # the client, at most (35 s here)
if [ "$ORCM_STACK" = stock ]; then
	# In-tree: one query per route resolution.
	[ "$SA_QUERIES" -ge $SA_N ] || fail "stock: $SA_QUERIES PathRecord queries for $SA_N resolutions, expected one each"
else
	cat "$PC"
	[ "$SA_QUERIES" -eq 1 ] || fail "ours: $SA_QUERIES PathRecord queries for $SA_N resolutions to one destination, want 1"
	[ $(($(pc misses) - m0)) -eq 1 ] || fail "path cache: $(($(pc misses) - m0)) misses, want 1"
	[ $(($(pc hits) - h0 + $(pc coalesced) - c0)) -eq $((SA_N - 1)) ] ||
		fail "path cache: hits + waits $(($(pc hits) - h0 + $(pc coalesced) - c0)), want $((SA_N - 1))"
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

# IPoIB connected mode (RFC 4755): each IPoIB netdev's own ib_cm client
# (REQ/REP/RTU, service id 0x1000000000000000 | the peer's UD QPN) sets up
# an RC QP pair per peer, receiving on an SRQ; MTU 65520. A ping with DF
# set (-M do) of 65000 bytes is one IPoIB packet: datagram mode
# cannot carry it (its MTU is 4092, and a connected-mode netdev without an
# RC connection answers "fragmentation needed"), so it passing proves the
# RC path; so does the receive PSN of an RC QP of ib_ipoib on ib1 moving by
# at least the 48 packets 3 such pings are at a 4096-byte path MTU. Back
# in datagram mode the connections are torn down (DREQ/DREP; the receive
# QPs drained: LAST_WQE_REACHED), every RC QP goes, and ping still works.
t0=$SECONDS
ipoib_mode - "$SIB_I0" connected
ipoib_mode "$NS_B" "$SIB_I1" connected
wait_for 20 "ping $SIB_IP1 in connected mode" ping -c 1 -W 1 "$SIB_IP1"
wait_for 10 "RC QPs of ib_ipoib on ib0 and ib1" bash -c "$(declare -f rc_psns); [ -n \"\$(rc_psns ib0)\" ] && [ -n \"\$(rc_psns ib1)\" ]"
rdma res show srq | grep -q 'ib_ipoib' || fail "no SRQ of ib_ipoib: $(rdma res show srq)"
rc_psns ib1 >/tmp/sib-ipoib-cm-psn0
run_to /tmp/sib-ipoib-cm.log "$STEP" ping -M "do" -c 3 -i 0.2 -W 2 -s 65000 "$SIB_IP1" ||
	fail "a 65000-byte ping (DF) over IPoIB connected mode: $(tail -n 3 /tmp/sib-ipoib-cm.log)"
rdma res show qp | grep 'type RC .*ib_ipoib'
moved=$(rc_psns ib1 | awk 'NR == FNR { p[$1] = $2; next } ($1 in p) {
	d = ($2 - p[$1] + 16777216) % 16777216; if (d > m) m = d } END { print m + 0 }' /tmp/sib-ipoib-cm-psn0 -)
[ "$moved" -ge 48 ] || fail "the RC QPs of ib_ipoib on ib1 received $moved packets, not the 48 of 3 pings of 65000 bytes"
say "ok: IPoIB connected mode, MTU 65520, SRQ: 65000-byte pings (DF) over RC, $moved packets ($ORCM_STACK)"
ipoib_mode - "$SIB_I0" datagram
ipoib_mode "$NS_B" "$SIB_I1" datagram
wait_for 15 "the RC QPs of ib_ipoib gone" bash -c "! rdma res show qp | grep -q 'type RC .*ib_ipoib'"
run_to /tmp/sib-ipoib-dg.log "$STEP" ping -c 2 -i 0.2 -W 2 "$SIB_IP1" || fail "ping in datagram mode again"
say "ok: back to datagram mode, connections torn down, ping ($ORCM_STACK, IPoIB-CM part $((SECONDS - t0)) s)"

# The SM killed: an RC connection that is up (rping, verified pings) goes on
# passing data, and a new route resolution that needs the SA fails with
# RDMA_CM_EVENT_ROUTE_ERROR within its timeout (ucmatose's 2 s), as
# in-tree: ucmatose with a type of service asks for a path of that traffic
# class, one our path cache has not seen.
# live_rping NAME PORT: an rping connection ib0 -> ib1 (netns B) passing
# verified pings until live_rping_end; $LIVE_CLIENT, $LIVE_SERVER.
live_rping() {
	bg "/tmp/$1-server.log" "${IN_B[@]}" rping -s -V -a "$SIB_IP1" -p "$2" -C 0
	LIVE_SERVER=$LAST_PID
	wait_for 10 "rping server listening" cm_id_listening "$2"
	bg "/tmp/$1.log" rping -c -v -V -a "$SIB_IP1" -p "$2" -C 0
	LIVE_CLIENT=$LAST_PID
	wait_for 20 "rping passing data" grep -q 'ping data' "/tmp/$1.log"
}
live_pings() { grep -c 'ping data' "/tmp/$1.log"; }
# live_rping_end NAME PINGS0 WHEN: the connection still up and passing
# data since PINGS0 verified pings, without an error; then stopped, no id.
live_rping_end() {
	local t1
	sleep 1
	LIVE_PINGS=$(live_pings "$1")
	kill -0 "$LIVE_CLIENT" 2>/dev/null || fail "rping ended $3: $(tail -n 2 "/tmp/$1.log")"
	[ "$LIVE_PINGS" -gt "$2" ] || fail "rping passed no data $3 ($2 pings before, $LIVE_PINGS after)"
	! grep -qi 'error\|fail' "/tmp/$1.log" || fail "rping: $(grep -i -m1 'error\|fail' "/tmp/$1.log")"
	kill "$LIVE_CLIENT" 2>/dev/null || true
	wait_pid "$LIVE_CLIENT" 10 || true
	t1=$SECONDS
	wait_pid "$LIVE_SERVER" 10 || true
	say "the rping server exited $((SECONDS - t1)) s after the client"
	wait_for 10 "no CM id left after rping" cm_ids_empty
}
t0=$SECONDS
live_rping sib-smdead 7334
t1=$SECONDS
sib_sm_stop
say "opensm stopped after $((SECONDS - t1)) s; the rping connection up after $((t1 - t0)) s"
pings0=$(live_pings sib-smdead)
t0=$SECONDS
rc=0
run_to /tmp/sib-smdead-uc.log "$STEP" ucmatose -s "$SIB_IP1" -b "$SIB_IP0" -p 7335 -c 1 -C 1 -t 32 || rc=$?
[ "$rc" -ne 0 ] || fail "a route resolution with the SM dead succeeded"
# (-EINVAL: ib_core's SA client's status for the MAD layer's answer to a
# request no agent takes, as the in-tree CM reports it)
grep -q 'RDMA_CM_EVENT_ROUTE_ERROR, error: -22$' /tmp/sib-smdead-uc.log ||
	fail "with the SM dead: no RDMA_CM_EVENT_ROUTE_ERROR (-EINVAL): $(tail -n 2 /tmp/sib-smdead-uc.log)"
say "with the SM dead: route resolution failed in $((SECONDS - t0)) s: $(grep -m1 ROUTE_ERROR /tmp/sib-smdead-uc.log)"
live_rping_end sib-smdead "$pings0" "with the SM dead"
say "ok: the SM dead: rping went on ($pings0 -> $LIVE_PINGS verified pings), a new route failed cleanly ($ORCM_STACK, $((SECONDS - t0)) s)"

# An SM-driven LID change: opensm back with LMC 1 (a port's base LID a
# multiple of 2) moves ib0 off LID 1. Our path cache drops the records of
# the old LIDs (the port events: LID change, SM change, reregister), and
# new connections from ib1 to ib0 use the new LID (a stale record would
# address a LID nobody has): ucmatose, client in netns B.
t0=$SECONDS
l0=$(sib_lid ib0)
[ "$ORCM_STACK" != ours ] || i0=$(pc invalidated)
sib_sm_start -l 1
wait_for 30 "ib0's LID changed from $l0" bash -c "$(declare -f sib_lid); [ \"\$(sib_lid ib0)\" != $l0 ] && [ -n \"\$(sib_lid ib0)\" ]"
wait_for 30 "both ports ACTIVE again" sib_both ACTIVE
say "LIDs now: ib0 $(sib_lid ib0) (was $l0), ib1 $(sib_lid ib1); $(rdma link show ib0/1 | grep -o 'lmc [0-9]*')"
wait_for 30 "ping $SIB_IP1 over IPoIB after the LID change" ping -c 1 -W 1 "$SIB_IP1"
if [ "$ORCM_STACK" = ours ]; then
	[ "$(pc invalidated)" -gt "$i0" ] || fail "the path cache dropped nothing on the LID change"
fi
transfer_pair sib-ucmatose-lid 7336 ucmatose -b "$SIB_IP0" -p 7336 -c 2 -C 5 -- \
	"${IN_B[@]}" ucmatose -s "$SIB_IP0" -b "$SIB_IP1" -p 7336 -c 2 -C 5
wait_for 10 "no CM id left after ucmatose" cm_ids_empty
say "ok: after an SM-driven LID change, new connections use the new LIDs ($ORCM_STACK, $((SECONDS - t0)) s)"

# SM failover under live ids: a standby opensm on ib1's port takes over
# when the master (on ib0, LMC 1 since the block above) is killed. An RC
# connection that is up (rping, ib0 -> ib1) goes on passing data through
# the change of SM, the ports keep their LIDs, and a new connection after
# it resolves its route through the new SA (ours: the path cache dropped
# its records on the ports' SM_CHANGE).
t0=$SECONDS
lid0=$(sib_lid ib0) lid1=$(sib_lid ib1)
sib_sm_standby_start ib1 -l 1
wait_sm 2 30 ib0 "$lid1" || { tail -n 30 /tmp/opensm-b.log; fail "ib1's opensm is not STANDBY"; }
live_rping sib-fo 7337
[ "$ORCM_STACK" != ours ] || i0=$(pc invalidated)
t1=$SECONDS
sib_sm_stop
sib_failover_wait "$lid1"
say "failover: ib1's opensm MASTER $((SECONDS - t1)) s after the master was killed"
{ [ "$(sib_lid ib0)" = "$lid0" ] && [ "$(sib_lid ib1)" = "$lid1" ]; } ||
	fail "a LID moved in the failover: ib0 $lid0 -> $(sib_lid ib0), ib1 $lid1 -> $(sib_lid ib1)"
if [ "$ORCM_STACK" = ours ]; then
	[ "$(pc invalidated)" -gt "$i0" ] || fail "the path cache dropped nothing on the SM change"
fi
pings0=$(live_pings sib-fo)
transfer_pair sib-ucmatose-fo 7338 ucmatose -b "$SIB_IP0" -p 7338 -c 2 -C 5 -- \
	"${IN_B[@]}" ucmatose -s "$SIB_IP0" -b "$SIB_IP1" -p 7338 -c 2 -C 5
live_rping_end sib-fo "$pings0" "after the SM failover"
say "ok: SM failover under a live connection: rping went on ($pings0 -> $LIVE_PINGS verified pings), LIDs kept, a new connection through the new SA ($ORCM_STACK, $((SECONDS - t0)) s)"
