#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# orcm-timeout: 300
# RDMA devices going away under stock NVMe-oF (nvmet-rdma target on siwT,
# nvme-rdma host on siwH, both in this kernel), through the loaded CM:
# 1. `rdma link delete siwT` under an idle nvmet port completes (nvmet's
#    DEVICE_REMOVAL handler returns 1 for its listener: the CM destroys the
#    id); the listener is gone; siwT added again, the port listens again
#    once re-enabled (see port_back) and a fresh `nvme connect` works.
# 2. The same under live I/O from the host: the removal completes, the host
#    loses its queues, reconnects to the re-added siwT by itself, and the
#    writer that ran across the removal ends without an error; its data reads
#    back intact.
# 3. `rdma link delete siwH` (the host's device) under live I/O completes; the
#    host deletes the controller and the writer fails with an I/O error within
#    a bounded time (no hang); siwH added again, a fresh `nvme connect` works
#    and the data of step 2 reads back.
# A removal that blocks fails the test at once (ulp_link_delete).
# shellcheck source=tests/e2e/ulp-nvme.bash
. "$(dirname "$0")/ulp-nvme.bash"

STOP=/tmp/nvme-writer.stop
ulp_teardown() {
	touch "$STOP"
	[ -n "${WRITER:-}" ] && { kill "$WRITER" 2>/dev/null; wait_pid "$WRITER" 10; }
	nvme_disconnect
	nvmet_down
}

# writer: rewrite $DATA at $OFF of the namespace in 64 KiB direct writes,
# over and over, until $STOP exists; exits with dd's status on an error.
DATA=/tmp/nvme-live.dat OFF=$((8 << 20))
start_writer() {
	rm -f "$STOP"
	bg /tmp/nvme-writer.log bash -c '
		n=0
		while [ ! -e "$1" ]; do
			# nocreat: once the node is gone, dd must not write a
			# regular file of that name into /dev instead.
			[ -b "$3" ] || { echo "pass $n: $3 is gone"; exit 5; }
			dd if="$2" of="$3" bs=64k oflag=direct,seek_bytes seek="$4" conv=notrunc,nocreat status=none ||
				{ rc=$?; echo "pass $n failed: dd status $rc"; exit $rc; }
			n=$((n + 1)); echo "pass $n done"
		done
		echo "stopped after $n passes"' writer "$STOP" "$DATA" "$NVME_BLK" "$OFF"
	WRITER=$LAST_PID
}
writer_passes() { grep -c 'done$' /tmp/nvme-writer.log || true; }
writer_has_passed() { [ "$(writer_passes)" -ge "$1" ]; }

# port_back WHEN: the nvmet port listens on the re-added siwT again. nvmet
# re-enables a port by itself only when its listener gets ADDR_CHANGE, or
# every 5 s while enabling fails; after DEVICE_REMOVAL it does not (stock 6.12:
# the listener is gone for good). So: wait 7 s for it to come back by itself
# (logged if it does), then re-link the subsystem to the port, which is what
# an administrator does.
port_back() {
	local end=$((SECONDS + 7))
	while [ "$SECONDS" -lt "$end" ]; do
		cm_id_listening $NVME_PORT >/dev/null 2>&1 && { tsay "$1: nvmet listens again by itself"; return 0; }
		sleep 0.5
	done
	tsay "$1: nvmet does not listen again by itself: re-enabling port 1 (unlink + link)"
	nvmet_port_relink
	wait_for 10 "nvmet listening again after the relink" cm_id_listening $NVME_PORT
}
listener_gone() { ! cm_id_listening $NVME_PORT; }
no_ids_on() { ! cm_ids | grep -q "^link $1/"; }

ulp_check_stack before
ulp_topology
nvme_modules
nvmet_up
head -c $((8 << 20)) /dev/urandom >"$DATA"
WANT=$(sha256sum <"$DATA" | cut -d' ' -f1)

# ---- 1. an idle port ------------------------------------------------------------
say "1. removing $T_DEV under the idle nvmet port"
cm_ids
ulp_link_delete "$T_DEV"
wait_for 10 "the nvmet listener gone" listener_gone
no_ids_on "$T_DEV" || { cm_ids; fail "ids left on the removed $T_DEV"; }
tsay "1. $T_DEV removed"
rdma link add "$T_DEV" type siw netdev "$T_IF"
wait_for 10 "$T_DEV ACTIVE again" ulp_devs_active
port_back "1"
nvme_connect --reconnect-delay=1 --ctrl-loss-tmo=60
write_at "$DATA" "$NVME_BLK" "$OFF"
[ "$(sum_at "$NVME_BLK" "$OFF" $((8 << 20)) direct)" = "$WANT" ] || fail "1. data after the re-add"
tsay "1. fresh connect over the re-added $T_DEV: data verified"

# ---- 2. the target's device, under live I/O ------------------------------------
say "2. removing $T_DEV under live I/O (host on $H_DEV reconnects)"
start_writer
wait_for 30 "the writer's first pass" writer_has_passed 1
kill -0 "$WRITER" 2>/dev/null || { show /tmp/nvme-writer.log; fail "the writer died before the removal"; }
before=$(writer_passes)
ulp_link_delete "$T_DEV"
kill -0 "$WRITER" 2>/dev/null || { show /tmp/nvme-writer.log; fail "the writer ended at the removal (host on $H_DEV should hold the I/O)"; }
wait_for 10 "the nvmet listener gone" listener_gone
wait_for 20 "$NVME_CTRL not live" bash -c "! grep -qx live /sys/class/nvme/$NVME_CTRL/state"
tsay "2. $T_DEV removed: $NVME_CTRL is $(nvme_ctrl_state), writer at pass $before"
rdma link add "$T_DEV" type siw netdev "$T_IF"
wait_for 10 "$T_DEV ACTIVE again" ulp_devs_active
port_back "2"
wait_for 40 "$NVME_CTRL live again (reconnect)" nvme_live
tsay "2. $NVME_CTRL reconnected"
wait_for 60 "the writer going on after the reconnect" writer_has_passed $((before + 2))
touch "$STOP"
rc=0
wait_pid "$WRITER" 60 || rc=$?
show /tmp/nvme-writer.log | tail -n 3
[ "$rc" -eq 0 ] || fail "2. the writer across the removal: status $rc"
WRITER=''
[ "$(sum_at "$NVME_BLK" "$OFF" $((8 << 20)) direct)" = "$WANT" ] || fail "2. data written across the removal"
[ "$(sum_at "$NS_FILE" "$OFF" $((8 << 20)))" = "$WANT" ] || fail "2. data in the target's file"
tsay "2. I/O across the removal completed; data verified"

# ---- 3. the host's device, under live I/O --------------------------------------
say "3. removing $H_DEV under live I/O (the host deletes its controller)"
start_writer
wait_for 30 "the writer's first pass" writer_has_passed 1
kill -0 "$WRITER" 2>/dev/null || { show /tmp/nvme-writer.log; fail "the writer died before the removal"; }
ulp_link_delete "$H_DEV"
rc=0
wait_pid "$WRITER" 60 || rc=$?
show /tmp/nvme-writer.log | tail -n 2
[ "$rc" -ne 124 ] || fail "3. the writer hangs after the host's device went away"
[ "$rc" -ne 0 ] || fail "3. the writer ended without an error, though its device went away"
WRITER=''
wait_for 20 "the host controller deleted" nvme_gone
no_ids_on "$H_DEV" || { cm_ids; fail "ids left on the removed $H_DEV"; }
wait_for 20 "the target's queues gone (only the listener left)" bash -c \
	"[ \"\$(rdma res show cm_id | grep -c .)\" = 1 ]"
tsay "3. $H_DEV removed: writer failed cleanly (status $rc), controller deleted"
rdma link add "$H_DEV" type siw netdev "$H_IF"
wait_for 10 "$H_DEV ACTIVE again" ulp_devs_active
nvme_connect
[ "$(sum_at "$NVME_BLK" "$OFF" $((8 << 20)) direct)" = "$WANT" ] || fail "3. data after the host's re-add"
tsay "3. fresh connect over the re-added $H_DEV: data verified"

nvme_disconnect || fail "nvme disconnect failed"
nvmet_down || fail "nvmet configfs teardown failed"
rm -f "$DATA"
ulp_finish
say "ok: device removal under nvmet/nvme-rdma completes; the host reconnects or fails cleanly; re-added devices serve"
