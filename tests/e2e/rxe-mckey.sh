#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# RoCE v2 multicast with mckey over two rxe devices on a veth pair
# (tests/e2e/rxe-lib.bash): for an IPv4 and an IPv6 group, two receivers
# (full members, one on each device) and a sender that joins send-only. The
# full members' IP group membership is on their netdev (`ip maddr`) while
# they run and gone afterwards; the send-only sender adds none.
# orcm-timeout: 180
# shellcheck source=tests/e2e/lib.bash
. "$(dirname "$0")/lib.bash"
# shellcheck source=tests/e2e/rxe-lib.bash
. "$(dirname "$0")/rxe-lib.bash"
setup_rxe_pair
COUNT=10

# in_maddr DEV GROUP: GROUP is joined on DEV.
in_maddr() { ip maddr show dev "$1" | grep -qw "$2"; }

mckey_case() {
	local name=$1 group=$2 addr_a=$3 addr_b=$4 rc=0 r1 r2 n
	say "$name: group $group"
	bg "/tmp/$name-recv-b.log" mckey -m "$group" -b "$addr_b" -C $COUNT
	r1=$LAST_PID
	bg "/tmp/$name-recv-a.log" mckey -m "$group" -b "$addr_a" -C $COUNT
	r2=$LAST_PID
	wait_for 10 "$name: $group joined on vRB" in_maddr vRB "$group"
	wait_for 10 "$name: $group joined on vRA" in_maddr vRA "$group"
	# The receivers attach their QPs right after the join event.
	sleep 1
	run_to "/tmp/$name-send.log" "$STEP" mckey -m "$group" -b "$addr_a" -s -o -C $COUNT || rc=$?
	[ "$rc" -eq 0 ] || fail "$name: sender exit status $rc"
	wait_pid "$r1" "$STEP" || rc=$?
	show "/tmp/$name-recv-b.log"
	[ "$rc" -eq 0 ] || fail "$name: receiver on $addr_b exit status $rc"
	wait_pid "$r2" "$STEP" || rc=$?
	show "/tmp/$name-recv-a.log"
	[ "$rc" -eq 0 ] || fail "$name: receiver on $addr_a exit status $rc"
	for n in b a; do
		grep -q 'data transfers complete' "/tmp/$name-recv-$n.log" ||
			fail "$name: receiver $n did not complete"
	done
	wait_for 10 "$name: $group left on vRB" eval "! in_maddr vRB $group"
	wait_for 10 "$name: $group left on vRA" eval "! in_maddr vRA $group"
	wait_for 10 "$name: no CM id left" cm_ids_empty
	say "$name: ok"
}

before=$(rx_packets vRB)
mckey_case ipv4 239.1.2.3 "$RADDR_A" "$RADDR_B"
[ $(($(rx_packets vRB) - before)) -ge $COUNT ] || fail "the IPv4 group's traffic did not cross the veth"
mckey_case ipv6 ff0e::1:2 "$RADDR6_A" "$RADDR6_B"

# A send-only member alone joins no IP group.
bg /tmp/sendonly.log mckey -m 239.1.2.4 -b "$RADDR_A" -s -o -C 100
s=$LAST_PID
sleep 2
in_maddr vRA 239.1.2.4 && fail "a send-only member joined 239.1.2.4 on vRA"
wait_pid "$s" "$STEP" || true
show /tmp/sendonly.log
say "ok: mckey IPv4 and IPv6, two receivers, send-only sender"
