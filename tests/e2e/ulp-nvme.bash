# SPDX-License-Identifier: GPL-2.0
# NVMe-oF helpers for tests/e2e/ulp-nvme*.sh: an nvmet-rdma target configured
# by hand in configfs (a file on tmpfs as the namespace), and the stock
# nvme-rdma host through nvme-cli (`nvme connect -t rdma`).
# shellcheck shell=bash disable=SC2034
# shellcheck source=tests/e2e/ulp-lib.bash
. "$(dirname "${BASH_SOURCE[0]}")/ulp-lib.bash"

NQN=nqn.2024-01.org.openrdma-cm:ulp-nvme
HOSTNQN=nqn.2014-08.org.nvmexpress:uuid:5b8c1c9e-5a1e-4d0c-9a55-0a7c2f0c0001
HOSTID=5b8c1c9e-5a1e-4d0c-9a55-0a7c2f0c0001
NVME_PORT=4420
NVMET=$CONFIGFS/nvmet
NS_FILE=/tmp/ulp-nvme-ns.img
NS_SIZE=$((96 << 20))
NVME_CTRL='' NVME_BLK=''

nvme_modules() {
	ulp_modprobe nvmet nvmet-rdma nvme-rdma
	ulp_binds nvmet_rdma nvme_rdma
}

# nvmet_up: subsystem $NQN (any host), namespace 1 = $NS_FILE, port 1 on
# $T_ADDR:$NVME_PORT (rdma), subsystem linked to the port (= rdma_listen).
nvmet_up() {
	ulp_configfs
	truncate -s "$NS_SIZE" "$NS_FILE"
	mkdir "$NVMET/subsystems/$NQN"
	put 1 "$NVMET/subsystems/$NQN/attr_allow_any_host"
	mkdir "$NVMET/subsystems/$NQN/namespaces/1"
	put "$NS_FILE" "$NVMET/subsystems/$NQN/namespaces/1/device_path"
	put 1 "$NVMET/subsystems/$NQN/namespaces/1/buffered_io" # tmpfs: no O_DIRECT
	put 1 "$NVMET/subsystems/$NQN/namespaces/1/enable"
	mkdir "$NVMET/ports/1"
	put rdma "$NVMET/ports/1/addr_trtype"
	put ipv4 "$NVMET/ports/1/addr_adrfam"
	put "$T_ADDR" "$NVMET/ports/1/addr_traddr"
	put "$NVME_PORT" "$NVMET/ports/1/addr_trsvcid"
	ln -s "$NVMET/subsystems/$NQN" "$NVMET/ports/1/subsystems/$NQN" ||
		fail "linking $NQN to port 1 (nvmet_rdma_add_port) failed"
	wait_for 10 "nvmet listening on $T_ADDR:$NVME_PORT" cm_id_listening $NVME_PORT
	tsay "nvmet-rdma target: $NQN on $T_ADDR:$NVME_PORT ($T_DEV), namespace $NS_FILE"
}
# nvmet_port_relink: disable and re-enable port 1 (unlink and link the subsystem).
nvmet_port_relink() {
	rm "$NVMET/ports/1/subsystems/$NQN"
	ln -s "$NVMET/subsystems/$NQN" "$NVMET/ports/1/subsystems/$NQN"
}
nvmet_down() {
	[ -d "$NVMET" ] || return 0
	rm -f "$NVMET/ports/1/subsystems/$NQN" 2>/dev/null
	rmdir "$NVMET/ports/1" 2>/dev/null
	[ -d "$NVMET/subsystems/$NQN" ] || { rm -f "$NS_FILE"; return 0; }
	echo 0 >"$NVMET/subsystems/$NQN/namespaces/1/enable" 2>/dev/null
	rmdir "$NVMET/subsystems/$NQN/namespaces/1" 2>/dev/null
	rmdir "$NVMET/subsystems/$NQN" 2>/dev/null
	rm -f "$NS_FILE"
	[ ! -d "$NVMET/subsystems/$NQN" ] && [ ! -d "$NVMET/ports/1" ]
}

# nvme_ctrl_of NQN: the host controller (nvmeN) connected to NQN over rdma.
nvme_ctrl_of() {
	local c
	for c in /sys/class/nvme/nvme*; do
		[ -r "$c/subsysnqn" ] || continue
		[ "$(cat "$c/subsysnqn")" = "$1" ] && [ "$(cat "$c/transport")" = rdma ] &&
			{ basename "$c"; return 0; }
	done
	return 1
}
nvme_ctrl_state() { cat "/sys/class/nvme/$NVME_CTRL/state" 2>/dev/null; }
nvme_live() { [ "$(nvme_ctrl_state)" = live ]; }
nvme_blk_ready() {
	local b
	for b in /sys/class/nvme/"$NVME_CTRL"/nvme*n1; do
		[ -e "$b" ] || return 1
		b=$(basename "$b")
		[ -b "/dev/$b" ] && [ "$(cat "/sys/class/block/$b/size")" -eq $((NS_SIZE / 512)) ] || return 1
		NVME_BLK=/dev/$b
		return 0
	done
	return 1
}

# nvme_connect [EXTRA nvme-cli OPTIONS]: connect from $H_ADDR (siwH) to the
# target; sets NVME_CTRL and NVME_BLK.
nvme_connect() {
	run_to /tmp/nvme-connect.log "$STEP" nvme connect -t rdma -a "$T_ADDR" -s "$NVME_PORT" \
		-w "$H_ADDR" -n "$NQN" -q "$HOSTNQN" -I "$HOSTID" -i 1 "$@" ||
		fail "nvme connect: status $?"
	wait_for 10 "an nvme controller for $NQN" nvme_ctrl_of "$NQN"
	NVME_CTRL=$(nvme_ctrl_of "$NQN")
	wait_for 20 "$NVME_CTRL live" nvme_live
	wait_for 20 "the namespace block device of $NVME_CTRL" nvme_blk_ready
	tsay "connected: $NVME_CTRL ($(cat "/sys/class/nvme/$NVME_CTRL/address")) -> $NVME_BLK"
}
nvme_gone() { ! nvme_ctrl_of "$NQN" >/dev/null; }
nvme_disconnect() {
	nvme_ctrl_of "$NQN" >/dev/null || return 0
	run_to /tmp/nvme-disconnect.log "$STEP" nvme disconnect -n "$NQN" || return 1
	wait_for 20 "no controller for $NQN" nvme_gone
	NVME_CTRL='' NVME_BLK=''
}

# Connected ids on both devices: the host's on siwH, the target's on siwT.
nvme_ids_connected() {
	local ids
	ids=$(cm_ids)
	grep -qE "$H_DEV/1 .*state CONNECT .*dst-addr $T_ADDR:$NVME_PORT" <<<"$ids" &&
		grep -qE "$T_DEV/1 .*state CONNECT .*src-addr $T_ADDR:$NVME_PORT" <<<"$ids"
}

# nvme_up: the usual start of an NVMe-oF test (after its ulp_topology is
# defined): the stack checked, topology, modules, the target, a connected
# host whose ids are CONNECT on both devices; the ids listed.
nvme_up() {
	ulp_check_stack before
	ulp_topology
	nvme_modules
	nvmet_up
	nvme_connect
	wait_for 10 "connected ids on $H_DEV and $T_DEV" nvme_ids_connected
	cm_ids
}
nvme_teardown() {
	nvme_disconnect
	nvmet_down
}

# Data sets: $SETS holds "NAME OFFSET SIZE" lines; SUM[NAME] the sha256 of
# what nvme_write_sets wrote there.
declare -A SUM
# nvme_write_sets: random data of each set written to the device.
nvme_write_sets() {
	local n off size t
	while read -r n off size; do
		head -c "$size" /dev/urandom >"/tmp/nvme-$n.dat"
		SUM[$n]=$(sha256sum <"/tmp/nvme-$n.dat" | cut -d' ' -f1)
		t=$SECONDS
		write_at "/tmp/nvme-$n.dat" "$NVME_BLK" "$off"
		tsay "wrote $n: $size bytes at $off ($((SECONDS - t)) s)"
	done <<<"$SETS"
}
# nvme_verify_sets WHEN: every set reads back from the device (direct I/O)
# and sits in the target's file.
nvme_verify_sets() {
	local n off size got t
	while read -r n off size; do
		t=$SECONDS
		got=$(sum_at "$NVME_BLK" "$off" "$size" direct)
		[ "$got" = "${SUM[$n]}" ] || fail "$1: set $n ($size bytes at $off) reads back $got, wrote ${SUM[$n]}"
		got=$(sum_at "$NS_FILE" "$off" "$size")
		[ "$got" = "${SUM[$n]}" ] || fail "$1: set $n in the target's file: $got, wrote ${SUM[$n]}"
		tsay "$1: set $n ok ($size bytes, read in $((SECONDS - t)) s)"
	done <<<"$SETS"
}

