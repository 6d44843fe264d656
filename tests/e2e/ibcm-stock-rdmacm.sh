#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Our ib_cm.ko under the STOCK rdma_cm.ko and rdma_ucm.ko, over RoCE (rxe),
# with the in-tree ib_cm.ko as the oracle.
#
# Within this boot, over one rxe device on a veth end in the initial
# namespace (rxe works only there in 6.12; client and server share the
# device), twice: first the in-tree ib_cm, rdma_cm and rdma_ucm; then our
# ib_cm.ko under the in-tree rdma_cm.ko and rdma_ucm.ko loaded by path (with
# MODVERSIONS the in-tree rdma_cm's load checks the CRC of every symbol it
# imports from our ib_cm). Each time: rping -v (5 verified pings), ucmatose
# (RC, 4 connections with data), udaddy (UD, the address exchange through
# SIDR_REQ/SIDR_REP), and cmprobe: private data of REQ, REP and REJ
# (rdma_reject() reaches the client as REJECTED status 28,
# IB_CM_REJ_CONSUMER_DEFINED, with its bytes) and a connect to a port nobody
# listens on (REJECTED status 8, IB_CM_REJ_INVALID_SERVICE_ID, from a REJ sent
# without an id). The cmprobe events and results must be the same with both
# ib_cm modules. Last, rxe0 is deleted under a listener and an established
# connection (all torn down, nothing hangs, no id left). Then the VM's stack comes back (stock: the in-tree iw_cm
# stays throughout; ours: our iw_cm stays, and the in-tree rdma_cm binds to it).
# orcm-timeout: 300
# shellcheck source=tests/e2e/lib.bash
. "$(dirname "$0")/lib.bash"
# shellcheck source=tests/e2e/cmprobe.bash
. "$(dirname "$0")/cmprobe.bash"

MP=(modprobe -d "$ORCM_MODROOT" -S "$ORCM_KREL")
# shellcheck source=tools/vm/stack.bash
. "$ORCM_REPO/tools/vm/stack.bash"
intree() { modinfo -b "$ORCM_MODROOT" -k "$ORCM_KREL" -n "$1"; }
OUR_IBCM=$ORCM_OURS_DIR/ib_cm/ib_cm.ko
ADDR_R=198.18.3.1
IBCM_DBG=/sys/kernel/debug/ib_cm

# The test brings its oracle (the in-tree ib_cm half, same boot): on the
# stock VM it would run the very same two halves again.
[ "${ORCM_STACK:-}" != stock ] ||
	skip "it compares the in-tree ib_cm with ours in one boot; the VM with our stack runs it"
if [ -z "${ORCM_OURS_DIR:-}" ] || [ ! -f "$OUR_IBCM" ]; then
	fail "our ib_cm.ko is not built ($OUR_IBCM): ORCM_OURS_DIR='${ORCM_OURS_DIR:-}'"
fi
ours_loaded() {
	[ "$(cat "/sys/module/$1/srcversion" 2>/dev/null)" = \
		"$(modinfo -F srcversion "$ORCM_OURS_DIR/$1/$1.ko")" ]
}

# ---- restore the VM's stack, whatever happened ----
restore() {
	local rc=0
	rdma link delete rxe0 2>/dev/null || true
	ip link delete vR 2>/dev/null || true
	for m in rdma_ucm rdma_cm; do
		[ -d /sys/module/$m ] && { rmmod $m || rc=1; }
	done
	if [ "$ORCM_STACK" = ours ]; then
		# Ours: our ib_cm stays (init.sh loaded it), our rdma_cm comes back.
		ours_loaded ib_cm || { rmmod ib_cm 2>/dev/null; insmod "$OUR_IBCM"; } || rc=1
		insmod "$ORCM_OURS_DIR/rdma_cm/rdma_cm.ko" || rc=1
		insmod "$(intree rdma_ucm)" || rc=1
	else
		[ -d /sys/module/ib_cm ] && { rmmod ib_cm || rc=1; }
		{ "${MP[@]}" ib_cm && "${MP[@]}" rdma_cm && "${MP[@]}" rdma_ucm; } || rc=1
	fi
	# The VM's stack, every module of it, or the tests after this one
	# would test another stack than they say.
	stack_show rdma_cm="$ORCM_STACK" iw_cm="$ORCM_STACK" ib_cm="$ORCM_STACK" || rc=1
	[ "$rc" -eq 0 ] || say "FAIL: the $ORCM_STACK stack did not come back cleanly"
	return $rc
}
finish() {
	local rc=$?
	cleanup
	restore || rc=1
	exit $rc
}
trap finish EXIT

ids_empty() {
	[ -z "$(rdma res show cm_id | grep -v '^$' || true)" ] || return 1
	ours_loaded ib_cm || return 0
	[ "$(cat $IBCM_DBG/ids)" -eq 0 ]
}

# load_cm ours|stock: that ib_cm, under the in-tree rdma_cm and rdma_ucm.
load_cm() {
	local m
	for m in rdma_ucm rdma_cm; do
		[ -d /sys/module/$m ] && { rmmod $m || fail "cannot unload $m"; }
	done
	if [ -d /sys/module/ib_cm ]; then
		if ours_loaded ib_cm; then
			[ "$1" = ours ] || rmmod ib_cm || fail "cannot unload our ib_cm"
		else
			[ "$1" = stock ] || rmmod ib_cm || fail "cannot unload the in-tree ib_cm"
		fi
	fi
	if [ ! -d /sys/module/ib_cm ]; then
		if [ "$1" = ours ]; then
			insmod "$OUR_IBCM" || fail "insmod $OUR_IBCM"
		else
			insmod "$(intree ib_cm)" || fail "insmod the in-tree ib_cm"
		fi
	fi
	insmod "$(intree rdma_cm)" || fail "the in-tree rdma_cm does not load on the $1 ib_cm (CRCs?)"
	insmod "$(intree rdma_ucm)" || fail "the in-tree rdma_ucm does not load"
	# Every CM module: this ib_cm, the in-tree rdma_cm, the VM's iw_cm.
	stack_show ib_cm="$1" rdma_cm=stock iw_cm="$ORCM_STACK" ||
		fail "the CM modules are not the $1 ib_cm under the in-tree rdma_cm"
	say "stack: $1 ib_cm $(cat /sys/module/ib_cm/version 2>/dev/null || echo '(in-tree)')," \
		"in-tree rdma_cm and rdma_ucm, iw_cm $(cat /sys/module/iw_cm/version 2>/dev/null || echo in-tree)"
}

# rxe_up: one rxe device on a veth end in the initial namespace.
rxe_up() {
	ip link show vR >/dev/null 2>&1 || {
		ip link add vR type veth peer name vRp
		ip addr add $ADDR_R/24 dev vR
		ip link set vR up
		ip link set vRp up
	}
	rdma link add rxe0 type rxe netdev vR
	wait_for 10 "rxe0 ACTIVE" bash -c "rdma link show rxe0/1 | grep -q 'state ACTIVE'"
	wait_for 10 "a RoCE v2 GID of $ADDR_R" bash -c \
		"grep -qs 'RoCE v2' /sys/class/infiniband/rxe0/ports/1/gid_attrs/types/*"
	rdma link show rxe0/1
}

# removal TAG: rxe0 goes away under a listener and an established
# connection. Both programs see it and exit (no hang), no CM id is left, the
# device is gone. (Which of DISCONNECTED and DEVICE_REMOVAL reaches the
# client first depends on the order the CM tears ids down: not compared.)
removal() {
	local TAG=$1 src=0 crc=0 server client
	bg /tmp/ibcm-rm-server.log "$CMPROBE" -s -b $ADDR_R -p 7193 -k 0 -n 0 -T 40
	server=$LAST_PID
	wait_for 10 "$TAG removal: server listening" listening ibcm-rm-server
	bg /tmp/ibcm-rm-client.log "$CMPROBE" -c -a $ADDR_R -p 7193 -H 60000 -T 40
	client=$LAST_PID
	wait_for 10 "$TAG removal: client established" grep -q '^event ESTABLISHED' /tmp/ibcm-rm-client.log
	wait_for 10 "$TAG removal: server established" grep -q '^event ESTABLISHED' /tmp/ibcm-rm-server.log
	run_to /tmp/ibcm-rm-link.log "$STEP" rdma link delete rxe0 || fail "$TAG removal: rdma link delete rxe0 failed"
	wait_pid "$client" "$STEP" || crc=$?
	wait_pid "$server" "$STEP" || src=$?
	show /tmp/ibcm-rm-client.log
	show /tmp/ibcm-rm-server.log
	[ "$crc" -ne 124 ] || fail "$TAG removal: the client hung"
	[ "$src" -ne 124 ] || fail "$TAG removal: the server hung"
	grep -qE '^result (DEVICE_REMOVAL|DISCONNECTED) ' /tmp/ibcm-rm-client.log ||
		fail "$TAG removal: the client saw neither DEVICE_REMOVAL nor DISCONNECTED"
	[ "$src" -eq 1 ] || fail "$TAG removal: server exit $src, want 1 (its listener's DEVICE_REMOVAL)"
	rdma link show rxe0 >/dev/null 2>&1 && fail "$TAG removal: rxe0 is still there"
	wait_for 15 "no CM id left after the removal" ids_empty
	say "$TAG removal: ok (listener and connection torn down, no id left)"
}

# padded N TOTAL: "pdata TOTAL HEX": N pattern bytes, then zeros (IB carries
# fixed-size private data; rdma_cm hands the whole field to the user).
padded() {
	local z
	z=$(printf '%*s' $((2 * ($2 - $1))) '' | tr ' ' 0)
	printf 'pdata %d %s%s' "$2" "$(pattern_hex "$1")" "$z"
}
# one NAME SERVER-ANSWER RESULT CLIENT-EVENT-LINE: a cmprobe server answers
# one request (the client sends 8 bytes: 56 arrive, 92 minus rdma_cm's header).
one() {
	local PORT=7192
	local name=$1 answer=$2 want=$3 line=$4 src=0 server
	# shellcheck disable=SC2086 # $answer: the option and its value
	bg "/tmp/$name-server.log" "$CMPROBE" -s -b $ADDR_R -p $PORT $answer -n 1 -T 20
	server=$LAST_PID
	wait_for 10 "$name: server listening" listening "$name-server"
	expect_result "$name" "$STEP" "$want" "$CMPROBE" -c -a $ADDR_R -p $PORT -P 8
	has_line "$name" "$line"
	wait_pid "$server" 10 || src=$?
	show "/tmp/$name-server.log"
	[ "$src" -eq 0 ] || fail "$name: server exit status $src"
	has_line "$name-server" "event CONNECT_REQUEST status 0 $(padded 8 56)"
	wait_for 15 "no CM id left after $name" ids_empty
}

# scenarios TAG: every test on the loaded stack; the cmprobe outcomes (event,
# result and error lines of clients and servers) go to /tmp/ibcm-TAG.txt.
scenarios() {
	local TAG=$1 n f
	# ---- rping: 5 verified pings ----
	PORT=7190
	bg /tmp/ibcm-rping-server.log rping -s -v -V -a $ADDR_R -p $PORT -C 5
	server=$LAST_PID
	wait_for 10 "the rping server listening" cm_id_listening $PORT
	rc=0 src=0
	run_to /tmp/ibcm-rping-client.log "$STEP" rping -c -v -V -a $ADDR_R -p $PORT -C 5 || rc=$?
	wait_pid "$server" "$STEP" || src=$?
	show /tmp/ibcm-rping-server.log
	[ "$rc" -eq 0 ] || fail "rping client exit status $rc"
	[ "$src" -eq 0 ] || fail "rping server exit status $src"
	n=$(grep -c 'ping data: rdma-ping-' /tmp/ibcm-rping-client.log || true)
	[ "$n" -eq 5 ] || fail "rping: $n verified pings, want 5"
	wait_for 15 "no CM id left after rping" ids_empty
	say "$TAG rping: ok (5 verified pings)"

	# ---- ucmatose: RC, 4 connections, 10 messages each ----
	PORT=7191
	transfer_pair ibcm-ucm $PORT ucmatose -b $ADDR_R -P tcp -p $PORT -c 4 -C 10 -- \
		ucmatose -s $ADDR_R -b $ADDR_R -P tcp -p $PORT -c 4 -C 10
	wait_for 15 "no CM id left after ucmatose" ids_empty
	say "$TAG ucmatose: ok (4 RC connections x 10 messages)"

	# ---- udaddy: UD, SIDR ----
	transfer_pair ibcm-udaddy 7174 udaddy -b $ADDR_R -c 2 -C 10 -- \
		udaddy -s $ADDR_R -b $ADDR_R -c 2 -C 10
	wait_for 15 "no CM id left after udaddy" ids_empty
	say "$TAG udaddy: ok (2 UD ids through SIDR x 10 messages)"

	# ---- cmprobe: private data both ways, rejects ----
	for n in 0 16 148; do
		one "ibcm-reject-$n" "-j $n" "REJECTED status 28" "event REJECTED status 28 $(padded "$n" 148)"
	done
	one ibcm-accept-32 "-k 32" "ESTABLISHED status 0" "event ESTABLISHED status 0 $(padded 32 196)"
	expect_result ibcm-no-listener "$STEP" "REJECTED status 8" "$CMPROBE" -c -a $ADDR_R -p 7199 -P 8
	wait_for 15 "no CM id left after ibcm-no-listener" ids_empty
	say "$TAG cmprobe: ok (REQ/REP/REJ private data byte for byte; no listener: REJ 8)"
	for f in /tmp/ibcm-reject-*.log /tmp/ibcm-accept-32*.log /tmp/ibcm-no-listener.log; do
		grep -E '^(event|result|error) ' "$f" | sed "s|^|$(basename "$f" .log): |"
	done >"/tmp/ibcm-$TAG.txt"
}

# ---- the oracle: the in-tree ib_cm; then ours, which must do the same ----
load_cm stock
rxe_up
scenarios stock
removal stock
load_cm ours
rxe_up
scenarios ours
removal ours
if ! diff -u /tmp/ibcm-stock.txt /tmp/ibcm-ours.txt; then
	fail "our ib_cm's outcomes differ from the in-tree ib_cm's (diff above)"
fi
say "the same $(grep -c . /tmp/ibcm-ours.txt) cmprobe event/result lines as the in-tree ib_cm"

say "counters of our ib_cm:"
sed 's/^/  /' $IBCM_DBG/counters
say "ok: rping, ucmatose and udaddy over our ib_cm under the in-tree rdma_cm"
