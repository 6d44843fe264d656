#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# iw_cm's host-stack CM on the wire against stock siw, with the test-only
# device tests/hostcm/hostcm_peer.ko (no data path: it sends the RTR as a
# hand-written MPA FPDU, CRC off) in netns orcmA and cmprobe on siwB:
#  - our host CM as initiator against siw's listener: MPA revision 2
#    without peer-to-peer and revision 1 (the RTR cases are in
#    zz-iwhost-siw-p2p.sh); private data both ways; an MPA reject with
#    private data; the close reaches siw;
#  - siw connecting to our listener, a real host port in orcmA (ss lists
#    it), private data both ways, siw's disconnect reaches us as CLOSE.
# shellcheck source=tests/e2e/iwhost.bash
. "$(dirname "$0")/iwhost.bash"

# The ird/ord we send are 1/1 and cmprobe's accept gives siw's.
initiator v2-no-p2p 2 0 2 "-k 8" \
	"CONNECT_REPLY status 0 pd 8 rev 2 p2p 0 rtr 0 crc 0 ird 1 ord 1"
initiator v1 1 1 2 "-k 8" \
	"CONNECT_REPLY status 0 pd 8 rev 1 p2p 0 rtr 0 crc 0 ird 1 ord 1"
# An MPA reject with its private data (no attach: parameters stay 0).
initiator reject 2 1 2 "-j 5" \
	"CONNECT_REPLY status -111 pd 5 rev 0 p2p 0 rtr 0 crc 0 ird 0 ord 0"
params_restore

# siw connects to our listener in orcmA.
name=responder
in_a insmod "$HP_KO" mode=listen addr="$ADDR_A" port=$PORT pd_len=12 ||
	fail "$name: insmod hostcm_peer (listen)"
in_a ss -ltnH | grep -q "$ADDR_A:$PORT" ||
	{ in_a ss -ltn; fail "$name: port $PORT is no host listener in $NS_A"; }
expect_result "$name" "$STEP" "ESTABLISHED status 0" "${IN_B[@]}" "$CMPROBE" -c -a "$ADDR_A" -p $PORT -P 20
has_line "$name" "event ESTABLISHED status 0 $(pdata_field 12)"
wait_for 10 "$name: CLOSE after siw's disconnect" grep -q 'CLOSE' "$HP/events"
say "$name: events $(cat "$HP/events"), result $(hp_result)"
[[ $(hp_result) == "ESTABLISHED status 0 pd 0 rev 2 p2p 0 rtr 0 crc 0 ird 1 ord"* ]] ||
	fail "$name: result '$(hp_result)'"
[[ $(cat "$HP/events") == CONNECT_REQUEST,ESTABLISHED,CLOSE ]] ||
	fail "$name: events '$(cat "$HP/events")'"
hp_unload
in_a ss -ltnH | grep -q "$ADDR_A:$PORT" && fail "$name: port $PORT still listening after unload"
wait_for 10 "no CM id left" cm_ids_empty
say "ok: host-stack CM interoperates with siw both ways"
