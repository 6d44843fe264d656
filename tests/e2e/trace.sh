#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The rdma_cma trace events, as `trace-cmd record -e rdma_cma` and perf
# scripts use them: the in-tree set of events with the in-tree fields, and
# on a real connection (rping, one ping) the events the in-tree CM fires
# on iWARP, with real addresses and event names in their output (the
# expectations were read off the stock stack, which runs this test too).
# shellcheck source=tests/e2e/lib.bash
. "$(dirname "$0")/lib.bash"

T=/sys/kernel/tracing
[ -d "$T/events" ] || mount -t tracefs tracefs "$T" 2>/dev/null || T=/sys/kernel/debug/tracing
E=$T/events/rdma_cma
[ -d "$E" ] || fail "no rdma_cma trace events in $T/events"

want="cm_add_one cm_disconnect cm_event_done cm_event_handler cm_id_attach
cm_id_destroy cm_qp_create cm_qp_destroy cm_remove_one cm_req_handler
cm_send_mra cm_send_rej cm_send_rep cm_send_req cm_send_rtu cm_send_sidr_rep
cm_send_sidr_req cm_sent_drep cm_sent_dreq"
got=$(cd "$E" && for d in */; do echo "${d%/}"; done | sort | tr '\n' ' ')
[ "$got" = "$(tr '\n' ' ' <<<"$want" | tr -s ' ' '\n' | sort | tr '\n' ' ')" ] ||
	fail "rdma_cma events: $got"

# fields EVENT: the event's own fields (after the common_* ones).
fields() { awk '/field:/ && !/common_/ { sub(/;.*/, ""); n = split($0, a, " "); print a[n] }' "$E/$1/format" | sed 's/\[.*//' | tr '\n' ' '; }
chk() { [ "$(fields "$1")" = "$2" ] || fail "$1 fields: '$(fields "$1")', want '$2'"; }
chk cm_event_handler "cm_id tos event status srcaddr dstaddr "
chk cm_event_done "cm_id tos event result srcaddr dstaddr "
chk cm_id_attach "cm_id srcaddr dstaddr devname "
chk cm_qp_create "cm_id pd_id tos qp_num send_wr recv_wr rc qp_type srcaddr dstaddr "
chk cm_id_destroy "cm_id tos srcaddr dstaddr "
chk cm_add_one "name "
say "event set and fields as in-tree"

echo >"$T/trace"
echo 1 >"$E/enable"
# Ours also traces iw_cm (the in-tree iw_cm has no events).
IWE=$T/events/iw_cm
if [ "${ORCM_STACK:-}" = ours ]; then
	[ -d "$IWE" ] || fail "no iw_cm trace events"
	echo 1 >"$IWE/enable"
fi
setup_pair
bg /tmp/trace-srv.log "${IN_B[@]}" rping -s -a "$ADDR_B" -p 7195 -C 1
srv=$LAST_PID
wait_for 10 "listener" cm_id_listening 7195
run_to /tmp/trace-cli.log "$STEP" "${IN_A[@]}" rping -c -a "$ADDR_B" -p 7195 -C 1 ||
	fail "rping failed"
wait_pid "$srv" "$STEP" || fail "rping server failed"
wait_for 10 "no CM id left" cm_ids_empty
echo 0 >"$E/enable"
[ ! -d "$IWE" ] || echo 0 >"$IWE/enable"
cat "$T/trace" >/tmp/trace.txt
has() { grep -qE "$1" /tmp/trace.txt || { grep -E 'cm_' /tmp/trace.txt | head -40; fail "no trace line matching: $1"; }; }
# What the in-tree CM traces for this (user QPs: no cm_qp_create here).
has "cm_add_one: device name=siwA"
has "cm_id_attach: cm.id=[0-9]+ src=$ADDR_B:7195 dst=[^ ]+ device=siwB"
has "cm_id_attach: cm.id=[0-9]+ src=$ADDR_A:[0-9]+ dst=$ADDR_B:7195 device=siwA"
has "cm_event_handler: cm.id=[0-9]+ src=$ADDR_A:[0-9]+ dst=$ADDR_B:7195 tos=0 ADDR_RESOLVED \(0/0\)"
has "cm_event_handler: cm.id=[0-9]+ src=$ADDR_A:[0-9]+ dst=$ADDR_B:7195 tos=0 ROUTE_RESOLVED \(2/0\)"
has "cm_event_handler: cm.id=[0-9]+ src=$ADDR_B:7195 dst=$ADDR_A:[0-9]+ tos=0 CONNECT_REQUEST \(4/0\)"
has "cm_event_done: cm.id=[0-9]+ src=$ADDR_B:7195 dst=$ADDR_A:[0-9]+ tos=0 CONNECT_REQUEST consumer returns 0"
has "cm_event_handler: cm.id=[0-9]+ src=$ADDR_A:[0-9]+ dst=$ADDR_B:7195 tos=0 ESTABLISHED \(9/0\)"
has "cm_event_handler: cm.id=[0-9]+ src=$ADDR_B:7195 dst=$ADDR_A:[0-9]+ tos=0 ESTABLISHED \(9/0\)"
has "cm_event_handler: cm.id=[0-9]+ src=$ADDR_A:[0-9]+ dst=$ADDR_B:7195 tos=0 DISCONNECTED \(10/0\)"
has "cm_event_handler: cm.id=[0-9]+ src=$ADDR_B:7195 dst=$ADDR_A:[0-9]+ tos=0 DISCONNECTED \(10/0\)"
has "cm_id_destroy: cm.id=[0-9]+ src=$ADDR_A:[0-9]+ dst=$ADDR_B:7195 tos=0"
has "cm_id_destroy: cm.id=[0-9]+ src=$ADDR_B:7195 dst=$ADDR_A:[0-9]+ tos=0"
if [ "${ORCM_STACK:-}" = ours ]; then
	has "iwcm_upcall: id=[^ ]+ CONNECT_REQUEST status=0 local=$ADDR_B:7195 remote=$ADDR_A:[0-9]+ .* queued=0"
	has "iwcm_upcall: id=[^ ]+ CONNECT_REPLY status=0 "
	has "iwcm_deliver: id=[^ ]+ ESTABLISHED status=0 handler returns 0"
	has "iwcm_deliver: id=[^ ]+ CLOSE status=0 handler returns 0"
fi
say "ok: $(grep -c ' cm_' /tmp/trace.txt) rdma_cma events on one rping"
