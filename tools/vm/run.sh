#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Boot the UML test VM with one RDMA stack and run the tests in it.
#
#   tools/vm/run.sh [--stack ours|stock] [--demo] [--no-kunit] [--e2e 'glob ...']
#                   [--e2e-skip 'glob ...'] [--no-e2e] [--timeout SECONDS] [--quiet]
#
#   --stack stock   in-tree ib_core, ib_uverbs, iw_cm, ib_cm, rdma_cm, rdma_ucm,
#                   siw, rdma_rxe from the UML modroot
#   --stack ours    in-tree ib_core, ib_uverbs, siw, rdma_rxe; then our iw_cm.ko and
#                   rdma_cm.ko (built for UML); then the in-tree rdma_ucm.ko by path
#                   (default)
#   --demo          run tools/vm/demo-guest.sh instead of the tests
#   --e2e GLOBS     only the tests/e2e scripts whose names match (default: all)
#   --e2e-skip GLOBS  none of the scripts whose names match (after --e2e)
#   --kunit GLOBS   only the tests/kunit modules whose names match (default: all)
#   --e2e-dir DIR   take the scripts from DIR (relative to the repository;
#                   default tests/e2e), e.g. tests/interop
#   --siw pristine  load the unpatched siw.ko (tools/build-siw-pristine.sh:
#                   the distribution's siw, without tools/uml/patches/0002)
#                   in place of the UML kernel's own; logs vm-<stack>-siw0.*
#
# For two VMs joined by a link (tools/vm/interop.sh): ORCM_VM_ARGS adds UML
# arguments (a vecN device on an inherited fd), ORCM_ROLE is handed to the
# scripts, and ORCM_SHARED names a host directory the VM mounts read-write
# at /run/orcm/shared (where the two VMs meet); ORCM_LOG_TAG names the logs.
#
# Runs every tests/kunit/*_kunit.ko (ours only) and every tests/e2e/*.sh, scans
# for kernel splats and kmemleak reports, prints one line per test (PASS, FAIL
# or SKIP: a script that exits 77 after "## SKIP: why", see
# tools/vm/parse-log.awk), "N skipped" and, as the last line, "N passed, N
# failed". Exit status 1 when anything failed.
# The console log is kept in build/logs/vm-<stack>[-demo].log.
set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/../lib.sh"

stack=ours mode=test kunit=1 kunit_globs='*' e2e_globs='*' e2e_dir=tests/e2e vm_timeout='' quiet=0
e2e_skip=
siw=patched
while [ $# -gt 0 ]; do
	case "$1" in
	--stack) stack=$2; shift ;;
	--demo) mode=demo ;;
	--no-kunit) kunit=0 ;;
	--kunit) kunit_globs=$2; shift ;;
	--e2e) e2e_globs=$2; shift ;;
	--no-e2e) e2e_globs='' ;;
	--e2e-skip) e2e_skip=$2; shift ;;
	--e2e-dir) e2e_dir=$2; shift ;;
	--timeout) vm_timeout=$2; shift ;;
	--quiet) quiet=1 ;;
	--siw) siw=$2; shift ;;
	*) die "unknown option $1 (see the head of $0)" ;;
	esac
	shift
done
case "$stack" in stock | ours) ;; *) die "--stack must be ours or stock" ;; esac
case "$siw" in patched | pristine) ;; *) die "--siw must be patched or pristine" ;; esac
[ "$stack" = stock ] && kunit=0
E2E_TIMEOUT=${ORCM_E2E_TIMEOUT:-120}

# The tests the host expects: a test that never reports is a failure.
e2e_list=''
if [ "$mode" = test ] && [ -n "$e2e_globs" ]; then
	for f in "$ORCM_REPO/$e2e_dir"/*.sh; do
		[ -f "$f" ] || continue
		t=$(basename "$f" .sh)
		set -f # the globs match test names, not files here
		skip=0
		for g in $e2e_skip; do
			# shellcheck disable=SC2053 # glob match on purpose
			if [[ $t == $g ]]; then skip=1; break; fi
		done
		for g in $e2e_globs; do
			# shellcheck disable=SC2053 # glob match on purpose
			if [ $skip = 0 ] && [[ $t == $g ]]; then e2e_list="$e2e_list $t"; break; fi
		done
		set +f
	done
fi
kunit_list=''
if [ "$mode" = test ] && [ "$kunit" = 1 ]; then
	for f in "$ORCM_REPO"/tests/kunit/*_kunit.c; do
		[ -f "$f" ] || continue
		t=$(basename "$f" .c)
		set -f
		for g in $kunit_globs; do
			# shellcheck disable=SC2053 # glob match on purpose
			if [[ $t == $g ]]; then kunit_list="$kunit_list $t"; break; fi
		done
		set +f
	done
fi

mkdir -p "$ORCM_REPO/build/logs"
# ORCM_LOG_TAG: a suffix for the log names, for two VMs run from one checkout.
name=vm-$stack${ORCM_LOG_TAG:+-$ORCM_LOG_TAG}
[ "$siw" = pristine ] && name=$name-siw0
[ "$mode" = demo ] && name=$name-demo
LOG=$ORCM_REPO/build/logs/$name.log
RESULTS=$ORCM_REPO/build/logs/$name.results

# Report every expected test as failed, with one reason (the VM could not run).
fail_all() {
	local why=$1 t
	{
		if [ "$mode" = demo ]; then
			echo "FAIL demo:rping: $why"
			echo "0 skipped"
			echo "0 passed, 1 failed"
		else
			n=1
			echo "FAIL vm:load-$stack: $why"
			for t in $kunit_list; do echo "FAIL kunit:$t: $why"; n=$((n + 1)); done
			for t in $e2e_list; do echo "FAIL e2e:$t: $why"; n=$((n + 1)); done
			echo "0 skipped"
			echo "0 passed, $n failed"
		fi
	} | tee "$RESULTS"
	exit 1
}

# 1. The UML kernel (cached) and, for `ours`, our modules built against it.
O=$("$ORCM_REPO/tools/uml/build.sh") || fail_all "the UML kernel did not build"
KREL=$(orcm_uml_krel "$O")
# The host's XSAVE area must fit the kernel's FP buffer, or the VM panics at
# its first return to init ("ptrace set fp regs failed, errno = 14").
xs=$("$ORCM_REPO/tools/host-check.sh" --xsave "$O") ||
	fail_all "this host cannot run the UML kernel: ${xs:+${xs#FAIL host:xsave: }}${xs:-tools/host-check.sh --xsave failed (above)}"
log "${xs#PASS host:}"
# The e2e scripts' own programs (tests/progs), built on the host: the VM sees the
# tree read-only.
make -s -C "$ORCM_REPO" progs >&2 ||
	fail_all "tests/progs do not build (make progs; librdmacm-dev, libibverbs-dev?)"
# Our modules, for every stack: the stock run loads only the test drivers
# (tests/parity/cm_parity.ko), which use exported calls alone.
BUILT=$("$ORCM_REPO/tools/build-modules.sh" uml) ||
	fail_all "our modules do not build for UML (log: $(orcm_ours_dir uml).log)"
# ORCM_OURS_DIR is set for both stacks: the stock run's scripts may load one
# of ours by hand (tests/e2e/ibcm-stock-rdmacm.sh: our ib_cm under the stock
# rdma_cm); init.sh loads ours only for --stack ours.
OURS_DIR=$BUILT
SIW_KO=''
if [ "$siw" = pristine ]; then
	SIW_KO=$("$ORCM_REPO/tools/build-siw-pristine.sh") ||
		fail_all "the unpatched siw.ko does not build (tools/build-siw-pristine.sh)"
fi
if [ "$stack" = ours ]; then
	for t in $kunit_list; do
		[ -f "$OURS_DIR/tests/kunit/$t.ko" ] || log "warning: $t.ko was not built (CONFIG_KUNIT?)"
	done
fi

# 2. Settings for the VM's init, in a file it reads through hostfs.
RUN_DIR=$ORCM_CACHE/runs/$name-$$
mkdir -p "$RUN_DIR"
trap 'rm -rf "$RUN_DIR"' EXIT
cat >"$RUN_DIR/env" <<EOF
ORCM_STACK=$stack
ORCM_MODE=$mode
ORCM_REPO=$ORCM_REPO
ORCM_MODROOT=$O/modroot
ORCM_KREL=$KREL
ORCM_OURS_DIR=$OURS_DIR
ORCM_KUNIT=$kunit
ORCM_KUNIT_LIST='${kunit_list# }'
ORCM_E2E='${e2e_list# }'
ORCM_E2E_TIMEOUT=$E2E_TIMEOUT
ORCM_PARITY_KO=$BUILT/tests/parity/cm_parity.ko
ORCM_E2E_DIR=$e2e_dir
ORCM_ROLE=${ORCM_ROLE:-}
ORCM_SHARED=${ORCM_SHARED:-}
ORCM_SIW_KO=$SIW_KO
ORCM_KSMBD_TOOLS=$(orcm_ksmbd_tools || true)
EOF
# A test's own knobs (ORCM_UCMA_FUZZ_OPS, ORCM_UCMA_UNREPORTED, ORCM_SOAK_*) reach it.
for v in $(compgen -A variable ORCM_UCMA_ || true; compgen -A variable ORCM_SOAK_ || true); do
	printf "%s='%s'\n" "$v" "${!v}" >>"$RUN_DIR/env"
done

n_kunit=$(wc -w <<<"$kunit_list")
# Each e2e script gets ORCM_E2E_TIMEOUT seconds, or more when it says so in a
# line "# orcm-timeout: SECONDS" (read by tools/vm/init.sh the same way).
e2e_time=0
for t in $e2e_list; do
	s=$(sed -n 's/^# orcm-timeout: *\([0-9][0-9]*\).*/\1/p' "$ORCM_REPO/$e2e_dir/$t.sh" | head -n 1)
	[ -n "$s" ] && [ "$s" -gt "$E2E_TIMEOUT" ] || s=$E2E_TIMEOUT
	e2e_time=$((e2e_time + s + 15))
done
[ -n "$vm_timeout" ] || vm_timeout=$((180 + 90 * n_kunit + e2e_time))

# 3. Boot. The console is UML's stdin/stdout (con0=fd:0,fd:1); stdin is /dev/null
#    so nothing waits on a terminal (CI has none). UML runs in its own session so
#    that a hang can be ended by killing its process group.
# ORCM_PANIC_ON_WARN=0 lets a triage run go on after the first WARN (the splat
# still fails the run).
log "booting UML ($stack, $mode; timeout ${vm_timeout}s; log: $LOG)"
ulimit -c 0 # UML aborts on a panic: no core files
rm -rf "$RUN_DIR/uml"
mkdir -p "$RUN_DIR/uml"
start=$(date +%s)
: >"$LOG"
# shellcheck disable=SC2086 # ORCM_VM_ARGS: several arguments, or none
setsid "$O/linux" mem=1G root=/dev/root rootfstype=hostfs rootflags=/ ro \
	init="$ORCM_REPO/tools/vm/init.sh" con=null con0=fd:0,fd:1 \
	panic_on_warn="${ORCM_PANIC_ON_WARN:-1}" uml_dir="$RUN_DIR/uml" umid="$name" \
	${ORCM_VM_ARGS:-} ORCM_ENV="$RUN_DIR/env" </dev/null >"$LOG" 2>&1 &
uml=$!
if [ "$quiet" = 0 ]; then
	tail -n +1 --pid="$uml" -f "$LOG" | tr -d '\r' &
	tailer=$!
fi
timed_out=0
while kill -0 "$uml" 2>/dev/null; do
	if [ $(($(date +%s) - start)) -ge "$vm_timeout" ]; then
		log "the VM hangs: killing it after ${vm_timeout}s"
		timed_out=1
		kill -KILL -- "-$uml" 2>/dev/null || true
		break
	fi
	sleep 0.2
done
uml_rc=0
wait "$uml" 2>/dev/null || uml_rc=$?
kill -KILL -- "-$uml" 2>/dev/null || true # UML's helper processes, if any are left
[ "$quiet" = 1 ] || wait "$tailer" 2>/dev/null || true
log "VM ran $(($(date +%s) - start)) s (uml exit status $uml_rc, timed out: $timed_out)"

# 4. Judge the log.
echo "---- results ($stack, $mode; console log: $LOG) ----"
awk -v stack="$stack" -v mode="$mode" -v e2e="$e2e_list" -v kunit="$kunit_list" \
	-v uml_rc="$uml_rc" -v timed_out="$timed_out" \
	-f "$ORCM_REPO/tools/vm/parse-log.awk" "$LOG" | tee "$RESULTS"
read -r _ failed < <(parse_summary "$RESULTS")
[ "${failed:-1}" -eq 0 ]
