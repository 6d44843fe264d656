#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# `make bench`: connection-setup benchmark, ours against the stock in-tree
# rdma_cm/iw_cm/ib_cm, in one boot of the UML test VM (not part of `make check`).
#
#   tools/bench.sh [--quick] [--report-only]
#
#   --quick         small sizes (1 round, 300 connections at most): a smoke test
#   --report-only   rebuild the report from build/bench/raw.txt, no VM
#
# Output, in build/bench/:
#   table.txt       the table (also printed)
#   results.json    every measurement and the summary (schema: README-section)
#   results.csv     the summary, one metric per row
#   plot.png        connections per second against concurrency, both stacks
#   scaling.png     the CM's time per connection against live ids and listeners
#   raw.txt         the VM's @@BENCH records;  console.log  the VM console
#
# Sizes (environment; defaults in brackets, ~10 min in all on 2 cores):
#   ORCM_BENCH_ROUNDS [3]  ORCM_BENCH_SERIAL [200]  ORCM_BENCH_SWEEP ["1 4 16 64 256"]
#   ORCM_BENCH_SWEEP_COUNT [300]  ORCM_BENCH_THREADS [4]  ORCM_BENCH_CONC [64]
#   ORCM_BENCH_COUNTS ["1000 10000"]  ORCM_BENCH_IDS [1000]  ORCM_BENCH_LISTENERS [50]
#   ORCM_BENCH_CMTIME_CONNS [50]  ORCM_BENCH_CMTIME_RUNS [2]  ORCM_BENCH_RXE [1]
#   ORCM_BENCH_MEM_ROUNDS [2]  (rounds that also run the memory workloads and
#                               the throughput runs after the first count; 2,
#                               so that each stack runs first in one of them:
#                               stock first in odd rounds, ours in even ones)
#   ORCM_BENCH_MEM [3G]  (guest memory: 10,000 siw connections need ~1.2 GiB here)
#   The host's vm.max_map_count (65530 by default) caps the held siw
#   connections at about 6,000: UML maps each vmalloc page separately. To run
#   the full 10,000: sysctl -w vm.max_map_count=262144 (on the host).
#   ORCM_BENCH_TIMEOUT [2100]  (seconds for the whole VM run)
#   The CM alone, over tests/bench/null_rnic.ko (an iWARP RNIC that connects
#   at once): ORCM_BENCH_NULL [1]  ORCM_BENCH_NULL_COUNT [2000]
#   ORCM_BENCH_NULL_SWEEP ["1 16 64 256"]  ORCM_BENCH_NULL_CONC [16]
#   ORCM_BENCH_NULL_IDS ["0 1000 10000"]  ORCM_BENCH_NULL_LISTENERS ["1 100 1000"]
#   ORCM_BENCH_NULL_MTU ["10 10000"]  ORCM_BENCH_MTU_ROUNDS [400]  (the cost of an MTU
#                       change on a netdev no id is on, with that many live
#                       null connections held; tests/bench/mtu_bench.ko; 0: skip)
#   ORCM_BENCH_SIW [1]  (0: the null runs alone, a few minutes)
#   ORCM_BENCH_SOFTRNIC [1]  (our host-stack iWARP RNIC, drivers/softrnic, in
#                             the ours slots with the siw workloads: serial and
#                             sweep on a second veth pair, with its TCP floor)
#   ORCM_BENCH_PERF [auto]  (1: run the null workloads a second time, not
#                         accounted, and ORCM_BENCH_PROF_SERIAL [1000] serial
#                         softrnic and TCP floor connections, while the
#                         host's perf samples the UML process; profile.txt,
#                         appended to table.txt: the CM's CPU per connection
#                         and where it goes, by module and function
#                         (tools/bench/profile.py). auto: 1 where perf can
#                         sample a process here)
#   ORCM_BENCH_SOFTIB [1]  (native InfiniBand over drivers/softib, both stacks:
#                           cm_bench over IPoIB addresses, serial and the
#                           sweep, and the SA PathRecord queries of
#                           ORCM_BENCH_SOFTIB_SA [200] connects with a cold
#                           path cache; in the stock slots dp_bench over
#                           softib against rxe, both through the stock CM)
#   ORCM_BENCH_KERNEL [release]  (release: a UML kernel without KASAN, lockdep,
#                                kmemleak and list/object debugging, built and
#                                cached next to the test kernel; debug: the
#                                test kernel of make check)
set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/lib.sh"

quick=0 report_only=0
while [ $# -gt 0 ]; do
	case "$1" in
	--quick) quick=1 ;;
	--report-only) report_only=1 ;;
	*) die "unknown option $1 (see the head of $0)" ;;
	esac
	shift
done

OUT=$ORCM_REPO/build/bench
mkdir -p "$OUT"
ensure_pkgs gnuplot-nox python3 opensm

report() {
	python3 "$ORCM_REPO/tools/bench/report.py" --raw "$OUT/raw.txt" --out "$OUT" \
		--gnuplot "$ORCM_REPO/tools/bench/plot.gp" ${KCONFIG:+--kconfig "$KCONFIG"}
}

if [ "$report_only" = 1 ]; then
	[ -f "$OUT/raw.txt" ] || die "no $OUT/raw.txt: run $0 first"
	KCONFIG=$(ls "$OUT/kernel.config" 2>/dev/null || true)
	report
	exit 0
fi

if [ "$quick" = 1 ]; then
	: "${ORCM_BENCH_ROUNDS:=1}" "${ORCM_BENCH_SERIAL:=50}" "${ORCM_BENCH_SWEEP:=1 16}"
	: "${ORCM_BENCH_SWEEP_COUNT:=100}" "${ORCM_BENCH_COUNTS:=300}" "${ORCM_BENCH_IDS:=200}"
	: "${ORCM_BENCH_LISTENERS:=10}" "${ORCM_BENCH_CMTIME_RUNS:=1}" "${ORCM_BENCH_MEM:=1G}"
	: "${ORCM_BENCH_NULL_COUNT:=300}" "${ORCM_BENCH_NULL_SWEEP:=1 64}"
	: "${ORCM_BENCH_NULL_IDS:=0 1000}" "${ORCM_BENCH_NULL_LISTENERS:=1 100}"
	: "${ORCM_BENCH_DP_BIG:=2000}" "${ORCM_BENCH_DP_SMALL:=51200}"
	: "${ORCM_BENCH_STORM:=300}"
fi
MEM=${ORCM_BENCH_MEM:-3G}
VM_TIMEOUT=${ORCM_BENCH_TIMEOUT:-2100}
# The host's sampler: perf (Debian: linux-perf), allowed to sample our own
# processes. It sees the host kernel's share of UML's time (its system
# calls) only where kernel.perf_event_paranoid <= 1 (see the README).
if [ "${ORCM_BENCH_PERF:=auto}" = auto ]; then
	ORCM_BENCH_PERF=0
	# A subshell: a machine without the package only loses the profile.
	command -v perf >/dev/null || (ensure_pkgs linux-perf) || true
	if command -v perf >/dev/null &&
		perf record -q -e cpu-clock:u -o /dev/null -- true >/dev/null 2>&1; then
		ORCM_BENCH_PERF=1
	else
		log "perf (linux-perf) cannot sample here: no profile"
	fi
fi

# 1. The UML kernel (cached), our modules and the bench driver, built in
#    private copies so that a concurrent `make check` keeps its own objects.
#    The benchmark's kernel has no debugging (KASAN, lockdep and kmemleak
#    make memory and locking cost many times what they cost in production,
#    and not alike for every code path): the test fragment without its
#    debugging sections, a build of its own next to the test kernel's
#    (ORCM_BENCH_KERNEL=debug: the test kernel itself).
case "${ORCM_BENCH_KERNEL:-release}" in
release)
	orcm_bench_fragment >/dev/null
	export ORCM_UML_FLAVOUR=bench
	;;
debug) ;;
*) die "ORCM_BENCH_KERNEL=$ORCM_BENCH_KERNEL: release or debug" ;;
esac
O=$("$ORCM_REPO/tools/uml/build.sh") || die "the UML kernel did not build"
KREL=$(orcm_uml_krel "$O")
cp "$O/.config" "$OUT/kernel.config"
KCONFIG=$OUT/kernel.config
# ORCM_LOG_TAG: a private build and run directory (several benches at once).
BTAG=bench${ORCM_LOG_TAG:+-$ORCM_LOG_TAG}
BDIR=$ORCM_CACHE/$BTAG
OURS=$BDIR/ours
copy_tree "$OURS"
log "building our modules for UML in $OURS"
make -C "$OURS" KDIR="$O" ARCH=um -j"$ORCM_JOBS" modules >"$OURS.log" 2>&1 ||
	{ tail -n 30 "$OURS.log" >&2; die "our modules do not build (log: $OURS.log)"; }
MOD=$BDIR/mod
rm -rf "$MOD"
mkdir -p "$MOD"
cp "$ORCM_REPO"/tests/bench/Kbuild "$ORCM_REPO"/tests/bench/*.[ch] \
	"$ORCM_REPO/tests/kunit/mock_rnic_ops.h" "$MOD/"
log "building the bench driver in $MOD"
make -C "$O" M="$MOD" ARCH=um -j"$ORCM_JOBS" modules >"$MOD.log" 2>&1 ||
	{ tail -n 30 "$MOD.log" >&2; die "cm_bench.ko does not build (log: $MOD.log)"; }

# 2. Settings for the VM, in a file its init reads through hostfs.
RUN_DIR=$ORCM_CACHE/runs/$BTAG
rm -rf "$RUN_DIR"
mkdir -p "$RUN_DIR/uml" "$RUN_DIR/prof"
{
	echo "ORCM_REPO=$ORCM_REPO"
	echo "ORCM_MODROOT=$O/modroot"
	echo "ORCM_KREL=$KREL"
	echo "ORCM_OURS_DIR=$OURS"
	echo "ORCM_BENCH_DIR=$BDIR"
	echo "ORCM_BENCH_KO=$MOD/cm_bench.ko"
	echo "ORCM_BENCH_NULL_KO=$MOD/null_rnic.ko"
	echo "ORCM_BENCH_DP_KO=$MOD/dp_bench.ko"
	echo "ORCM_BENCH_ACCT_KO=$MOD/cm_acct.ko"
	echo "ORCM_BENCH_FLOOR_KO=$MOD/cm_floor.ko"
	echo "ORCM_BENCH_MTU_KO=$MOD/mtu_bench.ko"
	echo "ORCM_BENCH_GUEST_TIMEOUT=$((VM_TIMEOUT - 30))"
	[ "$ORCM_BENCH_PERF" != 1 ] || echo "ORCM_BENCH_PROF_DIR=$RUN_DIR/prof"
	# UML maps every vmalloc page with its own host mmap: this caps the
	# number of siw connections the guest can hold (see guest.sh).
	echo "ORCM_BENCH_HOST_MAX_MAP=$(cat /proc/sys/vm/max_map_count)"
	for v in ROUNDS SERIAL SWEEP SWEEP_COUNT THREADS CONC COUNTS IDS LISTENERS \
		CMTIME_CONNS CMTIME_RUNS RXE MEM_ROUNDS STEP_TIMEOUT SIW SOFTRNIC NULL NULL_COUNT \
		NULL_SWEEP NULL_CONC NULL_IDS NULL_LISTENERS NULL_MTU MTU_ROUNDS ACCT_LOCKS DP DP_BIG DP_SMALL \
		PROF_SERIAL SOFTIB SOFTIB_SA STORM DEAD REQ_WINDOW; do
		eval "val=\${ORCM_BENCH_$v:-}"
		# shellcheck disable=SC2154 # set by the eval
		[ -z "$val" ] || printf "ORCM_BENCH_%s='%s'\n" "$v" "$val"
	done
} >"$RUN_DIR/env"

# 3. Boot. The console is UML's stdout; stdin is /dev/null (no terminal in CI).
#    panic_on_warn=0: a splat is recorded and reported, the run goes on.
LOG=$OUT/console.log
log "booting UML (mem=$MEM, timeout ${VM_TIMEOUT}s; console: $LOG)"
ulimit -c 0
start=$(date +%s)
setsid "$O/linux" mem="$MEM" root=/dev/root rootfstype=hostfs rootflags=/ ro \
	init="$ORCM_REPO/tools/bench/guest-init.sh" con=null con0=fd:0,fd:1 \
	panic_on_warn=0 uml_dir="$RUN_DIR/uml" umid="$BTAG" \
	ORCM_ENV="$RUN_DIR/env" </dev/null >"$LOG" 2>&1 &
uml=$!
# The UML kernel runs in this one host process (its guest's processes in
# others): the host's perf samples the guest kernel as user code. It records
# only while the guest asks (a whole run would be gigabytes): the guest
# creates prof/req.SEQ.enable or .disable through hostfs, prof_relay passes
# it to perf's control FIFO and renames the request.
perf_pid=
prof_relay() {
	local f
	while kill -0 "$uml" 2>/dev/null && kill -0 "$perf_pid" 2>/dev/null; do
		for f in "$RUN_DIR"/prof/req.*.enable "$RUN_DIR"/prof/req.*.disable; do
			[ -e "$f" ] || continue
			echo "${f##*.}" >&8
			read -r -t 5 -u 9 _ || true
			mv "$f" "$f.done"
		done
		sleep 0.05
	done
}
if [ "$ORCM_BENCH_PERF" = 1 ]; then
	# The host kernel's share (UML's host system calls: timers, signal
	# masks, page maps) is only sampled where perf_event_paranoid <= 1.
	ev=cpu-clock
	[ "$(cat /proc/sys/kernel/perf_event_paranoid)" -le 1 ] || ev=cpu-clock:u
	rm -f "$RUN_DIR/perf.ctl" "$RUN_DIR/perf.ack"
	mkfifo "$RUN_DIR/perf.ctl" "$RUN_DIR/perf.ack"
	# Held open both ways here, so that neither side's open blocks.
	exec 8<>"$RUN_DIR/perf.ctl" 9<>"$RUN_DIR/perf.ack"
	perf record -q -e $ev -F 10000 -g -k CLOCK_REALTIME -D -1 --no-buildid \
		--control "fifo:$RUN_DIR/perf.ctl,$RUN_DIR/perf.ack" -p "$uml" \
		-o "$OUT/perf.data" >"$OUT/perf.log" 2>&1 &
	perf_pid=$!
	prof_relay &
fi
# Progress: the guest's "##" lines and the slot markers.
tail -n +1 --pid="$uml" -f "$LOG" | tr -d '\r' |
	grep --line-buffered -E '^## |@@BENCH (slot-|limit|splat|error|kmemleak count|end)' &
tailer=$!
timed_out=0
while kill -0 "$uml" 2>/dev/null; do
	if [ $(($(date +%s) - start)) -ge "$VM_TIMEOUT" ]; then
		log "the VM is still running after ${VM_TIMEOUT}s: killing it"
		timed_out=1
		kill -KILL -- "-$uml" 2>/dev/null || true
		break
	fi
	sleep 1
done
wait "$uml" 2>/dev/null || true
kill -KILL -- "-$uml" 2>/dev/null || true
if [ -n "$perf_pid" ]; then
	kill -INT "$perf_pid" 2>/dev/null || true
	wait "$perf_pid" 2>/dev/null || true
fi
wait "$tailer" 2>/dev/null || true
log "VM ran $(($(date +%s) - start)) s (timed out: $timed_out)"

# 4. The records, the splats with their context, the report.
tr -d '\r' <"$LOG" | sed -n 's/^@@BENCH //p' >"$OUT/raw.txt"
[ "$timed_out" = 0 ] || echo "error what=vm-timeout seconds=$VM_TIMEOUT" >>"$OUT/raw.txt"
tr -d '\r' <"$LOG" | awk '
	/WARNING:|BUG:|KASAN|Oops|general protection|circular locking|possible recursive|INFO: task|refcount_t:|corruption|UBSAN|Kernel panic|unreferenced object/ { n = 60 }
	n > 0 { print; n-- }' >"$OUT/splats.txt"
[ -s "$OUT/splats.txt" ] || rm -f "$OUT/splats.txt"
report
if [ -n "$perf_pid" ]; then
	if python3 "$ORCM_REPO/tools/bench/profile.py" --raw "$OUT/raw.txt" \
		--perf "$OUT/perf.data" --syms "$RUN_DIR/prof" --json "$OUT/profile.json" \
		>"$OUT/profile.txt"; then
		{ echo; cat "$OUT/profile.txt"; } | tee -a "$OUT/table.txt"
	else
		log "no profile (see $OUT/perf.log)"
	fi
fi
[ ! -f "$OUT/splats.txt" ] || log "kernel splats during the run: $OUT/splats.txt"
