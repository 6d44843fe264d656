#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# orcm-timeout: 240
# A wildcard listen on a host with two offloaded-CM RNICs (softrnic
# offload_cm=1: no IW_F_NO_PORT_MAP, iw_cm's port mapper in its default
# mode, auto, with no iwpmd: kernel reservations), as two ports of one
# cxgb4 would be: srB on vB 198.18.0.2 and srB2 on vB2 198.18.10.2, both in
# orcmB; their peers srA (vA 198.18.0.1) and srA2 (vA2 198.18.10.1) in
# orcmA, offloaded too. Each device's per-device listener of one wildcard
# rdma_listen() asks the port mapper for the same host port.
#
#  1. cmprobe -s -b 0.0.0.0 in orcmB listens (restrack: a LISTEN id on srB
#     and on srB2), a client through each of srA and srA2 connects to it,
#     the host port is held while it listens (a TCP bind gets EADDRINUSE)
#     and free after;
#  2. rping -s without -a in orcmB, a client from orcmA;
#  3. perftest's server (ib_write_bw -R without -d: a wildcard listen) in
#     orcmB, a client from orcmA.
# shellcheck source=tests/e2e/lib.bash
. "$(dirname "$0")/lib.bash"
# shellcheck source=tests/e2e/softrnic-lib.bash
. "$(dirname "$0")/softrnic-lib.bash"
# shellcheck source=tests/e2e/cmprobe.bash
. "$(dirname "$0")/cmprobe.bash"

SR_PARAM=/sys/module/softrnic/parameters/offload_cm
PM=/sys/kernel/debug/iw_cm/port_map
ADDR_A2=198.18.10.1 ADDR_B2=198.18.10.2
PORT=7490 SIZE=4096 ITERS=20

ow_cleanup() {
	set +e
	rdma link delete srA2 2>/dev/null
	rdma link delete srB2 2>/dev/null
	[ -w "$SR_PARAM" ] && echo 0 >"$SR_PARAM"
	sr_cleanup
}

sr_stock_check
sr_need_datapath
trap ow_cleanup EXIT
[ -w "$SR_PARAM" ] || fail "softrnic has no offload_cm parameter"
grep -q '^mode auto$' $PM || fail "iw_cm's port mapper is not in its default mode: $(head -n 1 $PM)"
grep -q 'iwpmd port 0 ' $PM || fail "an iwpmd is registered: $(sed -n 2p $PM)"
echo 1 >"$SR_PARAM"
sr_setup_pair softrnic softrnic
ip link add vA2 netns "$NS_A" index 103 type veth peer name vB2 netns "$NS_B" index 104
in_a ip addr add "$ADDR_A2/24" dev vA2
in_b ip addr add "$ADDR_B2/24" dev vB2
in_a ip link set vA2 up
in_b ip link set vB2 up
in_a rdma link add srA2 type softrnic netdev vA2
in_b rdma link add srB2 type softrnic netdev vB2
wait_for 10 "srA2 ACTIVE" sr_active srA2
wait_for 10 "srB2 ACTIVE" sr_active srB2
wait_for 10 "ping $ADDR_B2 from $NS_A" in_a ping -c 1 -W 1 "$ADDR_B2"
rdma link show

# bind_in_b PORT: "ok" or the errno name of a TCP bind to PORT in orcmB.
bind_in_b() {
	in_b python3 -c 'import errno, socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
try:
    s.bind(("0.0.0.0", int(sys.argv[1]))); print("ok")
except OSError as e:
    print(errno.errorcode[e.errno])' "$1"
}
listeners_on() { cm_ids | grep -cE "^link $1/.*state LISTEN .*:$2( |$)" || true; }

# ---- 1. cmprobe, two clients, one through each device ----
bg /tmp/ow-srv.log "${IN_B[@]}" "$CMPROBE" -s -b 0.0.0.0 -p $PORT -n 2 -T 30
srv=$LAST_PID
wait_for 10 "wildcard cmprobe listening in $NS_B" listening ow-srv
cm_ids | grep -E "state LISTEN .*:$PORT( |$)"
cat $PM
for d in srB srB2; do
	[ "$(listeners_on $d $PORT)" -eq 1 ] || fail "no per-device listener on $d"
done
[ "$(bind_in_b $PORT)" = EADDRINUSE ] || fail "the listener's host port $PORT can be bound"
expect_result ow-cli-1 "$STEP" "ESTABLISHED status 0" "${IN_A[@]}" "$CMPROBE" -c -a "$ADDR_B" -p $PORT
expect_result ow-cli-2 "$STEP" "ESTABLISHED status 0" "${IN_A[@]}" "$CMPROBE" -c -a "$ADDR_B2" -p $PORT
rc=0
wait_pid "$srv" "$STEP" || rc=$?
show /tmp/ow-srv.log
[ "$rc" -eq 0 ] || fail "wildcard cmprobe server: exit status $rc"
grep -qE "^peer $ADDR_A port " /tmp/ow-srv.log || fail "no connection through srB"
grep -qE "^peer $ADDR_A2 port " /tmp/ow-srv.log || fail "no connection through srB2"
wait_for 10 "no CM id left" cm_ids_empty
wait_for 10 "port $PORT free again" test "$(bind_in_b $PORT)" = ok
say "cmprobe: a wildcard listener on two offloaded RNICs: ok"

# ---- 2. rping -s without -a ----
bg /tmp/ow-rping-srv.log "${IN_B[@]}" rping -s -v -V -p $((PORT + 1)) -C 3
srv=$LAST_PID
wait_for 10 "wildcard rping server listening" cm_id_listening $((PORT + 1))
rc=0
run_to /tmp/ow-rping.log "$STEP" "${IN_A[@]}" rping -c -v -V -a "$ADDR_B2" -p $((PORT + 1)) -C 3 || rc=$?
src=0
wait_pid "$srv" "$STEP" || src=$?
show /tmp/ow-rping-srv.log
if [ "$rc" -ne 0 ] || [ "$src" -ne 0 ]; then fail "rping: client $rc, wildcard server $src"; fi
[ "$(grep -c 'ping data: rdma-ping-' /tmp/ow-rping.log)" -eq 3 ] || fail "rping: not 3 verified pings"
wait_for 10 "no CM id left" cm_ids_empty
say "rping -s: ok"

# ---- 3. perftest's server ----
# The client at nice 19, and again on the next port after perftest's own
# handshake race (perftest_race in lib.bash; seen here under load).
bw_port=$((PORT + 2))
for try in 1 2 3; do
	bg /tmp/ow-bw-server.log "${IN_B[@]}" ib_write_bw -R -F -p $bw_port -s $SIZE -n $ITERS
	srv=$LAST_PID
	wait_for 10 "ib_write_bw server listening" cm_id_listening $bw_port
	rc=0 src=0
	run_to /tmp/ow-bw.log 60 "${IN_A[@]}" nice -n 19 ib_write_bw -R -F -d srA -p $bw_port \
		-s $SIZE -n $ITERS "$ADDR_B" || rc=$?
	if [ $rc -ne 0 ] && [ $try -lt 3 ] && perftest_race ow-bw; then
		kill "$srv" 2>/dev/null || true
		wait_pid "$srv" 10 || true
		say "ow-bw: perftest's data connect raced its server's listen (refused; try $try), again"
		wait_for 10 "no CM id left after try $try" cm_ids_empty
		bw_port=$((bw_port + 100))
		continue
	fi
	wait_pid "$srv" 30 || src=$?
	break
done
perftest_verdict ow-bw "$rc" "$src"
say "ok: wildcard listens over two offloaded RNICs"
