#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# `make soak`: the churn soak (tests/soak/churn.sh), not part of `make check`:
# one boot of the UML test VM per stack, ours then stock, each opening and
# closing ORCM_SOAK_CONNS connections in waves of ORCM_SOAK_WAVE under
# NVMe-oF I/O, with link flaps, MTU changes and RDMA devices deleted and
# added again in the middle (the script's head says what is checked).
#
#   tools/soak.sh [--stack ours|stock]   (default: both, ours first)
#
# Sizes (environment; defaults in brackets): ORCM_SOAK_CONNS [10000]
# ORCM_SOAK_WAVE [500]. Logs: build/logs/vm-<stack>-soak.log; the figures
# (the script's "soak-summary:" lines, both stacks) in build/soak/summary.txt
# and printed; docs/soak.md has those of a run with its date.
set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/lib.sh"
stacks='ours stock'
while [ $# -gt 0 ]; do
	case "$1" in
	--stack) stacks=$2; shift ;;
	*) die "unknown option $1 (see the head of $0)" ;;
	esac
	shift
done
export ORCM_SOAK_CONNS=${ORCM_SOAK_CONNS:-10000} ORCM_SOAK_WAVE=${ORCM_SOAK_WAVE:-500}
out=$ORCM_REPO/build/soak
mkdir -p "$out"
: >"$out/summary.txt"
rc=0
for s in $stacks; do
	log "soak on the $s stack: $ORCM_SOAK_CONNS connections in waves of $ORCM_SOAK_WAVE"
	ORCM_LOG_TAG=soak "$ORCM_REPO/tools/vm/run.sh" --stack "$s" --no-kunit \
		--e2e-dir tests/soak --e2e churn --quiet | tee "$out/$s.results" || rc=1
	{ sed -n 's/^## soak-summary: //p' "$ORCM_REPO/build/logs/vm-$s-soak.log" |
		tr -d '\r' >>"$out/summary.txt"; } 2>/dev/null || echo "stack=$s: no figures" >>"$out/summary.txt"
done
echo "==== soak figures (build/soak/summary.txt)"
cat "$out/summary.txt"
exit "$rc"
