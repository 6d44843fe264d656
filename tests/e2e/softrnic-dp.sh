#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# orcm-timeout: 300
# The data path under load through tests/bench/dp_bench.ko, the kernel
# verbs client behind make bench's data-path rows: RDMA WRITE and SEND, of
# 64 KiB (16 in flight) and 64 B (64 in flight), over one rdma_cm
# connection per run: softrnic to stock siw, siw to softrnic, and softrnic
# to softrnic. Every WR is signaled and must complete without error; the
# server checks each SEND's sequence number (nothing lost, repeated or out
# of order: bad=0) and counts them all.
# shellcheck source=tests/e2e/lib.bash
. "$(dirname "$0")/lib.bash"
# shellcheck source=tests/e2e/softrnic-lib.bash
. "$(dirname "$0")/softrnic-lib.bash"

# `ip netns exec` mounts a sysfs of the namespace over /sys, and debugfs
# with it is gone there: the commands use a debugfs mount outside /sys.
DBG=/run/orcm/dp-debugfs
DPD=$DBG/dp_bench
BIG=208 SMALL=6400
sr_data_pair softrnic siw
dp_cleanup() {
	rmmod dp_bench 2>/dev/null
	umount "$DBG" 2>/dev/null
	sr_cleanup
}
trap dp_cleanup EXIT
mkdir -p "$DBG"
mount -t debugfs debugfs "$DBG"
insmod "${ORCM_OURS_DIR:?}/tests/bench/dp_bench.ko"

# dp NS COMMAND...: one dp_bench command from netns NS.
dp() {
	local ns=$1
	shift
	timeout -k 2 60 ip netns exec "$ns" sh -c "echo '$*' > $DPD/ctl"
}

# dp_pair NAME SERVER_NS SERVER_ADDR CLIENT_NS: the four runs, then the
# server's count.
dp_pair() {
	local name=$1 sns=$2 addr=$3 cns=$4 op
	echo clear >$DPD/ctl
	dp "$sns" serve addr="$addr" port=7500 || fail "$name: serve"
	for op in write send; do
		dp "$cns" run dst="$addr" port=7500 op=$op size=65536 count=$BIG depth=16 ||
			{ cat $DPD/results; fail "$name: $op 64 KiB"; }
		dp "$cns" run dst="$addr" port=7500 op=$op size=64 count=$SMALL depth=64 ||
			{ cat $DPD/results; fail "$name: $op 64 B"; }
	done
	dp "$sns" unserve || fail "$name: unserve"
	sed "s/^/  [$name] /" $DPD/results
	grep -q "^serve received=$((BIG + SMALL)) bad=0$" $DPD/results ||
		fail "$name: the server did not get every SEND in order"
	[ "$(grep -c '^run .* mbps=' $DPD/results)" -eq 4 ] || fail "$name: not 4 runs"
	wait_for 10 "no CM id left after $name" cm_ids_empty
	say "$name: ok"
}

dp_pair softrnic-to-siw "$NS_B" "$ADDR_B" "$NS_A"
dp_pair siw-to-softrnic "$NS_A" "$ADDR_A" "$NS_B"
in_b rdma link delete siwB
in_b rdma link add srB type softrnic netdev vB
wait_for 10 "srB ACTIVE" sr_active srB
dp_pair softrnic-pair "$NS_B" "$ADDR_B" "$NS_A"
say "ok"
