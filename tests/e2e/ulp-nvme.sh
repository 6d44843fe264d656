#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# orcm-timeout: 300
# NVMe over Fabrics through the CM, with stock kernel ULPs on both ends: an
# nvmet-rdma target (configfs by hand, a file on tmpfs as namespace 1) on siwT,
# the nvme-rdma host (`nvme connect -t rdma`) from siwH, both in this kernel.
# Proves: nvmet's listener and the host's queues (admin + I/O) are set up
# through the loaded rdma_cm/iw_cm (ids connected on both devices); data
# written with direct I/O (4 KiB, 1 MiB + 4 KiB, 64 MiB, the last block) reads
# back with the same sha256, from the device and from the target's file;
# after `nvme disconnect` and a new `nvme connect` it still does, and new data
# goes through; teardown leaves no CM id, every module unloads, and rdma_cm
# and iw_cm are those of the stack under test before and after.
# shellcheck source=tests/e2e/ulp-nvme.bash
. "$(dirname "$0")/ulp-nvme.bash"

ulp_teardown() { nvme_teardown; }

nvme_up

# name offset size: 4 KiB, 1 MiB + 4 KiB, 64 MiB, and the namespace's last block.
SETS="a 0 4096
b $((1 << 20)) $(((1 << 20) + 4096))
c $((4 << 20)) $((64 << 20))
d $((NS_SIZE - 4096)) 4096"
nvme_write_sets
nvme_verify_sets "first connection"

nvme_disconnect || fail "nvme disconnect failed"
wait_for 20 "only the listener left" bash -c \
	"[ \"\$(rdma res show cm_id | grep -c .)\" = 1 ] && rdma res show cm_id | grep -q 'state LISTEN'"
tsay "disconnected; the target still listens"

nvme_connect
nvme_verify_sets "after reconnect"
SETS="e $((72 << 20)) $((8 << 20))"
nvme_write_sets
nvme_verify_sets "new data after reconnect"
rm -f /tmp/nvme-?.dat

nvme_disconnect || fail "nvme disconnect failed"
nvmet_down || fail "nvmet configfs teardown failed"
ulp_finish
say "ok: nvme-rdma <-> nvmet-rdma over $ULP_RNIC through $ORCM_STACK rdma_cm: data verified, reconnect verified"
