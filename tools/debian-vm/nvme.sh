#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The Debian VM's NVMe-oF test (tools/debian-vm/guest.sh runs it): the
# tests/e2e/ulp-nvme.bash target and host over softrnic in init_net, one
# connect, two data sets written through nvme-rdma and read back (checksums
# on the host block device and in the target's file), `rdma res show cm_id`
# with both connected ids, disconnect, teardown. ulp-nvme.sh does more
# (reconnect, more sets): this is the short form for a TCG guest.
export ULP_RNIC=softrnic
# shellcheck source=tests/e2e/ulp-nvme.bash
. "$ORCM_REPO/tests/e2e/ulp-nvme.bash"

# Debian's kernel has native NVMe multipath (CONFIG_NVME_MULTIPATH=y): the
# controller's path device nvme<S>c<C>n1 is hidden and the disk is the
# subsystem's head, nvme<S>n1 (the UML test kernel has no multipath).
nvme_blk_ready() {
	local b
	for b in /sys/class/nvme/"$NVME_CTRL"/nvme*n1; do
		[ -e "$b" ] || return 1
		b=$(basename "$b")
		[[ $b =~ ^(nvme[0-9]+)c[0-9]+(n[0-9]+)$ ]] && b=${BASH_REMATCH[1]}${BASH_REMATCH[2]}
		[ -b "/dev/$b" ] && [ "$(cat "/sys/class/block/$b/size")" -eq $((NS_SIZE / 512)) ] || return 1
		NVME_BLK=/dev/$b
		return 0
	done
	return 1
}

ulp_teardown() {
	nvme_disconnect
	nvmet_down
}

ulp_check_stack before
ulp_topology
nvme_modules
nvmet_up
# shellcheck disable=SC2119 # no extra nvme-cli options
nvme_connect
wait_for 20 "connected ids on $H_DEV and $T_DEV" nvme_ids_connected
say "rdma res show cm_id:"
cm_ids | sed 's/^/  /'
cm_ids | grep -q "state LISTEN .*src-addr $T_ADDR:$NVME_PORT" || fail "no listener listed"

declare -A SUM
SETS="a 4096 65536
b $((8 << 20)) $((1 << 20))"
while read -r n off size; do
	head -c "$size" /dev/urandom >"/tmp/nvme-$n.dat"
	SUM[$n]=$(sha256sum <"/tmp/nvme-$n.dat" | cut -d' ' -f1)
	write_at "/tmp/nvme-$n.dat" "$NVME_BLK" "$off"
done <<<"$SETS"
while read -r n off size; do
	got=$(sum_at "$NVME_BLK" "$off" "$size" direct)
	[ "$got" = "${SUM[$n]}" ] || fail "set $n ($size bytes at $off) reads back $got, wrote ${SUM[$n]}"
	got=$(sum_at "$NS_FILE" "$off" "$size")
	[ "$got" = "${SUM[$n]}" ] || fail "set $n in the target's file: $got, wrote ${SUM[$n]}"
	tsay "set $n: $size bytes at $off written and read back, sha256 ${SUM[$n]:0:16}..."
done <<<"$SETS"
rm -f /tmp/nvme-?.dat

nvme_disconnect || fail "nvme disconnect failed"
nvmet_down || fail "nvmet configfs teardown failed"
ulp_finish
say "ok: nvme-rdma <-> nvmet-rdma over softrnic through our rdma_cm on $(uname -r): data verified"
