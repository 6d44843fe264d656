#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# RoCE v2 multicast across the two VMs with mckey: each VM once receiver
# (a full member, whose IGMP membership shows on vec0) and once sender of
# an IPv4 group. rxe drops some datagrams of a sender that exits at once,
# so the sender runs again until the receiver has its messages.
# shellcheck source=tests/interop/lib.bash
. "$(dirname "$0")/lib.bash"
setup_link
for r in a b; do
	group=239.2.0.$([ "$r" = a ] && echo 1 || echo 2)
	if [ "$ROLE" = "$r" ]; then
		bg "/tmp/mckey-$r-recv.log" mckey -m "$group" -b "$LADDR" -C 3
		pid=$LAST_PID
		wait_for 10 "$group joined on vec0" bash -c "ip maddr show dev vec0 | grep -qw $group"
		sleep 1
		barrier "mckey-$r-joined"
		rc=0
		wait_pid "$pid" "$STEP" || rc=$?
		: >"$SHARED/$TEST.mckey-$r-received"
		show "/tmp/mckey-$r-recv.log"
		[ "$rc" -eq 0 ] || fail "mckey-$r: receiver ($ORCM_STACK) exit status $rc"
		grep -q 'data transfers complete' "/tmp/mckey-$r-recv.log" ||
			fail "mckey-$r: the receiver did not complete"
	else
		barrier "mckey-$r-joined"
		for ((i = 0; i < 30; i++)); do
			[ -e "$SHARED/$TEST.mckey-$r-received" ] && break
			run_to "/tmp/mckey-$r-send.log" "$STEP" mckey -m "$group" -b "$LADDR" -s -C 20 ||
				fail "mckey-$r: sender ($ORCM_STACK) failed"
			sleep 0.5
		done
		[ -e "$SHARED/$TEST.mckey-$r-received" ] || fail "mckey-$r: the receiver never got 3 messages"
		say "mckey-$r: received after $((i + 1)) sender runs"
	fi
	wait_for 10 "mckey-$r: no CM id left" cm_ids_empty
	barrier "mckey-$r-done"
	say "mckey-$r: ok ($([ "$ROLE" = "$r" ] && echo receiver || echo sender), $ORCM_STACK)"
done
