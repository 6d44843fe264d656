#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# orcm-timeout: 180
# The benchmark's CPU accounting under the debug kernel (make bench runs it
# on a kernel without lockdep, KASAN or kmemleak): tests/bench/cm_acct.ko
# accounts the floor of tests/bench/cm_floor.ko and a run of
# tests/bench/cm_bench.ko over tests/bench/null_rnic.ko, on both stacks.
#  1. The floor: its CM region, its 8 queued events per round and its QP
#     verbs are seen as such (exact counts); the probes' calibration is
#     reported; bad commands get EINVAL or ENODEV and nothing else.
#  2. A null run of 100 connections: every phase of a connection has CM
#     time, the CM's work items ran, and at most a few lost their phase.
# Initial namespace, veth end nQ with 198.18.10.1 and .2.
# shellcheck source=tests/e2e/lib.bash
. "$(dirname "$0")/lib.bash"

DST=198.18.10.2
CTL=/sys/kernel/debug/cm_bench/ctl
ACCT=/sys/kernel/debug/cm_acct
FLOOR=/sys/kernel/debug/cm_floor
BENCH_DIR=${ORCM_OURS_DIR:?}/tests/bench
N=200 C=100

acct_cleanup() {
	set +e
	[ -w "$ACCT" ] && echo stop >"$ACCT"
	[ -w "$CTL" ] && echo "unlisten tag=AL" >"$CTL" 2>/dev/null
	rmmod cm_floor 2>/dev/null
	rmmod cm_bench 2>/dev/null
	rmmod null_rnic 2>/dev/null
	rmmod cm_acct 2>/dev/null
	ip link delete nQ 2>/dev/null
	cleanup
}
trap acct_cleanup EXIT

kc() { timeout -k 2 "$STEP" sh -c "echo '$*' > $CTL"; }
# val KEY: the value of KEY in the last accounting record ($REC).
val() { tr ' ' '\n' <<<"$REC" | sed -n "s/^$1=//p"; }
# expect_val KEY OP NUMBER WHAT (OP: -eq, -ge, -gt or -le)
expect_val() {
	local v ok
	v=$(val "$1")
	[ -n "$v" ] || fail "no $1 in the record"
	case $2 in
	-eq) ((v == $3)) && ok=1 ;;
	-ge) ((v >= $3)) && ok=1 ;;
	-gt) ((v > $3)) && ok=1 ;;
	-le) ((v <= $3)) && ok=1 ;;
	*) fail "expect_val: bad operator $2" ;;
	esac
	[ -n "${ok:-}" ] || fail "$4: $1=$v, expected $2 $3"
}

ip link add nQ type veth peer name nQp
ip addr add 198.18.10.1/24 dev nQ
ip addr add $DST/24 dev nQ
ip link set nQ up
ip link set nQp up
[ -d /sys/module/cm_acct ] || insmod "$BENCH_DIR/cm_acct.ko"
insmod "$BENCH_DIR/null_rnic.ko" netdev=nQ
insmod "$BENCH_DIR/cm_bench.ko"
insmod "$BENCH_DIR/cm_floor.ko"

# ---- 1. the floor ----
for bad in "dev=nullrnic0 dst=$DST count=0" "dev=nullrnic0 count=1" "dst=$DST count=1" \
	"dev=nullrnic0 dst=nonsense count=1" "dev=nullrnic0 dst=$DST count=1 what=1" "junk"; do
	# shellcheck disable=SC2116 # echo's write error is what is captured
	if err=$(echo "$bad" 2>&1 >$FLOOR); then
		fail "cm_floor took '$bad'"
	fi
	grep -q "Invalid argument" <<<"$err" || fail "cm_floor '$bad': $err, not EINVAL"
done
# shellcheck disable=SC2116
err=$(echo "dev=nosuch0 dst=$DST count=1" 2>&1 >$FLOOR) && fail "cm_floor took an unknown device"
grep -q "No such device" <<<"$err" || fail "cm_floor, unknown device: $err"
say "cm_floor refuses bad commands"

echo start >$ACCT
echo "dev=nullrnic0 dst=$DST count=$N" >$FLOOR || fail "floor run"
echo stop >$ACCT
REC=$(cat $ACCT)
say "floor: $REC" | cut -c1-400
expect_val cm_ns -gt 0 "the floor's CM region"
expect_val driver_ns -gt 0 "null_rnic's QP verbs"
expect_val cm_other_queues -eq $((8 * N)) "events queued in the floor's CM region"
expect_val cm_other_segs -ge "$N" "stretches of the floor's CM region"
expect_val cm_other_allocs -ge $((4 * N)) "the floor's id allocations"
expect_val probe_seg_ns -gt 0 "the probes' calibration"
say "floor accounted: $(val cm_ns) ns CM, $(val driver_ns) ns driver for $N rounds"

# ---- 2. a null run ----
kc listen tag=AL addr=$DST port=7400 || fail "listen on $DST:7400"
echo start >$ACCT
kc connect tag=AC dst=$DST port=7400 count=$C window=4 timeout=60 ||
	fail "$C connections over null_rnic"
kc unlisten tag=AL || fail "unlisten"
echo stop >$ACCT
REC=$(cat $ACCT)
say "null run: $REC" | cut -c1-400
for ph in create_id addr route qp connect disconnect destroy request accept passive_down; do
	expect_val cm_${ph}_ns -gt 0 "phase $ph"
done
expect_val cm_works -ge $((6 * C)) "the CM's work items (six provider events a connection)"
expect_val consumer_ns -gt 0 "cm_bench's own time"
# "lost": what cm_acct could not track: mostly a work item queued from a
# CM region whose slot in its small hash another pending work held (the
# work's time is still the CM's, as "async"). The full suite saw 1; a few
# per hundred connections is noise, not an accounting error.
expect_val lost -le $((C / 20)) "work items whose phase cm_acct lost"
wait_for 10 "no CM id left" cm_ids_empty
say "null run accounted: $(val cm_ns) ns CM, $(val cm_works) CM work items for $C connections"
say "PASS"
