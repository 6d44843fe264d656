# SPDX-License-Identifier: GPL-2.0
# Helpers for the end-to-end tests. The tests run INSIDE the UML VM (started by
# tools/vm/run.sh), as root, with an RDMA stack already loaded. Each test
# sources this file.
#
# Topology (setup_pair): two network namespaces joined by a veth pair, one siw
# device on each end:
#
#   netns orcmA: vA 198.18.0.1/24, siwA  <== veth ==>  netns orcmB: vB 198.18.0.2/24, siwB
#
# The siw link is added from inside the namespace that holds the netdev (the
# netlink request looks the netdev up in the caller's namespace), and after the
# netdev is there: moving a netdev to another namespace unregisters it, which
# makes siw drop its device. RDMA devices stay visible in every namespace
# (`rdma system` netns mode "shared", the default).
# shellcheck shell=bash disable=SC2034
set -euo pipefail

NS_A=orcmA NS_B=orcmB
ADDR_A=198.18.0.1 ADDR_B=198.18.0.2
# An address on the link that nobody answers ARP for.
ADDR_NOBODY=198.18.0.99
STEP=${ORCM_STEP_TIMEOUT:-30} # seconds any single command may take

BG_PIDS=()
say() { printf '## %s\n' "$*"; }
fail() { printf '## FAIL: %s\n' "$*"; exit 1; }
# skip WHY: the test does not apply here (e.g. a part of our stack on the stock
# VM): says why and exits 77, which the runner reports as a skip, never as a
# pass (tools/vm/parse-log.awk).
ORCM_SKIP_RC=77
skip() { printf '## SKIP: %s\n' "$*"; exit "$ORCM_SKIP_RC"; }

# stock_lacks TYPE DEV WHAT: on the stock stack, a driver of ours (TYPE, its
# module of the same name) must not be loaded and `rdma link add DEV type
# TYPE` must fail; then the test skips (WHAT: why). A no-op on ours.
stock_lacks() {
	local type=$1 dev=$2 what=$3
	[ "${ORCM_STACK:-}" = stock ] || return 0
	[ ! -d "/sys/module/$type" ] || fail "$type is loaded on the stock stack"
	ip link add vS type veth peer name vSp
	if rdma link add "$dev" type "$type" netdev vS 2>"/tmp/$type-stock.err"; then
		rdma link delete "$dev"
		ip link delete vS
		fail "rdma link add type $type worked on the stock stack"
	fi
	ip link delete vS
	say "ok: the stock stack has no $type ($(cat "/tmp/$type-stock.err"))"
	skip "$what"
}

# Prefixes that run a command in a namespace (arrays, so that timeout & co. work).
IN_A=(ip netns exec "$NS_A")
IN_B=(ip netns exec "$NS_B")
in_a() { "${IN_A[@]}" "$@"; }
in_b() { "${IN_B[@]}" "$@"; }

# bg LOGFILE CMD...: start CMD in the background, output to LOGFILE; its pid is
# LAST_PID. CMD must be a program, not a shell function: the pid must be the
# process itself (a function would run in a subshell, and killing the subshell
# would leave the program running). Hence "${IN_A[@]}" rather than in_a.
bg() {
	local out=$1
	shift
	"$@" >"$out" 2>&1 &
	BG_PIDS+=($!)
	LAST_PID=$!
}

# The RDMA programs the tests start.
RDMA_PROGS='rping|ucmatose|rdma_client|rdma_server|cmtime|udaddy|ib_[a-z_]*_(bw|lat)'
cleanup() {
	local p d
	for p in "${BG_PIDS[@]}"; do kill -KILL "$p" 2>/dev/null || true; done
	pkill -KILL -x "$RDMA_PROGS" 2>/dev/null || true
	for p in "${BG_PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
	# Only what exists: `ip` asks the kernel to load "netdev-NAME" for a
	# name it cannot find (a usermode helper, seconds under UML).
	for d in siwA siwB srA srB rxe0; do
		[ ! -e "/sys/class/infiniband/$d" ] || rdma link delete "$d" 2>/dev/null || true
	done
	[ ! -e /sys/class/net/vR ] || ip link delete vR 2>/dev/null || true
	[ ! -e "/run/netns/$NS_A" ] || ip netns delete "$NS_A" 2>/dev/null || true
	[ ! -e "/run/netns/$NS_B" ] || ip netns delete "$NS_B" 2>/dev/null || true
}
trap cleanup EXIT

# wait_for SECONDS DESCRIPTION CMD...: poll CMD (every 0.1 s) until it succeeds:
# SECONDS x 10 tries, and no longer than 4 x SECONDS + 10 s of wall time. A
# slow CMD (`rdma link show` takes 0.7 s in the debug VM) stretches the
# tries; the wall-time bound keeps a condition that never comes from running
# into the test's own timeout, which would kill it without this message.
wait_for() {
	local secs=$1 what=$2 i end=$((SECONDS + 4 * $1 + 10))
	shift 2
	for ((i = 0; i < secs * 10 && SECONDS < end; i++)); do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	fail "timed out after ${secs}s ($i tries) waiting for: $what"
}

# setup_pair [TYPE_A [TYPE_B]]: the topology above; the RDMA devices are of
# type siw (default, named siwA/siwB) or softrnic (srA/srB): DEV_A, DEV_B.
dev_name() { case "$1" in softrnic) echo "sr$2" ;; *) echo "$1$2" ;; esac; }
setup_pair() {
	local ta=${1:-siw} tb=${2:-siw}
	DEV_A=$(dev_name "$ta" A)
	DEV_B=$(dev_name "$tb" B)
	ip netns add "$NS_A"
	ip netns add "$NS_B"
	# Distinct ifindexes: stock siw binds a wildcard listener's socket to its
	# netdev's ifindex in the listener's namespace, so two devices whose
	# netdevs share an ifindex (each namespace counts from 1) collide there
	# with EADDRINUSE ("cma_listen_on_dev, error -98") on the stock stack.
	# PAIR_IFINDEX=default: the kernel's numbering, the same index at both
	# ends (listen-netns-ifindex.sh, where that collision is the subject).
	if [ "${PAIR_IFINDEX:-}" = default ]; then
		ip link add vA netns "$NS_A" type veth peer name vB netns "$NS_B"
		[ "$(in_a cat /sys/class/net/vA/ifindex)" = "$(in_b cat /sys/class/net/vB/ifindex)" ] ||
			fail "default numbering gave vA and vB distinct ifindexes"
	else
		ip link add vA netns "$NS_A" index 101 type veth peer name vB netns "$NS_B" index 102
	fi
	in_a ip link set lo up
	in_b ip link set lo up
	in_a ip addr add "$ADDR_A/24" dev vA
	in_b ip addr add "$ADDR_B/24" dev vB
	in_a ip link set vA up
	in_b ip link set vB up
	in_a rdma link add "$DEV_A" type "$ta" netdev vA
	in_b rdma link add "$DEV_B" type "$tb" netdev vB
	wait_for 10 "$DEV_A and $DEV_B ACTIVE" siw_active
	# IPv6 DAD and the like must not matter; the link must carry IPv4 now.
	wait_for 10 "ping $ADDR_B from $NS_A" in_a ping -c 1 -W 1 "$ADDR_B"
	say "topology: $NS_A/vA $ADDR_A $DEV_A <-> $NS_B/vB $ADDR_B $DEV_B"
	rdma link show
}
siw_active() {
	rdma link show "${DEV_A:-siwA}/1" | grep -q 'state ACTIVE' &&
		rdma link show "${DEV_B:-siwB}/1" | grep -q 'state ACTIVE'
}

# cm_ids: the CM ids the stock ib_core lists (restrack, via nldev).
cm_ids() { rdma res show cm_id; }
# ibcm_counter NAME: a counter of our ib_cm (debugfs ib_cm/counters).
ibcm_counter() { awk -v k="$1" '$1 == k { print $2 }' /sys/kernel/debug/ib_cm/counters 2>/dev/null; }
# cm_id_listening PORT: a listening id on PORT is listed.
cm_id_listening() { cm_ids | grep -E "state LISTEN .*:$1( |$)"; }
# port_ids_gone PORT: no id on PORT is listed but listeners (the query must
# answer).
port_ids_gone() {
	local o
	o=$(cm_ids) || return 1
	! grep -E ":$1( |$)" <<<"$o" | grep -vq 'state LISTEN'
}
# qp1_state DEV: "state X" of DEV's port 1 QP1 (GSI: the CM MADs' QP).
qp1_state() { rdma res show qp link "$1/1" lqpn 1 | grep -o 'state [A-Z]*'; }
# cm_ids_empty: no CM id left anywhere. restrack only lists ids attached to a
# device, so on our stack the count of every live id (debugfs) must be 0 too.
# A query that fails is a failure, never an empty list.
ORCM_IDS_FILE=/sys/kernel/debug/rdma_cm/ids
cm_ids_empty() {
	local out n
	out=$(cm_ids) || return 1
	[ -z "$(grep -v '^$' <<<"$out" || true)" ] || return 1
	[ "${ORCM_STACK:-}" = ours ] || return 0
	n=$(cat "$ORCM_IDS_FILE") || return 1
	[ "$n" -eq 0 ]
}

# show LOGFILE: print a program's output, each line tagged with the file's name.
show() { sed "s|^|  [$(basename "$1" .log)] |" "$1"; }

# run_to LOGFILE SECONDS CMD...: run CMD with a deadline, output to LOGFILE and
# to this test's output; returns CMD's status (124 = deadline).
run_to() {
	local out=$1 secs=$2 rc=0
	shift 2
	timeout -k 2 "$secs" "$@" >"$out" 2>&1 || rc=$?
	show "$out"
	return $rc
}

# wait_pid PID SECONDS: wait for a background process; its status, 124 on deadline.
wait_pid() {
	local pid=$1 secs=$2 i
	for ((i = 0; i < secs * 10; i++)); do
		if ! kill -0 "$pid" 2>/dev/null; then
			local rc=0
			wait "$pid" || rc=$?
			return $rc
		fi
		sleep 0.1
	done
	kill -KILL "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	return 124
}

# rping_pair NAME SERVER_NS SERVER_ADDR CLIENT_NS CLIENT_ADDR PORT: an rping
# server in SERVER_NS on SERVER_ADDR (listed by restrack with that address),
# a client in CLIENT_NS to CLIENT_ADDR, 3 verified pings, both exit 0, and no
# CM id left. Link-local addresses may carry a %scope. A namespace "-" is
# the initial one.
rping_pair() {
	local name=$1 sns=$2 saddr=$3 cns=$4 caddr=$5 port=$6 rc=0 src=0 server
	local sin=(ip netns exec "$sns") cin=(ip netns exec "$cns")
	[ "$sns" != - ] || sin=()
	[ "$cns" != - ] || cin=()
	bg "/tmp/$name-server.log" "${sin[@]}" rping -s -v -V -a "$saddr" -p "$port" -C 3
	server=$LAST_PID
	wait_for 10 "$name: rping server listening" cm_id_listening "$port"
	cm_ids | grep -E "state LISTEN .*src-addr ${saddr%\%*}:$port " ||
		{ cm_ids; fail "$name: the listener is not listed with ${saddr%\%*}"; }
	run_to "/tmp/$name.log" "$STEP" "${cin[@]}" rping -c -v -V -a "$caddr" -p "$port" -C 3 || rc=$?
	wait_pid "$server" "$STEP" || src=$?
	show "/tmp/$name-server.log"
	[ "$rc" -eq 0 ] || fail "$name: rping client exit status $rc"
	[ "$src" -eq 0 ] || fail "$name: rping server exit status $src"
	[ "$(grep -c 'ping data: rdma-ping-' "/tmp/$name.log")" -eq 3 ] || fail "$name: not 3 verified pings"
	wait_for 10 "no CM id left after $name" cm_ids_empty
	say "$name: ok"
}

# setup_rxe: RoCE over rdma_rxe. rxe in 6.12 works only in the initial
# namespace (its UDP socket lives there), so: a veth pair there, vR
# 198.18.2.1/24 (peer vRp, up, unused), rxe0 on vR; client and server both
# use rxe0 (rxe loops packets to its own GIDs back internally).
ADDR_R=198.18.2.1
ADDR_R6=fd00:198:18:2::1
setup_rxe() {
	ip link add vR type veth peer name vRp
	ip addr add "$ADDR_R/24" dev vR
	ip -6 addr add "$ADDR_R6/64" dev vR nodad
	ip link set vR up
	ip link set vRp up
	rdma link add rxe0 type rxe netdev vR
	wait_for 10 "rxe0 ACTIVE" rxe_active
	say "topology: vR $ADDR_R $ADDR_R6 rxe0 (loopback)"
	rdma link show rxe0/1
}
rxe_active() { rdma link show rxe0/1 | grep -q 'state ACTIVE'; }

# perftest_race NAME: the client's data connection was refused (REJECTED
# -111, a TCP RST) and the server never saw it. perftest -R connects twice:
# the parameters go over a first rdma_cm connection, after which the server
# creates a new listening id for the data QP while the client already
# connects it (perftest_communication.c: the server answers the handshake
# before rdma_listen()). A client that wins that race is refused; perftest
# retries, but its retry path crashes in some tools (ib_read_bw and
# ib_send_bw segfault in librdmacm, 2026-11-24). Any RNIC can lose it; over
# softrnic to softrnic both ends are fast enough to lose it often, so the
# client runs at nice 19 (the server wins the VM's one CPU) and a refused
# client that did not crash is run again.
perftest_race() {
	grep -q 'RDMA_CM_EVENT_REJECTED; error: -111' "/tmp/$1.log" &&
		! grep -q 'remote address' "/tmp/$1-server.log"
}

# perftest_verdict NAME CLIENT_RC SERVER_RC: a perftest transfer of $ITERS x
# $SIZE (the caller's) completed: its result row is in /tmp/NAME.log or
# /tmp/NAME-server.log, or both ends exited 0 (under UML perftest may refuse
# to report its noisy figures); then no CM id may be left.
perftest_verdict() {
	show "/tmp/$1-server.log"
	if grep -Eq "^ *$SIZE +$ITERS " "/tmp/$1.log" "/tmp/$1-server.log" ||
		{ [ "$2" -eq 0 ] && [ "$3" -eq 0 ]; }; then
		say "$1: transfer of $ITERS x $SIZE completed (client $2, server $3)"
	else
		fail "$1: no result row; client exit $2, server exit $3"
	fi
	wait_for 10 "no CM id left after $1" cm_ids_empty
}

# reniced_run NAME SECS UP_CMD... -- CMD...: CMD (started at nice 19 by the
# caller) in the background, output in /tmp/NAME.log, put back to nice 0
# once UP_CMD succeeds (checked every 0.2 s); returns CMD's status. After
# SECS it is stopped (TERM, KILL 2 s later: status 143 or 137), after its
# CPU ticks and whatever the caller's function named by $RENICE_LATE (if
# set) prints, which tells a stall from a starved client.
reniced_run() {
	local name=$1 secs=$2 up_cmd=() pid up=0 rc=0 t0=$SECONDS
	shift 2
	while [ "$1" != -- ]; do up_cmd+=("$1"); shift; done
	shift
	bg "/tmp/$name.log" "$@"
	pid=$LAST_PID
	while kill -0 "$pid" 2>/dev/null && [ $((SECONDS - t0)) -lt "$secs" ]; do
		if [ $up = 0 ] && "${up_cmd[@]}"; then
			renice -n 0 -p "$pid" >/dev/null && up=1
			say "$name: connected at $((SECONDS - t0)) s, the client at nice 0"
		fi
		sleep 0.2
	done
	if kill -0 "$pid" 2>/dev/null; then
		say "$name: client still running after $secs s (connected: $up); its CPU ticks" \
			"$(cut -d' ' -f3,14,15,19 "/proc/$pid/stat" 2>/dev/null)"
		[ -z "${RENICE_LATE:-}" ] || "$RENICE_LATE"
		kill -TERM "$pid" 2>/dev/null || true
		sleep 2
		kill -KILL "$pid" 2>/dev/null || true
	fi
	wait "$pid" || rc=$?
	show "/tmp/$name.log"
	return $rc
}

# perftest_pair NAME SECS PORT SERVER_CMD... -- CLIENT_CMD...: a perftest -R
# transfer ($SIZE x $ITERS, the caller's; perftest_verdict) with the client
# started at nice 19 (perftest_race: the server re-listens for the data QP
# after its handshake, so it must win the one CPU) and put back to nice 0
# once its data connection is up (it prints the remote address after
# that; stdbuf, or the line waits in stdio's buffer until the end):
# drivers that send in the poster's own ibv_post_send() (siw; softib's
# engine runs there when it can) starve a nice-19 client behind the busy-
# polling server. The client is stopped after SECS.
perftest_pair() {
	local name=$1 secs=$2 rc=0 src=0 t0=$SECONDS
	shift 2
	pair_begin "$name" "$@"
	reniced_run "$name" "$secs" grep -q 'remote address' "/tmp/$name.log" -- \
		nice -n 19 stdbuf -oL "${PAIR_CLIENT[@]}" || rc=$?
	wait_pid "$PAIR_SERVER" 30 || src=$?
	say "$name: $((SECONDS - t0)) s"
	perftest_verdict "$name" "$rc" "$src"
}

# ucmatose_pair NAME SERVER_NS SERVER_ADDR CLIENT_NS CLIENT_ADDR PORT SIW_CLIENT:
# ucmatose (RDMA_PS_TCP, 4 connections x 20 messages): both ends exit 0 and
# report complete transfers, no CM id left. Stock siw as the client races
# here: ucmatose's server sends as soon as it is ESTABLISHED, and data that
# reaches a siw client before siw has read the MPA reply fails that
# connection with "connect error" -22 (seen in 5 of 120 stock and 8 of 120
# ours runs under load). With SIW_CLIENT=yes one more attempt is made for
# that signature alone; any other failure fails at once. The same race has
# a second face: data that comes after siw queued its CM work for the reply
# but before that work ran makes the work call siw's data_ready itself, in
# process context without the socket lock, and lockdep reports it
# (sock_owned_by_me in ip_select_ident_segs; seen once, 2026-11-24, with
# softrnic as the server). A splat cannot be retried (panic_on_warn), so
# with a siw client the server runs at nice 19, which leaves siw's CM work
# ahead of the server's first SEND.
ucmatose_once() {
	local server nice=()
	UC_RC=0 UC_SRC=0
	[ "$7" = yes ] && nice=(nice -n 19)	# see ucmatose_pair
	bg "/tmp/$1-server.log" ip netns exec "$2" "${nice[@]}" ucmatose -b "$3" -P tcp -p "$6" -c 4 -C 20
	server=$LAST_PID
	wait_for 10 "$1: ucmatose server listening on $3:$6" cm_id_listening "$6"
	run_to "/tmp/$1.log" "$STEP" ip netns exec "$4" ucmatose -s "$3" -b "$5" -P tcp \
		-p "$6" -c 4 -C 20 || UC_RC=$?
	wait_pid "$server" "$STEP" || UC_SRC=$?
	say "$1: server output:"
	show "/tmp/$1-server.log"
}
# pair_begin NAME PORT SERVER_CMD... -- CLIENT_CMD...: the server in the
# background (its output in /tmp/NAME-server.log, its pid in PAIR_SERVER)
# until it listens on PORT; the client's command in PAIR_CLIENT.
pair_begin() {
	local name=$1 port=$2 scmd=()
	shift 2
	while [ $# -gt 0 ] && [ "$1" != -- ]; do scmd+=("$1"); shift; done
	shift
	PAIR_CLIENT=("$@")
	bg "/tmp/$name-server.log" "${scmd[@]}"
	PAIR_SERVER=$LAST_PID
	wait_for 10 "$name: the server listening on $port" cm_id_listening "$port"
}
# transfer_pair NAME PORT SERVER_CMD... -- CLIENT_CMD...: an rdmacm-utils
# server (ucmatose, udaddy) in the background until it listens on PORT, then
# the client; both must exit 0 and say "data transfers complete". Logs in
# /tmp/NAME-server.log and /tmp/NAME-client.log.
transfer_pair() {
	local name=$1 port=$2 server rc=0 src=0 f
	pair_begin "$@"
	server=$PAIR_SERVER
	run_to "/tmp/$name-client.log" "$STEP" "${PAIR_CLIENT[@]}" || rc=$?
	wait_pid "$server" "$STEP" || src=$?
	say "$name: server output:"
	show "/tmp/$name-server.log"
	[ "$rc" -eq 0 ] || fail "$name: client exit status $rc: $(tail -n 1 "/tmp/$name-client.log")"
	[ "$src" -eq 0 ] || fail "$name: server exit status $src: $(tail -n 1 "/tmp/$name-server.log")"
	for f in "/tmp/$name-client.log" "/tmp/$name-server.log"; do
		grep -q 'data transfers complete' "$f" || fail "$f: no 'data transfers complete'"
	done
}

# cmtime_pair NAME PORT SERVER_CMD... -- CLIENT_CMD...: librdmacm's cmtime
# server (it serves until it is stopped) in the background until it listens
# on PORT, then the client, which must exit 0, time a connect step and
# report no failure; no CM id is left. Logs in /tmp/NAME-server.log and
# /tmp/NAME-client.log.
cmtime_pair() {
	local name=$1 rc=0
	pair_begin "$@"
	run_to "/tmp/$name-client.log" "$STEP" "${PAIR_CLIENT[@]}" || rc=$?
	kill "$PAIR_SERVER" 2>/dev/null || true
	wait_pid "$PAIR_SERVER" "$STEP" || true
	show "/tmp/$name-server.log"
	cmtime_verdict "$name" "$rc"
	wait_for 20 "no CM id left after $name" cm_ids_empty
}

# cmtime_verdict NAME CLIENT_RC: the cmtime client of /tmp/NAME-client.log
# exited 0, timed a connect step and reported no failure.
cmtime_verdict() {
	[ "$2" -eq 0 ] || fail "$1: cmtime client ($ORCM_STACK) exit status $2"
	grep -q 'connect' "/tmp/$1-client.log" || fail "$1: cmtime printed no connect step"
	if grep -qE '^failure|^event:|ERROR' "/tmp/$1-client.log"; then
		fail "$1: cmtime reported a failure"
	fi
}

ucmatose_pair() {
	local f
	ucmatose_once "$@"
	if [ "$7" = yes ] && [ "$UC_RC" -ne 0 ] &&
		grep -q 'event: RDMA_CM_EVENT_CONNECT_ERROR, error: -22' "/tmp/$1.log"; then
		say "$1: the siw MPA-reply race (connect error -22): one more attempt"
		wait_for 10 "no CM id left" cm_ids_empty
		ucmatose_once "$@"
	fi
	[ "$UC_RC" -eq 0 ] || fail "$1: ucmatose client exit status $UC_RC"
	[ "$UC_SRC" -eq 0 ] || fail "$1: ucmatose server exit status $UC_SRC"
	for f in "/tmp/$1.log" "/tmp/$1-server.log"; do
		grep -q 'data transfers complete' "$f" || fail "$f: no 'data transfers complete'"
		grep -q 'return status 0' "$f" || fail "$f: no 'return status 0'"
	done
	wait_for 10 "no CM id left after $1" cm_ids_empty
}
