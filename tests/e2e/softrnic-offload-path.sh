#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Where an offloaded-mode connection's segments go (issue 30, defect 8).
# Two softrnic devices in offload_cm=1 mode (srA in orcmA, srB in orcmB,
# joined by the veth pair), iwpm_mode=off:
#  1. an ib_write_bw -F -R stream (20 x 64 KiB) from A to B is captured
#     on vA (dumpcap in orcmA; lo in both namespaces too, to show where
#     else it might go): at least the bytes sent must be there, as TCP
#     payload of the connection's port;
#  2. an nftables DROP rule on the port in orcmB blocks the offloaded
#     connect (the rule counts the SYNs), and the connect works again once
#     the rule is gone: the namespace's own netfilter and routing apply, as
#     in the default model (iwhost-nft).
# orcm-timeout: 300
# shellcheck source=tests/e2e/lib.bash
. "$(dirname "$0")/lib.bash"
# shellcheck source=tests/e2e/softrnic-lib.bash
. "$(dirname "$0")/softrnic-lib.bash"
# shellcheck source=tests/e2e/cmprobe.bash
. "$(dirname "$0")/cmprobe.bash"

SR_PARAM=/sys/module/softrnic/parameters/offload_cm
CAPS=()
path_cleanup() {
	local p
	set +e
	for p in "${CAPS[@]}"; do kill -INT "$p" 2>/dev/null; done
	for p in "${CAPS[@]}"; do wait "$p" 2>/dev/null; done
	[ -w "$SR_PARAM" ] && echo 0 >"$SR_PARAM"
	sr_cleanup
}

sr_stock_check
sr_need_datapath
trap path_cleanup EXIT
[ -w "$SR_PARAM" ] || fail "softrnic has no offload_cm parameter"
echo 1 >"$SR_PARAM"
sr_param iwpm_mode off
sr_param connect_timeout_ms 3000
sr_setup_pair softrnic softrnic
PORT=7330

# capture NAME NS IFACE PORT: dumpcap in NS on IFACE, TCP port PORT only.
capture() {
	rm -f "/tmp/cap-$1.pcap"
	bg "/tmp/cap-$1.log" ip netns exec "$2" dumpcap -q -i "$3" -f "tcp port $4" \
		-w "/tmp/cap-$1.pcap"
	CAPS+=("$LAST_PID")
	wait_for 20 "dumpcap on $2/$3" test -s "/tmp/cap-$1.pcap"
}
stop_captures() {
	local p
	sleep 0.5
	for p in "${CAPS[@]}"; do kill -INT "$p" 2>/dev/null || true; done
	for p in "${CAPS[@]}"; do wait_pid "$p" 10 || true; done
	CAPS=()
}
# segs NAME, bytes NAME: the TCP segments of a capture, their payload.
tcp_lens() { tshark -n -r "/tmp/cap-$1.pcap" -T fields -e tcp.len 2>/dev/null; }
segs() { tcp_lens "$1" | grep -c . || true; }
bytes() { tcp_lens "$1" | awk '{s += $1} END {print s + 0}'; }

# ---- 1. the segments are on the veth ----
capture va "$NS_A" vA $PORT
capture lo-a "$NS_A" lo $PORT
capture lo-b "$NS_B" lo $PORT
bg /tmp/off-bw-server.log "${IN_B[@]}" ib_write_bw -R -d srB -p $PORT -s 65536 -n 20 -F
server=$LAST_PID
wait_for 10 "ib_write_bw server listening" cm_id_listening $PORT
# its TCP listener too, and the client at nice 19 (softrnic-perftest.sh)
wait_for 10 "a TCP listener on port $PORT" in_b ss -Hltn "sport = :$PORT"
rc=0 src=0
run_to /tmp/off-bw.log 60 "${IN_A[@]}" nice -n 19 ib_write_bw -R -d srA -p $PORT -s 65536 -n 20 -F \
	"$ADDR_B" || rc=$?
wait_pid "$server" 30 || src=$?
show /tmp/off-bw-server.log
stop_captures
for c in va lo-a lo-b; do
	say "capture $c: $(segs "$c") segments, $(bytes "$c") payload bytes"
done
ITERS=20 SIZE=65536 perftest_verdict off-bw "$rc" "$src"
sent=$((20 * 65536))
[ "$(bytes va)" -ge "$sent" ] ||
	fail "vA carried $(bytes va) payload bytes of port $PORT, the stream sent $sent"
say "ok: the offloaded stream ($sent bytes) went over vA"

# ---- 2. the namespace's nftables apply ----
PORT=7332
bg /tmp/off-nft-server.log "${IN_B[@]}" "$CMPROBE" -s -b "$ADDR_B" -p $PORT -n 0 -T 120
server=$LAST_PID
wait_for 10 "the listener on $ADDR_B:$PORT" cm_id_listening $PORT
expect_result off-nft-before "$STEP" "ESTABLISHED status 0" \
	"${IN_A[@]}" "$CMPROBE" -c -a "$ADDR_B" -p $PORT -H 100 -T 15
in_b nft add table inet orcm
in_b nft add chain inet orcm input '{ type filter hook input priority 0; policy accept; }'
in_b nft add rule inet orcm input tcp dport $PORT counter drop
probe off-nft-blocked 20 "${IN_A[@]}" "$CMPROBE" -c -a "$ADDR_B" -p $PORT -T 15
[ "$PROBE_RC" -eq 1 ] ||
	fail "off-nft-blocked: cmprobe exit status $PROBE_RC, want 1 (the DROP rule must block it)"
pkts=$(in_b nft list chain inet orcm input | sed -n 's/.*counter packets \([0-9]*\).*/\1/p')
[ "${pkts:-0}" -gt 0 ] || fail "the DROP rule in $NS_B counted no packet"
say "blocked: $(grep '^result' /tmp/off-nft-blocked.log), $pkts packets dropped"
in_b nft delete table inet orcm
expect_result off-nft-after "$STEP" "ESTABLISHED status 0" \
	"${IN_A[@]}" "$CMPROBE" -c -a "$ADDR_B" -p $PORT -H 100 -T 15
kill -TERM "$server"
wait_pid "$server" 10 || true
wait_for 10 "no CM id left" cm_ids_empty
say "ok: an offloaded connection takes the namespace's interfaces and rules"
