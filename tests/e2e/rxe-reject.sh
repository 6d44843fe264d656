#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Private data through the IB CM over RoCE (rdma_rxe, both ends on rxe0):
# rdma_reject() with N bytes (0, 16, and 148, the most a REJ carries)
# reaches the client as REJECTED with status 28 (IB_CM_REJ_CONSUMER_DEFINED)
# and the REJ's 148 private data bytes, the first N of them ours; the
# client's 56 bytes of connect data (92 minus the rdma_cm header) reach the
# server; rdma_accept() with 32 bytes reaches the client's ESTABLISHED in
# the REP's 196. No CM id is left.
# shellcheck source=tests/e2e/lib.bash
. "$(dirname "$0")/lib.bash"
# shellcheck source=tests/e2e/cmprobe.bash
. "$(dirname "$0")/cmprobe.bash"
setup_rxe
PORT=7610

# padded N SIZE: "pdata SIZE HEX" of cmprobe's N-byte pattern padded with
# zeroes to the SIZE bytes of an IB CM message's private data.
padded() {
	local s
	s=$(pattern_hex "$1")
	while [ ${#s} -lt $(($2 * 2)) ]; do s+=00; done
	printf 'pdata %d %s' "$2" "$s"
}

# one NAME SERVER-ANSWER CLIENT-PDATA RESULT CLIENT-EVENT-LINE
one() {
	local name=$1 answer=$2 cdata=$3 want=$4 line=$5 src=0
	# shellcheck disable=SC2086 # $answer: the option and its value
	bg "/tmp/$name-server.log" "$CMPROBE" -s -b "$ADDR_R" -p $PORT $answer -n 1 -T 20
	local server=$LAST_PID
	wait_for 10 "$name: server listening" listening "$name-server"
	expect_result "$name" "$STEP" "$want" "$CMPROBE" -c -a "$ADDR_R" -p $PORT -P "$cdata"
	has_line "$name" "$line"
	wait_pid "$server" 10 || src=$?
	show "/tmp/$name-server.log"
	[ "$src" -eq 0 ] || fail "$name: server exit status $src"
	has_line "$name-server" "event CONNECT_REQUEST status 0 $(padded "$cdata" 56)"
	wait_for 10 "no CM id left after $name" cm_ids_empty
}

for n in 0 16 148; do
	one "rxe-reject-$n" "-j $n" 8 "REJECTED status 28" "event REJECTED status 28 $(padded "$n" 148)"
done
one rxe-accept-32 "-k 32" 56 "ESTABLISHED status 0" "event ESTABLISHED status 0 $(padded 32 196)"
say "ok: reject and accept private data delivered over RoCE"
