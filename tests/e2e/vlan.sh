#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Upper devices over the siw netdevs:
# - a VLAN (vA.10 / vB.10, id 10, 198.18.10.0/24) on both veth ends: the CM
#   maps its address to the siw device of the lower netdev; rping -s bound to
#   the VLAN address in orcmB, rping -c to it from orcmA, and a cmprobe
#   connection that is routed from the VLAN address on siwA;
# - a macvlan (198.18.11.0/24): the stock CM maps only VLANs to their real
#   device, so binding to a macvlan address fails with ENODEV and resolving
#   one gives ADDR_ERROR -ENODEV; the same is expected on ours.
# No CM id is left.
# shellcheck source=tests/e2e/lib.bash
. "$(dirname "$0")/lib.bash"
# shellcheck source=tests/e2e/cmprobe.bash
. "$(dirname "$0")/cmprobe.bash"
setup_pair
V_A=198.18.10.1 V_B=198.18.10.2 M_A=198.18.11.1 M_B=198.18.11.2 PORT=7480

in_a ip link add link vA name vA.10 type vlan id 10
in_b ip link add link vB name vB.10 type vlan id 10
in_a ip addr add $V_A/24 dev vA.10
in_b ip addr add $V_B/24 dev vB.10
in_a ip link set vA.10 up
in_b ip link set vB.10 up
wait_for 10 "ping $V_B over the VLAN" in_a ping -c 1 -W 1 $V_B

bg /tmp/vlan-server.log "${IN_B[@]}" rping -s -v -V -a $V_B -p $PORT -C 3
server=$LAST_PID
wait_for 10 "rping server on $V_B listening" cm_id_listening $PORT
cm_ids | grep -q "siwB/1 .*state LISTEN .*src-addr $V_B:$PORT" || { cm_ids; fail "the VLAN listener is not on siwB"; }
rc=0
run_to /tmp/vlan-client.log "$STEP" "${IN_A[@]}" rping -c -v -V -a $V_B -p $PORT -C 3 || rc=$?
src=0
wait_pid "$server" "$STEP" || src=$?
show /tmp/vlan-server.log
[ "$rc" -eq 0 ] || fail "rping over the VLAN: client exit status $rc"
[ "$src" -eq 0 ] || fail "rping over the VLAN: server exit status $src"
[ "$(grep -c 'ping data: rdma-ping-' /tmp/vlan-client.log)" -eq 3 ] || fail "not 3 verified pings over the VLAN"
wait_for 10 "no CM id left after rping" cm_ids_empty

bg /tmp/vlan-probe-server.log "${IN_B[@]}" "$CMPROBE" -s -b $V_B -p $PORT -n 1 -T 20
server=$LAST_PID
wait_for 10 "cmprobe server on $V_B listening" listening vlan-probe-server
expect_result vlan-probe "$STEP" "ESTABLISHED status 0" "${IN_A[@]}" "$CMPROBE" -c -a $V_B -p $PORT
grep -qE "^route $V_A port [0-9]+ on siwA$" /tmp/vlan-probe.log || fail "vlan-probe: not routed from $V_A on siwA"
src=0
wait_pid "$server" 10 || src=$?
show /tmp/vlan-probe-server.log
[ "$src" -eq 0 ] || fail "cmprobe server on the VLAN: exit status $src"
grep -qE "^peer $V_A port " /tmp/vlan-probe-server.log || fail "the VLAN server's peer is not $V_A"
wait_for 10 "no CM id left after cmprobe" cm_ids_empty
say "VLAN: ok"

in_a ip link add link vA name mvA type macvlan mode bridge
in_b ip link add link vB name mvB type macvlan mode bridge
in_a ip addr add $M_A/24 dev mvA
in_b ip addr add $M_B/24 dev mvB
in_a ip link set mvA up
in_b ip link set mvB up
wait_for 10 "ping $M_B over the macvlan" in_a ping -c 1 -W 1 $M_B
probe macvlan-bind 10 "${IN_B[@]}" "$CMPROBE" -s -b $M_B -p $PORT -T 3
want_line macvlan-bind "error rdma_bind_addr ENODEV"
want_rc macvlan-bind "$PROBE_RC" 1
probe macvlan-connect 10 "${IN_A[@]}" "$CMPROBE" -c -a $M_B -p $PORT -r 1000
want_line macvlan-connect "result ADDR_ERROR status -19"
want_rc macvlan-connect "$PROBE_RC" 1
mismatches_fail
wait_for 10 "no CM id left" cm_ids_empty
say "ok: VLAN connects through the lower device's siw; macvlan is refused with ENODEV"
