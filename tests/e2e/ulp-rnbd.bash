# SPDX-License-Identifier: GPL-2.0
# RNBD over RTRS through the CM, stock on both ends in this kernel: the body
# of ulp-rnbd-rxe.sh and ulp-rnbd-softib.sh. rnbd_server (rtrs_server: an
# rdma_cm listener on port 1234, every address) exports a loop device over
# a file; rnbd_client (rtrs_client) maps it from the host address to the
# target address (sysfs map_device), and /dev/rnbdN takes direct I/O:
# random data of three sizes written through it reads back with the same
# sha256 from the device and from the backing file. RTRS registers its
# buffers with ib_map_mr_sg() at its chunk size (128 KiB pages on the
# server side), so a driver that maps MRs at PAGE_SIZE only corrupts or
# overruns here (issue 42: softib before its own map_mr_sg). Then the device
# is unmapped (the session closes) and no CM id is left, the modules unload.
# A test sources this file after its topology's and calls rnbd_main.
# shellcheck shell=bash
# shellcheck source=tests/e2e/ulp-lib.bash
. "$(dirname "$0")/ulp-lib.bash"

RNBD_FILE=/tmp/ulp-rnbd-back.img
RNBD_SIZE=$((64 << 20))
RNBD_SESS=orcm-rnbd
RNBD_PORT=1234 # RTRS_PORT, rtrs_server's default port_nr
RNBD_CTL=/sys/class/rnbd-client/ctl
RNBD_LOOP='' RNBD_BLK=''
declare -A RNBD_SUM

rnbd_up() {
	truncate -s "$RNBD_SIZE" "$RNBD_FILE"
	[ -d /sys/module/loop ] || ulp_modprobe loop
	RNBD_LOOP=$(losetup --find --show "$RNBD_FILE") || fail "losetup $RNBD_FILE"
	timeout -k 2 "$STEP" "${MP[@]}" rnbd_server dev_search_path=/dev ||
		fail "modprobe rnbd_server"
	ulp_modprobe rnbd_client
	ulp_binds rtrs_server rtrs_client
	wait_for 10 "rtrs_server listening on $RNBD_PORT" cm_id_listening "$RNBD_PORT"
	put "sessname=$RNBD_SESS path=ip:$H_ADDR,ip:$T_ADDR device_path=${RNBD_LOOP#/dev/} access_mode=rw" \
		"$RNBD_CTL/map_device"
	local link="$RNBD_CTL/devices/${RNBD_LOOP#/dev/}@$RNBD_SESS"
	wait_for 20 "the mapped device" test -e "$link"
	RNBD_BLK=/dev/$(basename "$(readlink -f "$link")")
	wait_for 10 "$RNBD_BLK" test -b "$RNBD_BLK"
	tsay "rnbd: $RNBD_LOOP ($((RNBD_SIZE >> 20)) MiB) exported, mapped as $RNBD_BLK" \
		"($(cat "/sys/block/${RNBD_BLK#/dev/}/rnbd/state" 2>/dev/null))"
	cm_ids | sed 's/^/  [cm_id] /'
}

rnbd_write_sets() {
	local n off size
	while read -r n off size; do
		head -c "$size" /dev/urandom >"/tmp/rnbd-$n.dat"
		RNBD_SUM[$n]=$(sha256sum <"/tmp/rnbd-$n.dat" | cut -d' ' -f1)
		write_at "/tmp/rnbd-$n.dat" "$RNBD_BLK" "$off"
	done <<<"$SETS"
}
rnbd_verify_sets() {
	local n off size
	while read -r n off size; do
		same_sum "$1: set $n" "$RNBD_BLK" "$off" "$size" "${RNBD_SUM[$n]}" direct
		same_sum "$1: set $n in the backing file" "$RNBD_FILE" "$off" "$size" "${RNBD_SUM[$n]}"
		tsay "$1: set $n ok ($size bytes at $off)"
	done <<<"$SETS"
}

# rnbd_teardown: unmap (the session closes with its last device), the loop
# device and file go. Idempotent.
rnbd_teardown() {
	local b
	for b in /sys/block/rnbd*/rnbd/unmap_device; do
		[ -e "$b" ] && echo normal >"$b" 2>/dev/null
	done
	[ -z "$RNBD_LOOP" ] || losetup -d "$RNBD_LOOP" 2>/dev/null
	RNBD_LOOP=''
	rm -f "$RNBD_FILE" /tmp/rnbd-*.dat
}
ulp_teardown() { rnbd_teardown; }

RNBD_OVER=$ULP_RNIC
rnbd_main() {
	ulp_check_stack before
	ulp_topology
	rnbd_up
	SETS="a 0 4096
b $((1 << 20)) $(((1 << 20) + 4096))
c $((4 << 20)) $((16 << 20))"
	rnbd_write_sets
	rnbd_verify_sets "rnbd over $RNBD_OVER"
	echo normal >"/sys/block/${RNBD_BLK#/dev/}/rnbd/unmap_device" ||
		fail "unmapping $RNBD_BLK"
	wait_for 10 "$RNBD_BLK gone" test ! -e "$RNBD_BLK"
	rmmod rnbd_client rtrs_client || fail "rnbd_client does not unload"
	rmmod rnbd_server rtrs_server || fail "rnbd_server does not unload"
	rnbd_teardown
	ulp_finish
	say "ok: RNBD over $RNBD_OVER, 3 sets verified on the device and in the backing file, clean teardown"
}
