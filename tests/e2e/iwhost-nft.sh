#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Host-stack proof, netfilter: softrnic's connections are host TCP
# connections, so an nftables DROP rule on the port blocks an RDMA connect
# to a softrnic listener (the client gets an error within iw_cm's connect
# timeout, no hang; the rule counts the dropped SYNs), and connects work
# again once the rule is gone. Both ends softrnic (srA, srB), rping and
# cmprobe as clients (the data path has its own tests: softrnic-*).
# The connect deadline is the client namespace's (issue 40): sysctl
# net.iw_cm.connect_timeout_ms 3000 in A (0, the default, means the module
# parameter, 20 s); out-of-range values are refused, the initial
# namespace's stays 0, and the blocked connect ends within 2.5-10 s (the
# module parameter's 20 s would outlast cmprobe's own 15 s deadline).
# orcm-timeout: 200
# shellcheck source=tests/e2e/lib.bash
. "$(dirname "$0")/lib.bash"
# shellcheck source=tests/e2e/cmprobe.bash
. "$(dirname "$0")/cmprobe.bash"
# shellcheck source=tests/e2e/iwhost-lib.bash
. "$(dirname "$0")/iwhost-lib.bash"
need_softrnic
setup_pair softrnic softrnic
PORT=7320
CT=net.iw_cm.connect_timeout_ms
[ "$(in_a sysctl -n $CT)" = 0 ] || fail "$CT in A is $(in_a sysctl -n $CT), not 0 (unset)"
for v in 3600001 -1 abc; do
	! in_a sysctl -qw "$CT=$v" 2>/dev/null || fail "$CT took '$v'"
done
[ "$(in_a sysctl -n $CT)" = 0 ] || fail "a refused value changed $CT: $(in_a sysctl -n $CT)"
in_a sysctl -qw "$CT=3000" || fail "$CT=3000 refused"
[ "$(sysctl -n $CT)" = 0 ] || fail "$CT of the initial namespace changed with A's: $(sysctl -n $CT)"
say "$CT: A 3000, the initial namespace 0 (module parameter $(iwcm_param connect_timeout_ms)); 3600001, -1, abc refused"

bg /tmp/nft-server.log "${IN_B[@]}" "$CMPROBE" -s -b "$ADDR_B" -p $PORT -n 0 -T 120
server=$LAST_PID
wait_for 10 "the listener on $ADDR_B:$PORT" cm_id_listening $PORT
expect_result nft-before "$STEP" "ESTABLISHED status 0" \
	"${IN_A[@]}" "$CMPROBE" -c -a "$ADDR_B" -p $PORT -H 100 -T 15

# The rule, on the listener's side.
in_b nft add table inet orcm
in_b nft add chain inet orcm input '{ type filter hook input priority 0; policy accept; }'
in_b nft add rule inet orcm input tcp dport $PORT counter drop
in_b nft list ruleset

probe nft-blocked 20 "${IN_A[@]}" "$CMPROBE" -c -a "$ADDR_B" -p $PORT -T 15
[ "$PROBE_RC" -eq 1 ] || fail "nft-blocked: cmprobe exit status $PROBE_RC, want 1 (a connect error)"
grep -qE '^result (UNREACHABLE|CONNECT_ERROR|REJECTED) ' /tmp/nft-blocked.log ||
	fail "nft-blocked: no connect error reported"
say "blocked: $(grep '^result' /tmp/nft-blocked.log) after ${PROBE_MS} ms"
{ [ "$PROBE_MS" -ge 2500 ] && [ "$PROBE_MS" -lt 10000 ]; } ||
	fail "nft-blocked: the connect ended after $PROBE_MS ms, A's deadline is 3000 ms"
rc=0
run_to /tmp/nft-rping-blocked.log 20 "${IN_A[@]}" rping -c -a "$ADDR_B" -p $PORT -C 1 || rc=$?
case $rc in
0) fail "rping connected through the DROP rule" ;;
124 | 137) fail "rping hung behind the DROP rule" ;;
esac
say "rping behind the rule: exit status $rc"
pkts=$(in_b nft list chain inet orcm input | sed -n 's/.*counter packets \([0-9]*\).*/\1/p')
[ "${pkts:-0}" -gt 0 ] || fail "the DROP rule counted no packet"
say "the DROP rule dropped $pkts packets"

in_b nft delete table inet orcm
expect_result nft-after "$STEP" "ESTABLISHED status 0" \
	"${IN_A[@]}" "$CMPROBE" -c -a "$ADDR_B" -p $PORT -H 100 -T 15
kill -TERM "$server"
wait_pid "$server" 10 || true
wait_for 10 "no CM id left" cm_ids_empty
say "ok"
