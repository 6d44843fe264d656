#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The offload interface (issue 28, include/openrdma/offload_track.h) as
# softrnic in offload_cm=1 mode consumes it: two softrnic devices (srA in
# orcmA, srB in orcmB, over the veth pair), iwpm_mode=off, both ends' MTU
# 9000, an ib_write_bw -R -D stream from A to B. While it runs:
#  1. both ends' MTU 9000 -> 1500 -> 1280: each end's connection file
#     (debugfs softrnic/<dev>-qp<N>) shows the new MTU and MULPDU, and the
#     transmit path's FPDU size (tx_mulpdu) follows, within a second;
#  2. B's MAC changed (ip link set address) and A's neighbour entry
#     updated: A's next-hop MAC follows within a second;
#  3. 1280 -> 9000 -> 1500 (the transmit buffers grow back);
# then the stream completes (both ends exit 0). Then, on an idle connection
# (cmprobe, held 10 s):
#  4. vA down and up: link down, then up, at both ends (B loses carrier),
#     A's transmit hold on and off, route and next hop back.
# (A first run did the link flap under the ib_write_bw -D stream: the
# stream died and ib_write_bw segfaulted in librdmacm during the flap;
# not understood yet, see docs/tracking.md.) The latency of each update
# (netdev event to softrnic's callback) is printed with the median; the
# issue's target is under 1 ms; it is reported, not enforced (UML).
# orcm-timeout: 240
# shellcheck source=tests/e2e/lib.bash
. "$(dirname "$0")/lib.bash"
# shellcheck source=tests/e2e/softrnic-lib.bash
. "$(dirname "$0")/softrnic-lib.bash"
# shellcheck source=tests/e2e/cmprobe.bash
. "$(dirname "$0")/cmprobe.bash"

SR_PARAM=/sys/module/softrnic/parameters/offload_cm
DBG=/sys/kernel/debug/softrnic
DUR=${TRK_DUR:-15}
PORT=7340
LATS=()
track_cleanup() {
	set +e
	[ -w "$SR_PARAM" ] && echo 0 >"$SR_PARAM"
	sr_cleanup
}

sr_stock_check
sr_need_datapath
trap track_cleanup EXIT
[ -w "$SR_PARAM" ] || fail "softrnic has no offload_cm parameter"
echo 1 >"$SR_PARAM"
sr_param iwpm_mode off
sr_param connect_timeout_ms 3000
sr_setup_pair softrnic softrnic
in_a ip link set vA mtu 9000
in_b ip link set vB mtu 9000

# conn_file DEV: the connection file of DEV (one connection per device here).
conn_file() { compgen -G "$DBG/$1-qp*" | head -n 1; }
# The UML shell forks slowly under load (seconds per command with the
# machine busy): the polling below uses bash builtins only, and the
# "within a second" is the kernel's own measure (last_latency_ns: event to
# callback; last_tx_latency_ns: event to the first FPDU of the new size).
declare -A V
# load FILE: its "key value" lines into V.
load() {
	local k v
	V=()
	while read -r k v; do V[$k]=$v; done <"$1"
}
ms() { local t=${EPOCHREALTIME/./}; MS=$((t / 1000)); }
# mulpdu_of MTU: MPA MULPDU of one FPDU per segment (IPv4, TCP timestamps
# as the namespace negotiates them, no markers; RFC 5044 4.4).
TSOPT=$(in_a sysctl -n net.ipv4.tcp_timestamps)
mulpdu_of() {
	local emss=$(($1 - 40 - (TSOPT ? 12 : 0)))
	MUL=$((emss - 6 - emss % 4))
}

# follow WHAT KEY VALUE FILE...: every FILE comes to show KEY VALUE (the
# shell waits up to 20 s); then each file's last update took under a
# second, by the kernel's clock (and its FPDU size, for KEY tx_mulpdu).
follow() {
	local what=$1 key=$2 val=$3 t0 f ok lat tx lats=''
	shift 3
	ms
	t0=$MS
	while :; do
		ok=1
		for f in "$@"; do
			load "$f"
			[ "${V[$key]:-}" = "$val" ] || ok=0
		done
		[ $ok = 1 ] && break
		ms
		if [ $((MS - t0)) -gt 20000 ]; then
			for f in "$@"; do show "$f"; done
			fail "$what: $key is not $val after 20 s"
		fi
		sleep 0.05
	done
	ms
	for f in "$@"; do
		load "$f"
		lat=${V[last_latency_ns]:--1}
		# one sample per update (several checks may read the same one)
		if [ "$lat" -ge 0 ] && [[ " ${LATS[*]} " != *" $lat "* ]]; then
			LATS+=("$lat")
		fi
		lats+="$lat "
		[ "$lat" -lt 1000000000 ] ||
			fail "$what: $f's update came $lat ns after the event"
		if [ "$key" = tx_mulpdu ] && [ "$lat" -ge 0 ]; then
			tx=${V[last_tx_latency_ns]:--1}
			if [ "$tx" -lt 0 ] || [ "$tx" -ge 1000000000 ]; then
				fail "$what: $f's FPDU size followed $tx ns after the event"
			fi
			lats+="(tx $tx) "
		fi
	done
	say "$what: $key $val (shell saw it after $((MS - t0)) ms; kernel ns: $lats)"
}

set_mtu() {
	in_a ip link set vA mtu "$1"
	in_b ip link set vB mtu "$1"
	mulpdu_of "$1"
	follow "MTU $1" tx_mulpdu "$MUL" "$FA" "$FB"
	for f in "$FA" "$FB"; do
		load "$f"
		if [ "${V[mtu]}" != "$1" ] || [ "${V[mulpdu]}" != "$MUL" ]; then
			fail "$f: mtu ${V[mtu]} mulpdu ${V[mulpdu]} after MTU $1"
		fi
	done
}

bg /tmp/trk-bw-server.log "${IN_B[@]}" ib_write_bw -R -d srB -p $PORT -s 65536 -D "$DUR" -F
server=$LAST_PID
wait_for 10 "ib_write_bw server listening" cm_id_listening $PORT
wait_for 10 "a TCP listener on port $PORT" in_b ss -Hltn "sport = :$PORT"
bg /tmp/trk-bw.log "${IN_A[@]}" nice -n 19 ib_write_bw -R -d srA -p $PORT -s 65536 -D "$DUR" -F "$ADDR_B"
client=$LAST_PID
wait_for 20 "the connection's debugfs file at both ends" \
	sh -c "ls $DBG/srA-qp* $DBG/srB-qp* >/dev/null 2>&1"
FA=$(conn_file srA)
FB=$(conn_file srB)
show "$FA"
load "$FA"
[ "${V[mode]}" = offload ] || fail "$FA: not in offload mode"
load "$FB"
[ "${V[mode]}" = offload ] || fail "$FB: not in offload mode"
mulpdu_of 9000
follow "connected at MTU 9000" tx_mulpdu "$MUL" "$FA" "$FB"
LATS=()	# the hand-over has no event time

# ---- 1. MTU 9000 -> 1500 -> 1280 ----
set_mtu 1500
set_mtu 1280

# ---- 2. the peer's MAC ----
NEWMAC=02:00:5e:28:00:02
in_b ip link set vB address $NEWMAC
in_a ip neigh replace "$ADDR_B" lladdr $NEWMAC dev vA nud reachable
follow "peer MAC changed" nh_mac $NEWMAC "$FA"
[ "${V[oif]}" = "$(in_a cat /sys/class/net/vA/ifindex)" ] ||
	fail "$FA: oif ${V[oif]}, not vA's"

# ---- 3. growing back, then down again ----
set_mtu 9000
set_mtu 1500
show "$FA"
show "$FB"
load "$FA"
for k in updates mtu_changes neigh_changes route_changes link_changes; do
	say "A's $k: ${V[$k]}"
done
[ "${V[mtu_changes]}" -ge 4 ] || fail "A: ${V[mtu_changes]} MTU callbacks for 4 changes"

rc=0 src=0
wait_pid "$client" $((DUR + 60)) || rc=$?
wait_pid "$server" 30 || src=$?
show /tmp/trk-bw.log
show /tmp/trk-bw-server.log
if [ "$rc" -ne 0 ] || [ "$src" -ne 0 ]; then
	fail "the stream did not complete: client exit $rc, server exit $src"
fi
say "ok: the ib_write_bw -R -D $DUR stream completed through every change"
wait_for 10 "no CM id left" cm_ids_empty

# ---- 4. link down and up, under an idle connection ----
PORT=7342
bg /tmp/trk-probe-server.log "${IN_B[@]}" "$CMPROBE" -s -b "$ADDR_B" -p $PORT -n 1 -T 90
pserver=$LAST_PID
wait_for 10 "the cmprobe listener on $ADDR_B:$PORT" cm_id_listening $PORT
bg /tmp/trk-probe.log "${IN_A[@]}" "$CMPROBE" -c -a "$ADDR_B" -p $PORT -H 10000 -T 60
pclient=$LAST_PID
wait_for 20 "the idle connection's debugfs file at both ends" \
	sh -c "ls $DBG/srA-qp* $DBG/srB-qp* >/dev/null 2>&1"
FA=$(conn_file srA)
FB=$(conn_file srB)
in_a ip link set vA down
follow "vA down" link down "$FA" "$FB"
follow "vA down" tx_hold 1 "$FA"
sleep 1
in_a ip link set vA up
follow "vA up" link up "$FA" "$FB"
follow "vA up" tx_hold 0 "$FA"
follow "vA up" route ok "$FA"
show "$FA"
rc=0 src=0
wait_pid "$pclient" 60 || rc=$?
wait_pid "$pserver" 30 || src=$?
show /tmp/trk-probe.log
show /tmp/trk-probe-server.log
if [ "$rc" -ne 0 ] || [ "$src" -ne 0 ] || ! grep -q ESTABLISHED /tmp/trk-probe.log; then
	fail "the idle connection did not live through the link flap: client $rc, server $src"
fi
say "ok: link down/up reflected at both ends; the connection lived through it"
wait_for 10 "no CM id left" cm_ids_empty

# (a here-string: the VM has no /dev/fd for process substitution)
mapfile -t SORTED <<<"$(printf '%s\n' "${LATS[@]}" | sort -n)"
med=${SORTED[$(((${#SORTED[@]} - 1) / 2))]}
say "update latency (netdev event -> softrnic callback), ${#LATS[@]} samples, ns:" \
	"${SORTED[*]}"
say "median update latency: $((med / 1000)) us (target: under 1000 us)"
