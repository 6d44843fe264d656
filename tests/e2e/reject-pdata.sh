#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Private data travels both ways through the CM: rdma_reject() with N bytes
# (0, 16 and 251, the most stock siw carries) reaches the client as REJECTED
# (status -ECONNRESET, siw's MPA reject) with exactly those bytes; the
# client's connect data reaches the server's CONNECT_REQUEST; rdma_accept()
# with 32 bytes reaches the client's ESTABLISHED. No CM id is left.
# shellcheck source=tests/e2e/lib.bash
. "$(dirname "$0")/lib.bash"
# shellcheck source=tests/e2e/cmprobe.bash
. "$(dirname "$0")/cmprobe.bash"
setup_pair
PORT=7410

# one NAME SERVER-ANSWER CLIENT-PDATA RESULT CLIENT-EVENT-LINE
one() {
	local name=$1 answer=$2 cdata=$3 want=$4 line=$5 src=0
	# shellcheck disable=SC2086 # $answer: the option and its value
	bg "/tmp/$name-server.log" "${IN_B[@]}" "$CMPROBE" -s -b "$ADDR_B" -p $PORT $answer -n 1 -T 20
	local server=$LAST_PID
	wait_for 10 "$name: server listening" listening "$name-server"
	expect_result "$name" "$STEP" "$want" "${IN_A[@]}" "$CMPROBE" -c -a "$ADDR_B" -p $PORT -P "$cdata"
	has_line "$name" "$line"
	wait_pid "$server" 10 || src=$?
	show "/tmp/$name-server.log"
	[ "$src" -eq 0 ] || fail "$name: server exit status $src"
	has_line "$name-server" "event CONNECT_REQUEST status 0 $(pdata_field "$cdata")"
	has_line "$name-server" "peer $ADDR_A port $(sed -n "s/^route $ADDR_A port \([0-9]*\) on siwA$/\1/p" "/tmp/$name.log")"
	wait_for 10 "no CM id left after $name" cm_ids_empty
}

for n in 0 16 251; do
	one "reject-$n" "-j $n" 8 "REJECTED status -104" "event REJECTED status -104 $(pdata_field "$n")"
done
one accept-32 "-k 32" 200 "ESTABLISHED status 0" "event ESTABLISHED status 0 $(pdata_field 32)"
say "ok: reject and accept private data delivered byte for byte"
