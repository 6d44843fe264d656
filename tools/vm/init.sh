#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# PID 1 of the UML test VM (started by tools/vm/run.sh; never run it on a host).
#
# The root filesystem is the host's / through hostfs, read-only, so the host's
# rdma-core tools run in here. Settings come from the file named by ORCM_ENV
# (a kernel command-line variable, which the kernel hands to init).
#
# Everything the host needs to judge the run is printed on the console as lines
# that start with "@@ORCM " (markers), "@@KTAP " (KUnit results from debugfs) or
# "@@KMEMLEAK " (the kmemleak report). tools/vm/run.sh parses them.
# PID 1 must never exit (that panics the kernel), so no `set -e` here.
set -u
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/tmp LANG=C LC_ALL=C

mark() { echo "@@ORCM $* (t=$(cut -d' ' -f1 /proc/uptime 2>/dev/null))"; }

poweroff_vm() {
	mark "DONE"
	sync
	echo o >/proc/sysrq-trigger
	sleep 10
	# If sysrq did not stop the machine, let the kernel panic: the host sees no
	# "UML-EXIT" and counts a failure.
	exit 1
}

# ---- filesystems -----------------------------------------------------------
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mountpoint -q /dev || mount -t devtmpfs devtmpfs /dev
mount -t debugfs debugfs /sys/kernel/debug
mount -t tmpfs -o mode=755 tmpfs /run
mkdir -p /run/netns /run/orcm
mark "BOOT $(uname -r)"

[ -r "${ORCM_ENV:-}" ] || { mark "ERROR no ORCM_ENV file: '${ORCM_ENV:-}'"; poweroff_vm; }
cp "$ORCM_ENV" /run/orcm/env
# shellcheck source=/dev/null
. /run/orcm/env
export ORCM_MODROOT ORCM_KREL ORCM_STACK ORCM_REPO ORCM_OURS_DIR ORCM_E2E_TIMEOUT ORCM_PARITY_KO ORCM_KSMBD_TOOLS
export ORCM_ROLE="${ORCM_ROLE:-}"
# A test's own knobs (tools/vm/run.sh passes ORCM_UCMA_* and ORCM_SOAK_*).
for v in $(compgen -A variable ORCM_UCMA_ || true; compgen -A variable ORCM_SOAK_ || true); do export "${v?}"; done
# Two VMs joined by a link (tools/vm/interop.sh) meet in a host directory.
if [ -n "${ORCM_SHARED:-}" ]; then
	mkdir -p /run/orcm/shared
	mount -t hostfs -o "$ORCM_SHARED" none /run/orcm/shared ||
		mark "ERROR cannot mount the shared directory $ORCM_SHARED"
fi

# Scratch space: a tmpfs on /tmp. The repository, the modules or the cache may
# live under the host's /tmp (XDG_CACHE_HOME=/tmp/..., a CI checkout): those
# top-level /tmp entries are bound back over the tmpfs, read-only as before.
mkdir -p /run/orcm/hosttmp
mount --bind /tmp /run/orcm/hosttmp
mount -t tmpfs tmpfs /tmp
for p in "$ORCM_REPO" "$ORCM_MODROOT" "${ORCM_OURS_DIR:-}"; do
	case "$p" in
	/tmp/?*)
		top=${p#/tmp/}
		top=/tmp/${top%%/*}
		mountpoint -q "$top" && continue
		mkdir -p "$top"
		mount --bind "/run/orcm/hosttmp/${top#/tmp/}" "$top"
		;;
	esac
done
mount -t tmpfs tmpfs /dev/shm 2>/dev/null
ip link set lo up
hostname orcm-vm 2>/dev/null

# Modules the kernel asks for by itself (request_module) come from the UML modroot.
chmod 755 "$ORCM_REPO/tools/vm/modprobe.sh" 2>/dev/null
echo "$ORCM_REPO/tools/vm/modprobe.sh" >/proc/sys/kernel/modprobe

MP=(modprobe -d "$ORCM_MODROOT" -S "$ORCM_KREL")
# shellcheck source=tools/vm/stack.bash
. "$ORCM_REPO/tools/vm/stack.bash"
intree() { modinfo -b "$ORCM_MODROOT" -k "$ORCM_KREL" -n "$1"; }

# ---- kmemleak: forget what boot leaked, so the final report is about us ------
KMEMLEAK=/sys/kernel/debug/kmemleak
if [ -w "$KMEMLEAK" ]; then
	# A failure shows at the end (kmemleak off: every write fails).
	echo scan >"$KMEMLEAK" 2>/dev/null
	echo clear >"$KMEMLEAK" 2>/dev/null
fi

# ---- load the stack ----------------------------------------------------------
OURS_MODS=()
# load_siw: the UML kernel's siw, or (ORCM_SIW_KO, run.sh --siw pristine) the
# unpatched one built by tools/build-siw-pristine.sh, whose dependencies
# come from the modroot.
load_siw() {
	local d
	if [ -z "${ORCM_SIW_KO:-}" ]; then
		"${MP[@]}" siw || { mark "LOAD-ERROR modprobe siw failed"; return 1; }
		return 0
	fi
	for d in $(modinfo -F depends "$ORCM_SIW_KO" | tr ',' ' '); do
		"${MP[@]}" "$d" || { mark "LOAD-ERROR modprobe $d (for siw) failed"; return 1; }
	done
	insmod "$ORCM_SIW_KO" || { mark "LOAD-ERROR insmod $ORCM_SIW_KO failed"; return 1; }
	# Built out of tree, it taints the kernel with O; the modroot's does not.
	grep -q O /sys/module/siw/taint ||
		{ mark "LOAD-ERROR loaded siw is not $ORCM_SIW_KO"; return 1; }
	mark "LOAD-INFO unpatched siw $ORCM_SIW_KO taint=$(cat /sys/module/siw/taint)"
}

load_stock() {
	local m
	for m in ib_core ib_uverbs iw_cm ib_cm rdma_cm rdma_ucm siw rdma_rxe veth; do
		if [ "$m" = siw ]; then
			load_siw || return 1
			continue
		fi
		"${MP[@]}" "$m" || { mark "LOAD-ERROR modprobe $m failed"; return 1; }
	done
	check_stack stock
}

# check_stack WHO: every CM module (rdma_cm, iw_cm, ib_cm) is WHO's; a
# LOAD-ERROR for each one that is not.
check_stack() {
	local l rc=0 out
	out=$(stack_check rdma_cm="$1" iw_cm="$1" ib_cm="$1") || rc=1
	while IFS= read -r l; do
		case "$l" in
		MISMATCH\ *) mark "LOAD-ERROR ${l#MISMATCH }" ;;
		*) mark "LOAD-INFO $l" ;;
		esac
	done <<<"$out"
	return $rc
}

load_ours() {
	local m f d
	for m in ib_core ib_uverbs siw rdma_rxe veth; do
		if [ "$m" = siw ]; then
			load_siw || return 1
			continue
		fi
		"${MP[@]}" "$m" || { mark "LOAD-ERROR modprobe $m failed"; return 1; }
	done
	# Ours, in dependency order; any dependency we do not provide is in-tree.
	for m in iw_cm ib_cm rdma_cm; do
		f=$ORCM_OURS_DIR/$m/$m.ko
		if [ ! -f "$f" ]; then
			mark "LOAD-ERROR our $m.ko is missing ($f)"
			return 1
		fi
		for d in $(modinfo -F depends "$f" | tr ',' ' '); do
			[ -d "/sys/module/$d" ] && continue
			case "$d" in
			iw_cm | ib_cm | rdma_cm) [ -f "$ORCM_OURS_DIR/$d/$d.ko" ] && continue ;;
			esac
			mark "LOAD-INFO $m needs in-tree $d"
			"${MP[@]}" "$d" || { mark "LOAD-ERROR modprobe $d (for $m) failed"; return 1; }
		done
		insmod "$f" || { mark "LOAD-ERROR insmod $f failed"; return 1; }
		OURS_MODS+=("$m")
		mark "LOAD-INFO ours $m srcversion=$(cat "/sys/module/$m/srcversion" 2>/dev/null)" \
			"version=$(cat "/sys/module/$m/version" 2>/dev/null)"
	done
	# Our RNIC driver, on our iw_cm (never with the stock stack).
	f=$ORCM_OURS_DIR/drivers/softrnic/softrnic.ko
	if [ -f "$f" ]; then
		insmod "$f" || { mark "LOAD-ERROR insmod $f failed"; return 1; }
		mark "LOAD-INFO ours softrnic srcversion=$(cat /sys/module/softrnic/srcversion 2>/dev/null)"
	fi
	# The stock rdma_ucm, by path, so that it binds to our rdma_cm. With
	# MODVERSIONS this load checks every CRC it imports from us.
	f=$(intree rdma_ucm) || { mark "LOAD-ERROR no in-tree rdma_ucm"; return 1; }
	insmod "$f" || { mark "LOAD-ERROR insmod stock $f failed (symbol CRCs?)"; return 1; }
	check_stack ours
}

unload_stack() {
	local m rc=0
	for m in rdma_ucm ib_umad ib_ipoib softrnic softib rdmavt rdma_cm ib_cm iw_cm rdma_rxe siw ib_uverbs ib_core veth; do
		[ -d "/sys/module/$m" ] || continue
		rmmod "$m" || { mark "UNLOAD-ERROR rmmod $m failed"; rc=1; }
	done
	return $rc
}

# bounded SECONDS FUNCTION: run FUNCTION in the background; its status, or 124
# when it still runs after SECONDS (a task of it sleeps uninterruptibly in a
# wedged kernel: waiting for it would block PID 1 for good).
bounded() {
	local end=$((SECONDS + $1)) pid
	shift
	"$@" &
	pid=$!
	while [ "$SECONDS" -lt "$end" ]; do
		kill -0 "$pid" 2>/dev/null || { wait "$pid"; return; }
		sleep 0.2
	done
	kill -0 "$pid" 2>/dev/null || { wait "$pid"; return; }
	return 124
}
wedged() {
	mark "WEDGED $1 blocks: stopping the VM"
	echo w >/proc/sysrq-trigger # the blocked tasks, for the log
	poweroff_vm
}

# Leftovers of a test must not break the next one.
# reset_net: what a test killed at its timeout (no EXIT trap) may have left:
# its programs, RDMA links, namespaces, veth pairs in the initial namespace,
# and the policy routing of tests/e2e/rxe-lib.bash (tables 41/42, the local
# table's rule moved to priority 1000).
reset_net() {
	local d f
	pkill -KILL -x 'rping|ucmatose|rdma_client|rdma_server|cmtime|udaddy|mckey|ib_[a-z_]*_(bw|lat)' 2>/dev/null
	for d in $(rdma link show 2>/dev/null | awk '$1 == "link" { split($2, a, "/"); print a[1] }'); do
		rdma link delete "$d" 2>/dev/null
	done
	ip -all netns delete 2>/dev/null
	for d in $(ip -o link show type veth 2>/dev/null | awk -F': ' '{ sub(/@.*/, "", $2); print $2 }'); do
		ip link delete "$d" 2>/dev/null
	done
	# Policy routing (tests/e2e/rxe-lib.bash), undone only where a test
	# left some: every `ip` costs under UML.
	for f in -4 -6; do
		ip $f rule show | grep -Eq 'lookup (41|42)|^100:|^1000:' || continue
		ip $f route flush table 41 2>/dev/null
		ip $f route flush table 42 2>/dev/null
		while ip $f rule del table 41 2>/dev/null; do :; done
		while ip $f rule del table 42 2>/dev/null; do :; done
		while ip $f rule del pref 100 2>/dev/null; do :; done
		if ! ip $f rule show pref 0 | grep -q 'lookup local'; then
			ip $f rule add pref 0 lookup local 2>/dev/null
			ip $f rule del pref 1000 lookup local 2>/dev/null
		fi
	done
	return 0
}

mark "LOAD-BEGIN $ORCM_STACK"
case "$ORCM_STACK" in
stock) load_stock ;;
ours) load_ours ;;
*) mark "LOAD-ERROR unknown stack '$ORCM_STACK'"; false ;;
esac
load_rc=$?
lsmod
mark "LOAD-END $ORCM_STACK rc=$load_rc"

# ---- demo mode ---------------------------------------------------------------
if [ "${ORCM_MODE:-test}" = demo ]; then
	if [ "$load_rc" -eq 0 ]; then
		mark "DEMO-BEGIN"
		bash "$ORCM_REPO/tools/vm/demo-guest.sh"
		mark "DEMO-END rc=$?"
	fi
	poweroff_vm
fi

[ "$load_rc" -eq 0 ] || poweroff_vm

# ---- KUnit: each test module runs its suites when it is loaded ---------------
if [ "${ORCM_KUNIT:-0}" = 1 ]; then
	for f in "$ORCM_OURS_DIR"/tests/kunit/*_kunit.ko; do
		[ -f "$f" ] || continue
		name=$(basename "$f" .ko)
		[[ " ${ORCM_KUNIT_LIST:-$name} " == *" $name "* ]] || continue
		# A test module of one of our drivers (drivers/NAME/NAME.ko) needs
		# the driver loaded first.
		for d in $(modinfo -F depends "$f" | tr ',' ' '); do
			[ -d "/sys/module/$d" ] && continue
			[ -f "$ORCM_OURS_DIR/drivers/$d/$d.ko" ] || continue
			for dd in $(modinfo -F depends "$ORCM_OURS_DIR/drivers/$d/$d.ko" | tr ',' ' '); do
				[ -d "/sys/module/$dd" ] || "${MP[@]}" "$dd"
			done
			insmod "$ORCM_OURS_DIR/drivers/$d/$d.ko" || mark "LOAD-ERROR insmod $d for $name failed"
		done
		before=$(cd /sys/kernel/debug/kunit 2>/dev/null && echo *)
		mark "KUNIT-BEGIN $name"
		insmod "$f"
		rc=$?
		for d in /sys/kernel/debug/kunit/*/; do
			s=$(basename "$d")
			[[ " $before " == *" $s "* ]] && continue
			mark "KUNIT-SUITE $name $s"
			sed 's/^/@@KTAP /' "$d/results"
		done
		[ "$rc" -eq 0 ] && { rmmod "$name" || rc=99; }
		mark "KUNIT-END $name rc=$rc"
	done
fi

# ---- end-to-end scripts: each one is a test, exit 0 = pass -------------------
# stack_after NAME: after test NAME (or "kunit"), the loaded CM modules must
# still be the stack the run is about (tools/vm/stack.bash: build id, and
# srcversion for ours): a script that swaps modules (parity.sh,
# ibcm-stock-rdmacm.sh) and fails to restore them must not leave every later
# test running on the wrong stack. A marker STACK-MISMATCH fails that test
# (tools/vm/parse-log.awk), and every later one while the stack stays wrong.
stack_after() {
	local out rc=0 l
	out=$(stack_check rdma_cm="$ORCM_STACK" iw_cm="$ORCM_STACK" ib_cm="$ORCM_STACK") || rc=1
	if [ "$rc" -ne 0 ]; then
		while IFS= read -r l; do
			case "$l" in MISMATCH\ *) mark "STACK-MISMATCH $1 ${l#MISMATCH }" ;; esac
		done <<<"$out"
	else
		mark "STACK-OK $1"
	fi
}
[ -z "${ORCM_E2E:-}" ] || [ "${ORCM_KUNIT:-0}" != 1 ] || stack_after kunit
for t in ${ORCM_E2E:-}; do
	f=$ORCM_REPO/${ORCM_E2E_DIR:-tests/e2e}/$t.sh
	# A script may ask for more time: a line "# orcm-timeout: SECONDS".
	secs=$(sed -n 's/^# orcm-timeout: *\([0-9][0-9]*\).*/\1/p' "$f" | head -n 1)
	[ -n "$secs" ] && [ "$secs" -gt "${ORCM_E2E_TIMEOUT:-120}" ] || secs=${ORCM_E2E_TIMEOUT:-120}
	mark "E2E-BEGIN $t"
	(cd /tmp && timeout -k 5 "$secs" bash "$f") </dev/null 2>&1
	rc=$?
	mark "E2E-END $t rc=$rc"
	# After a test that wedged the kernel (a device removal that never
	# completes) the clean-up blocks: stop the run (the tests left are
	# reported as not run) instead of waiting for the host's timeout.
	bounded 60 reset_net
	[ $? -ne 124 ] || wedged "cleaning up after $t"
	bounded 30 stack_after "$t"
	[ $? -ne 124 ] || wedged "checking the stack after $t"
done

# ---- unload, then look for leaks ---------------------------------------------
mark "UNLOAD-BEGIN"
bounded 60 unload_stack
rc=$?
[ "$rc" -eq 124 ] && wedged "unloading the stack"
mark "UNLOAD-END rc=$rc"

# kmemleak that is off (kmemleak=off, or it disabled itself after an error)
# keeps its file, refuses every write and reads empty: that is no scan.
if [ ! -e "$KMEMLEAK" ]; then
	mark "KMEMLEAK-UNAVAILABLE no $KMEMLEAK"
else
	sleep 6 # kmemleak ignores objects younger than 5 s
	if { echo scan >"$KMEMLEAK" && echo scan >"$KMEMLEAK"; } 2>/dev/null; then
		mark "KMEMLEAK-BEGIN"
		sed 's/^/@@KMEMLEAK /' "$KMEMLEAK"
		mark "KMEMLEAK-END"
	else
		mark "KMEMLEAK-UNAVAILABLE the scan was refused (kmemleak is off)"
	fi
fi
poweroff_vm
