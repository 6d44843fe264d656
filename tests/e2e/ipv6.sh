#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# IPv6 over siw, both ways: global addresses (2001:db8::/64, documentation
# prefix, inside the VM only) and link-local addresses with a scope id
# (fe80::a%vA, fe80::b%vB). rping both ways on each (the listener is listed
# with its IPv6 address); cmprobe connections both ways on link-local show the
# scoped addresses on both ends. No CM id is left.
# Not ucmatose: its server sends as soon as it is ESTABLISHED, and siw fails
# the client's connection (CONNECT_ERROR -EINVAL: MPA reply followed by data
# it has not asked for yet, siw_recv_mpa_rr -EPROTO) when that data arrives
# before the client has read the MPA reply: 5 of 120 connections on a loaded
# 2-core machine, on the stock stack as on ours.
# shellcheck source=tests/e2e/lib.bash
. "$(dirname "$0")/lib.bash"
# shellcheck source=tests/e2e/cmprobe.bash
. "$(dirname "$0")/cmprobe.bash"
setup_pair
G_A=2001:db8::1 G_B=2001:db8::2 L_A=fe80::a L_B=fe80::b
in_a ip addr add $G_A/64 dev vA nodad
in_b ip addr add $G_B/64 dev vB nodad
in_a ip addr add $L_A/64 dev vA nodad
in_b ip addr add $L_B/64 dev vB nodad
wait_for 10 "ping $G_B" in_a ping -6 -c 1 -W 1 $G_B
wait_for 10 "ping $L_B%vA" in_a ping -6 -c 1 -W 1 "$L_B%vA"

rping_pair rping-global-a-to-b "$NS_B" $G_B "$NS_A" $G_B 7430
rping_pair rping-global-b-to-a "$NS_A" $G_A "$NS_B" $G_A 7430
rping_pair rping-ll-a-to-b "$NS_B" "$L_B%vB" "$NS_A" "$L_B%vA" 7432
rping_pair rping-ll-b-to-a "$NS_A" "$L_A%vA" "$NS_B" "$L_A%vB" 7432

# The scope id survives to both ends, both ways.
# ll_probe NAME SERVER-NS SERVER-ADDR CLIENT-NS CLIENT-DST CLIENT-SRC CLIENT-DEV PEER
ll_probe() {
	local name=$1 sns=$2 saddr=$3 cns=$4 dst=$5 csrc=$6 cdev=$7 peer=$8 server src=0
	bg "/tmp/$name-server.log" ip netns exec "$sns" "$CMPROBE" -s -b "$saddr" -p 7434 -n 1 -T 20
	server=$LAST_PID
	wait_for 10 "$name: cmprobe server on $saddr listening" listening "$name-server"
	has_line "$name-server" "listening $saddr port 7434"
	expect_result "$name" "$STEP" "ESTABLISHED status 0" ip netns exec "$cns" "$CMPROBE" -c -a "$dst" -p 7434
	grep -qE "^route $csrc port [0-9]+ on $cdev$" "/tmp/$name.log" || fail "$name: not routed from $csrc on $cdev"
	wait_pid "$server" 10 || src=$?
	show "/tmp/$name-server.log"
	[ "$src" -eq 0 ] || fail "$name-server: exit status $src"
	grep -qE "^peer $peer port [0-9]+$" "/tmp/$name-server.log" || fail "$name-server: the peer is not $peer"
	wait_for 10 "no CM id left after $name" cm_ids_empty
}
ll_probe ll-probe-a-to-b "$NS_B" "$L_B%vB" "$NS_A" "$L_B%vA" "$L_A%vA" siwA "$L_A%vB"
ll_probe ll-probe-b-to-a "$NS_A" "$L_A%vA" "$NS_B" "$L_A%vB" "$L_B%vB" siwB "$L_B%vA"
say "ok: IPv6 global and link-local, both ways"
