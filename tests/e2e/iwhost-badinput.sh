#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Bad input for the host-stack iWARP CM: the adversarial MPA peer
# (tools/mpa-peer) against a softrnic listener (cmprobe -s on srB; the good
# clients come from siwA). Good MPA revision 1 and 2 requests (peer-to-peer
# with SEND, WRITE and READ RTR, CRC, markers) are accepted; every request
# that breaks MPA ends in a reject or a close, the slow ones within iw_cm's
# request timeout (mpa_req_timeout_ms, 3 s here), an initiator that never
# sends its RTR within rtr_timeout_ms (3 s); after each, the listener
# still serves a good client. Thousands of idle connects: beyond
# max_half_open they are refused at once (counted in half_open_refused) and
# the listener serves again once they are gone. Nothing leaks.
# orcm-timeout: 400
# shellcheck source=tests/e2e/lib.bash
. "$(dirname "$0")/lib.bash"
# shellcheck source=tests/e2e/cmprobe.bash
. "$(dirname "$0")/cmprobe.bash"
# shellcheck source=tests/e2e/iwhost-lib.bash
. "$(dirname "$0")/iwhost-lib.bash"
need_softrnic
PEER_TIMEOUT=10
# shellcheck source=tests/e2e/mpa-peer.bash
. "$(dirname "$0")/mpa-peer.bash"
iwcm_param mpa_req_timeout_ms 3000
iwcm_param rtr_timeout_ms 3000
setup_pair siw softrnic
start_listener
serves before

# Good requests: a valid reply, and the RTR (of the type the reply picked)
# when peer-to-peer.
peer good-v1 accept good --rev 1
peer good-v1-crc accept good --rev 1 --crc --pd 32
peer good-v1-markers accept good --rev 1 --markers
peer good-v1-pd512 accept good --rev 1 --pd 512
peer good-v2 accept good --rev 2 --pd 100
peer good-v2-pd508 accept good --rev 2 --pd 508
peer good-v2-p2p-write accept good --rev 2 --p2p --rtr write --ird 4 --ord 4
peer good-v2-p2p-read accept good --rev 2 --p2p --rtr read --crc
peer good-v2-p2p-send accept good --rev 2 --p2p --rtr send
peer good-v2-p2p-any accept good --rev 2 --p2p --rtr send,write,read
serves good

# Slow cases side by side: the request timeout must cut them, however the
# bytes trickle in.
peer_bg pd-short close,rst pd-short --pd-length 100 --pd-send 10
peer_bg truncated-silent close,rst truncated --send-bytes 12 --no-fin
peer_bg slowloris close,rst slowloris --interval 200
peer_bg silent close,rst idle --count 20
# A peer-to-peer initiator that takes the reply and never sends its RTR: the
# responder resets the connection after rtr_timeout_ms (3 s here).
peer_bg no-rtr rst,close good --rev 2 --p2p --rtr write --no-rtr

# Requests that break MPA: a reject frame (then a close) or a close.
bad bad-key "$BAD" bad-key
bad bad-rev-3 "$BAD" bad-rev --rev 3
bad bad-rev-0 "$BAD" bad-rev --rev 0
bad bad-rev-255 "$BAD" bad-rev --rev 255
bad pd-over-max "$BAD" pd-over-max --pd-length 513
bad pd-65535 "$BAD" pd-over-max --pd-length 65535 --pd-send 600
bad pd-short-fin "$BAD" pd-short --pd-length 100 --pd-send 10 --fin
bad truncated-key "$BAD" truncated --send-bytes 5
bad truncated-hdr "$BAD" truncated --send-bytes 19
bad truncated-pd "$BAD" truncated --pd 40 --send-bytes 30
bad reply-as-request "$BAD" reply-as-request
bad enhanced-short "$BAD" enhanced-short
# Nonsense IRD/ORD/RTR: a reject or close, or a sane reply (mpa-peer checks
# it: peer-to-peer only when asked, exactly one RTR and one that was offered).
bad p2p-no-rtr "$BAD,accept" ird-ord --p2p
bad rtr-no-p2p "$BAD,accept" ird-ord --rtr write,read
bad ird-ord-max "$BAD,accept" ird-ord --ird 0x3fff --ord 0x3fff
bad ird-ord-zero "$BAD,accept" ird-ord --ird 0 --ord 0 --p2p --rtr write
bad v2-no-enhanced "$BAD,accept" good --rev 2 --no-enhanced --pd 8
peer_wait
serves slow

# Corrupted FPDUs after a good handshake (CRC on): a TERMINATE, then the
# connection ends; the listener is not hurt.
for c in crc ddp-version rdmap-version qn msn stag opcode short-len; do
	bad "fpdu-$c" terminate fpdu --corrupt "$c"
done
peer fpdu-v2-p2p terminate fpdu --rev 2 --p2p --rtr write --corrupt msn
serves fpdu

# A thousand idle connects against a cap of 64 half-open connections: the
# ones beyond it are refused at once (a reset, often before the connect is
# seen to complete: mpa-peer counts both as ended fast), the others end at
# the request timeout (3 s; slots come free while the connects are still
# being made, so some 200 get in), and then a good client is served.
iwcm_param max_half_open 64
refused0=$(iwcm_param half_open_refused)
peer idle-1000 close idle --count 1000 --fast 1500 --min-fast 600
refused=$(($(iwcm_param half_open_refused) - refused0))
say "half_open_refused: +$refused"
[ "$refused" -ge 600 ] || fail "only $refused connects refused over the cap, want >= 600"
serves idle

stop_listener
wait_for 10 "no CM id left" cm_ids_empty
no_kmemleak 'softrnic|iw_cm|rdma_cm|siw'
say "ok"
