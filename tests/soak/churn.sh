#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# orcm-timeout: 3600
# The churn soak (`make soak`, tools/soak.sh; not part of make check): many
# connections opened and closed in waves while NVMe-oF I/O runs, with link
# flaps, MTU changes and an RDMA device deleted and added again in the
# middle, on one stack per VM boot (tools/soak.sh boots one per stack).
#
#   NVMe-oF: ulpT 198.18.1.1 + .2, rxeN (loopback): nvmet-rdma target, the
#            nvme-rdma host connected with a 1 s reconnect delay and a
#            120 s controller-loss timeout; a writer loops over 64 slots of
#            1 MiB: random data written with direct I/O, read back and
#            compared at once, its sha256 kept for the end.
#   churn:   vRA 198.18.4.1 rxeA <== veth ==> vRB 198.18.4.2 rxeB
#            (tests/e2e/rxe-lib.bash): a cmtime server on rxeB for the whole
#            run, a cmtime client per wave opening and closing
#            ORCM_SOAK_WAVE connections (default 500) through rdma_ucm and
#            the CM; ORCM_SOAK_CONNS (default 10,000) in all.
#
# Events, each started one second into its wave (listed in SOAK_EVENTS):
# the churn link flapped (its routes put back), the NVMe link flapped for
# 6 s (the host loses its queues and reconnects through the CM), MTUs raised and lowered on both
# links, rxeA (the clients' device) and rxeB (the listener's) deleted and
# added again (on rxe a delete waits for every process that has the device
# open: the cmtime programs are killed with it). A wave with an event may
# lose connections (cmtime's
# failures are counted); every other wave, the one after an event included,
# must complete all its connections. At the end: every slot reads back what
# was last written (nothing lost), the writer saw no I/O error and no
# mismatch, the controller is live, no CM id is left, every module unloads;
# the VM's kmemleak scan and splat check run after (tools/vm/run.sh).
# Prints "soak-summary: KEY=VALUE ..." lines for tools/soak.sh.
# shellcheck source=tests/e2e/ulp-nvme.bash
. "$(dirname "$0")/../e2e/ulp-nvme.bash"
T_DEV=rxeN H_DEV=rxeN
# shellcheck source=tests/e2e/ulp-rxe.bash
. "$(dirname "$0")/../e2e/ulp-rxe.bash"
# shellcheck source=tests/e2e/rxe-lib.bash
. "$(dirname "$0")/../e2e/rxe-lib.bash"

CONNS=${ORCM_SOAK_CONNS:-10000}
WAVE=${ORCM_SOAK_WAVE:-500}
WAVES=$(((CONNS + WAVE - 1) / WAVE))
PORT=7400
SLOTS=64
D=/tmp/soak
SERVER_PID='' WRITER_PID=''
# wave number -> event (a wave past the last one never comes).
declare -A SOAK_EVENTS=(
	[3]=flap-churn [5]=flap-nvme [7]=mtu-up [9]=del-rxeA [11]=mtu-down
	[13]=del-rxeB [15]=flap-nvme [17]=flap-churn
)

# ---- the NVMe-oF writer ------------------------------------------------------
# writer: until $D/stop exists, slot after slot: 1 MiB of random data written
# to the namespace with direct I/O, read back and compared; the sum of what
# the slot holds in $D/sum.N. Counts in $D/writes, $D/errors, $D/mismatch.
writer() {
	set +e
	local k=0 s sum got
	while [ ! -e "$D/stop" ]; do
		s=$((k % SLOTS))
		head -c $((1 << 20)) /dev/urandom >"$D/chunk"
		sum=$(sha256sum <"$D/chunk" | cut -d' ' -f1)
		if ! dd if="$D/chunk" of="$NVME_BLK" bs=1M seek="$s" oflag=direct conv=notrunc,fsync \
			status=none 2>>"$D/io.log"; then
			echo "write slot $s failed" >>"$D/io.log"
			echo x >>"$D/errors"
			# The slot's content is unknown now: no sum to check.
			rm -f "$D/sum.$s"
			sleep 0.5
		else
			echo "$sum" >"$D/sum.$s"
			echo x >>"$D/writes"
			if ! dd if="$NVME_BLK" of="$D/back" bs=1M skip="$s" count=1 iflag=direct \
				status=none 2>>"$D/io.log"; then
				echo "read-back of slot $s failed" >>"$D/io.log"
				echo x >>"$D/errors"
			else
				got=$(sha256sum <"$D/back" | cut -d' ' -f1)
				[ "$got" = "$sum" ] || {
					echo "slot $s read back $got, wrote $sum" >>"$D/io.log"
					echo x >>"$D/mismatch"
				}
			fi
		fi
		k=$((k + 1))
	done
}
count() { if [ -e "$1" ]; then wc -l <"$1"; else echo 0; fi; }

# ---- the churn server ----------------------------------------------------------
server_start() {
	bg "$D/server.log" cmtime -b "$RADDR_B" -p "$PORT"
	SERVER_PID=$LAST_PID
	wait_for 20 "the cmtime server listening on $PORT" cm_id_listening "$PORT"
}
server_stop() {
	if [ -n "$SERVER_PID" ]; then
		kill "$SERVER_PID" 2>/dev/null || true
		wait_pid "$SERVER_PID" 10 || true
	fi
	SERVER_PID=''
}

# ---- events --------------------------------------------------------------------
link_flap() { ip link set "$1" down && sleep "$2" && ip link set "$1" up; }
churn_path_ok() { ip -4 route get "$RADDR_B" | grep -q ' dev vRA '; }
# rxe_readd DEV NETDEV: on rxe (no disassociate_ucontext), a delete waits
# until no process has the device open: every cmtime goes with it (the
# wave's client, the server; the server starts again after the wave).
rxe_readd() {
	local dev=$1 nd=$2
	(sleep 1 && pkill -x cmtime) &
	ulp_link_delete "$dev" 60
	rdma link add "$dev" type rxe netdev "$nd" || fail "rdma link add $dev netdev $nd"
	wait_for 20 "$dev ACTIVE again" dev_active "$dev"
}
event() {
	case $1 in
	# (without vRA's routes back the next waves would take the local
	# table to rxeB alone)
	flap-churn) link_flap vRA 1 && rxe_routes_back_a ;;
	flap-nvme) link_flap "$T_IF" 6 ;;
	mtu-up) ip link set vRA mtu 4200 && ip link set vRB mtu 4200 && ip link set "$T_IF" mtu 4200 ;;
	mtu-down) ip link set vRA mtu 1500 && ip link set vRB mtu 1500 && ip link set "$T_IF" mtu 1500 ;;
	del-rxeA) rxe_readd "$RXE_A" vRA ;;
	del-rxeB) rxe_readd "$RXE_B" vRB ;;
	*) fail "unknown event $1" ;;
	esac
}

soak_teardown() {
	: >"$D/stop" 2>/dev/null
	[ -z "$WRITER_PID" ] || wait_pid "$WRITER_PID" 60 || kill "$WRITER_PID" 2>/dev/null
	WRITER_PID=''
	server_stop
	pkill -x cmtime 2>/dev/null || true
	nvme_teardown
	if rdma link show "$RXE_A/1" >/dev/null 2>&1; then ulp_link_delete "$RXE_A"; fi
	if rdma link show "$RXE_B/1" >/dev/null 2>&1; then ulp_link_delete "$RXE_B"; fi
	rxe_cleanup
}
ulp_teardown() { soak_teardown; }
# gsi_check: a churn device whose QP1 is in error is dead for CM MADs
# until it is added again (rxe; tests/e2e/rxe-gsi-flush.sh): counted, said,
# and re-added, as an operator would, so that the soak goes on. Status 0
# when it re-added one.
GSI_DEAD=0
gsi_check() {
	local d nd st none=1
	for d in "$RXE_A" "$RXE_B"; do
		st=$(qp1_state "$d" || true)
		[ "$st" = "state ERR" ] || continue
		# ib_mad may be moving it back to RTS just now: look again.
		sleep 1
		st=$(qp1_state "$d" || true)
		[ "$st" = "state ERR" ] || continue
		nd=vRA
		[ "$d" = "$RXE_A" ] || nd=vRB
		GSI_DEAD=$((GSI_DEAD + 1))
		say "wave $1: $d's QP1 is in error for good: $d deleted and added again"
		rxe_readd "$d" "$nd"
		none=0
	done
	return "$none"
}
# wave_snapshot W: what a wave still running after 25 s waits on: the ids
# of the churn port and their states, the cmtime tasks' kernel stacks, the
# rxe and CM counters of both churn devices, their GIDs.
wave_snapshot() {
	local p t d
	set +eo pipefail # a diagnostic: every line it can get
	sleep 25
	{
		echo "wave $1 still running after 25 s"
		rdma res show cm_id | grep -E ":$PORT|LISTEN" | head -n 30
		rdma res show cm_id | grep -c ":$PORT" || true
		for p in $(pgrep -x cmtime); do
			for t in /proc/"$p"/task/*; do
				echo "cmtime $p task ${t##*/}:"
				sed 's/^/    /' "$t/stack" 2>/dev/null
			done
		done
		for d in "$RXE_A" "$RXE_B"; do
			rdma statistic show link "$d/1" || true
			rdma res show qp link "$d/1" lqpn 1 || true
			grep -H . /sys/class/infiniband/"$d"/ports/1/gids/[0-3] || true
			grep -rH . /sys/class/infiniband/"$d"/ports/1/cm_tx_msgs \
				/sys/class/infiniband/"$d"/ports/1/cm_rx_msgs \
				/sys/class/infiniband/"$d"/ports/1/cm_tx_retries | grep -v ':0$' || true
		done
		ip -s neigh show dev vRA
		ip -s link show vRA
	} >"$D/snap-$1.log" 2>&1
}

# ---- the run ---------------------------------------------------------------------
rm -rf "$D"
mkdir -p "$D"
ulp_check_stack before
setup_rxe_pair
trap ulp_exit EXIT
wait_for 10 "rxeA and rxeB ACTIVE" rxe_active
ulp_topology
nvme_modules
nvmet_up
nvme_connect --reconnect-delay=1 --ctrl-loss-tmo=120
RECONN0=$(dmesg | grep -c 'Successfully reconnected' || true)
writer &
WRITER_PID=$!
server_start
tsay "soak: $WAVES waves of $WAVE connections ($ORCM_STACK), NVMe-oF writer on $NVME_BLK"

T0=$SECONDS
declare -a WAVE_S=()
ok_waves=0 bad_waves='' lost=0 dist=''
for ((w = 1; w <= WAVES; w++)); do
	n=$WAVE
	[ $((w * WAVE)) -le "$CONNS" ] || n=$((CONNS - (w - 1) * WAVE))
	ev=${SOAK_EVENTS[$w]:-}
	ep=''
	if [ -n "$ev" ]; then
		(sleep 1 && event "$ev") >"$D/event-$w.log" 2>&1 &
		ep=$!
	fi
	churn_path_ok || fail "wave $w: $RADDR_B is not reached over vRA: $(ip -4 route get "$RADDR_B")"
	t=$SECONDS
	rc=0
	tmo=120
	[ -z "$ev" ] || tmo=60
	wave_snapshot "$w" &
	wp=$!
	timeout -k 5 "$tmo" cmtime -s "$RADDR_B" -p "$PORT" -c "$n" >"$D/wave-$w.log" 2>&1 || rc=$?
	kill "$wp" 2>/dev/null || true
	wait "$wp" 2>/dev/null || true
	[ ! -s "$D/snap-$w.log" ] || show "$D/snap-$w.log"
	WAVE_S+=($((SECONDS - t)))
	if [ -n "$ep" ]; then
		wait "$ep" || { show "$D/event-$w.log"; fail "wave $w: event $ev failed"; }
		[ ! -s "$D/event-$w.log" ] || show "$D/event-$w.log"
	fi
	# (cmtime_verdict's failure lines, tests/e2e/lib.bash)
	failed=$(grep -cE '^failure|^event:|ERROR' "$D/wave-$w.log" || true)
	# cmtime's table of where a wave's time goes (steps: create id, resolve
	# address and route, create QP, connect, disconnect, destroy), once.
	[ "$w" -ne 2 ] || show "$D/wave-$w.log"
	if [ "$rc" -eq 0 ] && [ "$failed" -eq 0 ]; then
		ok_waves=$((ok_waves + 1))
		say "wave $w: $n connections, ${WAVE_S[-1]} s${ev:+ (event $ev: none lost)}"
	elif [ -n "$ev" ]; then
		lost=$((lost + 1))
		dist="$dist $w:$ev:rc$rc"
		say "wave $w: $n connections, ${WAVE_S[-1]} s, event $ev: cmtime status $rc, $failed failure lines"
	else
		show "$D/wave-$w.log"
		{
			ip -4 route get "$RADDR_B"
			ip neigh show dev vRA
			ip -br link show vRA
			ip -br link show vRB
			rdma link show
			rdma res show cm_id
		} 2>&1 | sed 's/^/  [diag] /' | head -n 40
		bad_waves="$bad_waves $w"
		say "wave $w: FAILED without an event (status $rc, $failed failure lines)"
	fi
	# After a device came back, the listener's or the clients' ids went
	# with the old one: the server starts again when it ended.
	# (cmtime's server may crash on a client that vanished mid-connect:
	# an event wave restarts it in any case.)
	gsi_restart=0
	! gsi_check "$w" || gsi_restart=1
	if [ -n "$ev" ] || [ "$gsi_restart" = 1 ] || ! kill -0 "$SERVER_PID" 2>/dev/null ||
		! cm_id_listening "$PORT" >/dev/null; then
		kill -0 "$SERVER_PID" 2>/dev/null ||
			say "wave $w: the cmtime server ended ($(tail -n 1 "$D/server.log"))"
		server_stop
		wait_for 60 "wave $w's ids gone" port_ids_gone "$PORT"
		server_start
	fi
	wait_for 60 "wave $w's ids gone" port_ids_gone "$PORT"
done
TOTAL=$((SECONDS - T0))
: >"$D/stop"
wait_pid "$WRITER_PID" 120 || fail "the NVMe-oF writer does not stop"
WRITER_PID=''
nvme_live || fail "the NVMe controller is $(nvme_ctrl_state), not live, after the soak"

# Every slot holds what was last written to it.
checked=0
for ((s = 0; s < SLOTS; s++)); do
	[ -e "$D/sum.$s" ] || continue
	got=$(dd if="$NVME_BLK" bs=1M skip="$s" count=1 iflag=direct status=none | sha256sum | cut -d' ' -f1)
	[ "$got" = "$(cat "$D/sum.$s")" ] || fail "slot $s reads back $got, last wrote $(cat "$D/sum.$s")"
	checked=$((checked + 1))
done
writes=$(count "$D/writes") errors=$(count "$D/errors") mismatch=$(count "$D/mismatch")
RECONN=$(($(dmesg | grep -c 'Successfully reconnected' || true) - RECONN0))
[ -s "$D/io.log" ] && show "$D/io.log"
mapfile -t sorted <<<"$(printf '%s\n' "${WAVE_S[@]}" | sort -n)"
med=${sorted[$((${#sorted[@]} / 2))]}
say "soak-summary: stack=$ORCM_STACK conns=$CONNS waves=$WAVES wave=$WAVE ok_waves=$ok_waves" \
	"event_waves_with_losses=$lost total_s=$TOTAL wave_s_min=${sorted[0]} wave_s_median=$med" \
	"wave_s_max=${sorted[-1]}"
say "soak-summary: stack=$ORCM_STACK io_writes=$writes io_errors=$errors io_mismatches=$mismatch" \
	"slots_verified=$checked nvme_reconnects=$RECONN qp1_dead=$GSI_DEAD"
[ -z "$dist" ] || say "soak-summary: stack=$ORCM_STACK lossy_event_waves=${dist# }"
[ -z "$bad_waves" ] || fail "waves without an event that lost connections:$bad_waves"
[ "$GSI_DEAD" -eq 0 ] || fail "a churn device's QP1 died $GSI_DEAD times (re-added each time)"
[ "$errors" -eq 0 ] || fail "$errors NVMe-oF writes failed"
[ "$mismatch" -eq 0 ] || fail "$mismatch NVMe-oF slots read back other data"
[ "$writes" -gt 0 ] || fail "the writer wrote nothing"
# Each NVMe link flap (6 s: past the keep-alive) costs the host its queues.
nflaps=0
for ev in "${SOAK_EVENTS[@]}"; do [ "$ev" != flap-nvme ] || nflaps=$((nflaps + 1)); done
[ "$WAVES" -ge 15 ] || nflaps=0
[ "$RECONN" -ge "$nflaps" ] || fail "$RECONN NVMe-oF reconnects for $nflaps flaps of its link"

soak_teardown
ulp_finish
say "ok: soak, $CONNS connections in $WAVES waves with ${#SOAK_EVENTS[@]} events, $writes NVMe-oF writes verified, nothing lost"
