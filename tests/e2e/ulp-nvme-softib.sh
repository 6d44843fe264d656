#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# orcm-timeout: 300
# NVMe over Fabrics over native InfiniBand: the stock nvmet-rdma target and
# nvme-rdma host, both in this kernel, over softib under stock opensm, both
# addresses on ib0's stock IPoIB netdev (tests/e2e/ulp-softib.bash: ARP over
# IPoIB, an SA PathRecord to ib0's own LID, softib's loopback). This drives
# the native IB half of rdma_cm (IPoIB address to port by GID and P_Key, the
# SA path, ib_cm with kernel QPs) under a stock ULP. Data written with direct I/O
# (4 KiB, 1 MiB + 4 KiB, 16 MiB) reads back with the same sha256 from the
# device and from the target's file. Then the port goes down under the
# nvmet port and the connected host (ib0's carrier netdev down for 3 s:
# softib raises PORT_ERR, the queues' RC traffic is dropped): the host's
# controller leaves "live", and once the carrier is back and opensm has
# made the port ACTIVE again it reconnects through the same listener, and
# the data reads back intact. Teardown leaves no CM id.
#
# Not on the stock stack, for the in-tree lockdep report that keeps
# ulp-nvme-rxe off it (see the head of tests/e2e/ulp-nvme-rxe.sh): nvmet
# with the in-tree rdma_cm, whatever the device. A one-off run on the stock
# stack with this skip removed (2026-11-27) passed, data verified, 53 s: the
# in-tree CM is an oracle that this path works, not one that CI can rely on.
if [ "${ORCM_STACK:-}" = stock ]; then
	echo "## SKIP: on the stock stack, the in-tree rdma_cm's lockdep report with nvmet (see tests/e2e/ulp-nvme-rxe.sh)"
	exit 77 # a skip (tests/e2e/lib.bash: skip)
fi
# shellcheck source=tests/e2e/ulp-nvme.bash
. "$(dirname "$0")/ulp-nvme.bash"
# shellcheck source=tests/e2e/ulp-softib.bash
. "$(dirname "$0")/ulp-softib.bash"

ulp_teardown() { nvme_teardown; }

nvme_up

SETS="a 0 4096
b $((1 << 20)) $(((1 << 20) + 4096))
c $((4 << 20)) $((16 << 20))"
nvme_write_sets
nvme_verify_sets "first connection"

# The port down under the nvmet port and the connected host. The host was
# connected with the default reconnect delay (10 s); a keep-alive or an RC
# retry error takes it out of "live" within seconds.
reconnects() { dmesg | grep -c 'Successfully reconnected' || true; }
reconnected() { [ "$(reconnects)" -gt "$R0" ] && nvme_live; }
R0=$(reconnects) t0=$SECONDS
ip link set vA down
wait_for 10 "ib0's port DOWN" bash -c "rdma link show ib0/1 | grep -q 'state DOWN'"
wait_for 20 "$NVME_CTRL out of live" bash -c "! grep -qx live /sys/class/nvme/$NVME_CTRL/state"
tsay "port down: $NVME_CTRL $(nvme_ctrl_state) after $((SECONDS - t0)) s"
sleep 3
ip link set vA up
wait_for 30 "ib0's port ACTIVE again" dev_active ib0
end=$((SECONDS + 60))
until reconnected || [ "$SECONDS" -ge "$end" ]; do sleep 0.5; done
if ! reconnected; then
	dmesg | grep -E 'nvme|nvmet' | tail -n 12 | sed 's/^/  [dmesg] /'
	cm_ids
	fail "$NVME_CTRL did not reconnect within 60 s of the port coming back"
fi
dmesg | grep -E 'nvme|nvmet' | tail -n 6 | sed 's/^/  [dmesg] /'
nvme_verify_sets "after the port came back"
tsay "ok: the port went down under the nvmet port and the host: reconnected, data intact ($((SECONDS - t0)) s)"
rm -f /tmp/nvme-?.dat
sib_ulp_counters

nvme_disconnect || fail "nvme disconnect failed"
nvmet_down || fail "nvmet configfs teardown failed"
ulp_finish
say "ok: nvme-rdma <-> nvmet-rdma over softib (native IB, IPoIB addresses, SA path) through $ORCM_STACK rdma_cm: data verified"
