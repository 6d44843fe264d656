# SPDX-License-Identifier: GPL-2.0
# Helpers for the softib tests (sourced after lib.bash).
#
#   sib_stock_check       on the stock stack: skip (a device test)
#   sib_load              rdmavt from the modroot, then our softib.ko
#   sib_pair [MTU]        veth vA <=> vB (init namespace, MTU default 9000)
#                         with softib ib0 on vA and ib1 on vB
#   sib_drops DEV REASON  that drop counter of DEV (debugfs)
#   sib_cm_netem DEV LOSS [MATCH...]  netem loss on the CM MADs leaving DEV
#   mc_start NAME DEV / mc_stop NAME  count SA PathRecord queries on DEV
#   sib_subnet_up         sib_pair under stock opensm, both ports ACTIVE
#   sib_subnet_start TRAP the same, with the caller's EXIT trap
#   sib_ipoib_up          stock IPoIB on both CAs: $SIB_I0 (ib0's) with
#                         198.18.9.1/24 here, $SIB_I1 (ib1's) with
#                         198.18.9.2/24 in netns $NS_B
#   sib_fabric N [PORTS]  switch sw0 (PORTS, default 8) and CAs ib0..ibN-1,
#                         ibK on veth vAK <=> vS(K+1), the switch's port K+1
#   sib_fabric_sm         opensm on ib0, until every CA of the fabric is ACTIVE
#   sib_fabric_up N       sib_fabric, then sib_fabric_sm
#   sib_veth A B          a veth pair A <=> B at MTU 9000, both up (the
#                         netdevs deleted at exit)
#   ipoib_mode NS DEV MODE  IPoIB netdev DEV (in netns NS, - here) to MODE
#                         (datagram, connected: MTU 65520), checked
#   rc_psns DEV           "QPN rq-psn" of each RC QP of ib_ipoib on DEV
#   pc KEY                one counter of our rdma_cm's path cache ($PC)
# shellcheck shell=bash disable=SC2034

SIB_KO=${ORCM_OURS_DIR:-/nonexistent}/drivers/softib/softib.ko
SIB_DEBUGFS=/sys/kernel/debug/softib
SIB_SWITCH=/sys/class/softib_switch
PC=/sys/kernel/debug/rdma_cm/path_cache
pc() { awk -v k="$1" '$1 == k { print $2 }' "$PC"; }
SIB_FABRIC_CAS=() SIB_FABRIC_NETDEVS=()

# The device tests of softib (softib-dev, -opensm, -ipoib, -rc) test our
# driver, not a CM: they run on our stack only. softib itself is a driver
# that loads on the stock ib_core too, and the stock VM runs softib's CM
# tests (softib-cm) with it, so it may be loaded there already.
sib_stock_check() {
	[ "${ORCM_STACK:-}" != stock ] ||
		skip "a device test of softib (our driver, not a CM): the VM with our stack runs it; the stock VM runs softib-cm"
}

sib_load() {
	[ -d /sys/module/softib ] && return 0
	[ -f "$SIB_KO" ] || fail "no $SIB_KO"
	[ -d /sys/module/rdmavt ] ||
		modprobe -d "$ORCM_MODROOT" -S "$ORCM_KREL" rdmavt || fail "modprobe rdmavt"
	insmod "$SIB_KO" || fail "insmod $SIB_KO"
}

sib_cleanup() {
	local d p t0=$SECONDS
	# First what may hold a device open (an unregistration waits for it).
	for p in "${BG_PIDS[@]}"; do kill -KILL "$p" 2>/dev/null || true; done
	sib_links_down
	for d in ib0 ib1 ib2 ibS "${SIB_FABRIC_CAS[@]}"; do
		[ ! -e "/sys/class/infiniband/$d" ] || rdma link delete "$d" 2>/dev/null || true
	done
	local sws=()
	[ ! -e "$SIB_SWITCH/switches" ] || read -ra sws <"$SIB_SWITCH/switches" || true
	for d in "${sws[@]}"; do echo "-$d" >"$SIB_SWITCH/switches" || true; done
	for d in vA vC vS "${SIB_FABRIC_NETDEVS[@]}"; do
		[ ! -e "/sys/class/net/$d" ] || ip link delete "$d" 2>/dev/null || true
	done
	[ "$((SECONDS - t0))" -lt 10 ] || say "cleanup: $((SECONDS - t0)) s"
	cleanup
}
trap sib_cleanup EXIT

# sib_links_down: every softib netdev down, then up to 3 s for the CAs'
# ports to leave ACTIVE. A port that goes away ACTIVE makes ib_core's
# multicast client leave each group through the SA, and with the SM stopped
# (as at the end of a test) the unregistration waits in mcast_remove_one for
# every leave to time out, 14 s; on a port that is DOWN the groups are
# dropped at once. (The same wait as a user's unplug with a dead SM, in
# ib_core on both stacks: not what the tests measure.)
sib_links_down() {
	local d f i st up
	for d in vA vB vC vS "${SIB_FABRIC_NETDEVS[@]}"; do
		[ ! -e "/sys/class/net/$d" ] || ip link set "$d" down 2>/dev/null || true
	done
	for ((i = 0; i < 30; i++)); do
		up=0
		for d in ib0 ib1 ib2 ibS "${SIB_FABRIC_CAS[@]}"; do
			f=/sys/class/infiniband/$d/ports/1/state
			[ -r "$f" ] && read -r st <"$f" && [ "$st" = "4: ACTIVE" ] && up=1
		done
		[ "$up" = 1 ] || return 0
		sleep 0.1
	done
}

sib_pair() {
	local mtu=${1:-9000}
	ip link add vA type veth peer name vB
	ip link set vA mtu "$mtu"
	ip link set vB mtu "$mtu"
	ip link set vA up
	ip link set vB up
	rdma link add ib0 type softib netdev vA || fail "rdma link add ib0"
	rdma link add ib1 type softib netdev vB || fail "rdma link add ib1"
}

# sib_state DEV: the port's state word as `rdma link` prints it
sib_state() { rdma link show "$1/1" | sed -n 's/.* state \([A-Z_]*\).*/\1/p'; }
# sib_lid DEV: the port's LID as `rdma link` prints it
sib_lid() { rdma link show "$1/1" | sed -n 's/.* lid \([0-9]*\) .*/\1/p'; }

sib_drops() { awk -v r="$2" '$1 == r { print $2 }' "$SIB_DEBUGFS/$1/drops"; }

# sib_cm_netem DEV LOSS [U32_MATCH...]: LOSS of the CM MADs leaving DEV
# dropped. A prio qdisc sends their frames to a band under netem, all else
# (SA, IPoIB, RC data) to a plain band; the u32 filter reads the IB headers
# after the Ethernet header: LRH byte 1 LNH = 2 (no GRH), BTH opcode UD
# SEND_ONLY (0x64), the MAD's management class (byte 1 of the MAD, after
# the 8-byte LRH, 12-byte BTH and 8-byte DETH) CM (0x07), and the extra
# u32 matches given (one message type: its attribute, bytes 44-45).
sib_cm_netem() {
	local dev=$1 loss=$2
	shift 2
	tc qdisc add dev "$dev" root handle 1: prio bands 3 \
		priomap 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 || fail "prio qdisc on $dev"
	tc qdisc add dev "$dev" parent 1:3 handle 30: netem loss "$loss" || fail "netem on $dev"
	tc filter add dev "$dev" parent 1: protocol all prio 1 u32 \
		match u8 0x02 0x03 at 1 match u8 0x64 0xff at 8 match u8 0x07 0xff at 29 \
		"$@" flowid 1:3 || fail "u32 filter on $dev"
}
# sib_cm_netem_drops DEV: the CM MADs sib_cm_netem's band dropped
sib_cm_netem_drops() { tc -s qdisc show dev "$1" parent 1:3 | sed -n 's/.*dropped \([0-9]*\).*/\1/p' | head -n 1; }

# mc_start NAME DEV: softib-madcount.py on DEV (a CA's carrier), until
# mc_stop NAME, which sets MC_Q to the PathRecord queries it counted; the
# count must be exact (its socket lost no frame).
mc_start() {
	bg "/tmp/$1-count.log" python3 "$(dirname "$0")/softib-madcount.py" "$2"
	MC_PID=$LAST_PID
	wait_for 10 "$1: the MAD counter listening" grep -q listening "/tmp/$1-count.log"
}
mc_stop() {
	local d
	kill -TERM "$MC_PID"
	wait_pid "$MC_PID" 10 || fail "$1: the MAD counter did not stop"
	MC_Q=$(awk '$1 == "pathrecord_queries" { print $2 }' "/tmp/$1-count.log")
	[ -n "$MC_Q" ] || fail "$1: no count"
	d=$(awk '$1 == "drops" { print $2 }' "/tmp/$1-count.log")
	[ "$d" = 0 ] || fail "$1: the MAD counter's socket dropped ${d:-?} frames: its count is not exact"
}

# sib_subnet_up: ib0 <=> ib1 (sib_pair 9000) and stock opensm bound to ib0's
# port, until both ports are ACTIVE with LIDs (the SM stops at exit).
sib_subnet_up() {
	sib_subnet_start 'sib_sm_stop; sib_cleanup'
}
# sib_subnet_start EXIT_TRAP: sib_subnet_up with EXIT_TRAP set once opensm
# runs (a script with an exit trap of its own passes that).
sib_subnet_start() {
	local i
	command -v opensm >/dev/null || fail "no opensm (Debian package opensm)"
	command -v smpquery >/dev/null || fail "no smpquery (Debian package infiniband-diags)"
	[ -d /sys/module/ib_umad ] ||
		modprobe -d "$ORCM_MODROOT" -S "$ORCM_KREL" ib_umad || fail "modprobe ib_umad"
	sib_pair 9000
	wait_for 10 "ib0 and ib1 INIT" sib_both INIT
	sib_sm_start
	# shellcheck disable=SC2064 # the caller's trap, as given
	trap "$1" EXIT
	for ((i = 0; i < 600; i++)); do sib_both ACTIVE && break; sleep 0.1; done
	if ! sib_both ACTIVE; then
		tail -n 40 /tmp/opensm.log
		fail "opensm did not bring both ports ACTIVE (ib0 $(sib_state ib0), ib1 $(sib_state ib1))"
	fi
	say "both ports ACTIVE: $(rdma link show ib0/1 | grep -o 'lid [0-9]* sm_lid [0-9]* lmc [0-9]*');" \
		"ib1 $(rdma link show ib1/1 | grep -o 'lid [0-9]*')"
}
# sib_sm_start [OPENSM_ARGS...]: stock opensm on ib0's port ($SIB_SM_DEV's
# if set), in the foreground of a background job ($SIB_SM), its cache in
# /tmp/opensm-cache.
sib_sm_start() {
	local guid
	guid=$(cat "/sys/class/infiniband/${SIB_SM_DEV:-ib0}/node_guid")
	mkdir -p /tmp/opensm-cache
	OSM_CACHE_DIR=/tmp/opensm-cache bg /tmp/opensm.out \
		opensm -g "0x${guid//:/}" -f /tmp/opensm.log -s 5 -p 15 "$@"
	SIB_SM=$LAST_PID
}
sib_both() { [ "$(sib_state ib0)" = "$1" ] && [ "$(sib_state ib1)" = "$1" ]; }
# sib_sm_standby_start DEV [OPENSM_ARGS...]: a second opensm ($SIB_SM_B) on
# DEV's port, of priority 1 (sib_sm_start's is 15), so STANDBY while the
# master lives. It polls the master's SMInfo every second and declares it
# dead after 2 unanswered polls (opensm's defaults: 10 s, 4). Stopped at
# exit (sib_cleanup kills every background job).
sib_sm_standby_start() {
	local g
	g=$(cat "/sys/class/infiniband/$1/node_guid")
	shift
	printf 'sminfo_polling_timeout 1000\npolling_retry_number 2\n' >/tmp/opensm-b.conf
	mkdir -p /tmp/opensm-cache-b
	OSM_CACHE_DIR=/tmp/opensm-cache-b bg /tmp/opensm-b.out \
		opensm -F /tmp/opensm-b.conf -g "0x${g//:/}" -f /tmp/opensm-b.log -s 5 -p 1 "$@"
	SIB_SM_B=$LAST_PID
}
# sminfo_state DEV [LID]: the SMInfo state of the SM at LID (default: the
# master) as DEV's port sees it: 2 STANDBY, 3 MASTER.
sminfo_state() { sminfo -C "$1" "${@:2}" 2>&1 | sed -n 's/.* state \([0-9]\) .*/\1/p'; }
# sib_failover_wait LID: after the master was killed, the standby at LID
# MASTER within 30 s, and both ports' MasterSMLID LID.
sib_failover_wait() {
	local d
	wait_sm 3 30 ib0 "$1" || { tail -n 30 /tmp/opensm-b.log; fail "the opensm at LID $1 did not become MASTER in 30 s"; }
	for d in ib0 ib1; do
		wait_for 10 "$d's MasterSMLID $1" bash -c "rdma link show $d/1 | grep -q 'sm_lid $1 '"
	done
}
# wait_sm STATE SECONDS DEV [LID]: until sminfo_state DEV [LID] is STATE.
wait_sm() {
	local want=$1 n=$(($2 * 10)) i
	shift 2
	for ((i = 0; i < n; i++)); do
		[ "$(sminfo_state "$@")" = "$want" ] && return 0
		sleep 0.1
	done
	return 1
}
sib_sm_stop() {
	[ -n "${SIB_SM:-}" ] || return 0
	kill -TERM "$SIB_SM" 2>/dev/null || true
	wait_pid "$SIB_SM" 10 || true
	SIB_SM=
}

# sib_ipoib_map: SIB_IPOIB[DEV] = the IPoIB netdev of each softib CA DEV,
# in one pass without a fork per file (a fabric has many; forks are slow
# under UML).
sib_ipoib_map() {
	local n a g d t
	local -A byguid=()
	declare -gA SIB_IPOIB=()
	for d in /sys/class/infiniband/*; do
		read -r g 2>/dev/null <"$d/node_guid" || continue
		byguid[${g//:/}]=${d##*/}
	done
	for n in /sys/class/net/*; do
		read -r t 2>/dev/null <"$n/type" || continue
		[ "$t" = 32 ] || continue
		read -r a <"$n/address" || continue
		a=${a//:/}
		d=${byguid[${a: -16}]:-}
		[ -z "$d" ] || SIB_IPOIB[$d]=${n##*/}
	done
}
# sib_ipoib_of DEV: DEV's IPoIB netdev (its hardware address ends with DEV's
# port GUID: 4 octets of flags and QPN, then the GID); fails if none yet.
sib_ipoib_of() {
	sib_ipoib_map
	[ -n "${SIB_IPOIB[$1]:-}" ] || return 1
	echo "${SIB_IPOIB[$1]}"
}

# sib_ipoib_up: after sib_subnet_up. ib1's IPoIB netdev goes to $NS_B, so
# that traffic between the two addresses crosses the IB link.
SIB_IP0=198.18.9.1 SIB_IP1=198.18.9.2
sib_ipoib_up() {
	[ -d /sys/module/ib_ipoib ] ||
		modprobe -d "$ORCM_MODROOT" -S "$ORCM_KREL" ib_ipoib || fail "modprobe ib_ipoib"
	wait_for 10 "IPoIB netdevs of ib0 and ib1" \
		bash -c "$(declare -f sib_ipoib_map sib_ipoib_of); sib_ipoib_of ib0 && sib_ipoib_of ib1"
	SIB_I0=$(sib_ipoib_of ib0) SIB_I1=$(sib_ipoib_of ib1)
	say "IPoIB: ib0 -> $SIB_I0, ib1 -> $SIB_I1"
	ip netns add "$NS_B"
	# Back to the initial namespace before the namespace goes (a parent
	# IPoIB netdev belongs to its CA, not to the namespace).
	trap 'in_b ip link set "$SIB_I1" netns 1 2>/dev/null; sib_sm_stop; sib_cleanup' EXIT
	ip link set "$SIB_I1" netns "$NS_B" || fail "cannot move $SIB_I1 to $NS_B"
	ip addr add "$SIB_IP0/24" dev "$SIB_I0"
	ip link set "$SIB_I0" up
	in_b ip addr add "$SIB_IP1/24" dev "$SIB_I1"
	in_b ip link set "$SIB_I1" up
	wait_for 20 "$SIB_I0 carrier (broadcast group joined)" \
		bash -c "[ \$(cat /sys/class/net/$SIB_I0/carrier) = 1 ]"
	wait_for 20 "$SIB_I1 carrier" in_b bash -c "[ \$(cat /sys/class/net/$SIB_I1/carrier) = 1 ]"
}

sib_veth() {
	SIB_FABRIC_NETDEVS+=("$1")
	ip link add "$1" type veth peer name "$2"
	ip link set "$1" mtu 9000
	ip link set "$2" mtu 9000
	ip link set "$1" up
	ip link set "$2" up
}
# sib_attach K SW PORT PEER: CA ibK on veth vAK <=> PEER, PEER bound to
# switch SW's PORT.
sib_attach() {
	sib_veth "vA$1" "$4"
	echo "$3 $4" >"$SIB_SWITCH/$2/bind" || fail "bind $2 port $3 to $4"
	rdma link add "ib$1" type softib netdev "vA$1" || fail "rdma link add ib$1"
	SIB_FABRIC_CAS+=("ib$1")
}
# sib_fabric N [PORTS]: a switch and N CAs on its ports 1..N (no SM yet).
sib_fabric() {
	local n=$1 ports=${2:-8} k
	echo "+sw0 $ports" >"$SIB_SWITCH/switches" || fail "cannot create switch sw0"
	for ((k = 0; k < n; k++)); do sib_attach "$k" sw0 $((k + 1)) "vS$((k + 1))"; done
}
# sib_all STATE: every CA of the fabric in STATE
sib_all() {
	local d
	for d in "${SIB_FABRIC_CAS[@]}"; do [ "$(sib_state "$d")" = "$1" ] || return 1; done
}
sib_fabric_up() {
	sib_fabric "$@"
	sib_fabric_sm
}
sib_fabric_sm() {
	command -v opensm >/dev/null || fail "no opensm (Debian package opensm)"
	[ -d /sys/module/ib_umad ] ||
		modprobe -d "$ORCM_MODROOT" -S "$ORCM_KREL" ib_umad || fail "modprobe ib_umad"
	wait_for 10 "every CA INIT" sib_all INIT
	sib_sm_start
	trap 'sib_sm_stop; sib_cleanup' EXIT
	if ! wait_all_active 60; then
		tail -n 40 /tmp/opensm.log
		cat "$SIB_SWITCH"/sw*/ports "$SIB_SWITCH"/sw*/drops
		fail "opensm did not bring the fabric ACTIVE"
	fi
}
wait_all_active() {
	local i
	for ((i = 0; i < $1 * 10; i++)); do sib_all ACTIVE && return 0; sleep 0.1; done
	return 1
}

# ipoib_mode NS DEV MODE: set the IPoIB netdev DEV (in netns NS, - for this
# one) to MODE and check it (connected: MTU 65520).
ipoib_mode() {
	local ns=(ip netns exec "$1") mtu=
	[ "$1" != - ] || ns=()
	[ "$3" != connected ] || mtu="ip link set $2 mtu 65520 &&"
	"${ns[@]}" bash -c "echo $3 >/sys/class/net/$2/mode && $mtu
		cat /sys/class/net/$2/mode && ip -d link show $2" >"/tmp/sib-ipoib-$2.mode" ||
		fail "$2: mode $3 refused: $(cat "/tmp/sib-ipoib-$2.mode")"
	{ grep -qx "$3" "/tmp/sib-ipoib-$2.mode" && grep -q "ipoib .* mode $3 " "/tmp/sib-ipoib-$2.mode"; } ||
		fail "$2: not in mode $3: $(cat "/tmp/sib-ipoib-$2.mode")"
	[ "$3" != connected ] || grep -q ' mtu 65520 ' "/tmp/sib-ipoib-$2.mode" ||
		fail "$2: MTU not 65520: $(cat "/tmp/sib-ipoib-$2.mode")"
}
# rc_psns DEV: "QPN rq-psn" of each RC QP of ib_ipoib on DEV
rc_psns() {
	rdma res show qp link "$1/1" | awk '/ type RC / && /ib_ipoib/ {
		for (i = 1; i < NF; i++) { if ($i == "lqpn") q = $(i + 1); if ($i == "rq-psn") p = $(i + 1) }
		print q, p }'
}
