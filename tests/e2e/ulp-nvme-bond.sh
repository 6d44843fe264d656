#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# orcm-timeout: 300
# A bond failover under NVMe over Fabrics (issue 28): the stock nvmet-rdma
# target and nvme-rdma host in this kernel, on one rdma_rxe device (rxeB)
# on a bond (bondN, active-backup, fail_over_mac active, over two veths)
# that holds both the target's and the host's address. A failover gives the
# bond another MAC; as in-tree, rdma_cm then delivers ADDR_CHANGE to every
# id bound to the bond whose source MAC is not the bond's any more: nvmet's
# listener (nvmet_rdma re-creates it: its port's repair work), its queues
# and the host's (the host reconnects). Checked: the listener is a new id
# afterwards, the controller is live again and the data written before the
# failover reads back through it, and a new host connects to the repaired
# port. Not on the stock stack, for the in-tree lockdep report that keeps
# ulp-nvme-rxe.sh off it (see its head); rxe-bond-failover.sh compares the
# events themselves with the in-tree CM.
# The host's reconnect after the failover needs the port's QP1 alive: a
# bond's MAC change deletes every GID of the bond and adds them again at
# other indices, and a MAD sent through an address vector made before
# (the DREQs of the queues nvmet and the host drop on ADDR_CHANGE) names a
# GID index that no longer holds its GID. rxe fails that send and leaves
# QP1 in error for good, so the host's new REQ never leaves the port and
# nvme-rdma waits for its CM event forever. Our ib_cm refuses such a send
# (the id enters timewait, as in-tree when ib_core refuses the AH); the
# test checks QP1 is still RTS after the failover. A DREQ already waiting
# for its DREP when the GID goes would be resent by ib_mad through its old
# AH: our ib_cm cancels it on the GID change and ends it as a timeout
# (timewait), see cm_cancel_stale_sends().
if [ "${ORCM_STACK:-}" = stock ]; then
	echo "## SKIP: on the stock stack, the in-tree rdma_cm's lockdep report (see tests/e2e/ulp-nvme-rxe.sh)"
	exit 77 # a skip (tests/e2e/lib.bash: skip)
fi
# shellcheck source=tests/e2e/ulp-nvme.bash
. "$(dirname "$0")/ulp-nvme.bash"

T_IF=bondN T_DEV=rxeB H_DEV=rxeB
ulp_topology() {
	local s
	ulp_modprobe bonding
	ip link add "$T_IF" type bond mode active-backup fail_over_mac active
	for s in 1 2; do
		ip link add "vNa$s" type veth peer name "vNb$s"
		ip link set "vNb$s" up
		ip link set "vNa$s" master "$T_IF"
	done
	ip link set "$T_IF" type bond active_slave vNa1
	ip addr add "$T_ADDR/24" dev "$T_IF"
	ip addr add "$H_ADDR/24" dev "$T_IF"
	ip link set "$T_IF" up
	rdma link add "$T_DEV" type rxe netdev "$T_IF"
	wait_for 10 "$T_DEV ACTIVE" dev_active "$T_DEV"
	say "topology (init_net): $T_IF $T_ADDR $H_ADDR $T_DEV (loopback), slaves vNa1 vNa2"
}
ulp_devs_active() { dev_active "$T_DEV"; }
ulp_topology_down() {
	# After a failed reconnect the host's controller may still be there,
	# its reconnect work waiting; removing the device under it then reads
	# the nvme_rdma_device its error recovery freed (stock nvme-rdma's
	# nvme_rdma_remove_one() compares ctrl->device->dev: a KASAN report
	# that kills the VM and every later test). Deleting the bond would
	# remove the device too (rxe unregisters it from a work item), so both
	# stay then: the test has failed already, and the module unload will
	# say so too (nvme_rdma stays in use; ulp_exit unloads nothing).
	local c
	if c=$(nvme_ctrl_of "$NQN"); then
		say "a controller for $NQN is still there ($c: $(cat "/sys/class/nvme/$c/state" 2>/dev/null)): deleting it"
		timeout 20 sh -c "echo 1 >/sys/class/nvme/$c/delete_controller" 2>/dev/null || true
	fi
	if nvme_ctrl_of "$NQN" >/dev/null; then
		say "$NQN's controller is still there: $T_DEV and $T_IF left in place"
		echo "$NQN's controller is still there" >"$ULP_KEEP"
		return 0
	fi
	if rdma link show "$T_DEV/1" >/dev/null 2>&1; then
		ulp_link_delete "$T_DEV"
	fi
	ip link del "$T_IF" 2>/dev/null || true
	ip link del vNa1 2>/dev/null || true
	ip link del vNa2 2>/dev/null || true
}
ulp_teardown() {
	nvme_disconnect
	nvmet_down
}
# listener_id: the cm id number of the listener on the NVMe port.
listener_id() {
	rdma res show cm_id | grep "state LISTEN .*src-addr $T_ADDR:$NVME_PORT" |
		grep -o 'cm-idn [0-9]*' | head -n 1
}
relistened() { local l; l=$(listener_id) && [ -n "$l" ] && [ "$l" != "$L0" ]; }
# reconnects: how many times nvme-rdma's host said it reconnected.
reconnects() { dmesg | grep -c 'Successfully reconnected' || true; }
reconnected() { [ "$(reconnects)" -gt "$R0" ] && nvme_live; }

ulp_check_stack before
ulp_topology
nvme_modules
nvmet_up
nvme_connect -c 1 # reconnect 1 s after an error, not 10
wait_for 10 "connected ids on $T_DEV" nvme_ids_connected
L0=$(listener_id)
R0=$(reconnects)
[ -n "$L0" ] || fail "no listener id on $T_ADDR:$NVME_PORT"
head -c $((1 << 20)) /dev/urandom >/tmp/nvme-bond.dat
write_at /tmp/nvme-bond.dat "$NVME_BLK" 0
want=$(sum_at /tmp/nvme-bond.dat 0 $((1 << 20)))

# Our ib_cm's counters (debugfs): the test runs on ours only, where the
# file and its gid_doomed counter must exist (a missing one is a failure,
# not a check skipped).
IBCM_COUNTERS=/sys/kernel/debug/ib_cm/counters
[ -r "$IBCM_COUNTERS" ] || fail "no $IBCM_COUNTERS on our stack"
DOOM0=$(ibcm_counter gid_doomed)
[ -n "$DOOM0" ] || fail "$IBCM_COUNTERS has no gid_doomed counter"
mac=$(cat "/sys/class/net/$T_IF/address")
ip link set "$T_IF" type bond active_slave vNa2
[ "$(cat "/sys/class/net/$T_IF/address")" != "$mac" ] ||
	fail "fail_over_mac active kept the MAC: no test"
tsay "failover to vNa2: bond MAC $mac -> $(cat "/sys/class/net/$T_IF/address")"
wait_for 30 "nvmet's listener re-created ($L0 before)" relistened
tsay "listener: $L0 -> $(listener_id)"
# gsi_state: the state of the port's QP1 (GSI), which carries the CM MADs.
gsi_state() {
	rdma res show qp | grep 'type GSI' | grep -o 'state [A-Z]*' | head -n 1
}
end=$((SECONDS + 20))
until reconnected || [ "$SECONDS" -ge "$end" ]; do sleep 0.2; done
if ! reconnected; then
	say "no reconnect; QP1, ib_cm counters (ours), the blocked tasks (sysrq w):"
	rdma res show qp | grep GSI | sed 's/^/  /'
	sed 's/^/  /' /sys/kernel/debug/ib_cm/counters 2>/dev/null || true
	echo w >/proc/sysrq-trigger
	sleep 2
	fail "$NVME_CTRL did not reconnect within 20 s of the failover"
fi
dmesg | grep -E 'nvme|nvmet' | tail -n 8 | sed 's/^/  [dmesg] /'
[ -r "$IBCM_COUNTERS" ] || fail "$IBCM_COUNTERS is gone after the failover"
say "ib_cm (ours): $(grep -E '^(tx_err|tx_stale_cancelled|timeout|gid_doomed) ' \
	"$IBCM_COUNTERS" | tr '\n' ' ')"
# The failover's NETDEV_CHANGEADDR marked the bond's GID entries before
# ib_core deleted them (ib_cm/gid_doom.c).
doom=$(ibcm_counter gid_doomed)
[ "${doom:-0}" -gt "$DOOM0" ] ||
	fail "ib_cm marked no GID entry of $T_IF doomed on the failover (gid_doomed ${doom:-missing}, $DOOM0 before)"
[ "$(gsi_state)" = "state RTS" ] ||
	fail "QP1 is not RTS after the failover: $(gsi_state)"
got=$(sum_at "$NVME_BLK" 0 $((1 << 20)) direct)
[ "$got" = "$want" ] || fail "the data read back after the failover differs"
tsay "ok: $NVME_CTRL reconnected after the failover, 1 MiB read back intact"

# The repaired port serves a new host.
nvme_disconnect
nvme_connect
got=$(sum_at "$NVME_BLK" 0 $((1 << 20)) direct)
[ "$got" = "$want" ] || fail "the data read through a new connection differs"
tsay "ok: a new connection to the repaired port: $NVME_CTRL, data intact"

ulp_teardown
ulp_finish
