#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The connection-setup benchmark, inside the UML VM (tools/bench/guest-init.sh
# runs it; tools/bench.sh boots the VM). In one boot it loads the stock
# rdma_cm/iw_cm/ib_cm and then ours, alternately (stock, ours, stock, ours...),
# and runs the same workloads against each:
#
#   siw   kernel driver (tests/bench/cm_bench.ko): serial connects, a
#         concurrency sweep, 1,000 and 10,000 connections from several tasks
#         (held, for kernel memory per connection, then torn down; the big
#         run is capped to what guest memory and host vm.max_map_count allow),
#         resolved
#         ids and listening ids (memory); stock cmtime through rdma_ucm
#   tcp   kernel TCP connect + 64-byte request/reply on the same veth pair
#         (the floor for an iWARP host-stack CM), same workloads
#   softrnic  our host-stack iWARP RNIC (drivers/softrnic; iw_cm makes its
#         TCP connections), our stack only (softrnic.ko needs our iw_cm; the
#         stock slots record it as n/a): the serial and sweep parts of siw's
#         workloads, with the kernel TCP floor on its own veth pair (tcp2)
#   rxe   kernel driver and cmtime, both stacks
#   softib  native InfiniBand (drivers/softib, ours; it loads on the stock
#         ib_core too): the kernel driver over IPoIB addresses, both stacks
#         (serial, concurrency sweep), the SA PathRecord queries a run of
#         connects costs (counted on the wire), and in the stock slots the
#         data path of dp_bench.ko over softib against rxe (both through
#         the stock CM)
#   null  the CM alone: the same driver over tests/bench/null_rnic.ko, an
#         iWARP RNIC that connects at once (no TCP, no MPA), so a connection
#         costs what rdma_cm, iw_cm and ib_core's verbs cost: a concurrency
#         sweep, then the same run with 1,000 and 10,000 other live
#         (resolved) ids, and with 100 and 1,000 other listeners
#   storm over rxe and softib: ORCM_BENCH_STORM connections held, torn down
#         at once and opened again at once (time, CM MADs, resends, SA
#         queries); over rxe, a connect to a dead peer with the in-tree
#         timers and (ours) with a ULP's 14/2
#
# Topology: netns bchA (client: vA 198.18.0.1, siwA) <== veth ==> netns bchB
# (server: vB 198.18.0.2, siwB). rxe works only in the initial namespace in
# 6.12 (its UDP socket lives there), so it gets its own veth end there,
# vR 198.18.2.1 with rxe0, and client and server share that one device.
# softrnic and siw cannot share a netdev (and softrnic shares siw's driver
# id), so softrnic gets a second veth pair between the same namespaces:
# bchA vC 198.18.3.1 (srA) <== veth ==> bchB vD 198.18.3.2 (srB); its
# devices are made in each ours slot after our iw_cm, and go with rmmod.
#
# softib: CAs ib0 on sA and ib1 on sB, a veth pair in the initial netns
# (one IB link), stock opensm on ib1's port (so that ib0's SA queries cross
# the link, where they are counted), set up once. In each slot, after the
# stack: stock ib_ipoib (it needs the slot's ib_cm), ib0's IPoIB netdev in
# bchA with 198.18.9.1, ib1's in bchB with 198.18.9.2; it goes before the
# stack does.
#
# Every result goes to the console as one "@@BENCH <record> key=value..." line;
# tools/bench/report.py turns them into the table, the JSON/CSV and the plot.
set -uo pipefail

: "${ORCM_BENCH_ROUNDS:=3}"           # rounds; stock first in odd ones, ours in even
: "${ORCM_BENCH_SERIAL:=200}"         # serial connections (latency)
: "${ORCM_BENCH_SWEEP:=1 4 16 64 256}" # concurrency levels of the sweep
: "${ORCM_BENCH_SWEEP_COUNT:=300}"    # connections per sweep point
: "${ORCM_BENCH_THREADS:=4}"          # tasks driving a concurrent run
: "${ORCM_BENCH_CONC:=64}"            # connections in flight, throughput runs
: "${ORCM_BENCH_COUNTS:=1000 10000}"  # throughput runs (held: memory)
: "${ORCM_BENCH_IDS:=1000}"           # resolved ids (memory per id)
: "${ORCM_BENCH_LISTENERS:=50}"       # listening ids (memory per listener)
: "${ORCM_BENCH_CMTIME_CONNS:=50}"    # connections per cmtime run (siw: <= 71)
: "${ORCM_BENCH_CMTIME_RUNS:=2}"      # cmtime runs per stack and round
: "${ORCM_BENCH_RXE:=1}"              # 0: skip rxe
: "${ORCM_BENCH_MEM_ROUNDS:=2}"       # rounds that also run the memory
                                      # workloads and the bigger throughput runs
                                      # (2: each stack first in one of them)
: "${ORCM_BENCH_STEP_TIMEOUT:=300}"   # seconds any one command may take
: "${ORCM_BENCH_SIW:=1}"              # 0: skip the siw and TCP workloads
: "${ORCM_BENCH_SOFTRNIC:=1}"         # 0: skip softrnic (ours only; runs
                                      # with the siw workloads, not alone)
: "${ORCM_BENCH_DP:=1}"               # 0: skip the data-path runs (softrnic against siw)
: "${ORCM_BENCH_DP_BIG:=8000}"        # 64 KiB messages per data-path run
: "${ORCM_BENCH_DP_SMALL:=204800}"    # 64 B messages per run (a multiple of 64)
: "${ORCM_BENCH_NULL:=1}"             # 0: skip the null RNIC (CM-only) runs
: "${ORCM_BENCH_NULL_COUNT:=2000}"    # connections per null run
: "${ORCM_BENCH_NULL_SWEEP:=1 16 64 256}" # in flight, null sweep
: "${ORCM_BENCH_NULL_CONC:=16}"       # in flight, null scaling runs
: "${ORCM_BENCH_NULL_IDS:=0 1000 10000}"  # other live ids, null scaling
: "${ORCM_BENCH_NULL_LISTENERS:=1 100 1000}" # listeners, null scaling
: "${ORCM_BENCH_NULL_MTU:=10 10000}"  # live connections, MTU change cost (0: skip)
: "${ORCM_BENCH_MTU_ROUNDS:=400}"     # MTU changes per measurement
: "${ORCM_BENCH_PROF_SERIAL:=1000}"   # serial softrnic/TCP setups, profiled
: "${ORCM_BENCH_SOFTIB:=1}"           # 0: skip softib (native InfiniBand)
: "${ORCM_BENCH_SOFTIB_SA:=200}"      # connects of the SA-count run (cold cache)
: "${ORCM_BENCH_STORM:=1000}"         # reconnect storm: connections (0: skip)
: "${ORCM_BENCH_DEAD:=1}"             # 1: connects to a dead peer over rxe
: "${ORCM_BENCH_REQ_WINDOW:=64}"      # ours: ib_cm.req_window (0: off, its default)

D=/run/orcm/debug/cm_bench
ACCT=/run/orcm/debug/cm_acct
FLOOR=/run/orcm/debug/cm_floor
MTUB=/run/orcm/debug/mtu_bench
TMPDIR=${TMPDIR:-/tmp}
MP=(modprobe -d "$ORCM_MODROOT" -S "$ORCM_KREL")
NS_C=bchA NS_S=bchB
ADDR_C=198.18.0.1 ADDR_S=198.18.0.2 ADDR_R=198.18.2.1 ADDR_N=198.18.4.2
# vR's peer end, in a namespace of its own with no RDMA device: it answers
# ARP and nothing else (the dead peer).
NS_D=bchD ADDR_RDEAD=198.18.2.9
ADDR_SRC=198.18.3.1 ADDR_SRS=198.18.3.2
PORT_RDMA=7000 PORT_TCP=8000 PORT_LMEM=9000 PORT_RXE=7100 PORT_NULL=7200
PORT_SR=7300 PORT_TCP_SR=8300
SOFTRNIC_KO=$ORCM_OURS_DIR/drivers/softrnic/softrnic.ko
PORT_CMTIME=7471 PORT_CMTIME_RXE=7472
SOFTIB_KO=$ORCM_OURS_DIR/drivers/softib/softib.ko
ADDR_IBC=198.18.9.1 ADDR_IBS=198.18.9.2 PORT_IB=7500 SM_PID=
STACK='' ROUND=0

emit() { echo "@@BENCH $*"; }
log() { echo "## [$(now)] $*"; }
now() { cut -d' ' -f1 /proc/uptime; }

# Profiling (ORCM_BENCH_PERF=1: the host samples the UML process with perf;
# see tools/bench/profile.py). The guest asks the host to record around each
# profiled pass, gives it each profiled run's window in wall-clock time,
# which UML's guest shares with its host, and the kernel's symbols (module
# addresses change as the stacks load) on a hostfs mount.
PROF=/run/orcm/prof
prof_init() {
	[ -n "${ORCM_BENCH_PROF_DIR:-}" ] || return 0
	mkdir -p $PROF
	mount -t hostfs -o "$ORCM_BENCH_PROF_DIR" none $PROF ||
		{ log "no hostfs mount for the profile"; ORCM_BENCH_PROF_DIR=; }
}
# prof_window RECORD-CONTEXT... -- NS COMMAND...: one driver command, not
# accounted, in a window for the host's sampler ("prof" record); then the
# driver's result lines, marked pass=prof (the report leaves them out).
prof_window() {
	local ctx=() t0 t1 ns rc=0
	while [ "$1" != -- ]; do ctx+=("$1"); shift; done
	ns=$2
	shift 2
	t0=$(date +%s.%N)
	kc "$ns" "$@" || rc=1
	srv_wait 0 || rc=1
	t1=$(date +%s.%N)
	emit "prof stack=$STACK round=$ROUND ${ctx[*]} t0=$t0 t1=$t1"
	results "${ctx[@]}" pass=prof
	return $rc
}
# prof_rec enable|disable: ask the host to start or stop sampling
# (tools/bench.sh, prof_relay); it polls every 50 ms.
PROF_SEQ=0
prof_rec() {
	[ -n "${ORCM_BENCH_PROF_DIR:-}" ] || return 0
	PROF_SEQ=$((PROF_SEQ + 1))
	: >"$PROF/req.$(printf %05d $PROF_SEQ).$1"
	sleep 0.3
}
prof_syms() {
	[ -n "${ORCM_BENCH_PROF_DIR:-}" ] || return 0
	cp /proc/kallsyms "$PROF/kallsyms-$STACK-$ROUND.txt"
}

# kc NS COMMAND...: one command to the driver, written by a task in netns NS
# ("-" = the initial namespace). The write returns when the command is done.
kc() {
	local ns=$1 rc=0
	shift
	if [ "$ns" = - ]; then
		timeout -k 5 "$ORCM_BENCH_STEP_TIMEOUT" sh -c "echo '$*' > $D/ctl" || rc=$?
	else
		timeout -k 5 "$ORCM_BENCH_STEP_TIMEOUT" ip netns exec "$ns" sh -c "echo '$*' > $D/ctl" || rc=$?
	fi
	[ "$rc" -eq 0 ] || log "command failed (rc=$rc) in $ns: $*"
	return "$rc"
}

# kc_threads NS THREADS COMMAND...: the same command from THREADS tasks at
# once; the driver makes them share one run (threads=THREADS).
kc_threads() {
	local ns=$1 n=$2 i pids=() rc=0
	shift 2
	for ((i = 0; i < n; i++)); do
		kc "$ns" "$* threads=$n" &
		pids+=($!)
	done
	for i in "${pids[@]}"; do wait "$i" || rc=1; done
	return $rc
}

# results CONTEXT...: emit the driver's result lines, then forget them.
results() {
	local line
	while IFS= read -r line; do
		case "$line" in
		*" op=listen "* | *" op=unlisten "* | "kind=tcp op=listen"* | "kind=tcp op=unlisten"*) ;;
		*) emit "res stack=$STACK round=$ROUND $* $line" ;;
		esac
	done <"$D/results"
	echo clear >"$D/ctl"
}

# ---- memory ------------------------------------------------------------------
# Quiet the machine before reading memory counters: earlier connections
# reaped, RCU-freed objects gone, reclaimable caches dropped.
settle() {
	srv_wait 0
	sleep 1
	echo 2 >/proc/sys/vm/drop_caches
	sleep 1
}
memsnap() { # PREFIX: kernel memory counters, in kB
	awk -v p="$1" '/^Slab:/ {s = $2} /^SUnreclaim:/ {u = $2} /^VmallocUsed:/ {v = $2}
		/^MemFree:/ {f = $2} /^MemAvailable:/ {a = $2}
		END {printf "%sslab_kb=%d %ssunreclaim_kb=%d %svmalloc_kb=%d %smemfree_kb=%d %smemavail_kb=%d",
			p, s, p, u, p, v, p, f, p, a}' /proc/meminfo
	# Slab pages of the debugging caches (kmemleak, debugobjects).
	awk -v p="$1" 'NR > 2 && ($1 == "kmemleak_object" || $1 == "debug_objects_cache") {d += $15 * $6 * 4}
		END {printf " %sdbgslab_kb=%d", p, d}' /proc/slabinfo
}
# The same while connections are held (the server's count is not 0).
settle_held() {
	sleep 1
	echo 2 >/proc/sys/vm/drop_caches
	sleep 1
}
slabs() { awk 'NR > 2 {print $1, $15 * $6 * 4}' /proc/slabinfo; }
# topslabs BEFORE AFTER: the caches that grew most, "name:kB,..."
topslabs() {
	awk 'NR == FNR {b[$1] = $2; next} {d = $2 - b[$1]; if (d > 0) print d, $1}' "$1" "$2" |
		sort -rn | head -n 8 | awk '{printf "%s%s:%d", (NR > 1 ? "," : ""), $2, $1}'
}

# kv "k=v k=v" KEY: the value of KEY.
kv() { echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }

# cap_count N KB_PER_CONN VMALLOC_PAGES_PER_CONN: CAP = N, or less if the
# guest's memory or the host's map count would run out (emits a limit record).
cap_count() {
	local want=$1 per=$2 pages=$3 avail vpages maxmap by_mem by_maps
	avail=$(awk '/^MemAvailable:/ {print $2}' /proc/meminfo)
	vpages=$(($(awk '/^VmallocUsed:/ {print $2}' /proc/meminfo) / 4))
	maxmap=${ORCM_BENCH_HOST_MAX_MAP:-65530}
	by_mem=$(((avail - 131072) * 4 / 5 / per))
	by_maps=$(((maxmap * 85 / 100 - vpages) / (pages > 0 ? pages : 1)))
	CAP=$want
	if [ "$by_mem" -lt "$CAP" ]; then
		CAP=$((by_mem / 500 * 500))
		emit "limit stack=$STACK round=$ROUND transport=siw what=conn requested=$want" \
			"used=$CAP reason=guest-memory avail_kb=$avail per_conn_kb=$per"
	fi
	if [ "$by_maps" -lt "$CAP" ]; then
		CAP=$((by_maps / 500 * 500))
		emit "limit stack=$STACK round=$ROUND transport=siw what=conn requested=$want" \
			"used=$CAP reason=host-vm.max_map_count max_map_count=$maxmap" \
			"vmalloc_pages_now=$vpages vmalloc_pages_per_conn=$pages"
	fi
}

# srv_wait N: wait (up to 60 s) until the server holds N connections.
srv_wait() {
	local i
	for ((i = 0; i < 600; i++)); do
		grep -q "srv_active=$1 " "$D/status" && return 0
		sleep 0.1
	done
	log "server holds $(grep -o 'srv_active=[0-9]*' "$D/status"), want $1"
	return 1
}

# ---- stacks --------------------------------------------------------------------
intree() { modinfo -b "$ORCM_MODROOT" -k "$ORCM_KREL" -n "$1"; }

load_stack() {
	local m f
	STACK=$1
	if [ "$STACK" = stock ]; then
		"${MP[@]}" rdma_ucm || return 1
	else
		for m in iw_cm ib_cm rdma_cm; do
			if [ $m = ib_cm ]; then
				# REQ pacing (ib_cm/pace.c): the window the bench runs with.
				insmod "$ORCM_OURS_DIR/$m/$m.ko" req_window="$ORCM_BENCH_REQ_WINDOW" || return 1
			else
				insmod "$ORCM_OURS_DIR/$m/$m.ko" || return 1
			fi
		done
		insmod "$(intree rdma_ucm)" || return 1
	fi
	# The in-tree modules carry no srcversion in sysfs (no MODULE_VERSION).
	for m in rdma_cm iw_cm ib_cm; do
		if [ "$STACK" = stock ]; then f=$(intree $m); else f=$ORCM_OURS_DIR/$m/$m.ko; fi
		if [ "$(cat /sys/module/$m/srcversion 2>/dev/null)" != "$(modinfo -F srcversion "$f")" ]; then
			log "the loaded $m is not the $STACK one"
			return 1
		fi
	done
	# shellcheck disable=SC2153 # ORCM_BENCH_KO comes from the env file
	insmod "$ORCM_BENCH_KO" max_server_conns=$((ORCM_BENCH_MAX_COUNT + 4096)) || return 1
	emit "stack stack=$STACK round=$ROUND" \
		"rdma_cm=$(cat /sys/module/rdma_cm/srcversion 2>/dev/null || echo in-tree)" \
		"iw_cm=$(cat /sys/module/iw_cm/srcversion 2>/dev/null || echo in-tree)" \
		"ib_cm=$(cat /sys/module/ib_cm/srcversion 2>/dev/null || echo in-tree) t=$(now)"
}

unload_stack() {
	local m rc=0
	for m in ib_ipoib dp_bench cm_bench softrnic rdma_ucm rdma_cm ib_cm iw_cm; do
		[ -d /sys/module/$m ] || continue
		rmmod $m || { log "rmmod $m failed"; rc=1; }
	done
	return $rc
}

# Kernel splats since the last call, one record per line that starts one.
check_splats() {
	local where=$1
	dmesg -c >"$TMPDIR/dmesg.txt" 2>/dev/null || return 0
	grep -E 'WARNING:|BUG:|BUG |KASAN|Oops|general protection|circular locking|possible recursive|INFO: task|refcount_t:|list_(add|del) corruption|UBSAN|Kernel panic|hung_task|INFO: lockdep|stack-out-of-bounds|use-after-free' \
		"$TMPDIR/dmesg.txt" | head -n 20 | while IFS= read -r l; do
		emit "splat where=$where text=$(echo "$l" | tr ' =' '_:' | cut -c1-300)"
	done
}

# UML's memory is a host file that the host fills on first touch: a page the
# guest touches for the first time costs a host page fault, which hardware
# does not know. Touch (almost) all free memory once, before any run, so
# that no workload pays for being the first to need fresh pages (the
# profile saw softrnic's serial setup pay 17 us of CPU per connection in
# new_slab before this, 2 us after).
prefault() {
	local kb
	kb=$(awk '/^MemFree:/ {print int($2 * 0.9)}' /proc/meminfo)
	mkdir -p /run/orcm/fill
	mount -t tmpfs -o size=$((kb + 1024))k tmpfs /run/orcm/fill || return 0
	dd if=/dev/zero of=/run/orcm/fill/f bs=1M count=$((kb / 1024)) 2>/dev/null
	rm -f /run/orcm/fill/f
	umount /run/orcm/fill
	log "prefaulted $((kb / 1024)) MiB"
}

# ---- topology ------------------------------------------------------------------
setup_net() {
	local n
	for m in ib_core ib_uverbs siw rdma_rxe veth; do "${MP[@]}" $m || return 1; done
	# CPU time by category (cm_bench and null_rnic mark their code for it).
	insmod "$ORCM_BENCH_ACCT_KO" count_locks="${ORCM_BENCH_ACCT_LOCKS:-0}" || return 1
	ip netns add $NS_C && ip netns add $NS_S || return 1
	ip link add vA netns $NS_C type veth peer name vB netns $NS_S || return 1
	for n in $NS_C $NS_S; do
		ip -n "$n" link set lo up
		# No TIME_WAIT sockets: they would pile up over the runs (ports,
		# and memory that drains while the memory is being measured).
		ip netns exec "$n" sysctl -qw net.ipv4.tcp_max_tw_buckets=0 \
			net.ipv4.ip_local_port_range="1025 65000" net.core.somaxconn=4096 \
			net.ipv4.tcp_max_syn_backlog=4096
	done
	ip -n $NS_C addr add $ADDR_C/24 dev vA
	ip -n $NS_S addr add $ADDR_S/24 dev vB
	ip -n $NS_C link set vA up
	ip -n $NS_S link set vB up
	ip netns exec $NS_C rdma link add siwA type siw netdev vA || return 1
	ip netns exec $NS_S rdma link add siwB type siw netdev vB || return 1
	if [ "$ORCM_BENCH_RXE" = 1 ]; then
		sysctl -qw net.ipv4.tcp_max_tw_buckets=0 net.core.somaxconn=4096
		ip link add vR type veth peer name vRp
		ip addr add $ADDR_R/24 dev vR
		ip link set vR up
		ip netns add $NS_D && ip link set vRp netns $NS_D &&
			ip -n $NS_D addr add $ADDR_RDEAD/24 dev vRp &&
			ip -n $NS_D link set vRp up || ORCM_BENCH_DEAD=0
		rdma link add rxe0 type rxe netdev vR || ORCM_BENCH_RXE=0
	fi
	if [ "$ORCM_BENCH_NULL" = 1 ]; then
		# The null RNIC on a veth end of its own in the initial netns,
		# both addresses on it (the driver loops connections locally).
		ip link add nR type veth peer name nRp
		ip addr add 198.18.4.1/24 dev nR
		ip addr add $ADDR_N/24 dev nR
		ip link set nR up
		ip link set nRp up
		insmod "$ORCM_BENCH_NULL_KO" netdev=nR || ORCM_BENCH_NULL=0
		# The floor of the CM's time (no CM: ib_core and the kernel only).
		insmod "$ORCM_BENCH_FLOOR_KO" || true
		# The netdev whose MTU null_mtu changes: no id is on it.
		ip link add mR type veth peer name mRp &&
			ip link set mR up && ip link set mRp up &&
			insmod "$ORCM_BENCH_MTU_KO" || ORCM_BENCH_NULL_MTU=
	fi
	if [ "$ORCM_BENCH_SIW" = 1 ] && [ "$ORCM_BENCH_SOFTRNIC" = 1 ]; then
		# softrnic's own veth pair between the same namespaces; its
		# devices come with our stack (softrnic_up).
		if ip link add vC netns $NS_C type veth peer name vD netns $NS_S &&
			ip -n $NS_C addr add $ADDR_SRC/24 dev vC &&
			ip -n $NS_S addr add $ADDR_SRS/24 dev vD &&
			ip -n $NS_C link set vC up && ip -n $NS_S link set vD up; then
			for n in 1 2 3 4 5 6 7 8 9 10; do
				ip netns exec $NS_C ping -c 1 -W 1 $ADDR_SRS >/dev/null 2>&1 && break
			done
		else
			emit "error what=softrnic-veth"
			ORCM_BENCH_SOFTRNIC=0
		fi
	fi
	for n in 1 2 3 4 5 6 7 8 9 10; do
		ip netns exec $NS_C ping -c 1 -W 1 $ADDR_S >/dev/null 2>&1 && break
	done
	if [ "$ORCM_BENCH_SOFTIB" = 1 ] && ! softib_fabric_up; then
		emit "error what=softib-fabric"
		ORCM_BENCH_SOFTIB=0
	fi
	rdma link show
}

# softrnic_up: load softrnic.ko on our iw_cm and make one device per end of
# its veth pair, each inside its namespace (as for siw). The iw_cm module
# parameters stay at their defaults; the record lists them.
softrnic_up() {
	local i p params=""
	[ -f "$SOFTRNIC_KO" ] || { log "softrnic: no $SOFTRNIC_KO"; return 1; }
	insmod "$SOFTRNIC_KO" || return 1
	ip netns exec $NS_C rdma link add srA type softrnic netdev vC || return 1
	ip netns exec $NS_S rdma link add srB type softrnic netdev vD || return 1
	for ((i = 0; i < 50; i++)); do
		rdma link show srA/1 2>/dev/null | grep -q 'state ACTIVE' &&
			rdma link show srB/1 2>/dev/null | grep -q 'state ACTIVE' && break
		sleep 0.1
	done
	for p in mpa_rev crc markers peer2peer p2p_type; do
		params+=" iw_cm.$p=$(cat /sys/module/iw_cm/parameters/$p 2>/dev/null || echo ?)"
	done
	emit "softrnic stack=$STACK round=$ROUND" \
		"srcversion=$(cat /sys/module/softrnic/srcversion 2>/dev/null || echo -)$params" \
		"links=$(rdma link show 2>/dev/null | grep -c '^link sr[AB]/')"
}

# softrnic_down: its devices go with the module.
softrnic_down() {
	[ -d /sys/module/softrnic ] || return 0
	rmmod softrnic || { log "rmmod softrnic failed"; return 1; }
}

# ---- data path: softrnic against siw, our stack ----------------------------
DPD=/run/orcm/debug/dp_bench
PORT_DP=7400

# dp NS COMMAND...: one command to dp_bench.ko from netns NS.
dp() {
	local ns=$1 rc=0
	shift
	if [ "$ns" = - ]; then
		timeout -k 5 "$ORCM_BENCH_STEP_TIMEOUT" sh -c "echo '$*' > $DPD/ctl" || rc=$?
	else
		timeout -k 5 "$ORCM_BENCH_STEP_TIMEOUT" ip netns exec "$ns" sh -c "echo '$*' > $DPD/ctl" || rc=$?
	fi
	[ "$rc" -eq 0 ] || log "dp_bench command failed (rc=$rc) in $ns: $*"
	return "$rc"
}

# dp_one TRANSPORT SERVER_ADDR [SERVER_NS CLIENT_NS]: the four runs over
# one connection each: WRITE and SEND, 64 KiB (bandwidth) and 64 B (message
# rate). The namespaces default to bchB and bchA ("-": the initial one).
dp_one() {
	local tr=$1 addr=$2 sns=${3:-$NS_S} cns=${4:-$NS_C} op size line rc=0
	dp "$sns" serve addr="$addr" port=$PORT_DP || return 1
	for op in write send; do
		for size in 65536 64; do
			if [ "$size" = 64 ]; then
				dp "$cns" run dst="$addr" port=$PORT_DP op=$op size=64 \
					count="$ORCM_BENCH_DP_SMALL" depth=64 || rc=1
			else
				dp "$cns" run dst="$addr" port=$PORT_DP op=$op size="$size" \
					count="$ORCM_BENCH_DP_BIG" depth=16 || rc=1
			fi
		done
	done
	dp "$sns" unserve || rc=1
	while IFS= read -r line; do
		emit "dp stack=$STACK round=$ROUND transport=$tr $line"
	done <"$DPD/results"
	echo clear >"$DPD/ctl"
	return $rc
}

# dp_alternate "T1 ARGS..." "T2 ARGS...": dp_one for both transports (each
# string: dp_one's arguments), T1 first in odd rounds, T2 first in even ones.
dp_alternate() {
	local rc=0 a=$1 b=$2 t
	[ $((ROUND % 2)) -eq 1 ] || { a=$2 b=$1; }
	insmod "$ORCM_BENCH_DP_KO" || return 1
	for t in "$a" "$b"; do
		[ -n "$t" ] || continue
		log "data path over ${t%% *} ($STACK CM): WRITE and SEND, 64 KiB x $ORCM_BENCH_DP_BIG and 64 B x $ORCM_BENCH_DP_SMALL"
		# shellcheck disable=SC2086 # the words of one dp_one call
		dp_one $t || rc=1
	done
	rmmod dp_bench || rc=1
	return $rc
}

# datapath_kernel: siw (vA/vB) and softrnic (vC/vD) over our stack.
datapath_kernel() { dp_alternate "siw $ADDR_S" "softrnic $ADDR_SRS"; }

# ---- workloads -----------------------------------------------------------------
siw_kernel() {
	local c t n before after memb mema per pages first

	kc $NS_S listen tag=L addr=$ADDR_S port=$PORT_RDMA backlog=1024 || return 1
	kc $NS_S tcp_listen tag=T addr=$ADDR_S port=$PORT_TCP backlog=1024 || return 1
	echo clear >"$D/ctl"

	log "siw serial: $ORCM_BENCH_SERIAL connections"
	kc $NS_C connect tag=serial dst=$ADDR_S port=$PORT_RDMA count="$ORCM_BENCH_SERIAL" window=1
	results transport=siw workload=serial conc=1 threads=1
	kc $NS_C tcp_connect tag=tserial dst=$ADDR_S port=$PORT_TCP count="$ORCM_BENCH_SERIAL" window=1
	results transport=tcp workload=serial conc=1 threads=1

	for c in $ORCM_BENCH_SWEEP; do
		t=$((c < ORCM_BENCH_THREADS ? c : ORCM_BENCH_THREADS))
		log "siw sweep: $ORCM_BENCH_SWEEP_COUNT connections, $c in flight, $t tasks"
		kc_threads $NS_C "$t" connect tag=sweep"$c" dst=$ADDR_S port=$PORT_RDMA \
			count="$ORCM_BENCH_SWEEP_COUNT" window="$c"
		results transport=siw workload=sweep conc="$c" threads="$t"
		kc $NS_C tcp_connect tag=tsweep"$c" dst=$ADDR_S port=$PORT_TCP \
			count="$ORCM_BENCH_SWEEP_COUNT" window="$c"
		results transport=tcp workload=sweep conc="$c" threads="$c"
	done

	# Resolved ids (no QP, no connection): memory per id.
	n=$ORCM_BENCH_IDS
	[ "$ROUND" -le "$ORCM_BENCH_MEM_ROUNDS" ] || n=0
	if [ "$n" -gt 0 ]; then
		log "siw: $n resolved ids (memory)"
		settle
		slabs >"$TMPDIR/slab0"
		memb=$(memsnap b_)
		kc $NS_C connect tag=ids dst=$ADDR_S port=$PORT_RDMA count="$n" window=64 stop=route hold=1
		settle
		slabs >"$TMPDIR/slab1"
		mema=$(memsnap a_)
		emit "mem stack=$STACK round=$ROUND transport=siw what=id count=$n $memb $mema" \
			"top=$(topslabs "$TMPDIR/slab0" "$TMPDIR/slab1")"
		kc $NS_C release tag=ids window=64
		results transport=siw workload=ids conc=64 threads=1
	fi

	# Listening ids, the stack's default backlog: memory per listener.
	n=$ORCM_BENCH_LISTENERS
	[ "$ROUND" -le "$ORCM_BENCH_MEM_ROUNDS" ] || n=0
	if [ "$n" -gt 0 ]; then
		log "siw: $n listening ids (memory)"
		settle
		slabs >"$TMPDIR/slab0"
		memb=$(memsnap b_)
		kc $NS_S listen tag=LM addr=$ADDR_S port=$PORT_LMEM count="$n" backlog=0
		settle
		slabs >"$TMPDIR/slab1"
		mema=$(memsnap a_)
		emit "mem stack=$STACK round=$ROUND transport=siw what=listen count=$n $memb $mema" \
			"top=$(topslabs "$TMPDIR/slab0" "$TMPDIR/slab1")"
		kc $NS_S unlisten tag=LM
		echo clear >"$D/ctl"
	fi

	# Throughput, held: memory per connection, then the teardown. A run
	# larger than the first is capped to what the guest's memory and the
	# host's vm.max_map_count allow (UML maps each vmalloc page of the
	# kernel with its own host mmap; siw's queues are vmalloc'd).
	t=$ORCM_BENCH_THREADS
	c=$ORCM_BENCH_CONC
	per=0 pages=0 first=1
	for n in $ORCM_BENCH_COUNTS; do
		[ "$first" = 1 ] || [ "$ROUND" -le "$ORCM_BENCH_MEM_ROUNDS" ] || break
		settle
		if [ "$first" = 0 ] && [ "$per" -gt 0 ]; then
			cap_count "$n" "$per" "$pages"
			n=$CAP
			[ "$n" -ge 500 ] || continue
		fi
		log "siw throughput: $n connections, $c in flight, $t tasks (held)"
		slabs >"$TMPDIR/slab0"
		memb=$(memsnap b_)
		kc_threads $NS_C "$t" connect tag=tput"$n" dst=$ADDR_S port=$PORT_RDMA \
			count="$n" window="$c" hold=1
		srv_wait "$n"
		settle_held
		slabs >"$TMPDIR/slab1"
		mema=$(memsnap a_)
		emit "mem stack=$STACK round=$ROUND transport=siw what=conn count=$n $memb $mema" \
			"top=$(topslabs "$TMPDIR/slab0" "$TMPDIR/slab1")"
		before=$(kv "$memb" b_memfree_kb)
		after=$(kv "$mema" a_memfree_kb)
		[ "$before" -gt "$after" ] && per=$(((before - after) / n + 1))
		before=$(kv "$memb" b_vmalloc_kb)
		after=$(kv "$mema" a_vmalloc_kb)
		[ "$after" -gt "$before" ] && pages=$((((after - before) / 4 + n / 2) / n))
		kc_threads $NS_C "$t" release tag=tput"$n" window="$c"
		results transport=siw workload=tput count="$n" conc="$c" threads="$t"
		srv_wait 0
		if [ "$first" = 1 ]; then
			kc $NS_C tcp_connect tag=ttput"$n" dst=$ADDR_S port=$PORT_TCP count="$n" window="$c"
			results transport=tcp workload=tput count="$n" conc="$c" threads="$c"
		fi
		first=0
	done

	kc $NS_S tcp_unlisten tag=T
	kc $NS_S unlisten tag=L
	echo clear >"$D/ctl"
}

# softrnic, our stack: the serial and sweep parts of siw_kernel over the
# second veth pair, each followed by the kernel TCP floor on that same pair
# (transport tcp2), so that every multiple of the floor compares runs made
# one after the other on one path.
softrnic_kernel() {
	local c t rc=0

	kc $NS_S listen tag=SL addr=$ADDR_SRS port=$PORT_SR backlog=1024 || return 1
	prof_syms
	if ! kc $NS_S tcp_listen tag=ST addr=$ADDR_SRS port=$PORT_TCP_SR backlog=1024; then
		kc $NS_S unlisten tag=SL
		return 1
	fi
	echo clear >"$D/ctl"

	log "softrnic serial: $ORCM_BENCH_SERIAL connections"
	kc $NS_C connect tag=sserial dst=$ADDR_SRS port=$PORT_SR count="$ORCM_BENCH_SERIAL" window=1 || rc=1
	results transport=softrnic workload=serial conc=1 threads=1
	kc $NS_C tcp_connect tag=tsserial dst=$ADDR_SRS port=$PORT_TCP_SR \
		count="$ORCM_BENCH_SERIAL" window=1 || rc=1
	results transport=tcp2 workload=serial conc=1 threads=1
	# Profiled (ORCM_BENCH_PERF): where a serial setup's CPU goes, and the
	# kernel TCP floor's, in more connections than above (for the samples).
	if [ -n "${ORCM_BENCH_PROF_DIR:-}" ]; then
		prof_rec enable
		prof_window workload=srserial count="$ORCM_BENCH_PROF_SERIAL" -- $NS_C connect \
			tag=spserial dst=$ADDR_SRS port=$PORT_SR count="$ORCM_BENCH_PROF_SERIAL" window=1 || rc=1
		prof_window workload=tcpserial count="$ORCM_BENCH_PROF_SERIAL" -- $NS_C tcp_connect \
			tag=tpserial dst=$ADDR_SRS port=$PORT_TCP_SR count="$ORCM_BENCH_PROF_SERIAL" \
			window=1 || rc=1
		prof_rec disable
	fi

	for c in $ORCM_BENCH_SWEEP; do
		t=$((c < ORCM_BENCH_THREADS ? c : ORCM_BENCH_THREADS))
		log "softrnic sweep: $ORCM_BENCH_SWEEP_COUNT connections, $c in flight, $t tasks"
		kc_threads $NS_C "$t" connect tag=ssweep"$c" dst=$ADDR_SRS port=$PORT_SR \
			count="$ORCM_BENCH_SWEEP_COUNT" window="$c" || rc=1
		results transport=softrnic workload=sweep conc="$c" threads="$t"
		kc $NS_C tcp_connect tag=tssweep"$c" dst=$ADDR_SRS port=$PORT_TCP_SR \
			count="$ORCM_BENCH_SWEEP_COUNT" window="$c" || rc=1
		results transport=tcp2 workload=sweep conc="$c" threads="$c"
	done

	kc $NS_S tcp_unlisten tag=ST || rc=1
	kc $NS_S unlisten tag=SL || rc=1
	srv_wait 0 || rc=1
	echo clear >"$D/ctl"
	return $rc
}

# cmtime_run TRANSPORT PORT SERVER_PREFIX... -- CLIENT_PREFIX...: one run of
# stock cmtime (server: -b addr; client: -s addr -c N), its step totals.
cmtime_run() {
	local transport=$1 addr=$2 port=$3 srvns=$4 clins=$5 spid out rc=0
	local in_s=() in_c=()
	[ "$srvns" = - ] || in_s=(ip netns exec "$srvns")
	[ "$clins" = - ] || in_c=(ip netns exec "$clins")
	out=$TMPDIR/cmtime.out
	timeout -k 2 120 "${in_s[@]}" cmtime -b "$addr" -p "$port" >"$TMPDIR/cmtime-srv.out" 2>&1 &
	spid=$!
	for _ in $(seq 50); do
		rdma res show cm_id 2>/dev/null | grep -q "state LISTEN .*:$port" && break
		sleep 0.1
	done
	timeout -k 2 90 "${in_c[@]}" cmtime -s "$addr" -p "$port" -c "$ORCM_BENCH_CMTIME_CONNS" >"$out" 2>&1 || rc=$?
	kill "$spid" 2>/dev/null
	wait "$spid" 2>/dev/null
	awk -v ctx="stack=$STACK round=$ROUND transport=$transport conns=$ORCM_BENCH_CMTIME_CONNS rc=$rc" '
		/^failure|^event:|ERROR/ {fails++}
		# "step: total-ms max-ms min-us us/conn" (max and min may run together)
		/^[a-z ]+: +[0-9.]+ / {
			split($0, kv, ":"); name = kv[1]; sub(/ +$/, "", name); gsub(/ /, "_", name)
			n = split(kv[2], f, " ")
			if (n >= 3) { total[name] = f[1]; perconn[name] = f[n]; names = names " " name }
		}
		END {
			line = "cmtime " ctx " fails=" fails + 0
			m = split(names, nm, " ")
			for (i = 1; i <= m; i++)
				line = line " " nm[i] "_ms=" total[nm[i]] " " nm[i] "_us_per_conn=" perconn[nm[i]]
			print "@@BENCH " line
		}' "$out"
	sed 's/^/## cmtime: /' "$out" | grep -v 'failure creating qp' | head -n 20
}

# sweep_runs TRANSPORT NS TAG DST PORT: the concurrency sweep from netns NS
# ("-": the initial one), $ORCM_BENCH_SWEEP_COUNT connections per level.
sweep_runs() {
	local tr=$1 ns=$2 tag=$3 dst=$4 port=$5 c t rc=0
	for c in $ORCM_BENCH_SWEEP; do
		t=$((c < ORCM_BENCH_THREADS ? c : ORCM_BENCH_THREADS))
		log "$tr sweep: $ORCM_BENCH_SWEEP_COUNT connections, $c in flight, $t tasks"
		kc_threads "$ns" "$t" connect tag="$tag$c" dst="$dst" port="$port" \
			count="$ORCM_BENCH_SWEEP_COUNT" window="$c" || rc=1
		results transport="$tr" workload=sweep conc="$c" threads="$t"
	done
	return $rc
}

rxe_kernel() {
	local t=$ORCM_BENCH_THREADS c=$ORCM_BENCH_CONC rc=0
	kc - listen tag=RX addr=$ADDR_R port=$PORT_RXE backlog=1024 || return 1
	echo clear >"$D/ctl"
	log "rxe serial: $ORCM_BENCH_SERIAL connections"
	kc - connect tag=rserial dst=$ADDR_R port=$PORT_RXE count="$ORCM_BENCH_SERIAL" window=1
	results transport=rxe workload=serial conc=1 threads=1
	sweep_runs rxe - rsweep $ADDR_R $PORT_RXE
	for n in $ORCM_BENCH_COUNTS; do
		[ "$n" -le 1000 ] || continue
		log "rxe throughput: $n connections, $c in flight, $t tasks"
		kc_threads - "$t" connect tag=rtput"$n" dst=$ADDR_R port=$PORT_RXE count="$n" window="$c"
		results transport=rxe workload=tput count="$n" conc="$c" threads="$t"
	done
	[ "$ORCM_BENCH_STORM" -gt 0 ] && { storm_run rxe - $ADDR_R $PORT_RXE || rc=1; }
	kc - unlisten tag=RX
	echo clear >"$D/ctl"
	[ "$ORCM_BENCH_DEAD" = 1 ] && { dead_peer || rc=1; }
	return $rc
}

# ---- reconnect storms and dead peers (issue 40) --------------------------------
# cm_mads: "SENT RESENT", the CM MADs every IB/RoCE port has sent (resends
# included) and its resends: ib_cm's counters in sysfs, the same files on
# both stacks.
cm_mads() {
	local f m n sent=0 re=0 out=''
	for f in /sys/class/infiniband/*/ports/*/cm_tx_msgs/*; do
		[ -r "$f" ] && sent=$((sent + $(cat "$f")))
	done
	for f in /sys/class/infiniband/*/ports/*/cm_tx_retries/*; do
		[ -r "$f" ] && re=$((re + $(cat "$f")))
	done
	# The resends of each message that waits for an answer.
	for m in req rep dreq; do
		n=0
		for f in /sys/class/infiniband/*/ports/*/cm_tx_retries/"$m"; do
			[ -r "$f" ] && n=$((n + $(cat "$f")))
		done
		out+=" $n"
	done
	echo "$sent $re$out"
}

# storm_run TRANSPORT NS DST PORT: the reconnect storm. ORCM_BENCH_STORM
# connections are established and held, then torn down all at once (what a
# ULP does once a link flap has put its QPs in error) and opened again all at
# once, every one in flight together. Recorded: the wall time of the
# reconnect (the command returns once the last is ESTABLISHED), the
# connections established, the CM MADs the ports sent for them and how many
# of those were resends (REQ, REP and RTU are 3 a connection with none), and
# on softib the SA PathRecord queries that reached the SM's port.
storm_run() {
	local t=$1 ns=$2 dst=$3 port=$4 n=$ORCM_BENCH_STORM pid='' t0 t1 ok q='-'
	local s0 r0 s1 r1 q0 q1 p0 p1 d0 d1
	log "$t storm: $n connections held, torn down at once, opened again at once"
	echo clear >"$D/ctl"
	kc "$ns" connect tag="${t}st0" dst="$dst" port="$port" count="$n" window="$n" hold=1 timeout=280 || true
	kc "$ns" release tag="${t}st0" window="$n" || true
	srv_wait 0
	echo clear >"$D/ctl"
	if [ "$t" = softib ]; then
		madcount_start "$TMPDIR/stormcount.out"
		pid=$MC_PID
	fi
	# shellcheck disable=SC2046 # two words
	set -- $(cm_mads)
	s0=$1 r0=$2 q0=$3 p0=$4 d0=$5
	t0=$(date +%s%N)
	kc "$ns" connect tag="${t}storm" dst="$dst" port="$port" count="$n" window="$n" hold=1 timeout=280 || true
	t1=$(date +%s%N)
	# shellcheck disable=SC2046
	set -- $(cm_mads)
	s1=$1 r1=$2 q1=$3 p1=$4 d1=$5
	if [ -n "$pid" ]; then
		kill -TERM "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		q=$(awk '$1 == "pathrecord_queries" { print $2 }' "$TMPDIR/stormcount.out")
	fi
	ok=$(kv "$(grep -m 1 ' op=connect ' "$D/results")" ok)
	emit "storm stack=$STACK round=$ROUND transport=$t conns=$n ok=${ok:-0}" \
		"ms=$(((t1 - t0) / 1000000)) mads=$((s1 - s0)) resends=$((r1 - r0))" \
		"req_resends=$((q1 - q0)) rep_resends=$((p1 - p0)) dreq_resends=$((d1 - d0))" \
		"sa_queries=${q:--}"
	kc "$ns" release tag="${t}storm" window="$n" || true
	srv_wait 0
	echo clear >"$D/ctl"
}

# dead_peer: connects over rxe0 to a peer that answers ARP and nothing else
# (ADDR_RDEAD): how long until UNREACHABLE, with the in-tree timers (round 1
# only: about a minute a connect) and, on ours, with the ULP's 14 and 2
# (orcm_rdma_set_cm_timers(); in-tree has no such call: not applicable).
dead_peer() {
	local tag timers t0 t1 line
	for timers in default tuned; do
		[ "$timers" = default ] && [ "$ROUND" != 1 ] && continue
		if [ "$timers" = tuned ] && [ "$STACK" = stock ]; then
			emit "na stack=$STACK round=$ROUND transport=deadpeer reason=in-tree-fixes-the-cm-timers"
			continue
		fi
		tag=dead$timers
		set -- dst=$ADDR_RDEAD src=$ADDR_R port=$PORT_RXE timeout=200
		[ "$timers" = tuned ] && set -- "$@" cm_timeout=14 cm_retries=2
		log "dead peer ($timers timers)"
		t0=$(date +%s%N)
		kc - connect tag="$tag" "$@" || true
		t1=$(date +%s%N)
		line=$(grep -m 1 ' op=connect ' "$D/results")
		emit "deadpeer stack=$STACK round=$ROUND timers=$timers ms=$(((t1 - t0) / 1000000))" \
			"fail=$(kv "$line" fail) err=$(kv "$line" err)"
		echo clear >"$D/ctl"
	done
}

# ---- softib: native InfiniBand -------------------------------------------------
# sib_state DEV: the port's state word as `rdma link` prints it.
sib_state() { rdma link show "$1/1" 2>/dev/null | sed -n 's/.* state \([A-Z_]*\).*/\1/p'; }

# softib_fabric_up: the two CAs on their veth pair and stock opensm on ib1's
# port, until both ports are ACTIVE (once, before the first slot).
softib_fabric_up() {
	local g i
	command -v opensm >/dev/null || { log "softib: no opensm"; return 1; }
	[ -f "$SOFTIB_KO" ] || { log "softib: no $SOFTIB_KO"; return 1; }
	"${MP[@]}" rdmavt && "${MP[@]}" ib_umad && insmod "$SOFTIB_KO" || return 1
	ip link add sA type veth peer name sB || return 1
	for i in sA sB; do ip link set $i mtu 9000 && ip link set $i up || return 1; done
	rdma link add ib0 type softib netdev sA && rdma link add ib1 type softib netdev sB || return 1
	g=$(cat /sys/class/infiniband/ib1/node_guid)
	mkdir -p "$TMPDIR/opensm-cache"
	OSM_CACHE_DIR=$TMPDIR/opensm-cache opensm -g "0x${g//:/}" -f "$TMPDIR/opensm.log" \
		-s 10 >"$TMPDIR/opensm.out" 2>&1 &
	SM_PID=$!
	for ((i = 0; i < 600; i++)); do
		[ "$(sib_state ib0)" = ACTIVE ] && [ "$(sib_state ib1)" = ACTIVE ] && break
		sleep 0.1
	done
	rdma link show ib0/1 ib1/1 2>/dev/null
	if [ "$(sib_state ib0)" != ACTIVE ] || [ "$(sib_state ib1)" != ACTIVE ]; then
		tail -n 20 "$TMPDIR/opensm.log"
		return 1
	fi
	emit "softib srcversion=$(cat /sys/module/softib/srcversion 2>/dev/null || echo -)" \
		"opensm=$(dpkg-query -W -f='${Version}' opensm 2>/dev/null)" \
		"lid0=$(rdma link show ib0/1 | sed -n 's/.* lid \([0-9]*\) .*/\1/p')" \
		"lid1=$(rdma link show ib1/1 | sed -n 's/.* lid \([0-9]*\) .*/\1/p')"
}

# sib_ipoib_of DEV: the IPoIB netdev (in the initial netns) whose hardware
# address ends with DEV's port GUID.
sib_ipoib_of() {
	local g n a
	g=$(tr -d ':' <"/sys/class/infiniband/$1/node_guid")
	for n in /sys/class/net/*; do
		[ "$(cat "$n/type" 2>/dev/null)" = 32 ] || continue
		a=$(tr -d ':' <"$n/address")
		[ "${a: -16}" = "$g" ] && { echo "${n##*/}"; return 0; }
	done
	return 1
}

# softib_ipoib_up: stock ib_ipoib on the slot's stack, ib0's netdev in
# bchA, ib1's in bchB, both with carrier (the broadcast group joined
# through the SA) and an ARP entry each way.
softib_ipoib_up() {
	local i0='' i1='' i
	"${MP[@]}" ib_ipoib || return 1
	for ((i = 0; i < 100; i++)); do
		i0=$(sib_ipoib_of ib0) && i1=$(sib_ipoib_of ib1) && break
		sleep 0.1
	done
	if [ -z "$i0" ] || [ -z "$i1" ]; then
		log "softib: no IPoIB netdevs"
		return 1
	fi
	ip link set "$i0" netns $NS_C && ip link set "$i1" netns $NS_S || return 1
	ip -n $NS_C addr add $ADDR_IBC/24 dev "$i0" && ip -n $NS_C link set "$i0" up &&
		ip -n $NS_S addr add $ADDR_IBS/24 dev "$i1" && ip -n $NS_S link set "$i1" up || return 1
	for ((i = 0; i < 200; i++)); do
		ip netns exec $NS_C ping -c 1 -W 1 $ADDR_IBS >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	log "softib: no ping over IPoIB ($i0 -> $i1)"
	return 1
}

# softib_ipoib_down: ib_ipoib goes (its netdevs with it), before the stack.
softib_ipoib_down() {
	[ -d /sys/module/ib_ipoib ] || return 0
	rmmod ib_ipoib || { log "rmmod ib_ipoib failed"; return 1; }
}

# madcount_start OUT: tests/e2e/softib-madcount.py counting on sB (the SM's
# port) into OUT, once it listens; its pid in MC_PID.
madcount_start() {
	local i
	python3 "$ORCM_REPO/tests/e2e/softib-madcount.py" sB >"$1" 2>&1 &
	MC_PID=$!
	for ((i = 0; i < 100; i++)); do
		grep -q listening "$1" && break
		sleep 0.1
	done
}

# softib_sa_count N: N connects (16 in flight) with a cold path cache (the
# first run of the slot: our rdma_cm was just loaded), the SA PathRecord
# queries they cost counted on sB, the SM's port, by
# tests/e2e/softib-madcount.py (one per transaction id, resends not counted).
softib_sa_count() {
	local n=$1 pid q mads ok drops
	madcount_start "$TMPDIR/madcount.out"
	pid=$MC_PID
	kc $NS_C connect tag=ibsa dst=$ADDR_IBS port=$PORT_IB count="$n" window=16
	kill -TERM "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	q=$(awk '$1 == "pathrecord_queries" { print $2 }' "$TMPDIR/madcount.out")
	mads=$(awk '$1 == "sa_mads" { print $2 }' "$TMPDIR/madcount.out")
	drops=$(awk '$1 == "drops" { print $2 }' "$TMPDIR/madcount.out")
	[ "${drops:-0}" = 0 ] || log "softib SA count: the counter's socket dropped $drops frames"
	ok=$(kv "$(grep -m 1 ' op=connect ' "$D/results")" ok)
	emit "sa stack=$STACK round=$ROUND transport=softib conns=$n ok=${ok:-0}" \
		"pathrecord_queries=${q:--} sa_mads=${mads:--} drops=${drops:--}"
	results transport=softib workload=sacount conc=16 threads=1
}

# softib_kernel: the kernel driver over IPoIB addresses (bchA -> bchB), the
# SA count first (cold cache), then serial and the sweep (warm cache).
softib_kernel() {
	local rc=0
	softib_ipoib_up || { softib_ipoib_down; return 1; }
	kc $NS_S listen tag=IB addr=$ADDR_IBS port=$PORT_IB backlog=1024 || rc=1
	echo clear >"$D/ctl"
	log "softib SA count: $ORCM_BENCH_SOFTIB_SA connections, 16 in flight"
	softib_sa_count "$ORCM_BENCH_SOFTIB_SA"
	log "softib serial: $ORCM_BENCH_SERIAL connections"
	kc $NS_C connect tag=ibserial dst=$ADDR_IBS port=$PORT_IB count="$ORCM_BENCH_SERIAL" window=1 || rc=1
	results transport=softib workload=serial conc=1 threads=1
	sweep_runs softib $NS_C ibsweep $ADDR_IBS $PORT_IB || rc=1
	[ "$ORCM_BENCH_STORM" -gt 0 ] && { storm_run softib $NS_C $ADDR_IBS $PORT_IB || rc=1; }
	kc $NS_S unlisten tag=IB || rc=1
	srv_wait 0 || rc=1
	echo clear >"$D/ctl"
	if [ -r /run/orcm/debug/rdma_cm/path_cache ]; then
		emit "pathcache stack=$STACK round=$ROUND" \
			"$(awk '{printf "%s%s=%s", (NR > 1 ? " " : ""), $1, $2}' /run/orcm/debug/rdma_cm/path_cache)"
	fi
	# The data path through the stock CM: softib (ib0 -> ib1 over the
	# veth pair) against rxe (rxe0, client and server on it), the order
	# alternating with the rounds.
	if [ "$STACK" = stock ] && [ "$ORCM_BENCH_DP" = 1 ]; then
		softib_dp || rc=1
	fi
	softib_ipoib_down || rc=1
	return $rc
}

softib_dp() {
	if [ "$ORCM_BENCH_RXE" = 1 ]; then
		dp_alternate "softib $ADDR_IBS $NS_S $NS_C" "rxe $ADDR_R - -"
	else
		dp_alternate "softib $ADDR_IBS $NS_S $NS_C" ""
	fi
}

# null_run RECORD-CONTEXT... -- CONNECT-ARGS...: one null connect run, from
# the command until the server has reaped every connection it accepted, then
# the driver's result lines. NULL_MODE=acct: the CPU time accounted
# (cm_acct.ko), one "acct" record with the same context; NULL_MODE=prof: not
# accounted (cm_acct's probes cost about as much as a CM and would be in the
# profile), one "prof" record with the run's wall-clock window for the host's
# sampler (tools/bench/profile.py).
NULL_MODE=acct
null_run() {
	local ctx=()
	while [ "$1" != -- ]; do ctx+=("$1"); shift; done
	shift
	if [ "$NULL_MODE" = prof ]; then
		prof_window "${ctx[@]}" -- - connect "$@"
		return
	fi
	echo start >"$ACCT"
	kc - connect "$@"
	srv_wait 0
	echo stop >"$ACCT"
	emit "acct stack=$STACK round=$ROUND ${ctx[*]} $(cat "$ACCT")"
	results "${ctx[@]}"
}

# The floor of a connection's CM time (cm_floor.ko: the generic kernel
# work every CM does, done without one), accounted like a null run.
null_floor() {
	local k=$ORCM_BENCH_NULL_COUNT
	[ -e "$FLOOR" ] || return 0
	log "null floor: $k connections' generic work, no CM"
	echo start >"$ACCT"
	if ! echo "dev=nullrnic0 dst=$ADDR_N count=$k" >"$FLOOR"; then
		echo stop >"$ACCT"
		emit "error stack=$STACK round=$ROUND what=floor"
		return 0
	fi
	echo stop >"$ACCT"
	emit "acct stack=$STACK round=$ROUND transport=null workload=nfloor count=$k $(cat "$ACCT")"
}

# The null workloads (NULL_MODE says how they are measured): the sweep, then
# the scaling runs (other live ids; other listeners).
null_workloads() {
	local c n k=$ORCM_BENCH_NULL_COUNT w=$ORCM_BENCH_NULL_CONC
	for c in $ORCM_BENCH_NULL_SWEEP; do
		log "null sweep ($NULL_MODE): $k connections, $c in flight"
		null_run transport=null workload=nsweep conc="$c" threads=1 count="$k" -- \
			tag=nsw"$c" dst=$ADDR_N port=$PORT_NULL count="$k" window="$c"
	done
	for n in $ORCM_BENCH_NULL_IDS; do
		if [ "$n" -gt 0 ]; then
			kc - connect tag=nidle dst=$ADDR_N port=$((PORT_NULL + 1)) count="$n" \
				window=256 stop=route hold=1 timeout=600
			echo clear >"$D/ctl"
		fi
		log "null ($NULL_MODE) with $n other live ids: $k connections, $w in flight"
		null_run transport=null workload=nids ids="$n" conc="$w" threads=1 count="$k" -- \
			tag=nid"$n" dst=$ADDR_N port=$PORT_NULL count="$k" window="$w"
		[ "$n" -eq 0 ] || kc - release tag=nidle
	done
	for n in $ORCM_BENCH_NULL_LISTENERS; do
		[ "$n" -le 1 ] || kc - listen tag=NLL addr=$ADDR_N port=$((PORT_NULL + 100)) \
			count=$((n - 1)) backlog=16
		log "null ($NULL_MODE) with $n listeners: $k connections, $w in flight"
		null_run transport=null workload=nlisten listeners="$n" conc="$w" threads=1 \
			count="$k" -- tag=nl"$n" dst=$ADDR_N port=$PORT_NULL count="$k" window="$w"
		[ "$n" -le 1 ] || kc - unlisten tag=NLL
	done
}

# The cost of one MTU change (tests/bench/mtu_bench.ko: dev_set_mtu() timed
# under RTNL, every netdev notifier included) on mR, a netdev no id is on,
# with N live connections held over the null RNIC's netdev nR (client and
# server ids: 2N ids on nR). rdma_cm's notifier looks up mR's entry of its
# index and visits nothing: the cost should not grow with N. The stock CM
# has no MTU tracking; its figures are the cost of the rest of the chain.
null_mtu() {
	local n r
	for n in $ORCM_BENCH_NULL_MTU; do
		[ "$n" -gt 0 ] || continue
		kc - connect tag=nmtu dst=$ADDR_N port=$PORT_NULL count="$n" \
			window=256 hold=1 timeout=600
		echo clear >"$D/ctl"
		log "mtu change of mR with $n live connections on nR"
		if echo "dev=mR mtu=1400,1500 rounds=$ORCM_BENCH_MTU_ROUNDS" \
			>"$MTUB/ctl" && r=$(cat "$MTUB/results") && [ -n "$r" ]; then
			emit "mtu stack=$STACK round=$ROUND conns=$n $r"
		else
			emit "error stack=$STACK round=$ROUND what=mtu conns=$n"
		fi
		kc - release tag=nmtu
		srv_wait 0
	done
}

# The CM alone, over the null RNIC (initial namespace). A warm-up run, the
# floor, the workloads accounted, then (ORCM_BENCH_PERF) the same workloads
# sampled from the host.
null_kernel() {
	kc - listen tag=NL addr=$ADDR_N port=$PORT_NULL backlog=1024 || return 1
	prof_syms
	kc - connect tag=nwarm dst=$ADDR_N port=$PORT_NULL count=200 window=16
	echo clear >"$D/ctl"
	null_floor
	NULL_MODE=acct
	null_workloads
	if [ -n "${ORCM_BENCH_PROF_DIR:-}" ]; then
		NULL_MODE=prof
		prof_rec enable
		null_workloads
		prof_rec disable
		NULL_MODE=acct
	fi
	# Storms: 5,000 at 256 in flight (every one must be established: the
	# driver fails a connection on any event out of its order), and at a
	# listener whose backlog is 8 (refusals are counted, none may hang).
	[ -z "$ORCM_BENCH_NULL_MTU" ] || null_mtu
	log "null storm: 5000 connections, 256 in flight"
	kc - connect tag=nstorm dst=$ADDR_N port=$PORT_NULL count=5000 window=256
	results transport=null workload=nstorm conc=256 threads=1
	kc - listen tag=NLB addr=$ADDR_N port=$((PORT_NULL + 2)) backlog=8 || return 1
	log "null storm at backlog 8: 1000 connections, 256 in flight"
	kc - connect tag=nbacklog dst=$ADDR_N port=$((PORT_NULL + 2)) count=1000 window=256
	results transport=null workload=nbacklog conc=256 threads=1
	kc - unlisten tag=NLB
	kc - unlisten tag=NL
	echo clear >"$D/ctl"
}

# ---- main ----------------------------------------------------------------------
ORCM_BENCH_MAX_COUNT=0
for n in $ORCM_BENCH_COUNTS $ORCM_BENCH_SERIAL $ORCM_BENCH_SWEEP_COUNT $ORCM_BENCH_IDS \
	$ORCM_BENCH_NULL_COUNT $ORCM_BENCH_NULL_IDS $ORCM_BENCH_NULL_MTU; do
	[ "$n" -gt "$ORCM_BENCH_MAX_COUNT" ] && ORCM_BENCH_MAX_COUNT=$n
done
# Warnings and worse reach the console; the driver's info lines do not.
echo 5 >/proc/sys/kernel/printk
emit "info kernel=$(uname -r) mem_kb=$(awk '/^MemTotal:/ {print $2}' /proc/meminfo)" \
	"cpus=$(nproc) rounds=$ORCM_BENCH_ROUNDS serial=$ORCM_BENCH_SERIAL" \
	"sweep=$(echo "$ORCM_BENCH_SWEEP" | tr ' ' ,) sweep_count=$ORCM_BENCH_SWEEP_COUNT" \
	"threads=$ORCM_BENCH_THREADS conc=$ORCM_BENCH_CONC counts=$(echo "$ORCM_BENCH_COUNTS" | tr ' ' ,)" \
	"ids=$ORCM_BENCH_IDS listeners=$ORCM_BENCH_LISTENERS cmtime_conns=$ORCM_BENCH_CMTIME_CONNS" \
	"cmtime_runs=$ORCM_BENCH_CMTIME_RUNS mem_rounds=$ORCM_BENCH_MEM_ROUNDS cmtime=$(dpkg-query -W -f='${Version}' rdmacm-utils 2>/dev/null)" \
	"softrnic=$((ORCM_BENCH_SIW == 1 && ORCM_BENCH_SOFTRNIC == 1)) softib=$ORCM_BENCH_SOFTIB" \
	"softib_sa=$ORCM_BENCH_SOFTIB_SA storm=$ORCM_BENCH_STORM dead=$ORCM_BENCH_DEAD" \
	"req_window=$ORCM_BENCH_REQ_WINDOW"
prof_init
prefault
setup_net || { emit "error what=setup"; exit 1; }
check_splats setup

# The order of the stacks alternates from round to round (stock first in
# odd rounds), so that neither always runs on a warmer or a more fragmented
# machine.
for ((ROUND = 1; ROUND <= ORCM_BENCH_ROUNDS; ROUND++)); do
	order="stock ours"
	[ $((ROUND % 2)) -eq 1 ] || order="ours stock"
	for s in $order; do
		emit "slot-begin stack=$s round=$ROUND t=$(now)"
		if ! load_stack "$s"; then
			emit "error stack=$s round=$ROUND what=load"
			unload_stack
			check_splats "$s/$ROUND"
			continue
		fi
		if [ "$ORCM_BENCH_NULL" = 1 ]; then
			null_kernel || emit "error stack=$s round=$ROUND what=null_kernel"
			check_splats "$s/$ROUND/null"
		fi
		if [ "$ORCM_BENCH_SIW" = 1 ]; then
			siw_kernel || emit "error stack=$s round=$ROUND what=siw_kernel"
			check_splats "$s/$ROUND/siw"
			for ((i = 1; i <= ORCM_BENCH_CMTIME_RUNS; i++)); do
				cmtime_run siw $ADDR_S $PORT_CMTIME $NS_S $NS_C
			done
		fi
		# softrnic after siw's workloads, so that siw's stock and ours
		# slots run under the same conditions.
		if [ "$ORCM_BENCH_SIW" = 1 ] && [ "$ORCM_BENCH_SOFTRNIC" = 1 ]; then
			if [ "$s" = stock ]; then
				log "softrnic: skipped on the stock stack (softrnic.ko needs our iw_cm)"
				emit "na stack=$s round=$ROUND transport=softrnic reason=needs-our-iw_cm"
			elif softrnic_up; then
				softrnic_kernel || emit "error stack=$s round=$ROUND what=softrnic_kernel"
				if [ "$ORCM_BENCH_DP" = 1 ]; then
					datapath_kernel || emit "error stack=$s round=$ROUND what=datapath"
				fi
			else
				emit "error stack=$s round=$ROUND what=softrnic_up"
			fi
			softrnic_down || emit "error stack=$s round=$ROUND what=softrnic_down"
			check_splats "$s/$ROUND/softrnic"
		fi
		if [ "$ORCM_BENCH_RXE" = 1 ]; then
			rxe_kernel || emit "error stack=$s round=$ROUND what=rxe_kernel"
			for ((i = 1; i <= ORCM_BENCH_CMTIME_RUNS; i++)); do
				cmtime_run rxe $ADDR_R $PORT_CMTIME_RXE - -
			done
		fi
		if [ "$ORCM_BENCH_SOFTIB" = 1 ]; then
			softib_kernel || emit "error stack=$s round=$ROUND what=softib_kernel"
			check_splats "$s/$ROUND/softib"
		fi
		unload_stack || emit "error stack=$s round=$ROUND what=unload"
		check_splats "$s/$ROUND"
		emit "slot-end stack=$s round=$ROUND t=$(now)"
	done
done

[ -z "$SM_PID" ] || kill "$SM_PID" 2>/dev/null

# Leaks: kmemleak ignores objects younger than 5 s.
if [ -w /sys/kernel/debug/kmemleak ]; then
	sleep 6
	echo scan >/sys/kernel/debug/kmemleak
	echo scan >/sys/kernel/debug/kmemleak
	n=$(grep -c '^unreferenced object' /sys/kernel/debug/kmemleak)
	emit "kmemleak count=$n"
	head -n 200 /sys/kernel/debug/kmemleak | sed 's/^/@@BENCH kmemleak-line /'
fi
check_splats end
emit "end t=$(now)"
