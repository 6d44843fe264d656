#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Differential parity with the in-tree CM, in one boot: tests/parity's
# cm_parity.ko runs its scenarios (in-kernel API: return codes, events with
# status and private data, id states) on our stack, then the in-tree
# rdma_cm/iw_cm are loaded in place of ours and it runs them again; then ours
# come back. Every difference fails, unless its scenario stands in
# tests/parity/deviations with the reason. On the stock VM the scenarios run
# once (a baseline: they must not time out).
# orcm-timeout: 300
# shellcheck source=tests/e2e/lib.bash
. "$(dirname "$0")/lib.bash"

KO=$ORCM_PARITY_KO
[ -f "$KO" ] || fail "cm_parity.ko not built ($KO)"
MP=(modprobe -d "$ORCM_MODROOT" -S "$ORCM_KREL")
DEV=$ORCM_REPO/tests/parity/deviations

# siw on one veth end in the initial namespace (kernel ULPs' namespace);
# both parity addresses on it, so a connection is local, as in ULP setups.
parity_net() {
	ip link add pA type veth peer name pB
	ip addr add 198.18.1.1/24 dev pA
	ip addr add 198.18.1.2/24 dev pA
	ip link set pA up
	ip link set pB up
	rdma link add sP type siw netdev pA
	wait_for 10 "sP ACTIVE" bash -c "rdma link show sP/1 | grep -q ACTIVE"
}
parity_net_down() {
	rdma link delete sP 2>/dev/null || true
	ip link delete pA 2>/dev/null || true
}
trap 'parity_net_down; cleanup' EXIT

# run_scenarios OUT LABEL STACK: load cm_parity.ko, run every scenario, keep the trace.
run_scenarios() {
	insmod "$KO" || fail "insmod $KO"
	echo all >/sys/kernel/debug/cm_parity/run || { rmmod cm_parity; fail "run failed"; }
	cat /sys/kernel/debug/cm_parity/trace >"$1"
	rmmod cm_parity || fail "rmmod cm_parity"
	say "trace ($2):"
	sed 's/^/    /' "$1"
	# Our id count only exists while our rdma_cm is loaded.
	ORCM_STACK=$3 wait_for 10 "no CM id left after the scenarios" cm_ids_empty
}

parity_net
if [ "${ORCM_STACK:-}" != ours ]; then
	run_scenarios /tmp/parity-stock.txt stock stock
	! grep -q 'timed out' /tmp/parity-stock.txt || fail "a scenario timed out on the stock stack"
	say "ok: $(grep -c '^scenario' /tmp/parity-stock.txt) scenarios on the stock stack"
	exit 0
fi

run_scenarios /tmp/parity-ours.txt ours ours
# Swap: ours out, the in-tree CMs in (the kernel's own module requests for
# them stay refused; this loads them by hand).
rmmod rdma_ucm rdma_cm iw_cm || fail "cannot unload our stack"
"${MP[@]}" rdma_cm || fail "cannot load the in-tree rdma_cm"
run_scenarios /tmp/parity-stock.txt in-tree stock
rmmod rdma_cm ib_cm iw_cm || fail "cannot unload the in-tree stack"
insmod "$ORCM_OURS_DIR/iw_cm/iw_cm.ko" && insmod "$ORCM_OURS_DIR/rdma_cm/rdma_cm.ko" &&
	insmod "$(modinfo -b "$ORCM_MODROOT" -k "$ORCM_KREL" -n rdma_ucm)" ||
	fail "cannot reload our stack"
[ "$(cat /sys/module/rdma_cm/srcversion)" = "$(modinfo -F srcversion "$ORCM_OURS_DIR/rdma_cm/rdma_cm.ko")" ] ||
	fail "rdma_cm is not ours after the swap"

# Compare scenario by scenario.
split_sc() { awk -v d="$2" '/^scenario / { f = d "/" $2 } f { print > f }' "$1"; }
rm -rf /tmp/par-o /tmp/par-s
mkdir -p /tmp/par-o /tmp/par-s
split_sc /tmp/parity-ours.txt /tmp/par-o
split_sc /tmp/parity-stock.txt /tmp/par-s
n=0 bad=0 dev=0
for f in /tmp/par-s/*; do
	sc=$(basename "$f")
	n=$((n + 1))
	if diff -u "$f" "/tmp/par-o/$sc" >/tmp/par.diff 2>&1; then
		continue
	fi
	if grep -q "^$sc |" "$DEV"; then
		dev=$((dev + 1))
		say "deviation (documented) in $sc:"
	else
		bad=$((bad + 1))
		say "DIFFERENCE in $sc (- in-tree, + ours):"
	fi
	sed 's/^/    /' /tmp/par.diff
done
[ "$n" -gt 0 ] || fail "no scenario ran"
[ "$bad" -eq 0 ] || fail "$bad of $n scenarios differ from the in-tree CM"
say "ok: $n scenarios, identical to the in-tree CM but $dev documented deviation(s)"
