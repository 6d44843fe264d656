#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Stock rdma_ucm's use-after-free of an unreported connection's context
# (tests/progs/ucma_unreported.c; found by ucma-fuzz, docs/ucma-review.md):
# deterministic, any local user, whatever CM is below rdma_ucm. Not in make
# check: on a KASAN kernel with panic_on_warn the "destroy" and "migrate"
# modes end the VM, on our stack as on the in-tree one. The "safe" mode (the
# request reported first) must pass on both. Run by hand, one mode a boot:
#   ORCM_UCMA_UNREPORTED=destroy tools/vm/run.sh --stack ours --no-kunit \
#     --e2e-dir tests/fuzz --e2e ucma-unreported
# orcm-timeout: 60
# shellcheck source=tests/e2e/lib.bash
. "$(dirname "$0")/../e2e/lib.bash"
# shellcheck source=tests/e2e/rxe-lib.bash
. "$(dirname "$0")/../e2e/rxe-lib.bash"
PROG=$ORCM_REPO/build/progs/ucma_unreported
[ -x "$PROG" ] || fail "no $PROG (make progs)"
setup_rxe_pair
mode=${ORCM_UCMA_UNREPORTED:-safe}
say "mode $mode: listener on $RADDR_A, connecting from $RADDR_B, as uid 65534"
setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all --bounding-set=-all \
	"$PROG" -m "$mode" -a "$RADDR_A" -b "$RADDR_B" || fail "ucma_unreported -m $mode failed"
for ((i = 0; i < 100; i++)); do cm_ids_empty && break; sleep 0.1; done
cm_ids_empty || fail "CM ids left: $(cm_ids | head -n 5)"
say "ok: mode $mode, no id left"
