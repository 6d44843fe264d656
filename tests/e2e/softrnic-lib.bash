# SPDX-License-Identifier: GPL-2.0
# Helpers for the softrnic tests (sourced after lib.bash).
#
#   sr_setup_pair KIND_A KIND_B   setup_pair's topology with a softrnic or
#                                 stock siw device at each end:
#   netns orcmA: vA 198.18.0.1/24 $DEV_A  <== veth ==>  netns orcmB: vB 198.18.0.2/24 $DEV_B
# (DEV_x is srA/srB for softrnic, siwA/siwB for siw.)
#
# The MPA parameters of a softrnic end are iw_cm's (our host CM):
# sr_param NAME VALUE sets /sys/module/iw_cm/parameters/NAME for the test
# (mpa_rev, crc, markers, peer2peer, p2p_type); the old values come back on
# exit. Stock siw has no knobs in 6.12: MPA revision 2, no CRC unless the
# peer asks, never peer-to-peer as initiator, WRITE or READ RTR as responder.
# shellcheck shell=bash disable=SC2034

IWCM_PARAMS=/sys/module/iw_cm/parameters
SR_SAVED=()

# softrnic is part of our stack only: on the stock stack it must not be
# loaded, and `rdma link add ... type softrnic` must fail.
sr_stock_check() {
	stock_lacks softrnic srS "softrnic is part of our stack only: nothing else to test on the stock stack"
}

sr_cleanup() {
	local d kv i
	for d in srA srB srS; do
		[ ! -e "/sys/class/infiniband/$d" ] || rdma link delete "$d" 2>/dev/null || true
	done
	[ ! -e /sys/class/net/vS ] || ip link delete vS 2>/dev/null || true
	cleanup
	# Newest first, so that each parameter ends at its value before the test.
	for ((i = ${#SR_SAVED[@]} - 1; i >= 0; i--)); do
		kv=${SR_SAVED[i]}
		echo "${kv#*=}" >"$IWCM_PARAMS/${kv%%=*}" 2>/dev/null || true
	done
}
trap sr_cleanup EXIT

# sr_active DEV: the device's port is ACTIVE.
sr_active() { rdma link show "$1/1" | grep -q 'state ACTIVE'; }

# sr_setup_pair KIND_A KIND_B: setup_pair with those device kinds.
sr_setup_pair() { setup_pair "$1" "$2"; }

# sr_need_datapath: softrnic connects only with its wire engine (branch
# sr-wire) and iw_cm's host CM (branch iwhost); until both are in the tree
# the connection tests are skipped, visibly.
sr_need_datapath() {
	if dmesg | grep -q 'softrnic: built without the wire engine'; then
		skip "softrnic was built without its wire engine (branch sr-wire not merged)"
	fi
	if ! grep -qw 'orcm_iw_host_register' /proc/kallsyms; then
		skip "our iw_cm has no host-stack CM (branch iwhost not merged)"
	fi
	if grep -qE '\borcm_iw_host_register\b.*\[softrnic\]' /proc/kallsyms; then
		skip "softrnic was built with its iw_cm placeholder (branch iwhost not merged)"
	fi
}

sr_param() {
	local f=$IWCM_PARAMS/$1
	[ -w "$f" ] || fail "iw_cm has no parameter $1 (our host-stack CM?)"
	SR_SAVED+=("$1=$(cat "$f")")
	echo "$2" >"$f" || fail "cannot set iw_cm parameter $1=$2"
}

# sr_mode REV CRC MARKERS P2P RTR: the host CM's offer for the next connections
# (RTR 1 zero-length SEND, 2 WRITE, 3 READ; 0 leaves it).
sr_mode() {
	sr_param mpa_rev "$1"
	sr_param crc "$2"
	sr_param markers "$3"
	sr_param peer2peer "$4"
	[ "$5" = 0 ] || sr_param p2p_type "$5"
	say "host CM offers: MPA rev $1 crc $2 markers $3 p2p $4 rtr $5"
}

# sr_data_pair KIND_A KIND_B: the checks above, then the topology.
sr_data_pair() {
	sr_stock_check
	sr_need_datapath
	sr_setup_pair "$1" "$2"
}

# sr_both NAME PORT: rping_pair (lib.bash) both ways: A client to B, B client to A.
sr_both() {
	rping_pair "$1-a2b" "$NS_B" "$ADDR_B" "$NS_A" "$ADDR_B" "$2"
	rping_pair "$1-b2a" "$NS_A" "$ADDR_A" "$NS_B" "$ADDR_A" "$(($2 + 1))"
}

# sr_rping_modes KIND_B PORT MODE...: softrnic in A, KIND_B in B; for each
# MODE ("REV CRC MARKERS P2P RTR [b2a]", see sr_mode) rping both ways, or
# only with B as the client.
sr_rping_modes() {
	local kb=$1 port=$2 mode
	shift 2
	sr_data_pair softrnic "$kb"
	for mode in "$@"; do
		# shellcheck disable=SC2086 # word splitting on purpose
		set -- $mode
		sr_mode "$1" "$2" "$3" "$4" "$5"
		case "${6:-both}" in
		both) sr_both "$kb-$1$2$3$4$5" "$port" ;;
		b2a) rping_pair "$kb-$1$2$3$4$5-b2a" "$NS_A" "$ADDR_A" "$NS_B" "$ADDR_A" "$port" ;;
		esac
		port=$((port + 2))
	done
	say "ok: softrnic <-> $kb in every mode, both directions"
}
