# SPDX-License-Identifier: GPL-2.0
# RDS over RDMA across the two VMs (tests/interop/rds.sh over rxe,
# zz-softib.sh over native IB): the stock rds_rdma module in each kernel on
# top of that VM's CM, and tests/interop/rds-peer.py at both ends at once.
# RDS needs two kernels: to an address of its own kernel it sends over its
# loopback transport, with no CM involved. Sourced after lib.bash.
# shellcheck shell=bash

RDS_CM_PORT=18634 # rds_rdma's rdma_cm listener (RDS_CM_PORT), every address

# rds_load: rds_rdma loaded, bound to this VM's rdma_cm, listening.
rds_load() {
	[ -d /sys/module/rds_rdma ] ||
		modprobe -d "$ORCM_MODROOT" -S "$ORCM_KREL" rds_rdma || fail "modprobe rds_rdma"
	[ -e /sys/module/rdma_cm/holders/rds_rdma ] ||
		fail "rds_rdma does not use the loaded rdma_cm ($ORCM_STACK)"
	wait_for 10 "rds_rdma listening on $RDS_CM_PORT" cm_id_listening "$RDS_CM_PORT"
}

# rds_unload_quiet: the same, best effort, for an EXIT trap: every step is
# tried, so that the next scripts find neither module nor listener.
rds_unload_quiet() {
	timeout -k 2 30 rmmod rds_rdma 2>/dev/null || true
	timeout -k 2 10 rmmod rds 2>/dev/null || true
}

# rds_unload: rds_rdma and rds go (their connections with them), and no CM
# id is left in this VM.
rds_unload() {
	[ ! -d /sys/module/rds_rdma ] || timeout -k 2 30 rmmod rds_rdma || fail "rmmod rds_rdma"
	[ ! -d /sys/module/rds ] || timeout -k 2 10 rmmod rds || fail "rmmod rds"
	wait_for 10 "no CM id left after rds_rdma" cm_ids_empty
}

# rds_case NAME LADDR PADDR: both VMs send COUNT messages to each other at
# the same moment (both kernels open the pair's connection at once) and
# check every one received; the connection's CM ids are listed, on both.
rds_case() {
	local name=$1 laddr=$2 paddr=$3 rc=0
	barrier "$name-go"
	run_to "/tmp/$name.log" "$STEP" python3 "$(dirname "$0")/rds-peer.py" \
		--role "$ROLE" --peer-role "$PEER" --laddr "$laddr" --paddr "$paddr" \
		--count "${RDS_COUNT:-300}" --deadline $((STEP - 25)) \
		--barrier "$SHARED/$TEST.$name.rds" || rc=$?
	cm_ids | grep -E ":$RDS_CM_PORT( |$)" | sed 's/^/  [cm_id] /' || true
	[ "$rc" -eq 0 ] || fail "$name: rds-peer ($ORCM_STACK) status $rc: $(last_words "/tmp/$name.log")"
	# The connection stays until rds_rdma goes: it was the CM's.
	cm_ids | grep -qE "state CONNECT .*:$RDS_CM_PORT( |$)" ||
		fail "$name: no connected CM id on port $RDS_CM_PORT ($ORCM_STACK)"
	barrier "$name-done"
	say "$name: ok ($ORCM_STACK)"
}
