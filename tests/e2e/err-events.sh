#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# What a client sees when the peer does not answer, event or errno, each
# within its bound, and no CM id left (as recorded on the stock stack):
#   address nobody answers ARP for        ADDR_ERROR -ETIMEDOUT after the
#                                         resolve timeout (1 s)
#   no route / unreachable / prohibit /   rdma_resolve_addr fails at once:
#   blackhole route                       ENETUNREACH / EHOSTUNREACH / EACCES / EINVAL
#   a route through a netdev without      ADDR_ERROR -ENODEV (and binding to
#   an RDMA device                        its address: ENODEV)
#   the peer has nothing on the port      rdma_connect fails: ECONNREFUSED (siw
#   (TCP RST)                             connects synchronously)
#   SYNs go to a MAC nobody owns          rdma_connect fails: ETIMEDOUT (after the
#                                         TCP SYN retries, set to 1 here: ~3 s)
#   a TCP peer that closes at once        REJECTED -ECONNRESET
#   a TCP peer that answers garbage       CONNECT_ERROR -EINVAL
#   a TCP peer / an RDMA server that      UNREACHABLE -ETIMEDOUT after siw's MPA
#   never answers the MPA request         timeout (10 s)
# ROUTE_ERROR cannot be provoked here: iWARP route resolution resolves nothing
# (rdma_resolve_route queues ROUTE_RESOLVED at once on an iWARP device).
# shellcheck source=tests/e2e/lib.bash
. "$(dirname "$0")/lib.bash"
# shellcheck source=tests/e2e/cmprobe.bash
. "$(dirname "$0")/cmprobe.bash"
setup_pair
CLIENT=("${IN_A[@]}" "$CMPROBE" -c -r 1000 -T 20)

# The two 10-second MPA timeouts first, in the background.
bg /tmp/hold-peer.log "${IN_B[@]}" "$CMPROBE" -t hold -b "$ADDR_B" -p 7421 -T 60
hold_peer=$LAST_PID
bg /tmp/mute-server.log "${IN_B[@]}" "$CMPROBE" -s -x -b "$ADDR_B" -p 7422 -T 60
mute_server=$LAST_PID
wait_for 10 "tcp hold peer listening" listening hold-peer
wait_for 10 "mute server listening" listening mute-server
bg /tmp/tcp-hold.log "${CLIENT[@]}" -a "$ADDR_B" -p 7421
hold_client=$LAST_PID
bg /tmp/rdma-mute.log "${CLIENT[@]}" -a "$ADDR_B" -p 7422
mute_client=$LAST_PID
t_mpa=$(date +%s)

# Address resolution.
expect_result arp-nobody 10 "ADDR_ERROR status -110" "${CLIENT[@]}" -a "$ADDR_NOBODY"
[ "$PROBE_MS" -ge 800 ] || fail "arp-nobody: ADDR_ERROR after $PROBE_MS ms, before the 1 s timeout"
expect_result no-route 10 "error rdma_resolve_addr ENETUNREACH" "${CLIENT[@]}" -a 203.0.113.1
in_a ip route add unreachable 198.18.20.0/24
in_a ip route add prohibit 198.18.21.0/24
in_a ip route add blackhole 198.18.22.0/24
expect_result route-unreachable 10 "error rdma_resolve_addr EHOSTUNREACH" "${CLIENT[@]}" -a 198.18.20.1
expect_result route-prohibit 10 "error rdma_resolve_addr EACCES" "${CLIENT[@]}" -a 198.18.21.1
expect_result route-blackhole 10 "error rdma_resolve_addr EINVAL" "${CLIENT[@]}" -a 198.18.22.1

# A second veth pair without RDMA devices.
ip link add vC netns "$NS_A" index 103 type veth peer name vD netns "$NS_B" index 104
in_a ip addr add 198.18.1.1/24 dev vC
in_b ip addr add 198.18.1.2/24 dev vD
in_a ip link set vC up
in_b ip link set vD up
wait_for 10 "ping 198.18.1.2 over vC" in_a ping -c 1 -W 1 198.18.1.2
expect_result no-rdma-dev 10 "ADDR_ERROR status -19" "${CLIENT[@]}" -a 198.18.1.2
probe no-rdma-bind 10 "${IN_B[@]}" "$CMPROBE" -s -b 198.18.1.2 -p 7423 -T 5
has_line no-rdma-bind "error rdma_bind_addr ENODEV"
[ "$PROBE_RC" -eq 1 ] || fail "no-rdma-bind: exit status $PROBE_RC"

# Connecting.
expect_result no-listener 10 "error rdma_connect ECONNREFUSED" "${CLIENT[@]}" -a "$ADDR_B" -p 7420
in_a sysctl -qw net.ipv4.tcp_syn_retries=1
in_a ip neigh replace 198.18.0.77 lladdr 02:00:5e:00:00:77 dev vA nud permanent
expect_result syn-blackhole 15 "error rdma_connect ETIMEDOUT" "${CLIENT[@]}" -a 198.18.0.77 -p 7420
[ "$PROBE_MS" -ge 2000 ] || fail "syn-blackhole: ETIMEDOUT after $PROBE_MS ms, before the SYN retries"
for m in close garbage; do
	bg "/tmp/$m-peer.log" "${IN_B[@]}" "$CMPROBE" -t $m -b "$ADDR_B" -p 7424 -T 20
	peer=$LAST_PID
	wait_for 10 "tcp $m peer listening" listening "$m-peer"
	case $m in
	close) want="REJECTED status -104" ;;
	garbage) want="CONNECT_ERROR status -22" ;;
	esac
	expect_result "tcp-$m" 15 "$want" "${CLIENT[@]}" -a "$ADDR_B" -p 7424
	grep -q "^tcp connection: $m" "/tmp/$m-peer.log" || fail "tcp-$m: the peer saw no connection"
	kill "$peer" 2>/dev/null || true
	wait_pid "$peer" 5 || true
done

# The MPA timeouts.
for c in tcp-hold:$hold_client rdma-mute:$mute_client; do
	rc=0
	wait_pid "${c#*:}" 20 || rc=$?
	show "/tmp/${c%:*}.log"
	[ "$rc" -ne 124 ] || fail "${c%:*}: the client hung"
	has_line "${c%:*}" "result UNREACHABLE status -110"
	[ "$rc" -eq 1 ] || fail "${c%:*}: exit status $rc"
done
took=$(($(date +%s) - t_mpa))
[ "$took" -ge 8 ] || fail "UNREACHABLE after ${took}s, before siw's 10 s MPA timeout"
say "tcp-hold, rdma-mute: UNREACHABLE status -110 (after ${took}s)"
has_line mute-server "ignore"
kill "$hold_peer" "$mute_server" 2>/dev/null || true
wait_pid "$hold_peer" 5 || true
wait_pid "$mute_server" 5 || true
wait_for 10 "no CM id left" cm_ids_empty
say "ok: every error event / errno as recorded on the stock stack"
