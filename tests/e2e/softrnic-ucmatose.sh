#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# ucmatose (RDMA_PS_TCP, 4 connections x 20 messages, both ends exit 0) over
# softrnic: softrnic <-> stock siw both ways (softrnic's host CM with its
# default offer, MPA revision 2 peer-to-peer with a WRITE RTR, then with CRC
# and a READ RTR) and softrnic <-> softrnic. ucmatose's server sends as soon
# as it is ESTABLISHED, so the client's end must take data right behind the
# MPA reply (softrnic's host CM hands the socket over positioned exactly
# after the frame). Stock siw as the client has a race of its own there (see
# ucmatose.sh: "connect error -22"); for that signature alone one more
# attempt is made.
# orcm-timeout: 300
# shellcheck source=tests/e2e/lib.bash
. "$(dirname "$0")/lib.bash"
# shellcheck source=tests/e2e/softrnic-lib.bash
. "$(dirname "$0")/softrnic-lib.bash"

# uc_once NAME SERVER_NS SERVER_ADDR CLIENT_NS CLIENT_ADDR PORT: sets rc, src.
uc_once() {
	local server
	rc=0 src=0
	bg "/tmp/$1-server.log" ip netns exec "$2" ucmatose -b "$3" -P tcp -p "$6" -c 4 -C 20
	server=$LAST_PID
	wait_for 10 "$1: ucmatose server listening on $3:$6" cm_id_listening "$6"
	run_to "/tmp/$1.log" "$STEP" ip netns exec "$4" ucmatose -s "$3" -b "$5" -P tcp \
		-p "$6" -c 4 -C 20 || rc=$?
	wait_pid "$server" "$STEP" || src=$?
	show "/tmp/$1-server.log"
}

# uc NAME SERVER_NS SERVER_ADDR CLIENT_NS CLIENT_ADDR PORT CLIENT_KIND
uc() {
	local f
	uc_once "$@"
	if [ "$7" = siw ] && [ "$rc" -ne 0 ] &&
		grep -q 'event: RDMA_CM_EVENT_CONNECT_ERROR, error: -22' "/tmp/$1.log"; then
		say "$1: the siw client's MPA-reply race (connect error -22): one more attempt"
		wait_for 10 "no CM id left" cm_ids_empty
		uc_once "$1" "$2" "$3" "$4" "$5" "$(($6 + 50))"
	fi
	[ "$rc" -eq 0 ] || fail "$1: ucmatose client exit status $rc"
	[ "$src" -eq 0 ] || fail "$1: ucmatose server exit status $src"
	for f in "/tmp/$1.log" "/tmp/$1-server.log"; do
		grep -q 'data transfers complete' "$f" || fail "$f: no 'data transfers complete'"
		grep -q 'return status 0' "$f" || fail "$f: no 'return status 0'"
	done
	wait_for 10 "no CM id left after $1" cm_ids_empty
	say "$1: ok"
}

sr_data_pair softrnic siw
port=7700
for mode in "2 N N Y 2" "2 Y N Y 3"; do
	# shellcheck disable=SC2086 # word splitting on purpose
	sr_mode $mode
	tag=$(echo "$mode" | tr -d ' ')
	uc "uc-sr2siw-$tag" "$NS_B" "$ADDR_B" "$NS_A" "$ADDR_A" $port softrnic
	uc "uc-siw2sr-$tag" "$NS_A" "$ADDR_A" "$NS_B" "$ADDR_B" $((port + 1)) siw
	port=$((port + 2))
done
cleanup
sr_setup_pair softrnic softrnic
sr_mode 2 N N Y 2
uc uc-sr2sr "$NS_B" "$ADDR_B" "$NS_A" "$ADDR_A" $port softrnic
say "ok: ucmatose over softrnic, with stock siw both ways and softrnic to softrnic"
