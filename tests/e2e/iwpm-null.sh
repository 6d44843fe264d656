#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# orcm-timeout: 300
# The iWARP port mapper, over an offloaded-CM RNIC without IW_F_NO_PORT_MAP:
# tests/bench/null_rnic.ko port_map=1 (it connects on the mapped addresses,
# so a connection finds its listener only when both mappings agree), driven
# by the kernel ULP tests/bench/cm_bench.ko through rdma_cm (rping cannot
# move data on null_rnic). Initial namespace (iwpmd's netlink works only
# there): veth end nP with 198.18.8.1 (client) and 198.18.8.2 (server).
#
#  1. daemon mode, rdma-core's iwpmd: the listener's port is mapped to a
#     port iwpmd holds, the active id's query returns that port, the
#     connection is made on the mapped ports, and rdma_cm (restrack) shows
#     both ends with their own addresses; removal at destroy frees the port.
#     Then iwpmd is killed and restarted: the new one gets our mappings
#     (MAPINFO), holds the mapped port again and maps a new connection.
#  2. iwpmd stopped (SIGSTOP) and killed mid-run: connects end within the
#     request timeout, nothing hangs, no id is left.
#  3. kernel mode, no iwpmd: the listener's and the active id's ports are
#     host ports held by iw_cm (a TCP bind gets EADDRINUSE while the ids
#     live, succeeds after); a port the host holds makes the listen fail
#     with EADDRINUSE.
#
# Not on the stock stack: the in-tree 6.12 port mapper leaks one struct
# iwpm_nlmsg_request per answered request (iwpm_get_nlmsg_request() takes
# two references, and the answer and the waiter drop one each), which
# kmemleak reports at the end of the stock VM. Part 1 was run there on
# 2026-11-23 and passed otherwise: the same restrack lines, both ends with
# their own addresses, the connection made through iwpmd's mappings.
if [ "${ORCM_STACK:-}" = stock ]; then
	echo "## SKIP: on the stock stack, the in-tree port mapper's leak (see the head of $0)"
	exit 77 # a skip (tests/e2e/lib.bash: skip)
fi
# shellcheck source=tests/e2e/lib.bash
. "$(dirname "$0")/lib.bash"

SRC=198.18.8.1 DST=198.18.8.2
PM=/sys/kernel/debug/iw_cm/port_map
PARAM=/sys/module/iw_cm/parameters
CTL=/sys/kernel/debug/cm_bench/ctl
BENCH_DIR=${ORCM_OURS_DIR:?}/tests/bench
IWPMD_PID=''

iwpm_cleanup() {
	set +e
	[ -n "$IWPMD_PID" ] && kill -KILL "$IWPMD_PID" 2>/dev/null
	[ -n "$IWPMD_PID" ] && wait "$IWPMD_PID" 2>/dev/null
	[ -w "$CTL" ] && for t in L C L2 C2 C3 L3 C4 L4 C5 L5; do
		echo "release tag=$t" >"$CTL" 2>/dev/null
		echo "unlisten tag=$t" >"$CTL" 2>/dev/null
	done
	rmmod cm_bench 2>/dev/null
	rmmod null_rnic 2>/dev/null
	rmmod cm_acct 2>/dev/null
	ip link delete nP 2>/dev/null
	[ -w "$PARAM/iwpm_mode" ] && echo auto >"$PARAM/iwpm_mode"
	[ -w "$PARAM/iwpm_timeout_ms" ] && echo 10000 >"$PARAM/iwpm_timeout_ms"
	cleanup
}
trap iwpm_cleanup EXIT

# kc COMMAND...: one cm_bench command (returns when it is done), bounded.
kc() { timeout -k 2 "$STEP" sh -c "echo '$*' > $CTL"; }
# bind_result ADDR PORT: "ok" if a TCP socket can bind there, else the errno name.
bind_result() {
	python3 -c 'import errno, socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
try:
    s.bind((sys.argv[1], int(sys.argv[2]))); print("ok")
except OSError as e:
    print(errno.errorcode[e.errno])' "$1" "$2"
}
expect_bind() { # ADDR PORT WANT WHY
	local got
	got=$(bind_result "$1" "$2")
	[ "$got" = "$3" ] || fail "TCP bind to $1:$2: $got, want $3 ($4)"
	say "TCP bind $1:$2 -> $got ($4)"
}
# cm_id_line PATTERN: the one restrack line matching PATTERN.
cm_id_line() { cm_ids | grep -E "$1"; }
port_of() { sed -E "s/.*$1 [0-9.]+:([0-9]+).*/\1/"; }

ip link add nP type veth peer name nPp
ip addr add $SRC/24 dev nP
ip addr add $DST/24 dev nP
ip link set nP up
ip link set nPp up
# null_rnic and cm_bench mark their CPU time for cm_acct.ko (make bench).
[ -d /sys/module/cm_acct ] || insmod "$BENCH_DIR/cm_acct.ko"
insmod "$BENCH_DIR/null_rnic.ko" netdev=nP port_map=1
insmod "$BENCH_DIR/cm_bench.ko"
rdma link show
say "port mapper state:"
cat $PM

# ---- 1. daemon mode ----
bg /tmp/iwpmd.log iwpmd -s
IWPMD_PID=$LAST_PID
echo daemon >"$PARAM/iwpm_mode"
wait_for 10 "iwpmd says hello" grep -q "iwpmd port [1-9]" $PM
kc listen tag=L addr=$DST port=7300 || fail "listen on $DST:7300"
wait_for 10 "listener on 7300" cm_id_listening 7300
kc connect tag=C src=$SRC dst=$DST port=7300 count=1 hold=1 timeout=20 ||
	fail "connect to $DST:7300 through iwpmd's mappings"
cm_ids
act=$(cm_id_line "state CONNECT .*src-addr $SRC:[0-9]+ dst-addr $DST:7300") ||
	fail "no connected active id $SRC -> $DST:7300 (restrack)"
aport=$(port_of src-addr <<<"$act")
cm_id_line "state CONNECT .*src-addr $DST:7300 dst-addr $SRC:$aport( |$)" ||
	fail "the passive id does not show the peer's own address $SRC:$aport"
say "both ends see their own addresses: $SRC:$aport <-> $DST:7300"
cat $PM
lis=$(grep "^daemon listen nullrnic0 local $DST:7300 " $PM) ||
	fail "no daemon mapping of the listener"
mport=$(port_of mapped <<<"$lis")
[ "$mport" != 7300 ] || fail "iwpmd mapped 7300 to itself"
grep -E "^daemon connect nullrnic0 local $SRC:$aport mapped $SRC:[0-9]+ remote $DST:7300 mapped_remote $DST:$mport$" $PM ||
	fail "the active id's query did not return the listener's mapped port $mport"
expect_bind $DST "$mport" EADDRINUSE "iwpmd holds the mapped port"
kc release tag=C || fail "release"
kc unlisten tag=L || fail "unlisten"
wait_for 10 "no CM id left" cm_ids_empty
grep -q "^daemon " $PM && { cat $PM; fail "mappings left after destroy"; }
wait_for 5 "iwpmd let $mport go" test "$(bind_result $DST "$mport")" = ok
say "daemon mode: ok (listener $DST:7300 mapped to port $mport)"

# ---- 1b. iwpmd restarted: our mappings are handed to the new one ----
kc listen tag=L4 addr=$DST port=7302 || fail "listen on 7302"
mport=$(grep "^daemon listen nullrnic0 local $DST:7302 " $PM | port_of mapped)
[ -n "$mport" ] || { cat $PM; fail "no daemon mapping of $DST:7302"; }
kill -KILL "$IWPMD_PID"
wait "$IWPMD_PID" 2>/dev/null || true
wait_for 5 "the dead iwpmd's port $mport free" test "$(bind_result $DST "$mport")" = ok
bg /tmp/iwpmd2.log iwpmd -s
IWPMD_PID=$LAST_PID
wait_for 10 "the new iwpmd holds $mport again (MAPINFO)" \
	test "$(bind_result $DST "$mport")" = EADDRINUSE
kc connect tag=C5 src=$SRC dst=$DST port=7302 count=1 timeout=20 ||
	{ cat $PM; fail "connect through the restarted iwpmd"; }
kc unlisten tag=L4 || fail "unlisten L4"
wait_for 10 "no CM id left" cm_ids_empty
say "iwpmd restarted: the new one took over mapping $DST:7302 -> $mport"

# ---- 2. iwpmd silent, then dead: no hang ----
echo 2000 >"$PARAM/iwpm_timeout_ms"
kc listen tag=L2 addr=$DST port=7301 || fail "listen on 7301"
kill -STOP "$IWPMD_PID"
t0=$(date +%s)
if kc connect tag=C2 src=$SRC dst=$DST port=7301 count=1 timeout=10; then
	say "connect with iwpmd stopped: established"
else
	say "connect with iwpmd stopped: refused (the listener is mapped, the active id not)"
fi
t1=$(date +%s)
[ $((t1 - t0)) -le 12 ] || fail "connect took $((t1 - t0)) s with iwpmd stopped"
grep -E "timeouts [1-9]" $PM || { cat $PM; fail "no request timed out"; }
kill -KILL "$IWPMD_PID"
wait "$IWPMD_PID" 2>/dev/null || true
IWPMD_PID=''
t0=$(date +%s)
kc connect tag=C3 src=$SRC dst=$DST port=7301 count=1 timeout=10 || true
t1=$(date +%s)
[ $((t1 - t0)) -le 12 ] || fail "connect took $((t1 - t0)) s with iwpmd dead"
kc unlisten tag=L2 || fail "unlisten L2 with iwpmd dead"
wait_for 10 "no CM id left" cm_ids_empty
grep -q "^daemon " $PM && { cat $PM; fail "daemon mappings left"; }
say "iwpmd stopped and killed: no hang"

# ---- 3. kernel mode (auto, no iwpmd) ----
echo auto >"$PARAM/iwpm_mode"
expect_bind $DST 7310 ok "before the listener"
kc listen tag=L3 addr=$DST port=7310 || fail "listen on 7310 in kernel mode"
grep -E "^kernel listen nullrnic0 local $DST:7310 mapped $DST:7310$" $PM ||
	{ cat $PM; fail "no kernel-mode reservation of the listener's port"; }
expect_bind $DST 7310 EADDRINUSE "the listener's port is held"
expect_bind 0.0.0.0 7310 EADDRINUSE "the listener's port is held (wildcard bind)"
kc connect tag=C4 src=$SRC dst=$DST port=7310 count=1 hold=1 timeout=10 ||
	fail "connect in kernel mode"
cat $PM
act=$(cm_id_line "state CONNECT .*src-addr $SRC:[0-9]+ dst-addr $DST:7310") ||
	fail "no connected active id (kernel mode)"
aport=$(port_of src-addr <<<"$act")
kline=$(grep "^kernel connect nullrnic0 local $SRC:$aport " $PM) ||
	fail "no kernel-mode reservation of the active id's port"
kport=$(port_of mapped <<<"$kline")
expect_bind $SRC "$kport" EADDRINUSE "the active id's port is held"
kc release tag=C4 || fail "release C4"
kc unlisten tag=L3 || fail "unlisten L3"
wait_for 10 "no CM id left" cm_ids_empty
expect_bind $DST 7310 ok "the listener is gone"
expect_bind $SRC "$kport" ok "the active id is gone"
grep -q "^kernel " $PM && { cat $PM; fail "reservations left"; }

# A port the host holds is not handed out twice: the listen fails.
bg /tmp/holder.log python3 -c 'import socket, time
s = socket.socket(); s.bind(("198.18.8.2", 7311)); print("bound", flush=True); time.sleep(60)'
holder=$LAST_PID
wait_for 10 "a host socket on 7311" grep -q bound /tmp/holder.log
if kc listen tag=L5 addr=$DST port=7311; then
	fail "listen on a port the host holds succeeded"
fi
dmesg | tail -n 5
kill -KILL "$holder"
wait "$holder" 2>/dev/null || true
kc unlisten tag=L5 2>/dev/null || true
wait_for 10 "no CM id left" cm_ids_empty
say "kernel mode: ok"
