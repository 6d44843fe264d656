#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Differential parity with the in-tree CM, in one boot. Two interfaces:
#  - the in-kernel API, as ULPs call it: tests/parity's cm_parity.ko runs its
#    scenarios (return codes, events with status and private data, id
#    states, device and port), the ephemeral-port ones with the port range
#    narrowed to two ports;
#  - librdmacm through the stock rdma_ucm: cmprobe servers and clients
#    (events, private data, errors, exit codes) and `rdma res show cm_id`
#    snapshots of a listening and of a connected pair.
# Both run on our stack, then the in-tree rdma_cm/iw_cm (and rdma_ucm) are
# loaded in place of ours and both run again; then ours come back. Every
# difference fails, unless its scenario stands in tests/parity/deviations
# with the reason. The stock VM skips this script: its in-tree run is here.
# orcm-timeout: 900
# shellcheck source=tests/e2e/lib.bash
. "$(dirname "$0")/lib.bash"
# shellcheck source=tests/e2e/cmprobe.bash
. "$(dirname "$0")/cmprobe.bash"
# (softib-lib.bash sets an EXIT trap; this script sets its own below.)
# shellcheck source=tests/e2e/softib-lib.bash
. "$(dirname "$0")/softib-lib.bash"

KO=$ORCM_PARITY_KO
[ -f "$KO" ] || fail "cm_parity.ko not built ($KO)"
MP=(modprobe -d "$ORCM_MODROOT" -S "$ORCM_KREL")
# The deviations: tests/parity/deviations, and before it (its entry wins for
# a scenario named in both) tests/parity/deviations-<series> of the running
# kernel where one exists: what differs only against that series' in-tree CM
# (the Debian VM runs this script on 6.1 as well: tools/debian-vm/guest.sh).
DEV=/tmp/parity-deviations
KSERIES=$(uname -r | sed -E 's/^([0-9]+\.[0-9]+).*/\1/')
{
	[ ! -f "$ORCM_REPO/tests/parity/deviations-$KSERIES" ] ||
		cat "$ORCM_REPO/tests/parity/deviations-$KSERIES"
	cat "$ORCM_REPO/tests/parity/deviations"
} >"$DEV" || fail "cannot read the deviations"
A=198.18.1.1 B=198.18.1.2 B6=2001:2:0:1::2
RANGE=$(sysctl -n net.ipv4.ip_local_port_range)
# shellcheck source=tools/vm/stack.bash
. "$ORCM_REPO/tools/vm/stack.bash"
# stack_is WHO WHEN: rdma_cm, iw_cm and ib_cm are all WHO's, or fail.
stack_is() {
	say "stack $2:"
	stack_show rdma_cm="$1" iw_cm="$1" ib_cm="$1" ||
		fail "the CM modules are not all the $1 ones $2"
}

# siw on one veth end in the initial namespace (kernel ULPs' namespace);
# every parity address on it, so a connection is local, as in ULP setups.
# RoCE the same way: rxe on a veth end of its own (rdma_rxe works in the
# initial namespace only), both RoCE addresses on it: rxe loopback.
parity_net() {
	ip link add pA type veth peer name pB
	ip addr add $A/24 dev pA
	ip addr add $B/24 dev pA
	ip addr add 2001:2:0:1::1/64 dev pA nodad
	ip addr add $B6/64 dev pA nodad
	ip link set pA up
	ip link set pB up
	rdma link add sP type siw netdev pA
	wait_for 10 "sP ACTIVE" bash -c "rdma link show sP/1 | grep -q ACTIVE"
	ip link add pR type veth peer name pS
	ip addr add 198.18.5.1/24 dev pR
	ip addr add 198.18.5.2/24 dev pR
	ip addr add 2001:2:0:5::1/64 dev pR nodad
	ip addr add 2001:2:0:5::2/64 dev pR nodad
	ip link set pR up
	ip link set pS up
	rdma link add rP type rxe netdev pR
	wait_for 10 "rP ACTIVE" bash -c "rdma link show rP/1 | grep -q 'state ACTIVE'"
	parity_ib
}
# Native IB: softib ib0 <=> ib1 (veth vA/vB) under stock opensm, every IB
# address on ib0's IPoIB netdev (softib's loopback, as rxe's above): SA
# path records, SA multicast joins, LIDs.
HAD_IPOIB=0
[ ! -d /sys/module/ib_ipoib ] || HAD_IPOIB=1
parity_ib() {
	sib_load
	sib_subnet_start parity_exit
	parity_ipoib
}
# parity_ipoib: stock IPoIB (over the CM loaded now: connected mode uses
# ib_cm) and the IB addresses on ib0's netdev.
parity_ipoib() {
	local n
	[ -d /sys/module/ib_ipoib ] || "${MP[@]}" ib_ipoib || fail "modprobe ib_ipoib"
	wait_for 10 "ib0's IPoIB netdev" sib_ipoib_of ib0
	n=$(sib_ipoib_of ib0)
	ip addr add 198.18.6.1/24 dev "$n"
	ip addr add 198.18.6.2/24 dev "$n"
	ip addr add 2001:2:0:6::1/64 dev "$n" nodad
	ip addr add 2001:2:0:6::2/64 dev "$n" nodad
	ip link set "$n" up
	wait_for 20 "$n carrier (broadcast group joined)" \
		bash -c "[ \$(cat /sys/class/net/$n/carrier) = 1 ]"
}
# IPoIB holds ib_cm: out before a CM swap.
parity_ipoib_down() {
	[ ! -d /sys/module/ib_ipoib ] || rmmod ib_ipoib || fail "cannot unload ib_ipoib"
}
parity_net_down() {
	sysctl -qw net.ipv4.ip_local_port_range="$RANGE" || true
	rdma link delete sP 2>/dev/null || true
	ip link delete pA 2>/dev/null || true
	rdma link delete rP 2>/dev/null || true
	ip link delete pR 2>/dev/null || true
	sib_sm_stop
	[ "$HAD_IPOIB" = 1 ] || rmmod ib_ipoib 2>/dev/null || true
	rdma link delete ib0 2>/dev/null || true
	rdma link delete ib1 2>/dev/null || true
	ip link delete vA 2>/dev/null || true
}
# swap_back: our stack in place of the in-tree one (also when this script
# fails while the in-tree one is loaded: the next tests run on ours).
SWAPPED=0 had_softrnic=0
swap_back() {
	[ "$SWAPPED" = 1 ] || return 0
	SWAPPED=0
	local m
	for m in ib_ipoib cm_parity rdma_ucm rdma_cm ib_cm iw_cm; do
		[ ! -d "/sys/module/$m" ] || rmmod "$m" || fail "cannot unload the in-tree $m"
	done
	{ insmod "$ORCM_OURS_DIR/iw_cm/iw_cm.ko" && insmod "$ORCM_OURS_DIR/ib_cm/ib_cm.ko" &&
		insmod "$ORCM_OURS_DIR/rdma_cm/rdma_cm.ko" &&
		insmod "$(modinfo -b "$ORCM_MODROOT" -k "$ORCM_KREL" -n rdma_ucm)"; } ||
		fail "cannot reload our stack"
	[ "$had_softrnic" = 0 ] || insmod "$ORCM_OURS_DIR/drivers/softrnic/softrnic.ko" ||
		fail "cannot reload softrnic"
}
parity_exit() {
	local rc=$?
	parity_net_down
	(swap_back) || rc=1
	cleanup
	exit $rc
}
trap parity_exit EXIT

# ---- librdmacm scenarios (cmprobe over rdma_ucm) ----

# res_snapshot: this device's `rdma res show cm_id`, normalised (pids, id
# numbers and ephemeral ports vary), sorted.
res_snapshot() {
	rdma res show cm_id | grep ' sP/' |
		sed -E 's/ pid [0-9]+//; s/ cm-idn [0-9]+//; s/ lqpn [0-9]+//; s/:[1-9][0-9]{4}( |$)/:EPH\1/g' |
		sort
}
# u_server NAME ARGS...: a cmprobe server in the background, listening.
u_server() {
	local name=$1
	shift
	"$CMPROBE" -s "$@" >"/tmp/u-$name.log" 2>&1 &
	U_PID=$!
	wait_for 10 "cmprobe $name listening" listening "u-$name" ||
		{ cat "/tmp/u-$name.log"; return 1; }
}
u_client() {
	local name=$1 rc=0
	shift
	timeout -k 2 20 "$CMPROBE" -c "$@" >"/tmp/u-$name.log" 2>&1 || rc=$?
	echo "$name: exit $rc"
	sed "s/^/$name: /" "/tmp/u-$name.log"
}
u_server_end() {
	local name=$1 rc=0
	wait_pid "$U_PID" 20 || rc=$?
	echo "$name: exit $rc"
	sed "s/^/$name: /" "/tmp/u-$name.log"
}
u_accept_pd() {
	u_server server -b $B -p 7401 -k 40 -n 1 -T 15
	u_client client -a $B -p 7401 -P 20
	u_server_end server
}
u_reject_pd() {
	u_server server -b $B -p 7402 -j 30 -n 1 -T 15
	u_client client -a $B -p 7402 -P 10
	u_server_end server
}
u_no_listener() { u_client client -a $B -p 7403; }
u_bind_conflict() {
	u_server first -b $B -p 7404 -n 0 -T 15
	timeout 10 "$CMPROBE" -s -b $B -p 7404 -n 0 -T 1 >/tmp/u-second.log 2>&1
	echo "second: exit $?"
	sed 's/^/second: /' /tmp/u-second.log
	kill "$U_PID"
	wait "$U_PID" 2>/dev/null || true
}
u_ipv6() {
	u_server server -b $B6 -p 7405 -k 3 -n 1 -T 15
	u_client client -a $B6 -p 7405 -P 5
	u_server_end server
}
u_res_listen() {
	u_server server -b 0.0.0.0 -p 7406 -n 0 -T 15
	res_snapshot
	kill "$U_PID"
	wait "$U_PID" 2>/dev/null || true
}
u_res_connected() {
	u_server server -b $B -p 7407 -n 1 -T 15
	"$CMPROBE" -c -a $B -p 7407 -H 3000 >/tmp/u-client.log 2>&1 &
	local c=$!
	wait_for 10 "client ESTABLISHED" grep -q 'event ESTABLISHED' /tmp/u-client.log
	res_snapshot
	wait_pid "$c" 20 || true
	u_server_end server >/dev/null
}
# The configfs tree (/sys/kernel/config/rdma_cm) a script sees.
u_try() {
	local out rc=0
	out=$("$@" 2>&1) || rc=$?
	echo "$* -> $rc${out:+ ${out##*: }}"
}
u_configfs() {
	local c=/sys/kernel/config/rdma_cm p=/sys/kernel/config/rdma_cm/sP/ports/1
	mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
	u_try mkdir $c/nosuchdev
	u_try mkdir $c/sP
	u_try ls $c/sP $c/sP/ports $p
	u_try cat $p/default_roce_mode $p/default_roce_tos
	u_try sh -c "echo 'RoCE v2' >$p/default_roce_mode"
	u_try sh -c "echo bogus >$p/default_roce_mode"
	u_try sh -c "echo 'IB/RoCE v1' >$p/default_roce_mode"
	u_try sh -c "echo 300 >$p/default_roce_tos"
	u_try sh -c "echo 32 >$p/default_roce_tos"
	u_try rmdir $c/sP
	u_try mkdir $c/sP
	u_try cat $p/default_roce_mode $p/default_roce_tos
	u_try sh -c "echo 0 >$p/default_roce_tos"
	u_try rmdir $c/sP
}
# The fields `rdma stat` shows for a device (counts vary: not compared):
# rxe's (siw has no counters: "error: Invalid argument" on both stacks).
u_rdma_stat() {
	rdma stat show link rP/1 2>&1 | sed -E 's/ [0-9]+/ N/g'
	rdma stat qp show link rP/1 2>&1
}
# Device removal under a listener and a connection (both see DEVICE_REMOVAL
# and exit); the device comes back for the scenarios after this one.
u_removal() {
	u_server server -b $B -p 7408 -n 0 -T 15
	"$CMPROBE" -c -a $B -p 7408 -H 10000 -T 15 >/tmp/u-client.log 2>&1 &
	local c=$!
	wait_for 10 "client ESTABLISHED" grep -q 'event ESTABLISHED' /tmp/u-client.log
	rdma link delete sP
	wait_pid "$c" 20
	echo "client: exit $?"
	sed 's/^/client: /' /tmp/u-client.log
	u_server_end server
	rdma link add sP type siw netdev pA
	wait_for 10 "sP ACTIVE again" bash -c "rdma link show sP/1 | grep -q ACTIVE"
}
# A namespace of its own: a connection inside it, and its address is not
# reachable from (nor bindable in) the initial namespace.
u_netns() {
	ip netns add parN
	ip link add nA type veth peer name nB
	ip link set nA netns parN
	ip link set nB netns parN
	ip -n parN addr add 198.18.3.1/24 dev nA
	ip -n parN link set lo up
	ip -n parN link set nA up
	ip -n parN link set nB up
	ip netns exec parN rdma link add sN type siw netdev nA
	wait_for 10 "sN ACTIVE" bash -c "rdma link show sN/1 | grep -q ACTIVE"
	ip netns exec parN "$CMPROBE" -s -b 198.18.3.1 -p 7409 -n 1 -T 15 >/tmp/u-server.log 2>&1 &
	U_PID=$!
	wait_for 10 "cmprobe listening in parN" listening u-server
	u_client outside -a 198.18.3.1 -p 7409 -r 500
	timeout 10 "$CMPROBE" -s -b 198.18.3.1 -p 7410 -n 0 -T 1 >/tmp/u-bind.log 2>&1
	echo "bind-outside: exit $?"
	sed 's/^/bind-outside: /' /tmp/u-bind.log
	timeout -k 2 20 ip netns exec parN "$CMPROBE" -c -a 198.18.3.1 -p 7409 -P 4 >/tmp/u-inside.log 2>&1
	echo "inside: exit $?"
	sed 's/^/inside: /' /tmp/u-inside.log
	u_server_end server
	ip netns exec parN rdma link delete sN
	ip netns delete parN
}
# ib_cm's LAP and APR counters of ib0's port after the ibcm-* scenarios
# (the module was loaded fresh for the stack): LAPs received, duplicates,
# APRs received and sent (none: 6.12 sends no APR).
u_ib_counters() {
	local f
	for f in cm_rx_msgs/lap cm_rx_duplicates/lap cm_rx_msgs/apr cm_tx_msgs/apr; do
		echo "$f $(cat "/sys/class/infiniband/ib0/ports/1/$f" 2>&1)"
	done
}
# u_removal takes the device away and brings it back: last but one.
UCMA=(u_configfs u_rdma_stat u_accept_pd u_reject_pd u_no_listener u_bind_conflict u_ipv6
	u_res_listen u_res_connected u_ib_counters u_removal u_netns)

# run_scenarios OUT LABEL STACK: every kernel scenario (then the narrow ones,
# port range narrowed) and every librdmacm one; keep the trace.
run_scenarios() {
	local out=$1 f
	insmod "$KO" || fail "insmod $KO"
	f=$(sed 's/ .*//' /sys/kernel/debug/cm_parity/list | sort | uniq -d)
	[ -z "$f" ] || { rmmod cm_parity; fail "scenario names used twice: $f"; }
	if [ -z "${ORCM_PARITY_SKIP:-}" ]; then
		echo all >/sys/kernel/debug/cm_parity/run || { rmmod cm_parity; fail "run failed"; }
		cat /sys/kernel/debug/cm_parity/trace >"$out"
	else
		# ORCM_PARITY_SKIP="NAME...": every scenario but those, one by one
		# (on both stacks alike: the Debian VM leaves out what crashes its
		# in-tree CM, tools/debian-vm/guest.sh). A name that is no
		# scenario (renamed?) fails: it would leave nothing out.
		for f in $ORCM_PARITY_SKIP; do
			grep -q "^$f\( \|\$\)" /sys/kernel/debug/cm_parity/list ||
				{ rmmod cm_parity; fail "ORCM_PARITY_SKIP: no scenario $f"; }
		done
		say "left out on this stack: $ORCM_PARITY_SKIP"
		: >"$out"
		while read -r f narrow; do
			[ -z "$narrow" ] || continue
			case " $ORCM_PARITY_SKIP " in *" $f "*) continue ;; esac
			echo "$f" >/sys/kernel/debug/cm_parity/run || { rmmod cm_parity; fail "run $f failed"; }
			cat /sys/kernel/debug/cm_parity/trace >>"$out"
		done </sys/kernel/debug/cm_parity/list
	fi
	sysctl -qw net.ipv4.ip_local_port_range="40000 40001"
	echo narrow >/sys/kernel/debug/cm_parity/run || { rmmod cm_parity; fail "narrow run failed"; }
	sysctl -qw net.ipv4.ip_local_port_range="$RANGE"
	cat /sys/kernel/debug/cm_parity/trace >>"$out"
	rmmod cm_parity || fail "rmmod cm_parity"
	# A scenario that fails (a fail() inside, or a step that returned
	# non-zero) shows so in the trace ("## FAIL: ..."), which
	# check_about() refuses on every stack.
	for f in "${UCMA[@]}"; do
		echo "scenario ucma-${f#u_}"
		# Ephemeral ports (5 digits; ours are 74xx) vary from run to run.
		# (a subshell: fail() ends it, not the script).
		{ ("$f") 2>&1 || echo "## FAIL: $f ended with status $?"; } |
			sed -E 's/^/  /; s/port [1-9][0-9]{4}/port EPH/g'
	done >>"$out"
	say "trace ($2): $(grep -c '^scenario' "$out") scenarios"
	# Our id count only exists while our rdma_cm is loaded.
	ORCM_STACK=$3 wait_for 10 "no CM id left after the scenarios" cm_ids_empty
}

# sc_trace TRACE SCENARIO: that scenario's lines of TRACE.
sc_trace() { awk -v s="scenario $2" '$0 == s { f = 1; next } /^scenario / { f = 0 } f' "$1"; }

# What each scenario is about must show in a trace, on the in-tree stack
# above all: a step that timed out, a failed set-up step of a kernel
# scenario (pt_core.c logs "## FAIL: ...") or a librdmacm scenario whose
# function failed would otherwise compare equal when both stacks fail alike.
# Besides, the librdmacm scenarios (and a few kernel ones) name the line
# that proves they did their job.
WANT=('ucma-configfs:mkdir /sys/kernel/config/rdma_cm/sP -> 0'
	'ucma-rdma_stat:link rP/1'
	'ucma-accept_pd:client: event ESTABLISHED status 0 pdata 40'
	'ucma-accept_pd:server: exit 0'
	'ucma-reject_pd:client: event REJECTED'
	'ucma-no_listener:client: result'
	'ucma-bind_conflict:second: error '
	'ucma-bind_conflict:second: exit 1'
	'ucma-ipv6:server: exit 0' 'ucma-ipv6:client: exit 0'
	'ucma-res_listen:state LISTEN'
	'ucma-res_connected:link sP/1'
	'ucma-removal:client: event DEVICE_REMOVAL'
	'ucma-netns:inside: exit 0'
	'connect-active-disconnects:client: event disconnected status=0'
	'pd-connect-196:listener: event connect request status=0 pd=196:'
	'roce-pd-connect-56:listener: event connect request status=0'
	'ib-pd-connect-56:listener: event connect request status=0'
	'ib-resolve:dev=ib/1' 'ib-resolve:route: slid='
	'ib-ud-sidr:ud: dlid=' 'ib-mc-join:event multicast join status=0'
	'ibcm-alt-path:passive: alternate: type=0' 'ibcm-alt-path:alt: port=1'
	'ibcm-path-mig:active: notify(PATH_MIG) -> 0'
	'ibcm-lap:passive: event LAP_RECEIVED' 'ibcm-lap:passive: send_mra -> 0'
	'ucma-ib_counters:cm_rx_msgs/lap 2'
	'reject-with-pd:client: event rejected')
# check_about TRACE LABEL: say what is missing; the number of problems
# adds to ABOUT_BAD (the script fails on it at the end, after the
# comparison, so that one run shows everything).
ABOUT_BAD=0
check_about() {
	local tr=$1 label=$2 bad w
	# (A timeout that is in-tree's documented side of a deviation, its
	# line exactly, is what in-tree does, not a failed scenario.)
	bad=$(awk -v dev="$DEV" -v intree="$([ "$label" = ours ] || echo 1)" '
		BEGIN {
			while ((getline l < dev) > 0) { split(l, c, " [|] "); if (!(c[1] in doc)) doc[c[1]] = c[2] } }
		/^scenario / { sc = $2; next }
		/timed out waiting for|## FAIL/ {
			t = $0; sub(/^ +/, "", t)
			if (intree && (sc in doc) && index(doc[sc], t)) next
			print sc ": " $0 }' "$tr")
	if [ -n "$bad" ]; then
		say "FAIL: scenarios failed on the $label stack:"
		printf '%s\n' "$bad" | sed 's/^/    /'
		ABOUT_BAD=$((ABOUT_BAD + $(printf '%s\n' "$bad" | wc -l)))
	fi
	for w in "${WANT[@]}"; do
		sc_trace "$tr" "${w%%:*}" >/tmp/par-sc.txt
		grep -qF -- "${w#*:}" /tmp/par-sc.txt && continue
		say "FAIL: scenario ${w%%:*} lacks '${w#*:}' on the $label stack:"
		sed 's/^/    /' /tmp/par-sc.txt
		ABOUT_BAD=$((ABOUT_BAD + 1))
	done
}

# The in-tree CM runs every scenario in the VM with our stack, after the
# swap below, in the same boot as ours (and each must show what it is
# about there too); a run in the stock VM alone compares nothing.
[ "${ORCM_STACK:-}" = ours ] ||
	skip "the in-tree CM runs these scenarios in the VM with our stack (the swap), beside ours"
parity_net
stack_is "$ORCM_STACK" "before the scenarios"

run_scenarios /tmp/parity-ours.txt ours ours
# The librdmacm part, for the log.
sed -n '/^scenario ucma-/,$p' /tmp/parity-ours.txt | sed 's/^/    /'
check_about /tmp/parity-ours.txt ours
# Swap: ours out, the in-tree CMs in (the kernel's own module requests for
# them stay refused; this loads them by hand). ib_cm too: the RoCE
# scenarios compare the in-tree rdma_cm over the in-tree ib_cm.
# softrnic (ours) needs our iw_cm: it goes out and comes back with it.
[ -d /sys/module/softrnic ] && had_softrnic=1
[ $had_softrnic = 0 ] || rmmod softrnic || fail "cannot unload softrnic"
parity_ipoib_down
rmmod rdma_ucm rdma_cm iw_cm ib_cm || fail "cannot unload our stack"
SWAPPED=1
{ "${MP[@]}" rdma_cm && "${MP[@]}" rdma_ucm; } || fail "cannot load the in-tree rdma_cm"
parity_ipoib
# Every CM module of the in-tree stack, or the comparison compares nothing.
stack_is stock "after the swap to the in-tree stack"
run_scenarios /tmp/parity-stock.txt in-tree stock
swap_back
stack_is ours "after the swap back to ours"
check_about /tmp/parity-stock.txt in-tree

# Compare scenario by scenario. A documented deviation is the exact set of
# lines only in-tree's trace has and the lines only ours has (tests/parity/
# deviations: "scenario | in-tree: L1 ;; L2 | ours: L1 ;; L2 | why", leading
# blanks dropped, "(none)" for no line); any other difference fails, and so
# does an entry that names no scenario or whose difference is gone.
# Within a scenario, a run of adjacent "event timewait exit" lines compares
# as a multiset (sorted here; nothing else moves): two ids' timewait timers
# that expire close together deliver their events in either order (seen
# with the in-tree CM under qemu, flipping from one scenario to the next),
# which is no difference of the CMs. The traces as they ran stay in
# /tmp/parity-*.txt; the diffs shown below are of the sorted copies.
split_sc() {
	awk -v d="$2" '
		function flush(   i, j, t) {
			for (i = 2; i <= nt; i++)
				for (j = i; j > 1 && tw[j - 1] > tw[j]; j--) { t = tw[j]; tw[j] = tw[j - 1]; tw[j - 1] = t }
			for (i = 1; i <= nt; i++) print tw[i] > f
			nt = 0
		}
		/^scenario / { flush(); f = d "/" $2 }
		!f { next }
		/^ +[^ ]+: event timewait exit status=/ { tw[++nt] = $0; next }
		{ flush(); print > f }
		END { flush() }' "$1"
}
# side FILE_A FILE_B SIGN: the lines of the diff with SIGN, joined by " ;; ".
side() {
	{ diff --old-line-format='-%L' --new-line-format='+%L' --unchanged-line-format='' "$1" "$2" || true; } |
		sed -n "s/^$3 *//p" | awk 'BEGIN { ORS = "" } { print (NR > 1 ? " ;; " : "") $0 }
			END { if (NR == 0) print "(none)" }'
}
# dev_col SCENARIO N: column N of the scenario's entry, its label dropped.
dev_col() {
	awk -F ' [|] ' -v s="$1" -v n="$2" '$1 == s { sub(/^(in-tree|ours): /, "", $n); print $n; exit }' "$DEV"
}
rm -rf /tmp/par-o /tmp/par-s
mkdir -p /tmp/par-o /tmp/par-s
split_sc /tmp/parity-ours.txt /tmp/par-o
split_sc /tmp/parity-stock.txt /tmp/par-s
n=0 bad=0 dev=0
for f in /tmp/par-s/*; do
	sc=$(basename "$f")
	n=$((n + 1))
	if diff -u "$f" "/tmp/par-o/$sc" >/tmp/par.diff 2>&1; then
		if grep -q "^$sc |" "$DEV"; then
			bad=$((bad + 1))
			say "STALE DEVIATION: $sc is identical on both stacks; delete its entry"
		fi
		continue
	fi
	if grep -q "^$sc |" "$DEV"; then
		have_it=$(side "$f" "/tmp/par-o/$sc" -)
		have_ours=$(side "$f" "/tmp/par-o/$sc" +)
		if [ "$have_it" = "$(dev_col "$sc" 2)" ] && [ "$have_ours" = "$(dev_col "$sc" 3)" ]; then
			dev=$((dev + 1))
			say "deviation (documented) in $sc:"
		else
			bad=$((bad + 1))
			say "DIFFERENCE in $sc beyond its documented deviation (- in-tree, + ours):"
			say "  documented: in-tree: $(dev_col "$sc" 2) | ours: $(dev_col "$sc" 3)"
			say "  seen:       in-tree: $have_it | ours: $have_ours"
		fi
	else
		bad=$((bad + 1))
		say "DIFFERENCE in $sc (- in-tree, + ours):"
	fi
	sed 's/^/    /' /tmp/par.diff
done
[ "$(find /tmp/par-o -type f | wc -l)" -eq "$n" ] || fail "the stacks ran different scenario sets"
[ "$n" -ge 150 ] || fail "only $n scenarios ran (150 or more expected)"
# Every entry names a scenario of this run, or a KUnit case (a here-string,
# not <(...): the test VM has no /dev/fd)
# ("kunit:MODULE:CASE": the case's name in tests/kunit/MODULE.c, where the
# expectation that differs from in-tree is written).
while IFS= read -r sc; do
	case "$sc" in
	kunit:*:*)
		m=${sc#kunit:} c=${m#*:} m=${m%%:*}
		grep -qF -e "\"$c\"" -e "KUNIT_CASE($c)" -e "KUNIT_CASE_PARAM($c," "$ORCM_REPO/tests/kunit/$m.c" 2>/dev/null ||
			{ bad=$((bad + 1)); say "STALE DEVIATION: no KUnit case '$c' in tests/kunit/$m.c"; }
		;;
	*)
		[ -f "/tmp/par-s/$sc" ] ||
			{ bad=$((bad + 1)); say "STALE DEVIATION: no scenario '$sc' ran; delete its entry"; }
		;;
	esac
done <<<"$(grep -v '^#' "$DEV" | grep ' | ' | sed 's/ | .*//')"
[ "$ABOUT_BAD" -eq 0 ] || fail "$ABOUT_BAD scenario(s) do not show what they are about (see FAIL above)"
[ "$bad" -eq 0 ] || fail "$bad of $n scenarios (or deviation entries) differ from the in-tree CM beyond what tests/parity/deviations documents"
say "ok: $n scenarios, identical to the in-tree CM but $dev documented deviation(s), each exactly as documented"
