#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# orcm-timeout: 420
# softrnic as an offloaded-CM RNIC (softrnic offload_cm=1: no
# IW_F_NO_PORT_MAP, so iw_cm's port mapper maps its ids and its TCP sits on
# the mapped ports beside the mapper's hold), with real data over the
# mapped connections. rping -V verifies the data of every ping.
#
#  1. kernel mode (iwpm_mode=kernel), softrnic in orcmA, stock siw in orcmB:
#     rping both ways. The listener is a "kernel listen" mapping with its
#     own port, listened on in the host stack; an active softrnic id is a
#     "kernel connect" mapping whose mapped port is the TCP connection's
#     source port and which no host socket can bind while it lives.
#  2. softrnic against softrnic, both offloaded, kernel mode: both ways.
#  3. iwpm_mode=off: unmapped, plain host ports; rping still works.
#  4. daemon mode with rdma-core's iwpmd (initial namespace, where iwpmd's
#     netlink works; one veth end nQ with both addresses): the listener's
#     port is mapped to another one that iwpmd holds, the host CM listens
#     there, the client's query finds it, and the pings go over the mapped
#     ports.
# shellcheck source=tests/e2e/lib.bash
. "$(dirname "$0")/lib.bash"
# shellcheck source=tests/e2e/softrnic-lib.bash
. "$(dirname "$0")/softrnic-lib.bash"

PM=/sys/kernel/debug/iw_cm/port_map
SR_PARAM=/sys/module/softrnic/parameters/offload_cm
Q1=198.18.9.1 Q2=198.18.9.2
IWPMD_PID=''

off_cleanup() {
	set +e
	[ -n "$IWPMD_PID" ] && kill -KILL "$IWPMD_PID" 2>/dev/null
	[ -n "$IWPMD_PID" ] && wait "$IWPMD_PID" 2>/dev/null
	rdma link delete srQ 2>/dev/null
	ip link delete nQ 2>/dev/null
	[ -w "$SR_PARAM" ] && echo 0 >"$SR_PARAM"
	[ -w "$IWCM_PARAMS/iwpm_mode" ] && echo auto >"$IWCM_PARAMS/iwpm_mode"
	sr_cleanup
}

sr_stock_check
sr_need_datapath
trap off_cleanup EXIT
[ -w "$SR_PARAM" ] || fail "softrnic has no offload_cm parameter"
echo 1 >"$SR_PARAM"
sr_param iwpm_mode kernel
sr_setup_pair softrnic siw

# bind_in NS ADDR PORT: "ok" or the errno name of a TCP bind there, with
# SO_REUSEADDR: past our closed connections' TIME_WAIT, not past a holder.
bind_in() {
	ip netns exec "$1" python3 -c 'import errno, socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
try:
    s.bind((sys.argv[1], int(sys.argv[2]))); print("ok")
except OSError as e:
    print(errno.errorcode[e.errno])' "$2" "$3"
}
port_of() { sed -E "s/.*$1 [0-9.]+:([0-9]+).*/\1/"; }
# off_client NAME MODE CMD...: run an rping client of 3 pings against the
# server $srv; both succeed, 3 pings verified, no id and no MODE mapping left.
off_client() {
	local name=$1 mode=$2
	shift 2
	run_to "/tmp/$name.log" "$STEP" "$@" || fail "$name: rping client failed"
	wait_pid "$srv" "$STEP" || fail "$name: rping server failed"
	[ "$(grep -c 'ping data: rdma-ping-' "/tmp/$name.log")" -eq 3 ] ||
		fail "$name: not 3 verified pings"
	wait_for 10 "no CM id left" cm_ids_empty
	if grep -q "^$mode " $PM; then
		cat $PM
		fail "$name: $mode mappings left after the connection"
	fi
}

# ---- 1. kernel mode, softrnic <-> siw ----
# softrnic passive: the listener is mapped to its own port and listens on it.
bg /tmp/off-srv.log "${IN_A[@]}" rping -s -v -V -a "$ADDR_A" -p 7400 -C 3
srv=$LAST_PID
wait_for 10 "softrnic rping server listening" cm_id_listening 7400
cat $PM
grep -E "^kernel listen srA local $ADDR_A:7400 mapped $ADDR_A:7400$" $PM ||
	fail "the softrnic listener is not a kernel-mode mapping"
in_a ss -tlnH "sport = :7400" | grep -q LISTEN || fail "no host listener on 7400"
[ "$(bind_in "$NS_A" "$ADDR_A" 7400)" = EADDRINUSE ] ||
	fail "the listener's port can be bound"
off_client off-cli kernel "${IN_B[@]}" rping -c -v -V -a "$ADDR_A" -p 7400 -C 3
say "siw -> offloaded softrnic: ok"

# softrnic active: a long client, so that the mapping can be looked at.
bg /tmp/off-srv2.log "${IN_B[@]}" rping -s -v -V -a "$ADDR_B" -p 7402 -C 400
srv=$LAST_PID
wait_for 10 "siw rping server listening" cm_id_listening 7402
bg /tmp/off-cli2.log "${IN_A[@]}" rping -c -v -V -a "$ADDR_B" -p 7402 -C 400
cli=$LAST_PID
wait_for 20 "the active softrnic id mapped" grep -q "^kernel connect srA " $PM
kline=$(grep "^kernel connect srA " $PM)
say "mapping: $kline"
kport=$(port_of mapped <<<"$kline")
in_a ss -tnH state established "dport = :7402" | tee /tmp/off-ss.txt
grep -q "$ADDR_A:$kport " /tmp/off-ss.txt ||
	fail "the connection does not run from the mapped port $kport"
[ "$(bind_in "$NS_A" "$ADDR_A" "$kport")" = EADDRINUSE ] ||
	fail "the active id's mapped port $kport can be bound"
wait_pid "$cli" 120 || { show /tmp/off-cli2.log; fail "softrnic rping client failed"; }
wait_pid "$srv" "$STEP" || fail "siw rping server failed"
[ "$(grep -c 'ping data: rdma-ping-' /tmp/off-cli2.log)" -eq 400 ] ||
	fail "not 400 verified pings"
wait_for 10 "no CM id left" cm_ids_empty
wait_for 10 "port $kport free again" test "$(bind_in "$NS_A" "$ADDR_A" "$kport")" = ok
say "offloaded softrnic -> siw: ok (mapped port $kport)"

# ---- 2. softrnic <-> softrnic, both offloaded ----
in_b rdma link delete siwB
in_b rdma link add srB type softrnic netdev vB
DEV_B=srB
wait_for 10 "srB ACTIVE" sr_active srB
sr_both off-pair 7404

# ---- 3. no port mapper ----
sr_param iwpm_mode off
sr_both off-unmapped 7406
grep -q "^kernel \|^daemon " $PM && { cat $PM; fail "mappings in mode off"; }

# ---- 4. daemon mode, rdma-core's iwpmd ----
ip link add nQ type veth peer name nQp
ip addr add $Q1/24 dev nQ
ip addr add $Q2/24 dev nQ
ip link set nQ up
ip link set nQp up
rdma link add srQ type softrnic netdev nQ
wait_for 10 "srQ ACTIVE" sr_active srQ
bg /tmp/off-iwpmd.log iwpmd -s
IWPMD_PID=$LAST_PID
sr_param iwpm_mode daemon
wait_for 10 "iwpmd says hello" grep -q "iwpmd port [1-9]" $PM
bg /tmp/off-srv4.log rping -s -v -V -a $Q2 -p 7420 -C 3
srv=$LAST_PID
wait_for 10 "rping server listening" cm_id_listening 7420
cat $PM
lis=$(grep "^daemon listen srQ local $Q2:7420 " $PM) ||
	fail "no daemon mapping of the softrnic listener"
mport=$(port_of mapped <<<"$lis")
[ "$mport" != 7420 ] || fail "iwpmd mapped 7420 to itself"
ss -tlnH "sport = :$mport" | grep -q LISTEN ||
	fail "the host CM does not listen on the mapped port $mport"
ss -tlnH "sport = :7420" | grep -q LISTEN &&
	fail "something listens on the unmapped port 7420"
off_client off-cli4 daemon rping -c -v -V -I $Q1 -a $Q2 -p 7420 -C 3
say "daemon mode: ok (listener $Q2:7420 on mapped port $mport)"
say "ok: softrnic as an offloaded-CM RNIC"
