# SPDX-License-Identifier: GPL-2.0
# Helpers for the softrnic end-to-end tests: like setup_pair (lib.bash), but
# each end's RDMA device is of a chosen type, softrnic (our host-stack iWARP
# RNIC, drivers/softrnic) or stock siw:
#
#   netns orcmA: vA 198.18.0.1, DEV_A  <== veth ==>  netns orcmB: vB 198.18.0.2, DEV_B
#
# The MPA parameters of a softrnic end are iw_cm's (our host CM):
# sr_param NAME VALUE sets /sys/module/iw_cm/parameters/NAME for the test
# (mpa_rev, crc, markers, peer2peer, p2p_type); the old values come back on
# exit. Stock siw has no knobs in 6.12: MPA revision 2, no CRC unless the
# peer asks, never peer-to-peer as initiator, WRITE or READ RTR as responder.
# shellcheck shell=bash disable=SC2034
# shellcheck source=tests/e2e/lib.bash
. "$(dirname "$0")/lib.bash"

SR_KO=${ORCM_OURS_DIR:-/nonexistent}/drivers/softrnic/softrnic.ko
IWCM_PARAMS=/sys/module/iw_cm/parameters
SR_SAVED=()

sr_cleanup() {
	local kv
	cleanup
	for kv in "${SR_SAVED[@]}"; do
		echo "${kv#*=}" >"$IWCM_PARAMS/${kv%%=*}" 2>/dev/null || true
	done
}
trap sr_cleanup EXIT

# softrnic is one of our modules, not in the UML modroot: load it by path.
sr_load() {
	[ -d /sys/module/softrnic ] && return 0
	[ -f "$SR_KO" ] || fail "softrnic.ko is not built ($SR_KO)"
	insmod "$SR_KO" || fail "insmod $SR_KO failed"
}

sr_param() {
	local f=$IWCM_PARAMS/$1
	[ -w "$f" ] || fail "iw_cm has no parameter $1 (our host-stack CM?)"
	SR_SAVED+=("$1=$(cat "$f")")
	echo "$2" >"$f" || fail "cannot set iw_cm parameter $1=$2"
}

# sr_mode REV CRC MARKERS P2P RTR: the host CM's offer for the next connections.
sr_mode() {
	sr_param mpa_rev "$1"
	sr_param crc "$2"
	sr_param markers "$3"
	sr_param peer2peer "$4"
	[ "$5" = 0 ] || sr_param p2p_type "$5"
	say "host CM offers: MPA rev $1 crc $2 markers $3 p2p $4 rtr $5"
}

# sr_setup TYPE_A TYPE_B: setup_pair with those device types.
sr_setup() {
	sr_load
	setup_pair "$1" "$2"
}

# sr_both NAME PORT: rping_pair (lib.bash) both ways: A client to B, B client to A.
sr_both() {
	rping_pair "$1-a2b" "$NS_B" "$ADDR_B" "$NS_A" "$ADDR_B" "$2"
	rping_pair "$1-b2a" "$NS_A" "$ADDR_A" "$NS_B" "$ADDR_A" "$(($2 + 1))"
}

# sr_rping_modes TYPE_B PORT MODE...: softrnic in A, TYPE_B in B; for each
# MODE ("REV CRC MARKERS P2P RTR", see sr_mode) rping both ways.
sr_rping_modes() {
	local tb=$1 port=$2 mode
	shift 2
	sr_setup softrnic "$tb"
	for mode in "$@"; do
		# shellcheck disable=SC2086 # word splitting on purpose
		sr_mode $mode
		sr_both "$tb-${mode// /}" "$port"
		port=$((port + 2))
	done
	say "ok: softrnic <-> $tb in every mode, both directions"
}
