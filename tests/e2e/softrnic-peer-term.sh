#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# A peer's TERMINATE ends a softrnic connection (issue 30, defect 4). The
# adversarial MPA peer (tools/mpa-peer, plain TCP from orcmA) completes a
# good MPA exchange with a softrnic listener (cmprobe -s on srB), sends one
# well-formed TERMINATE and keeps its TCP side open. softrnic must close the
# socket at once (the peer sees FIN or RST well within its 8 s deadline, not
# a timeout), the listener's connection must see DISCONNECTED, and no TCP
# connection may stay established on the listener's port. Once softrnic
# waited for a FIN that never came: the socket, the connection and the CM id
# stayed until the QP was destroyed. Cases: MPA revision 1 with CRC, and
# revision 2 peer-to-peer (the TERMINATE follows the WRITE RTR).
# orcm-timeout: 120
# shellcheck source=tests/e2e/lib.bash
. "$(dirname "$0")/lib.bash"
# shellcheck source=tests/e2e/cmprobe.bash
. "$(dirname "$0")/cmprobe.bash"
# shellcheck source=tests/e2e/iwhost-lib.bash
. "$(dirname "$0")/iwhost-lib.bash"
need_softrnic
PEER_TIMEOUT=8
# shellcheck source=tests/e2e/mpa-peer.bash
. "$(dirname "$0")/mpa-peer.bash"
setup_pair siw softrnic
start_listener

# established_b: TCP connections of the listener's port still established in B.
established_b() { in_b ss -tnH state established "sport = :$PEER_PORT" | grep -c . || true; }
disconnects() { grep -c '^event DISCONNECTED' /tmp/peer-listener.log || true; }

# term_case NAME ARGS...: the peer sends its TERMINATE after the handshake
# ARGS and must see the listener close.
term_case() {
	local name=$1 before
	shift
	before=$(disconnects)
	peer "$name" close,rst fpdu --corrupt terminate "$@"
	wait_for 10 "$name: DISCONNECTED at the listener" test "$(disconnects)" -gt "$before"
	wait_for 10 "$name: no established connection on port $PEER_PORT" \
		test "$(established_b)" -eq 0
	say "$name: the listener closed after the peer's TERMINATE"
}

term_case term-v1-crc --rev 1 --crc
term_case term-v2-p2p --rev 2 --p2p --rtr write --crc
serves after
stop_listener
wait_for 10 "no CM id left" cm_ids_empty
say "ok: a peer's TERMINATE closes the softrnic connection"
