#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Wireshark's iWARP dissectors (tshark) decode softrnic's FPDUs: an rping is
# captured on the veth (AF_PACKET) per MPA mode, against stock siw and
# against softrnic; each capture must hold DDP/RDMAP frames, no malformed
# packet, no error-level expert item, and with CRC a good CRC on every FPDU
# (the dissector checks it) and no bad one. Revision 2 frames raise the
# warning iwarp_mpa.rev.not_set1 (the dissector knows revision 1 only):
# expected. The committed fixtures (tests/pcap/softrnic-*.pcap) are checked
# the same way; with ORCM_SHARED the new captures are copied there.
# orcm-timeout: 300
# shellcheck source=tests/e2e/lib.bash
. "$(dirname "$0")/lib.bash"
# shellcheck source=tests/e2e/softrnic-lib.bash
. "$(dirname "$0")/softrnic-lib.bash"

# rpcordma: its heuristic takes the empty payload of the zero-length SEND
# RTR for a truncated RPC-over-RDMA header; not an iWARP frame error.
TS=(tshark -n -o tcp.desegment_tcp_streams:TRUE --disable-protocol rpcordma)

# check_pcap FILE CRC: the dissection checks above, from one verbose
# dissection (tshark starts slowly in the VM): DDP/RDMAP frames, malformed
# frames and error-level expert items (-V prints "[Malformed Packet" and
# "[Severity level: Error]" for them), good and bad CRCs.
check_pcap() {
	local f=$1 crc=$2 v=/tmp/tshark-V.txt ddp bad good badcrc
	"${TS[@]}" -r "$f" -V >"$v" 2>/dev/null || fail "$f: tshark cannot read it"
	ddp=$(grep -c '^iWARP Direct Data Placement and Remote Direct Memory Access Protocol' "$v" || true)
	bad=$(grep -c '\[Malformed Packet\|\[Severity level: Error\]' "$v" || true)
	good=$(grep -c 'Good CRC32' "$v" || true)
	badcrc=$(grep -c 'Bad CRC32' "$v" || true)
	say "$(basename "$f"): $ddp DDP/RDMAP frames, $bad malformed/error, CRC good $good bad $badcrc"
	[ "$ddp" -gt 0 ] || fail "$f: no DDP/RDMAP frame decoded"
	[ "$bad" -eq 0 ] || {
		"${TS[@]}" -r "$f" -Y '_ws.malformed || _ws.expert.severity == error' -V | head -n 80
		fail "$f: malformed or error-level frames"
	}
	[ "$badcrc" -eq 0 ] || fail "$f: bad CRC32 on the wire"
	if [ "$crc" = Y ]; then
		[ "$good" -gt 0 ] || fail "$f: CRC negotiated, but no CRC checked good"
	fi
}
# capture NAME PORT SERVER_NS SERVER_ADDR CLIENT_NS: rping under dumpcap on vA.
capture() {
	local name=$1 port=$2 pcap=/tmp/softrnic-$1.pcap dc
	rm -f "$pcap"
	bg "/tmp/dumpcap-$name.log" ip netns exec "$NS_A" dumpcap -q -i vA -f "tcp port $port" -w "$pcap"
	dc=$LAST_PID
	wait_for 10 "dumpcap capturing on vA" test -s "$pcap"
	rping_pair "$name" "$3" "$4" "$5" "$4" "$port"
	sleep 0.5
	kill -INT "$dc"
	wait_pid "$dc" 10 || true
	check_pcap "$pcap" "$6"
	if [ -d /run/orcm/shared ]; then
		cp "$pcap" /run/orcm/shared/ && say "kept $(basename "$pcap")"
	fi
}

sr_stock_check
for f in "${ORCM_REPO:-.}"/tests/pcap/softrnic-*.pcap; do
	[ -f "$f" ] || continue
	c=N
	[[ $f == *crc* ]] && c=Y
	check_pcap "$f" $c
done

# NAME REV CRC MARKERS P2P RTR (1 SEND, 2 WRITE, 3 READ)
run_modes() {
	local m
	for m in "$@"; do
		# shellcheck disable=SC2086 # word splitting on purpose
		set -- $m
		sr_mode "$2" "$3" "$4" "$5" "$6"
		capture "$1" $port "$NS_B" "$ADDR_B" "$NS_A" "$3"
		port=$((port + 1))
	done
}

port=7500
sr_data_pair softrnic siw
run_modes "siw-rev2-p2p-write 2 N N Y 2" "siw-rev2-crc-p2p-read 2 Y N Y 3" \
	"siw-rev2-crc-nop2p 2 Y N N 0"
cleanup
sr_data_pair softrnic softrnic
run_modes "pair-rev1-crc-markers 1 Y Y N 0" "pair-rev2-p2p-send 2 N N Y 1"
say "ok: tshark decodes every mode without a malformed frame"
