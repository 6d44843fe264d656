# SPDX-License-Identifier: GPL-2.0
# Helpers of the host-stack CM e2e scripts (iwhost-siw.sh, zz-iwhost-siw-p2p.sh):
# the test-only device tests/hostcm/hostcm_peer.ko against cmprobe on siw.
# Sourcing it sets up the namespace pair. Source it instead of lib.bash.
# shellcheck shell=bash
# shellcheck source=tests/e2e/lib.bash
. "$(dirname "$0")/lib.bash"
# shellcheck source=tests/e2e/cmprobe.bash
. "$(dirname "$0")/cmprobe.bash"
HP_KO=$ORCM_OURS_DIR/tests/hostcm/hostcm_peer.ko
HP=/sys/module/hostcm_peer/parameters
IWP=/sys/module/iw_cm/parameters
if [ "${ORCM_STACK:-}" = stock ]; then
	skip "the stock stack has no host-stack iWARP CM (hostcm_peer needs our iw_cm)"
fi
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

