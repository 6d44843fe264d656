#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# iw_cm's host-stack CM on the wire against stock siw, with the test-only
# device tests/hostcm/hostcm_peer.ko (no data path: it sends the RTR as a
# hand-written MPA FPDU, CRC off) in netns orcmA and cmprobe on siwB:
#  - our host CM as initiator against siw's listener: MPA revision 2
#    peer-to-peer with a WRITE RTR and with a READ RTR (siw reports
#    ESTABLISHED only once the RTR parsed), and revision 1; private data
#    both ways; an MPA reject with private data; the close reaches siw;
#  - siw connecting to our listener, a real host port in orcmA (ss lists
#    it), private data both ways, siw's disconnect reaches us as CLOSE.
# shellcheck source=tests/e2e/lib.bash
. "$(dirname "$0")/lib.bash"
# shellcheck source=tests/e2e/cmprobe.bash
. "$(dirname "$0")/cmprobe.bash"
HP_KO=$ORCM_OURS_DIR/tests/hostcm/hostcm_peer.ko
HP=/sys/module/hostcm_peer/parameters
IWP=/sys/module/iw_cm/parameters
[ -f "$HP_KO" ] || fail "$HP_KO is missing"
[ -d "$IWP" ] && [ -f "$IWP/mpa_rev" ] || fail "iw_cm has no host-stack parameters"

hp_unload() { rmmod hostcm_peer 2>/dev/null || true; }
params_restore() {
	echo 2 >"$IWP/mpa_rev"
	echo 1 >"$IWP/peer2peer"
	echo 2 >"$IWP/p2p_type"
}
trap 'hp_unload; params_restore; cleanup' EXIT
setup_pair
PORT=7420

# hp_wait: the device's first event is in.
hp_done() { [ "$(cat "$HP/result")" != pending ]; }
hp_result() { cat "$HP/result"; }

# initiator NAME REV P2P TYPE SERVER-ANSWER WANT-RESULT: hostcm_peer
# connects from orcmA to a cmprobe server on siwB.
initiator() {
	local name=$1 rev=$2 p2p=$3 type=$4 answer=$5 want=$6 src=0
	echo "$rev" >"$IWP/mpa_rev"
	echo "$p2p" >"$IWP/peer2peer"
	echo "$type" >"$IWP/p2p_type"
	# shellcheck disable=SC2086 # $answer: the option and its value
	bg "/tmp/$name-server.log" "${IN_B[@]}" "$CMPROBE" -s -b "$ADDR_B" -p $PORT $answer -n 1 -T 20
	local server=$LAST_PID
	wait_for 10 "$name: server listening" listening "$name-server"
	in_a insmod "$HP_KO" mode=connect addr="$ADDR_B" port=$PORT pd_len=16 ||
		fail "$name: insmod hostcm_peer"
	wait_for 10 "$name: hostcm_peer's first event" hp_done
	local got
	got=$(hp_result)
	say "$name: $got"
	[[ $got == "$want" ]] || fail "$name: result '$got', want '$want'"
	# siw's side: our request data, and (accepted) ESTABLISHED, which siw
	# reports only after parsing our RTR in peer-to-peer mode.
	if [[ $answer == -k* ]]; then
		wait_for 10 "$name: siw ESTABLISHED" grep -qx 'event ESTABLISHED status 0 pdata 0' "/tmp/$name-server.log"
	fi
	hp_unload
	wait_pid "$server" 15 || src=$?
	show "/tmp/$name-server.log"
	[ "$src" -eq 0 ] || fail "$name: server exit status $src"
	has_line "$name-server" "event CONNECT_REQUEST status 0 $(pdata_field 16)"
	wait_for 10 "no CM id left after $name" cm_ids_empty
}

# The ird/ord we send are 1/1 and cmprobe's accept gives siw's.
initiator v2-p2p-write 2 1 2 "-k 8" \
	"CONNECT_REPLY status 0 pd 8 rev 2 p2p 1 rtr 2 crc 0 ird 1 ord 1"
initiator v2-p2p-read 2 1 3 "-k 8" \
	"CONNECT_REPLY status 0 pd 8 rev 2 p2p 1 rtr 3 crc 0 ird 1 ord 1"
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
