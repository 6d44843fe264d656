#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The whole test suite (`make check`):
#   0. install what is missing (Debian packages); host-check
#      (tools/host-check.sh): the host's XSAVE area against the UML kernel's
#      FP buffer, ptrace, memory, room; a host the VMs cannot run on stops
#      the suite here; host-check-unit: its GoogleTest;
#   1. build the UML kernel (cached);
#   2. mpa-peer: the GoogleTest of the adversarial MPA peer (tools/mpa-peer),
#      on the host; bench-tools: the bench scripts' unit tests;
#      cmfuzz-selftest: the CM MAD fuzzer draws its seed's sequence whatever
#      the CM answers (tools/cmfuzz/test_cmfuzz.py);
#   3. crc-check, crc-check-6.1: our modules built against Debian's 6.12
#      headers, then Debian 12's default 6.1 (as DKMS does), symbol CRCs and
#      export lists compared with each kernel's in-tree modules, every
#      Debian importer of each kernel against our CRCs; layout-check,
#      layout-check-6.1: our struct rdma_id_private against the one each
#      Debian ib_core.ko was compiled with (its BTF);
#   4. two lanes at once (each UML VM is one host process, mostly on one
#      core; the machine has two; ORCM_CHECK_PARALLEL=0: one after the other):
#      a. vm-ours: the VM with our stack: our modules built for UML, KUnit
#         modules, the tests/e2e scripts but those of vm-ours-b,
#         splat/kmemleak/hang checks;
#      b. in order, in the time vm-ours takes longer than the stock VM:
#         - vm-stock: the same e2e scripts with the stock stack, as a
#           baseline (a failure there is a bug of the tests or of the VM,
#           not of our code). ORCM_CHECK_STOCK=0 skips it;
#         - vm-ours-b: our stack again, for the long tests the stock VM
#           skips (OURS_B_TESTS, below), taken off lane a;
#         - vm-ours-siw0: the softrnic <-> siw e2e tests again, our stack,
#           against the unpatched siw a distribution ships
#           (tools/build-siw-pristine.sh, run.sh --siw pristine).
#           ORCM_CHECK_SIW0=0 skips it;
#         - newcomer (tools/newcomer-check.sh): the set-up paths in a clean
#           environment where every package looks missing (a fake apt-get
#           that prints on stdout): what each returns on stdout is a clean
#           path, and `make demo` passes there;
#         - debian-vm, debian-vm-6.1 (tools/debian-vm/run.sh [--kernel
#           debian-6.1]): Debian's real 6.12, then 6.1 kernel under qemu
#           with our modules installed by DKMS from a git archive; the
#           stack, every Debian importer, rping over softrnic and rxe,
#           NVMe-oF, the parity scenarios against that kernel's own in-tree
#           CM (about 3.5 minutes each; ORCM_DVM_PARITY=0 leaves them
#           out), unload. ORCM_CHECK_DEBIAN_VM=0 skips both;
#      each lane step's output is shown when both lanes are done;
#   5. interop: two VMs joined by a link, the stock stack in one and ours in
#      the other (tools/vm/interop.sh, tests/interop): RoCE over rxe and
#      native IB over softib, both ways. ORCM_CHECK_INTEROP=0 skips it.
# Every step prints its tests and "N passed, N failed" (a VM step also "N
# skipped" just before it); the last line of this script sums them, the line
# before it sums the skips, and the recap names every failure (with the last
# lines of a failed e2e test) and, one line per step, every skip. A skip
# is neither a pass nor a failure. Exit status 1 when anything failed.
set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/lib.sh"

mkdir -p "$ORCM_REPO/build/logs"
START=$(date +%s)
total_pass=0 total_fail=0 total_skip=0
recap=() skip_recap=()
# No summary of an earlier run may stand for this one (.ci/run repeats it).
rm -f "$ORCM_REPO/build/logs/check.summary"

# account NAME OUT RC T0: add the summary of a finished step (its output in
# OUT, exit status RC, started at T0) to the total.
account() {
	local name=$1 out=$2 rc=$3 t0=$4 t1=${5:-$(date +%s)} p f s ctx=0
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
	# Failures with the lines a VM step shows under them ("    | "), then
	# the skips of the step on one line (their reasons are in its output).
	while IFS= read -r l; do
		case "$l" in
		FAIL\ *) recap+=("$l ($name)"); ctx=1 ;;
		"    | "*) if [ "$ctx" = 1 ]; then recap+=("$l"); fi ;;
		*) ctx=0 ;;
		esac
	done <"$out"
	local skips
	# A name ends at the first ": " (names hold ':' themselves: e2e:NAME).
	skips=$(awk '/^SKIP / { l = substr($0, 6); i = index(l, ": ")
		print (i ? substr(l, 1, i - 1) : l) }' "$out" | tr '\n' ' ')
	[ -z "$skips" ] || skip_recap+=("SKIP ($name, $(grep -c '^SKIP ' "$out")): ${skips% } (reasons above)")
	echo "==== $name: $(tail -n 1 "$out")${s:+, $s skipped} in $((t1 - t0)) s"
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

# run_step NAME CMD...: run one step quietly, for a lane (below): its output
# in check-NAME.out, its exit status and start and end times beside it.
run_step() {
	local name=$1 out=$ORCM_REPO/build/logs/check-$1.out rc=0
	shift
	echo "$*" >"$out.cmd"
	date +%s >"$out.t0"
	"$@" >"$out" 2>&1 </dev/null || rc=$?
	date +%s >"$out.t1"
	echo "$rc" >"$out.rc"
}

# show_step NAME: a step that run_step ran: its output, then its summary
# added to the total (a step that never ran fails).
show_step() {
	local name=$1 out=$ORCM_REPO/build/logs/check-$1.out
	echo "==== $name: $(cat "$out.cmd" 2>/dev/null)"
	if [ ! -f "$out.rc" ]; then
		total_fail=$((total_fail + 1))
		recap+=("FAIL $name: did not run to its end")
		return
	fi
	cat "$out"
	account "$name" "$out" "$(cat "$out.rc")" "$(cat "$out.t0")" "$(cat "$out.t1")"
}

# The tests where stock siw meets softrnic or our host CM (5b), those seen
# passing against the unpatched siw (2026-11-26). Not yet: softrnic-perftest
# (failed there once: both transfers completed, then perftest's closing
# exchange hung until the 60 s deadline; cause not found yet, the machine
# was heavily loaded), softrnic-ucmatose, softrnic-dp, softrnic-tshark (not
# run yet).
SIW0_TESTS='iwhost-siw zz-iwhost-siw-p2p softrnic-siw-rping softrnic-offload listen-netns-ifindex'

# Tests of our stack that take minutes, most of them skipped by the stock
# VM (softrnic's offloaded-CM model, its wire capture, NVMe-oF over a bond)
# or run there in its own boot anyway (softib-cm: each stack in its VM): a
# second VM with our stack runs them in lane b (vm-ours-b), so that lane a,
# the long pole, does not (about 12 minutes of lane a on a loaded machine,
# 2026-11-26: lane a's VM took 59 min in a local run, lane b 46 min).
OURS_B_TESTS='softrnic-offload-track softrnic-offload-wildcard softrnic-offload-path softrnic-tshark softib-cm ulp-nvme-bond ulp-nvme-softib ulp-srp-softib zz-ucma-fuzz'

# lane_a / lane_b: the VM steps in two lanes that run at once (each UML VM
# is one host process, mostly on one core; the machine has two). Lane a is
# the VM with our stack, the longest step, then Debian's real 6.1 (3c);
# lane b the stock VM (5), the second VM with our stack, the siw0 VM (5b),
# the newcomer's set-up paths (3b), then Debian's real 6.12 (3c). Each
# Debian step runs DKMS (one at a time: a lock) and the parity scenarios,
# 5-7 minutes. Measured in a local full run (2026-11-28): vm-ours 2,624 s;
# vm-stock 1,824 + vm-ours-b 728 + siw0 133 + newcomer 19 s; debian-vm
# 447 s, debian-vm-6.1 311 s: one Debian step per lane evens them.
lane_a() {
	run_step vm-ours "$ORCM_REPO/tools/vm/run.sh" --stack ours --e2e-skip "$OURS_B_TESTS"
	! orcm_flag ORCM_CHECK_DEBIAN_VM ||
		run_step debian-vm-6.1 "$ORCM_REPO/tools/debian-vm/run.sh" --kernel debian-6.1
}
lane_b() {
	! orcm_flag ORCM_CHECK_STOCK ||
		run_step vm-stock "$ORCM_REPO/tools/vm/run.sh" --stack stock
	ORCM_LOG_TAG=b run_step vm-ours-b "$ORCM_REPO/tools/vm/run.sh" --stack ours \
		--no-kunit --e2e "$OURS_B_TESTS"
	! orcm_flag ORCM_CHECK_SIW0 ||
		run_step vm-ours-siw0 "$ORCM_REPO/tools/vm/run.sh" --stack ours --siw pristine \
			--no-kunit --e2e "$SIW0_TESTS"
	run_step newcomer "$ORCM_REPO/tools/newcomer-check.sh"
	! orcm_flag ORCM_CHECK_DEBIAN_VM ||
		run_step debian-vm "$ORCM_REPO/tools/debian-vm/run.sh"
}

# finish: the recap and the last two lines; exit status 1 when anything failed.
finish() {
	echo "==== summary ($(($(date +%s) - START)) s; logs in $ORCM_REPO/build/logs/)"
	for l in "${skip_recap[@]}" "${recap[@]}"; do echo "$l"; done
	echo "$total_skip skipped"
	echo "$total_pass passed, $total_fail failed" | tee "$ORCM_REPO/build/logs/check.summary"
	[ "$total_fail" -eq 0 ]
	exit
}

# Every on/off switch is 0 or 1 (orcm_flag stops here otherwise); a step
# turned off is a skip in the summary, never a silent green.
for v in ORCM_CHECK_STOCK ORCM_CHECK_SIW0 ORCM_CHECK_DEBIAN_VM ORCM_CHECK_INTEROP \
	ORCM_CHECK_PARALLEL ORCM_NEWCOMER_DEMO; do
	if ! orcm_flag "$v"; then
		case $v in
		ORCM_CHECK_PARALLEL | ORCM_NEWCOMER_DEMO) ;;
		*)
			total_skip=$((total_skip + 1))
			skip_recap+=("SKIP (check): a whole step, turned off by $v=0")
			;;
		esac
	fi
done

ensure_pkgs "${ORCM_PKGS[@]}"

# 0. The host: what it is and whether the VMs can run on it (XSAVE size
#    against the UML kernel's FP buffer, ptrace, memory, room). A host they
#    cannot run on stops the suite here, in seconds, with the reason.
step host-check "$ORCM_REPO/tools/host-check.sh"
if [ "$total_fail" -ne 0 ]; then
	recap+=("FAIL host-check: this host cannot run the test VMs (above); nothing else ran")
	finish
fi
step host-check-unit make -s -C "$ORCM_REPO" host-check-test

# The UML kernel first: every VM step needs it (a failure here fails them all).
t0=$(date +%s)
echo "==== uml-kernel: tools/uml/build.sh"
uml_ok=1
"$ORCM_REPO/tools/uml/build.sh" || uml_ok=0
echo "==== uml-kernel: $([ $uml_ok = 1 ] && echo ready || echo FAILED) after $(($(date +%s) - t0)) s"

step mpa-peer make -s -C "$ORCM_REPO" mpa-peer-check
step bench-tools python3 "$ORCM_REPO/tools/bench/run_tests.py"
step cmfuzz-selftest python3 "$ORCM_REPO/tools/cmfuzz/test_cmfuzz.py"
step crc-check "$ORCM_REPO/tools/crc-check.sh"
step crc-check-6.1 "$ORCM_REPO/tools/crc-check.sh" debian-6.1
step layout-check "$ORCM_REPO/tools/layout-check.sh"
step layout-check-6.1 "$ORCM_REPO/tools/layout-check.sh" debian-6.1

# The steps of the two lanes. Our modules and the test programs first, so
# the VMs do not race for the build directory (a failure here is each
# run.sh's to report: it builds again, and says why).
lane_steps=(vm-ours)
! orcm_flag ORCM_CHECK_STOCK || lane_steps+=(vm-stock)
lane_steps+=(vm-ours-b)
! orcm_flag ORCM_CHECK_SIW0 || lane_steps+=(vm-ours-siw0)
lane_steps+=(newcomer)
! orcm_flag ORCM_CHECK_DEBIAN_VM || lane_steps+=(debian-vm debian-vm-6.1)
for n in "${lane_steps[@]}"; do rm -f "$ORCM_REPO/build/logs/check-$n.out".*; done
if [ $uml_ok = 1 ]; then
	"$ORCM_REPO/tools/build-modules.sh" uml >/dev/null || true
	make -s -C "$ORCM_REPO" progs || true
	echo "==== lanes: ${lane_steps[*]} (vm-ours at the same time as the others, in order)"
	if orcm_flag ORCM_CHECK_PARALLEL; then
		lane_b &
		lane_b_pid=$!
		lane_a
		wait "$lane_b_pid" || true
	else
		lane_a
		lane_b
	fi
	for n in "${lane_steps[@]}"; do show_step "$n"; done
else
	for n in vm-ours vm-stock vm-ours-b vm-ours-siw0; do
		[[ " ${lane_steps[*]} " == *" $n "* ]] || continue
		total_fail=$((total_fail + 1))
		recap+=("FAIL $n: not run, the UML kernel did not build")
	done
	step newcomer "$ORCM_REPO/tools/newcomer-check.sh"
	! orcm_flag ORCM_CHECK_DEBIAN_VM || step debian-vm "$ORCM_REPO/tools/debian-vm/run.sh"
	! orcm_flag ORCM_CHECK_DEBIAN_VM ||
		step debian-vm-6.1 "$ORCM_REPO/tools/debian-vm/run.sh" --kernel debian-6.1
fi

if orcm_flag ORCM_CHECK_INTEROP; then
	if [ $uml_ok = 1 ]; then
		step interop "$ORCM_REPO/tools/vm/interop.sh" --quiet
	else
		total_fail=$((total_fail + 1))
		recap+=("FAIL interop: not run, the UML kernel did not build")
	fi
fi

finish
