#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# orcm-timeout: 150
# CM MADs flushed by rxe's QP1 during a link flap. Found by the churn soak
# (docs/soak.md): a flap in the middle of a wave of connects left connects
# waiting for good, on both stacks.
#
# What happens: a MAD posted on QP1 while the port's netdev is down finds no
# route; rxe fails that send and moves QP1 to the error state, which
# flushes the sends behind it. ib_mad moves QP1 back to RTS on the failed
# send's completion and reposts the flushed sends it had marked, once; a
# flush of a send already reposted (or seen before the mark) reaches the
# CM as IB_WC_WR_FLUSH_ERR. The in-tree CM frees such a send as if it had
# been answered: its id waits for an answer that never comes, with no
# resend and no timeout. And QP1 stays in error for good (ib_mad recovers
# it only from a failed send it sees as such; here every send is flushed):
# no CM MAD leaves the port until the device is added again.
# Ours does not post a MAD through a RoCE GID whose netdev is down
# (ib_cm/mad.c, cm_ah_netdev_down(); counted as tx_netdev_down): a connect
# then fails at once with ENETDOWN and QP1 stays RTS. Should a flush reach
# it anyway, ours ends the wait as a timeout (cm_send_done_timed_out(),
# tx_flushed) instead of waiting for good (docs/ib_cm.md).
#
#   vRA 198.18.4.1 rxeA <== veth ==> vRB 198.18.4.2 rxeB (rxe-lib.bash)
# A cmprobe server on B; 16 cmprobe clients on A resolve their address and
# route, then wait (-G) while vRA goes down; all 16 connect at once with vRA
# down (16 REQs for QP1); 2 s later vRA comes back with its routes.
# Ours: every connect ends at once (refused: ENETDOWN, or an event), QP1 is
# RTS and a new connection works. Stock (the documented deviation,
# compared as narrowly): the connects wait with no event until their
# deadline, QP1 is in error and a new connect waits too (else the run is
# reported as a skip there: the flap reached no send).
# shellcheck source=tests/e2e/lib.bash
. "$(dirname "$0")/lib.bash"
# shellcheck source=tests/e2e/cmprobe.bash
. "$(dirname "$0")/cmprobe.bash"
# shellcheck source=tests/e2e/rxe-lib.bash
. "$(dirname "$0")/rxe-lib.bash"
PORT=7614 N=16 DEADLINE=25 GO=/tmp/flush-go
setup_rxe_pair
rm -f "$GO"
cmprobe_server flush-server -b "$RADDR_B" -p $PORT -n 0 -k 0 -L -E -T 120
server=$SERVER
pids=()
for ((i = 0; i < N; i++)); do
	bg "/tmp/flush-c$i.log" "$CMPROBE" -c -a "$RADDR_B" -b "$RADDR_A" -p $PORT -G "$GO" -H 100 -T $DEADLINE
	pids+=("$LAST_PID")
done
routed() {
	local i
	for ((i = 0; i < N; i++)); do grep -q '^route ' "/tmp/flush-c$i.log" || return 1; done
}
for ((j = 0; j < 200; j++)); do routed && break; sleep 0.1; done
if ! routed; then
	for ((i = 0; i < N; i++)); do show "/tmp/flush-c$i.log"; done
	fail "the $N clients' routes were not all resolved within 20 s"
fi
ip link set vRA down
: >"$GO"
sleep 2
ip link set vRA up
rxe_routes_back_a
wait_for 10 "rxeA ACTIVE again" rxe_active

est=0 unr=0 hung=0 down=0 other=0
for ((i = 0; i < N; i++)); do
	rc=0
	wait_pid "${pids[$i]}" $((DEADLINE + 5)) || rc=$?
	if grep -q '^event ESTABLISHED ' "/tmp/flush-c$i.log"; then
		est=$((est + 1))
	elif grep -q '^result UNREACHABLE ' "/tmp/flush-c$i.log"; then
		unr=$((unr + 1))
	elif grep -q '^result error rdma_connect ENETDOWN' "/tmp/flush-c$i.log"; then
		down=$((down + 1))
	elif [ "$rc" -eq 3 ] && grep -q '^deadline: no event' "/tmp/flush-c$i.log"; then
		hung=$((hung + 1))
	else
		other=$((other + 1))
		show "/tmp/flush-c$i.log"
	fi
done
gsi() { qp1_state "$RXE_A"; }
say "$ORCM_STACK: $N connects with vRA down: $down refused (ENETDOWN), $est ESTABLISHED, $unr UNREACHABLE, $hung without an event until the deadline, $other otherwise; rxeA's QP1: $(gsi)"
[ "$other" -eq 0 ] || fail "$other clients ended otherwise (above)"
if [ "$ORCM_STACK" = ours ]; then
	say "ours: $(grep -E '^(tx|tx_err|timeout|tx_flushed|tx_netdev_down) ' /sys/kernel/debug/ib_cm/counters | tr '\n' ' ')"
	[ "$hung" -eq 0 ] || fail "ours: $hung connects waited with no event until the deadline"
	[ "$down" -gt 0 ] || fail "ours: no connect was refused with the netdev down"
	[ "$(gsi)" = "state RTS" ] || fail "ours: rxeA's QP1 is $(gsi) after the flap"
else
	if [ "$hung" -eq 0 ]; then
		kill "$server" 2>/dev/null || true
		skip "no connect was left without an event on the stock stack this time (no flush reached the CM)"
	fi
	say "stock: $hung connects wait for good (in-tree frees a flushed send silently)"
	[ "$(gsi)" = "state ERR" ] || fail "stock: rxeA's QP1 is $(gsi), not in error, after $hung connects hung"
fi
wait_for 30 "the clients' ids gone" port_ids_gone $PORT

# After the flap: ours, a new connection works; stock, QP1 is dead, a new
# connect waits with no event until its deadline.
rc=0
run_to /tmp/flush-after.log 20 "$CMPROBE" -c -a "$RADDR_B" -b "$RADDR_A" -p $PORT -H 100 -T 8 || rc=$?
show /tmp/flush-after.log
if [ "$ORCM_STACK" = ours ]; then
	[ "$rc" -eq 0 ] || fail "ours: a connection after the flap: client exit status $rc"
else
	[ "$rc" -eq 3 ] || fail "stock: a connect through the dead QP1: want no event (exit 3), got exit status $rc"
fi
kill "$server" 2>/dev/null || true
wait_pid "$server" 10 || true
wait_for 30 "no CM id left" cm_ids_empty
if [ "$ORCM_STACK" = ours ]; then
	say "ok: $N connects through a flap: $down refused at once, the rest ended with an event; QP1 RTS, a connection after it"
else
	say "ok: $N connects through a flap on stock: $hung wait for good, QP1 in error for good (the deviation)"
fi
