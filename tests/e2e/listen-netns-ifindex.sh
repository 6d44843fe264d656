#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# orcm-timeout: 180
# A wildcard listen while iWARP devices' netdevs sit in other network
# namespaces under the same ifindex: the kernel's default numbering (each
# namespace counts from 1), setup_pair with PAIR_IFINDEX=default, vA and vB
# one index. In each namespace a wildcard rping server (no -a) on the same
# port, a client from the other namespace to each.
#
#  1. siw on vA (orcmA) and on vB (orcmB). Ours: a wildcard listener
#     listens on the devices whose netdev is in its own namespace only
#     (restrack: one LISTEN id, on that device), and both servers serve.
#     The stock stack gives each wildcard listener a per-device listener on
#     both devices: siwB's, made in orcmA, binds its socket to vB's ifindex,
#     which in orcmA names vA, collides with siwA's (EADDRINUSE) and fails
#     the whole rdma_listen() (rping exits 1), in both namespaces. On the
#     stock stack this part checks that failure
#     (tests/parity/deviations: iw-listen-other-netns).
#  2. ours: softrnic on vA, stock siw on vB, the same servers and clients
#     (softrnic's host-CM socket in orcmA is bound to vA, where siw's for
#     siwB would be bound too).
# shellcheck source=tests/e2e/lib.bash
. "$(dirname "$0")/lib.bash"
PAIR_IFINDEX=default
PORT=7480

# listeners_on DEV: the LISTEN ids on PORT that restrack lists on DEV.
listeners_on() { cm_ids | grep -cE "^link $1/.*state LISTEN .*:$PORT( |$)" || true; }
# listening_on DEV N: N LISTEN ids on PORT on DEV.
listening_on() { [ "$(listeners_on "$1")" -eq "$2" ]; }

# wild_server NS LOG: a wildcard rping server in NS; its pid is LAST_PID.
wild_server() { bg "$2" ip netns exec "$1" rping -s -v -V -p $PORT -C 3; }

# wild_client NAME NS ADDR SERVER_PID SERVER_LOG: 3 verified pings to ADDR.
wild_client() {
	local rc=0 src=0
	run_to "/tmp/$1.log" "$STEP" ip netns exec "$2" rping -c -v -V -a "$3" -p $PORT -C 3 || rc=$?
	wait_pid "$4" "$STEP" || src=$?
	show "$5"
	[ "$rc" -eq 0 ] || fail "$1: rping client exit status $rc"
	[ "$src" -eq 0 ] || fail "$1: wildcard rping server exit status $src"
	[ "$(grep -c 'ping data: rdma-ping-' "/tmp/$1.log")" -eq 3 ] || fail "$1: not 3 verified pings"
	say "$1: ok"
}

# both_ways NAME: the servers in both namespaces, then a client to each.
both_ways() {
	local name=$1 sa sb
	wild_server "$NS_A" "/tmp/$name-srv-a.log"
	sa=$LAST_PID
	wait_for 10 "$name: wildcard listener in $NS_A" cm_id_listening $PORT
	sleep 0.5 # a listen that fails fails at once: let it
	kill -0 "$sa" 2>/dev/null || { show "/tmp/$name-srv-a.log"; fail "$name: the wildcard rping server in $NS_A ended"; }
	cm_ids | grep -E "state LISTEN .*:$PORT( |$)"
	if ! listening_on "$DEV_A" 1 || ! listening_on "$DEV_B" 0; then
		fail "$name: the listener of $NS_A is not on $DEV_A alone"
	fi
	wild_server "$NS_B" "/tmp/$name-srv-b.log"
	sb=$LAST_PID
	wait_for 10 "$name: wildcard listener in $NS_B" listening_on "$DEV_B" 1
	sleep 0.5
	kill -0 "$sb" 2>/dev/null || { show "/tmp/$name-srv-b.log"; fail "$name: the wildcard rping server in $NS_B ended"; }
	listening_on "$DEV_A" 1 || fail "$name: the listener of $NS_B is on $DEV_A"
	wild_client "$name-b2a" "$NS_B" "$ADDR_A" "$sa" "/tmp/$name-srv-a.log"
	wild_client "$name-a2b" "$NS_A" "$ADDR_B" "$sb" "/tmp/$name-srv-b.log"
	wait_for 10 "no CM id left after $name" cm_ids_empty
}

# refused NS NAME: the stock stack's wildcard rping server in NS fails to listen.
refused() {
	local rc=0
	run_to "/tmp/$2.log" "$STEP" ip netns exec "$1" rping -s -v -V -p $PORT -C 3 || rc=$?
	[ "$rc" -ne 0 ] || fail "$2: the stock wildcard listen in $1 worked"
	grep -qiE 'rdma_listen|in use' "/tmp/$2.log" || fail "$2: rping did not fail in rdma_listen"
	say "$2: the in-tree CM refuses the wildcard listen in $1 (exit status $rc)"
}

setup_pair siw siw
say "ifindex of vA in $NS_A: $(in_a cat /sys/class/net/vA/ifindex), of vB in $NS_B: $(in_b cat /sys/class/net/vB/ifindex)"
if [ "${ORCM_STACK:-}" = stock ]; then
	refused "$NS_A" stock-a
	refused "$NS_B" stock-b
	dmesg | grep -E 'cma_listen_on_dev|cannot listen' | tail -n 4 || true
	wait_for 10 "no CM id left" cm_ids_empty
	say "ok: the in-tree CM fails a wildcard listen when netdevs of two namespaces share an ifindex (documented deviation)"
	exit 0
fi
both_ways siw-siw

# shellcheck source=tests/e2e/softrnic-lib.bash
. "$(dirname "$0")/softrnic-lib.bash"
sr_need_datapath
cleanup
setup_pair softrnic siw
both_ways softrnic-siw
say "ok: wildcard listens in both namespaces, netdevs with one ifindex"
