#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# orcm-timeout: 120
# A dead peer reported in seconds when a user asks (issue 40): the CM reply
# timeout and retry count of IB/RoCE connections, per namespace (sysctl
# net.rdma_cm.cm_response_timeout, cm_max_retries) and per port (configfs
# rdma_cm/<dev>/ports/<n>/, -1: the namespace's). Over rxe (tests/e2e/
# rxe-lib.bash): the defaults are in-tree's (20, 15; ports -1); values out
# of range are refused and change nothing; then rxeB goes away (its netdev
# stays and answers ARP, so the REQ leaves rxeA and nobody answers) and a
# cmprobe client connecting to it must end UNREACHABLE within 5 s with the
# port set to 14 (67 ms) and 2 retries, and again with the namespace's
# values set instead (and the port back at -1). Then a kernel ULP's own
# values (orcm_rdma_set_cm_timers(), <openrdma/rdma_cm_timers.h>):
# tests/bench/cm_bench.ko, which looks the call up at run time as a ULP
# that also runs on in-tree would, sets 14 and 2 on its id with the
# namespace back at 20/15 and the port at -1; its connect ends UNREACHABLE
# within 5 s, and a value out of range fails the call with EINVAL. With
# in-tree's values the same connect takes about a minute (16 tries of 2 x
# RoCE's packet life plus 4.3 s): not run here.
# Ours only: in-tree has no such setting.
# shellcheck source=tests/e2e/lib.bash
. "$(dirname "$0")/lib.bash"
# shellcheck source=tests/e2e/rxe-lib.bash
. "$(dirname "$0")/rxe-lib.bash"
# shellcheck source=tests/e2e/cmprobe.bash
. "$(dirname "$0")/cmprobe.bash"
[ "${ORCM_STACK:-}" = ours ] || skip "the CM reply timeout and retries are settable on our stack only (in-tree fixes them)"
CFS=/sys/kernel/config
mountpoint -q "$CFS" || mount -t configfs configfs "$CFS"
T0=$(sysctl -n net.rdma_cm.cm_response_timeout) R0=$(sysctl -n net.rdma_cm.cm_max_retries)
timers_exit() {
	local rc=$?
	sysctl -qw net.rdma_cm.cm_response_timeout="$T0" net.rdma_cm.cm_max_retries="$R0" || true
	rmdir "$CFS/rdma_cm/$RXE_A" 2>/dev/null || true
	rmmod cm_bench 2>/dev/null || true
	rmmod cm_acct 2>/dev/null || true
	rxe_cleanup
	cleanup
	exit $rc
}
setup_rxe_pair
trap timers_exit EXIT
[ "$T0/$R0" = 20/15 ] || fail "net.rdma_cm defaults $T0/$R0, in-tree's are 20/15"
mkdir "$CFS/rdma_cm/$RXE_A"
P=$CFS/rdma_cm/$RXE_A/ports/1
port_vals() { echo "$(cat "$P/cm_response_timeout")/$(cat "$P/cm_max_retries")"; }
net_vals() { echo "$(sysctl -n net.rdma_cm.cm_response_timeout)/$(sysctl -n net.rdma_cm.cm_max_retries)"; }
[ "$(port_vals)" = -1/-1 ] || fail "port 1 of $RXE_A: $(port_vals), not -1/-1"

# Out of range, or no number: refused, nothing changed.
for v in 32 -2 abc; do
	! echo "$v" >"$P/cm_response_timeout" 2>/dev/null || fail "cm_response_timeout took '$v'"
done
! echo 16 >"$P/cm_max_retries" 2>/dev/null || fail "cm_max_retries took 16"
! sysctl -qw net.rdma_cm.cm_response_timeout=32 2>/dev/null || fail "the sysctl took 32"
! sysctl -qw net.rdma_cm.cm_max_retries=16 2>/dev/null || fail "the sysctl took 16"
[ "$(port_vals) $(net_vals)" = "-1/-1 20/15" ] ||
	fail "a refused value changed a setting: port $(port_vals), namespace $(net_vals)"
say "ok: defaults 20/15 (ports -1); 32, -2, abc and 16 refused"

rdma link delete "$RXE_B"
say "$RXE_B deleted: vRB ($RADDR_B) still answers ARP, nobody answers a REQ"

# dead_connect NAME WHAT: a connect to the dead peer ends UNREACHABLE within 5 s.
dead_connect() {
	local t0 rc=0 ms log=/tmp/cm-timers-$1.log
	shift
	t0=$(date +%s%N)
	run_to "$log" 30 "$CMPROBE" -c -a "$RADDR_B" -b "$RADDR_A" -p 7490 -T 25 || rc=$?
	ms=$((($(date +%s%N) - t0) / 1000000))
	show "$log"
	grep -q '^result UNREACHABLE' "$log" ||
		fail "$1: the connect to a dead peer did not end UNREACHABLE (status $rc)"
	[ "$ms" -lt 5000 ] || fail "$1: UNREACHABLE after $ms ms, wanted under 5 s"
	say "ok: $1: UNREACHABLE after $ms ms"
}
echo 14 >"$P/cm_response_timeout"
echo 2 >"$P/cm_max_retries"
dead_connect port "port 14/2"
echo -1 >"$P/cm_response_timeout"
echo -1 >"$P/cm_max_retries"
sysctl -qw net.rdma_cm.cm_response_timeout=14 net.rdma_cm.cm_max_retries=1
dead_connect net "namespace 14/1"
wait_for 10 "no CM id left" cm_ids_empty

# A kernel ULP's values, the namespace and the port at their defaults.
sysctl -qw net.rdma_cm.cm_response_timeout=20 net.rdma_cm.cm_max_retries=15
[ "$(port_vals) $(net_vals)" = "-1/-1 20/15" ] || fail "not back at the defaults: port $(port_vals), namespace $(net_vals)"
BENCH_DIR=${ORCM_OURS_DIR:?}/tests/bench
CTL=/sys/kernel/debug/cm_bench/ctl RES=/sys/kernel/debug/cm_bench/results
[ -d /sys/module/cm_acct ] || insmod "$BENCH_DIR/cm_acct.ko" || fail "insmod cm_acct"
insmod "$BENCH_DIR/cm_bench.ko" || fail "insmod cm_bench"
# kc CMD: one cm_bench command; its status (the write fails when a
# connection did).
kc() { timeout -k 2 45 sh -c "echo '$*' > $CTL"; }
! kc connect tag=bad dst="$RADDR_B" src="$RADDR_A" port=7491 cm_timeout=32 cm_retries=2 timeout=30 ||
	fail "cm_bench: a connect with cm_timeout 32 succeeded"
grep -q ' tag=bad .* err=set_cm_timers:-22' "$RES" ||
	fail "cm_bench: cm_timeout 32 not refused with EINVAL: $(grep ' tag=bad ' "$RES")"
t0=$(date +%s%N) rc=0
kc connect tag=ulp dst="$RADDR_B" src="$RADDR_A" port=7492 cm_timeout=14 cm_retries=2 timeout=30 || rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
line=$(grep ' tag=ulp ' "$RES") || fail "cm_bench: no result line for tag=ulp"
say "cm_bench: $line"
[ "$rc" -ne 0 ] || fail "cm_bench: the connect to a dead peer succeeded"
[[ "$line" == *" fail=1 "* && "$line" == *" err=unreachable:-110"* ]] ||
	fail "cm_bench: the connect did not end UNREACHABLE (-ETIMEDOUT) (write status $rc)"
[ "$ms" -lt 5000 ] || fail "cm_bench: UNREACHABLE after $ms ms with the ULP's 14/2, wanted under 5 s"
say "ok: a kernel ULP's 14/2 (orcm_rdma_set_cm_timers): UNREACHABLE after $ms ms, 32 refused (EINVAL)"
rmmod cm_bench
wait_for 10 "no CM id left after cm_bench" cm_ids_empty
