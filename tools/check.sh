#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The whole test suite (`make check`):
#   1. install what is missing (Debian packages), build the UML kernel (cached);
#   2. mpa-peer: the GoogleTest of the adversarial MPA peer (tools/mpa-peer),
#      on the host;
#   3. crc-check: our modules built against Debian's 6.12 headers (as DKMS
#      does), symbol CRCs and export lists compared with the in-tree modules;
#   3b. newcomer (tools/newcomer-check.sh): the set-up paths in a clean
#      environment where every package looks missing (a fake apt-get that
#      prints on stdout): what each returns on stdout is a clean path;
#   3c. debian-vm (tools/debian-vm/run.sh): Debian's real 6.12 kernel under
#      qemu with our modules installed by DKMS from a git archive; the stack,
#      every Debian importer, rping over softrnic and rxe, NVMe-oF, unload.
#      ORCM_CHECK_DEBIAN_VM=0 skips it;
#   4. the VM with our stack: our modules built for UML, KUnit modules, the
#      tests/e2e scripts, splat/kmemleak/hang checks;
#   5. the same e2e scripts with the stock stack, as a baseline (a failure
#      there is a bug of the tests or of the VM, not of our code), in a second
#      VM at the same time as 4 (ORCM_CHECK_PARALLEL=0: after it). Set
#      ORCM_CHECK_STOCK=0 to skip it.
#   5b. siw0: the softrnic <-> siw e2e tests again, our stack, against the
#      unpatched siw a distribution ships (tools/build-siw-pristine.sh, run.sh
#      --siw pristine), after 4 and 5. ORCM_CHECK_SIW0=0 skips it.
#   6. interop: two VMs joined by a link, the stock stack in one and ours in
#      the other (tools/vm/interop.sh, tests/interop): RoCE over rxe both
#      ways. ORCM_CHECK_INTEROP=0 skips it.
# Every step prints its tests and "N passed, N failed" (a VM step also "N
# skipped" just before it); the last line of this script sums them, the line
# before it sums the skips, and the recap names every failure and skip. A skip
# is neither a pass nor a failure. Exit status 1 when anything failed.
set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/lib.sh"

mkdir -p "$ORCM_REPO/build/logs"
START=$(date +%s)
total_pass=0 total_fail=0 total_skip=0
recap=()
# No summary of an earlier run may stand for this one (.ci/run repeats it).
rm -f "$ORCM_REPO/build/logs/check.summary"

# account NAME OUT RC T0: add the summary of a finished step (its output in
# OUT, exit status RC, started at T0) to the total.
account() {
	local name=$1 out=$2 rc=$3 t0=$4 p f s
	s=$(sed -n 's/^\([0-9][0-9]*\) skipped$/\1/p' "$out" | tail -n 1)
	total_skip=$((total_skip + ${s:-0}))
	if read -r p f < <(parse_summary "$out") && [ -n "$p" ]; then
		total_pass=$((total_pass + p))
		total_fail=$((total_fail + f))
		if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
			total_fail=$((total_fail + 1))
			recap+=("FAIL $name: exit status $rc although no test failed")
		fi
	else
		total_fail=$((total_fail + 1))
		recap+=("FAIL $name: ended (exit status $rc) without a summary")
	fi
	while IFS= read -r l; do recap+=("$l ($name)"); done < <(grep -E '^(FAIL|SKIP) ' "$out" || true)
	echo "==== $name: $(tail -n 1 "$out")${s:+, $s skipped} in $(($(date +%s) - t0)) s"
}

# step NAME CMD...: run one step, keep its output, add its summary to the total.
step() {
	local name=$1 out=$ORCM_REPO/build/logs/check-$1.out t0 rc=0
	shift
	t0=$(date +%s)
	echo "==== $name: $*"
	"$@" 2>&1 | tee "$out" || rc=$?
	account "$name" "$out" "$rc" "$t0"
}

# vm_steps STACK...: one VM per stack, all at once (each UML VM is one host
# process, mostly on one core; the machine has two), each into its own output,
# shown one after the other when all are done. Our modules and the test
# programs are built first, so the VMs do not race for the build directory.
# ORCM_CHECK_PARALLEL=0 runs them one after the other instead.
vm_steps() {
	local s t0 pids=() outs=() rcs=() i
	if [ "${ORCM_CHECK_PARALLEL:-1}" != 1 ] || [ $# -lt 2 ]; then
		for s in "$@"; do step "vm-$s" "$ORCM_REPO/tools/vm/run.sh" --stack "$s"; done
		return
	fi
	# A failure here is each run.sh's to report (it builds again, and says why).
	"$ORCM_REPO/tools/build-modules.sh" uml >/dev/null || true
	make -s -C "$ORCM_REPO" progs || true
	t0=$(date +%s)
	for s in "$@"; do
		echo "==== vm-$s: $ORCM_REPO/tools/vm/run.sh --stack $s (the VMs run at once)"
		outs+=("$ORCM_REPO/build/logs/check-vm-$s.out")
		"$ORCM_REPO/tools/vm/run.sh" --stack "$s" >"${outs[-1]}" 2>&1 &
		pids+=($!)
	done
	for i in "${!pids[@]}"; do
		rcs[i]=0
		wait "${pids[i]}" || rcs[i]=$?
	done
	i=0
	for s in "$@"; do
		cat "${outs[i]}"
		account "vm-$s" "${outs[i]}" "${rcs[i]}" "$t0"
		i=$((i + 1))
	done
}

ensure_pkgs "${ORCM_PKGS[@]}"

# The UML kernel first: every VM step needs it (a failure here fails them all).
t0=$(date +%s)
echo "==== uml-kernel: tools/uml/build.sh"
uml_ok=1
"$ORCM_REPO/tools/uml/build.sh" || uml_ok=0
echo "==== uml-kernel: $([ $uml_ok = 1 ] && echo ready || echo FAILED) after $(($(date +%s) - t0)) s"

step mpa-peer make -s -C "$ORCM_REPO" mpa-peer-check
step bench-tools python3 "$ORCM_REPO/tools/bench/run_tests.py"
step crc-check "$ORCM_REPO/tools/crc-check.sh"
# After crc-check (our Debian build is warm) and before the VMs (which need
# the UML build of our modules that it makes anyway).
step newcomer "$ORCM_REPO/tools/newcomer-check.sh"
if [ "${ORCM_CHECK_DEBIAN_VM:-1}" = 1 ]; then step debian-vm "$ORCM_REPO/tools/debian-vm/run.sh"; fi
vms=(ours)
[ "${ORCM_CHECK_STOCK:-1}" = 1 ] && vms+=(stock)
if [ $uml_ok = 1 ]; then
	vm_steps "${vms[@]}"
else
	for s in "${vms[@]}"; do
		total_fail=$((total_fail + 1))
		recap+=("FAIL vm-$s: not run, the UML kernel did not build")
	done
fi

# The tests where stock siw meets softrnic or our host CM (5b), those seen
# passing against the unpatched siw (2026-11-26). Not yet: softrnic-perftest
# (failed there once: both transfers completed, then perftest's closing
# exchange hung until the 60 s deadline; cause not found yet, the machine
# was heavily loaded), softrnic-ucmatose, softrnic-dp, softrnic-tshark (not
# run yet).
SIW0_TESTS='iwhost-siw zz-iwhost-siw-p2p softrnic-siw-rping softrnic-offload listen-netns-ifindex'
if [ "${ORCM_CHECK_SIW0:-1}" = 1 ]; then
	if [ $uml_ok = 1 ]; then
		step vm-ours-siw0 "$ORCM_REPO/tools/vm/run.sh" --stack ours --siw pristine \
			--no-kunit --e2e "$SIW0_TESTS"
	else
		total_fail=$((total_fail + 1))
		recap+=("FAIL vm-ours-siw0: not run, the UML kernel did not build")
	fi
fi

if [ "${ORCM_CHECK_INTEROP:-1}" = 1 ]; then
	if [ $uml_ok = 1 ]; then
		step interop "$ORCM_REPO/tools/vm/interop.sh" --quiet
	else
		total_fail=$((total_fail + 1))
		recap+=("FAIL interop: not run, the UML kernel did not build")
	fi
fi

echo "==== summary ($(($(date +%s) - START)) s; logs in $ORCM_REPO/build/logs/)"
for l in "${recap[@]}"; do echo "$l"; done
echo "$total_skip skipped"
echo "$total_pass passed, $total_fail failed" | tee "$ORCM_REPO/build/logs/check.summary"
[ "$total_fail" -eq 0 ]
