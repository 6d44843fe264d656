#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The IB CM's per-port message counters and its ib_cma trace events, as an
# admin or a tool sees them on 6.12: the sysfs groups cm_tx_msgs,
# cm_tx_retries, cm_rx_msgs and cm_rx_duplicates under
# /sys/class/infiniband/DEV/ports/N/ (no infiniband_cm class since 5.11),
# one 0444 file per CM message, read before and after a fixed workload on
# rxe0 (client and server on one device, so every message is counted once
# sent and once received on rxe0/1): an rping connection, a cmprobe
# reject, a connect to a port nobody listens on, a udaddy SIDR exchange and
# one with no server (the CM's own SIDR_REP "unsupported").
# The deltas must be the ones the in-tree ib_cm gives (read off the stock
# VM, which runs this test too). Retries and duplicates depend on timing;
# none happen in this workload on an idle VM, so they are asserted as 0
# and a non-zero value fails loudly. Then the ib_cma events of the
# workload, in order, with comm ids masked.
# shellcheck source=tests/e2e/lib.bash
. "$(dirname "$0")/lib.bash"
# shellcheck source=tests/e2e/cmprobe.bash
. "$(dirname "$0")/cmprobe.bash"
setup_rxe
P=/sys/class/infiniband/rxe0/ports/1
GROUPS_="cm_tx_msgs cm_tx_retries cm_rx_msgs cm_rx_duplicates"
MSGS="req mra rej rep rtu dreq drep sidr_req sidr_rep lap apr"

[ ! -e /sys/class/infiniband_cm ] || fail "an infiniband_cm class exists (6.12 has none)"
# One stat for all: "MODE GROUP/MSG", sorted. (Few processes: a fork costs
# tens of milliseconds in the VM.)
layout=$(cd "$P" && stat -c '%a %n' cm_*/* 2>/dev/null | sort) || true
[ -n "$layout" ] || fail "no CM counter groups in $P: $(cd "$P" && echo *)"
want_layout=$(for g in $GROUPS_; do for f in $MSGS; do echo "444 $g/$f"; done; done | sort)
[ "$layout" = "$want_layout" ] || fail "counter files: $(tr '\n' ' ' <<<"$layout")"
say "sysfs layout: $P/{$(tr ' ' ',' <<<"$GROUPS_")}/{$(tr ' ' ',' <<<"$MSGS")}, 0444"

# snap FILE: every counter as "GROUP/MSG VALUE" (read by the shell itself).
snap() {
	local g f v
	for g in $GROUPS_; do
		for f in $MSGS; do
			read -r v <"$P/$g/$f"
			echo "$g/$f $v"
		done
	done >"$1"
}

# The ib_cma trace events are recorded over the same workload.
T=/sys/kernel/tracing
[ -d "$T/events" ] || mount -t tracefs tracefs "$T" 2>/dev/null || T=/sys/kernel/debug/tracing
E=$T/events/ib_cma
[ -d "$E" ] || fail "no ib_cma trace events in $T/events"
# The in-tree set of 34 events, and their format files (fields, types,
# offsets, print format; the ID lines aside) byte for byte: their digest
# was read off the stock VM.
want_evs="icm_dreq_skipped icm_dreq_unknown_err icm_establish_err icm_handler_err
icm_insert_failed_err icm_issue_drep icm_issue_rej icm_mad_send_err
icm_mra_unknown_err icm_no_listener_err icm_no_priv_err icm_qp_init_err
icm_qp_rtr_err icm_qp_rts_err icm_rej_unknown_err icm_remote_no_priv_err
icm_rep_unknown_err icm_send_cm_rtu_err icm_send_drep icm_send_drep_err
icm_send_dreq icm_send_dup_rep icm_send_dup_req icm_send_mra
icm_send_mra_unknown_err icm_send_rej icm_send_rep icm_send_rep_err
icm_send_req icm_send_rtu icm_send_sidr_rep icm_send_sidr_req
icm_send_unknown_rej_err icm_staleconn_err"
evs=$(cd "$E" && for d in */; do echo "${d%/}"; done | sort | tr '\n' ' ')
# shellcheck disable=SC2086 # one word a line
[ "$evs" = "$(printf '%s\n' $want_evs | sort | tr '\n' ' ')" ] ||
	fail "ib_cma events: $evs"
formats=$(cd "$E" && awk 'FNR == 1 { print FILENAME } !/^ID:/' ./*/format | md5sum | cut -c1-32)
say "ib_cma: $(wc -w <<<"$evs") events as in-tree; format digest $formats"
echo >"$T/trace"
echo 1 >"$E/enable"

snap /tmp/cmc-before
rping_pair cmc-rping - "$ADDR_R" - "$ADDR_R" 7620
say "rping done (${SECONDS}s)"
bg /tmp/cmc-rej-server.log "$CMPROBE" -s -b "$ADDR_R" -p 7622 -j 0 -n 1 -T 20
srv=$LAST_PID
wait_for 10 "reject server listening" cm_id_listening 7622
expect_result cmc-rej "$STEP" "REJECTED status 28" "$CMPROBE" -c -a "$ADDR_R" -p 7622
wait_pid "$srv" 10 || fail "reject server failed"
expect_result cmc-nolisten "$STEP" "REJECTED status 8" "$CMPROBE" -c -a "$ADDR_R" -p 7623
transfer_pair cmc-udaddy 7174 udaddy -c 1 -C 1 -- udaddy -s "$ADDR_R" -b "$ADDR_R" -c 1 -C 1
# udaddy again, with no server: the CM answers SIDR_REP "unsupported".
run_to /tmp/cmc-sidr-none.log "$STEP" udaddy -s "$ADDR_R" -b "$ADDR_R" -c 1 -C 1 &&
	fail "udaddy with no server succeeded"
wait_for 10 "no CM id left" cm_ids_empty
say "workload done (${SECONDS}s)"

# What the in-tree ib_cm counts for this workload (read off the stock VM):
# rping: REQ, REP, RTU, DREQ, DREP; the reject: REQ, REJ; no listener: REQ,
# REJ; udaddy, with and without a server: SIDR_REQ, SIDR_REP; each sent
# once and received once on rxe0/1; nothing retried, no duplicate.
want="cm_tx_msgs/req 3
cm_tx_msgs/rej 2
cm_tx_msgs/rep 1
cm_tx_msgs/rtu 1
cm_tx_msgs/dreq 1
cm_tx_msgs/drep 1
cm_tx_msgs/sidr_req 2
cm_tx_msgs/sidr_rep 2
cm_rx_msgs/req 3
cm_rx_msgs/rej 2
cm_rx_msgs/rep 1
cm_rx_msgs/rtu 1
cm_rx_msgs/dreq 1
cm_rx_msgs/drep 1
cm_rx_msgs/sidr_req 2
cm_rx_msgs/sidr_rep 2"
# deltas: the counters that changed, "GROUP/MSG DELTA", in sysfs order.
deltas() {
	snap /tmp/cmc-after
	join /tmp/cmc-before /tmp/cmc-after | awk '$3 != $2 { print $1, $3 - $2 }'
}
# A send is counted when the MAD layer completes it: the last DREP may
# complete a moment after the ids are gone.
for _ in $(seq 50); do
	got=$(deltas)
	[ "$got" != "$want" ] || break
	sleep 0.1
done
say "counter deltas:"
echo "$got"
[ "$got" = "$want" ] || fail "counter deltas differ from the in-tree ones"
say "counter deltas as in-tree (${SECONDS}s)"

echo 0 >"$E/enable"
# Event name and fields, comm ids masked, e.g. "icm_send_req: local_id=N
# remote_id=N state=IDLE lap_state=LAP_UNINIT".
seq=$(sed -n 's/^.* \(icm_[a-z_]*\): /\1: /p' "$T/trace" |
	sed -E 's/(local|remote)_id=[0-9]+/\1_id=N/g')
say "ib_cma events of the workload:"
echo "$seq"
# What the in-tree ib_cm traces for it under the in-tree rdma_cm (stock VM).
# rdma_cm MRAs a user's REQ and REP with IB_CM_MRA_FLAG_DELAY (no MRA sent,
# hence the MRA_*_SENT states); the passive side's rdma_disconnect() tries
# a DREQ (skipped: the peer's DREQ came first), then sends the DREP, in
# timewait; the no-listener REQ is rejected by the CM itself.
tw="local_id=N remote_id=N state"
want_seq="icm_send_req: $tw=IDLE lap_state=LAP_UNINIT
icm_send_rep: $tw=MRA_REQ_SENT lap_state=LAP_UNINIT
icm_send_rtu: $tw=MRA_REP_SENT lap_state=LAP_UNINIT
icm_send_dreq: $tw=ESTABLISHED lap_state=LAP_UNINIT
icm_dreq_skipped: $tw=DREQ_RCVD lap_state=LAP_UNINIT
icm_send_drep: $tw=TIMEWAIT lap_state=LAP_UNINIT
icm_send_req: $tw=IDLE lap_state=LAP_UNINIT
icm_send_rej: $tw=MRA_REQ_SENT reason=REJ_CONSUMER_DEFINED
icm_send_req: $tw=IDLE lap_state=LAP_UNINIT
icm_issue_rej: local_id=N remote_id=N
icm_no_listener_err: $tw=REQ_RCVD lap_state=LAP_UNINIT
icm_send_sidr_req: $tw=IDLE lap_state=LAP_UNINIT
icm_send_sidr_rep: $tw=SIDR_REQ_RCVD lap_state=LAP_UNINIT
icm_send_sidr_req: $tw=IDLE lap_state=LAP_UNINIT
icm_send_sidr_rep: $tw=SIDR_REQ_RCVD lap_state=LAP_UNINIT"
[ "$seq" = "$want_seq" ] || fail "ib_cma events differ from the in-tree ones"
[ "$formats" = ed98def7263964cba4b234549d871963 ] ||
	{ cat "$E/icm_send_req/format" "$E/icm_send_rej/format"; fail "ib_cma formats differ from in-tree"; }
say "ok: counters and $(wc -l <<<"$seq") ib_cma events as in-tree (${SECONDS}s)"
