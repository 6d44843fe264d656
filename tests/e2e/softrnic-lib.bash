# SPDX-License-Identifier: GPL-2.0
# Helpers for the softrnic tests (sourced after lib.bash).
#
#   sr_setup_pair KIND_A KIND_B   setup_pair's topology with a softrnic or
#                                 stock siw device at each end:
#   netns orcmA: vA 198.18.0.1/24 $DEV_A  <== veth ==>  netns orcmB: vB 198.18.0.2/24 $DEV_B
# (DEV_x is srA/srB for softrnic, siwA/siwB for siw.)
# shellcheck shell=bash disable=SC2034

# softrnic is part of our stack only: on the stock stack it must not be
# loaded, and `rdma link add ... type softrnic` must fail.
sr_stock_check() {
	[ "${ORCM_STACK:-}" = stock ] || return 0
	[ ! -d /sys/module/softrnic ] || fail "softrnic is loaded on the stock stack"
	ip link add vS type veth peer name vSp
	if rdma link add srS type softrnic netdev vS 2>/tmp/sr-stock.err; then
		rdma link delete srS
		ip link delete vS
		fail "rdma link add type softrnic worked on the stock stack"
	fi
	ip link delete vS
	say "ok: the stock stack has no softrnic ($(cat /tmp/sr-stock.err))"
	exit 0
}

sr_cleanup() {
	local d
	for d in srA srB srS; do rdma link delete "$d" 2>/dev/null || true; done
	ip link delete vS 2>/dev/null || true
	cleanup
}
trap sr_cleanup EXIT

sr_dev_name() { # KIND SIDE
	case "$1" in
	softrnic) echo "sr$2" ;;
	siw) echo "siw$2" ;;
	*) fail "unknown device kind $1" ;;
	esac
}

sr_active() { rdma link show "$1/1" | grep -q 'state ACTIVE'; }

sr_setup_pair() {
	DEV_A=$(sr_dev_name "$1" A)
	DEV_B=$(sr_dev_name "$2" B)
	ip netns add "$NS_A"
	ip netns add "$NS_B"
	# Distinct ifindexes (see setup_pair).
	ip link add vA netns "$NS_A" index 101 type veth peer name vB netns "$NS_B" index 102
	in_a ip link set lo up
	in_b ip link set lo up
	in_a ip addr add "$ADDR_A/24" dev vA
	in_b ip addr add "$ADDR_B/24" dev vB
	in_a ip link set vA up
	in_b ip link set vB up
	in_a rdma link add "$DEV_A" type "$1" netdev vA
	in_b rdma link add "$DEV_B" type "$2" netdev vB
	wait_for 10 "$DEV_A ACTIVE" sr_active "$DEV_A"
	wait_for 10 "$DEV_B ACTIVE" sr_active "$DEV_B"
	wait_for 10 "ping $ADDR_B from $NS_A" in_a ping -c 1 -W 1 "$ADDR_B"
	say "topology: $NS_A/vA $ADDR_A $DEV_A <-> $NS_B/vB $ADDR_B $DEV_B"
	rdma link show
}

# sr_need_datapath: softrnic connects only with its wire engine (branch
# sr-wire) and iw_cm's host CM (branch iwhost); until both are in the tree
# the connection tests are skipped, visibly.
sr_need_datapath() {
	if dmesg | grep -q 'softrnic: built without the wire engine'; then
		echo "## SKIP: softrnic was built without its wire engine (branch sr-wire not merged)"
		exit 0
	fi
	if ! grep -qw 'orcm_iw_host_register' /proc/kallsyms; then
		echo "## SKIP: our iw_cm has no host-stack CM (branch iwhost not merged)"
		exit 0
	fi
	if grep -qE '\borcm_iw_host_register\b.*\[softrnic\]' /proc/kallsyms; then
		echo "## SKIP: softrnic was built with its iw_cm placeholder (branch iwhost not merged)"
		exit 0
	fi
}
