#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Loopback and local destinations, in orcmB with one siw device (siwB; siwA
# is deleted first):
# - the host's own siw address, IPv4 and IPv6: rping server and client both
#   in orcmB on 198.18.0.2 (and 2001:db8::2) work, through siwB;
# - 127.0.0.1 and ::1: a listener binds (a loopback address listens like a
#   wildcard one, on every device). The stock CM cannot resolve a loopback
#   destination over iWARP: it binds it to the first active device and asks
#   for its P_Key, which iWARP has none of, so rdma_resolve_addr fails with
#   EINVAL at once (recorded on the stock stack). A documented deviation:
#   ours binds the first active device too and does not ask iWARP for a
#   P_Key, so the connection is made through siwB over the loopback, and
#   the listener accepts it (as the in-tree CM does on IB and RoCE).
# No client hangs; no CM id is left.
# shellcheck source=tests/e2e/lib.bash
. "$(dirname "$0")/lib.bash"
# shellcheck source=tests/e2e/cmprobe.bash
. "$(dirname "$0")/cmprobe.bash"
setup_pair
PORT=7490
rdma link delete siwA
in_b ip addr add 2001:db8::2/64 dev vB nodad
rdma link show

# Server and client both in orcmB, on its own siw address.
rping_pair own-v4 "$NS_B" "$ADDR_B" "$NS_B" "$ADDR_B" $PORT
rping_pair own-v6 "$NS_B" 2001:db8::2 "$NS_B" 2001:db8::2 $PORT

expect_result own-probe "$STEP" "error rdma_connect ECONNREFUSED" "${IN_B[@]}" "$CMPROBE" -c -a "$ADDR_B" -p $PORT
grep -qE "^route $ADDR_B port [0-9]+ on siwB$" /tmp/own-probe.log || fail "own-probe: not routed on siwB"

for lo in 127.0.0.1 ::1; do
	bg "/tmp/lo-$lo-server.log" "${IN_B[@]}" "$CMPROBE" -s -b "$lo" -p $PORT -T 20
	server=$LAST_PID
	wait_for 10 "a listener on $lo" listening "lo-$lo-server"
	cm_id_listening $PORT || { cm_ids; fail "the $lo listener is not listed"; }
	probe "lo-$lo" 10 "${IN_B[@]}" "$CMPROBE" -c -a "$lo" -p $PORT
	if [ "${ORCM_STACK:-}" = ours ]; then
		want_line "lo-$lo" "result ESTABLISHED status 0"
		want_rc "lo-$lo" "$PROBE_RC" 0
		grep -qE "^route $lo port [0-9]+ on siwB$" "/tmp/lo-$lo.log" ||
			mismatch "lo-$lo: not routed on siwB"
	else
		want_line "lo-$lo" "result error rdma_resolve_addr EINVAL"
		want_rc "lo-$lo" "$PROBE_RC" 1
	fi
	kill -0 "$server" || fail "the $lo listener died"
	kill "$server"
	wait_pid "$server" 5 || true
	show "/tmp/lo-$lo-server.log"
	if [ "${ORCM_STACK:-}" = ours ]; then
		grep -q '^event ESTABLISHED' "/tmp/lo-$lo-server.log" ||
			mismatch "the $lo listener did not establish"
	elif grep -q '^event ' "/tmp/lo-$lo-server.log"; then
		mismatch "the $lo listener got an event"
	fi
	wait_for 10 "no CM id left after $lo" cm_ids_empty
done
mismatches_fail
say "ok: local addresses connect; loopback destinations: EINVAL on stock, connected on ours"
