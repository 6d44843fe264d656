#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# softib as a device: `rdma link add NAME type softib netdev DEV` makes an
# InfiniBand CA that rdma-core's ipathverbs provider opens; the port follows
# the carrier; the IB MTU follows the netdev's; one device per netdev; the
# device goes with its netdev and with the module. A burst of bad frames
# from a raw socket on the carrier is dropped and counted by reason.
# shellcheck source=tests/e2e/lib.bash
. "$(dirname "$0")/lib.bash"
# shellcheck source=tests/e2e/softib-lib.bash
. "$(dirname "$0")/softib-lib.bash"
sib_stock_check
sib_load
sib_pair 9000

rdma dev show ib0 | tee /tmp/sib-dev.txt
grep -q 'node_type ca' /tmp/sib-dev.txt || fail "ib0 is not a CA"
rdma link show ib0/1 | grep -q 'netdev vA' || fail "ib0 is not on vA"
rdma link show ib1/1 | grep -q 'netdev vB' || fail "ib1 is not on vB"

# The stock ipathverbs provider opens it (RDMA_DRIVER_QIB, the qib ABI).
IBV_SHOW_WARNINGS=1 LD_DEBUG=libs timeout "$STEP" ibv_devinfo -d ib0 \
	>/dev/null 2>/tmp/sib-ld.log || fail "ibv_devinfo -d ib0 failed"
grep -q 'calling init:.*/libipathverbs-rdmav34.so' /tmp/sib-ld.log ||
	fail "ibv_devinfo did not load libipathverbs-rdmav34.so"
IBV_SHOW_WARNINGS=1 run_to /tmp/sib-devinfo.log "$STEP" ibv_devinfo -v -d ib0 ||
	fail "ibv_devinfo -d ib0 failed"
! grep -qi 'warning' /tmp/sib-devinfo.log || fail "libibverbs warned"
grep -q 'transport:.*InfiniBand' /tmp/sib-devinfo.log || fail "transport not InfiniBand"
grep -q 'link_layer:.*InfiniBand' /tmp/sib-devinfo.log || fail "link layer not InfiniBand"
# No SM yet: the carrier is up, so LinkUp and INIT.
grep -q 'state:.*PORT_INIT' /tmp/sib-devinfo.log || fail "port not INIT with the carrier up"
grep -q 'phys_state:.*LINK_UP' /tmp/sib-devinfo.log || fail "phys state not LinkUp"
grep -q 'max_mtu:.*4096' /tmp/sib-devinfo.log || fail "max_mtu not 4096 on a 9000-byte carrier"
# Node GUID: the MAC's EUI-64, U/L bit flipped: ab:cd:ef:gh:ij:kl -> a9cd:efff:fegh:ijkl
mac=$(cat /sys/class/net/vA/address)
m=${mac//:/}
guid_tail=$(printf '%s' "${m:6:6}" | sed -E 's/^(..)(....)$/fe\1:\2/')
grep -q "node_guid:.*$guid_tail" /tmp/sib-devinfo.log || fail "node GUID does not come from $mac"
ibv_devices | grep -q 'ib1' || fail "ibv_devices does not list ib1"

# The port follows the carrier: vB down takes vA's carrier.
ip link set vB down
wait_for 10 "ib0 DOWN with vB down" bash -c "rdma link show ib0/1 | grep -q 'state DOWN'"
ip link set vB up
wait_for 10 "ib0 INIT again" bash -c "rdma link show ib0/1 | grep -q 'state INIT'"

# The IB MTU follows the carrier's: 1500 bytes hold 1024-byte IB packets.
ip link set vA mtu 1500
ibv_devinfo -d ib0 | grep -q 'max_mtu:.*1024' || fail "max_mtu not 1024 on a 1500-byte carrier"
ip link set vA mtu 9000

# One softib per netdev; a netdev is needed; it must be Ethernet.
! rdma link add ibS type softib netdev vA 2>/dev/null || fail "a second softib on vA"
! rdma link add ibS type softib netdev nosuchdev 2>/dev/null || fail "softib on a missing netdev"
! rdma link add ibS type softib netdev lo 2>/dev/null || fail "softib on loopback"

# rdma link delete, and the device goes with its netdev.
ip link add vC type veth peer name vD
rdma link add ib2 type softib netdev vC || fail "rdma link add ib2"
rdma link delete ib2 || fail "rdma link delete ib2"
rdma link add ib2 type softib netdev vC || fail "rdma link add ib2 again"
[ -d "$SIB_DEBUGFS/ib2" ] || fail "no debugfs for ib2"
ip link delete vC
wait_for 10 "ib2 gone with vC" bash -c "! rdma dev show ib2 2>/dev/null"

# Bad input on the wire, from a raw socket on vB: each kind is dropped by
# ib0 and counted under its reason, never delivered.
declare -A before
reasons=(short icrc lver opcode dlid pkey)
for r in "${reasons[@]}"; do before[$r]=$(sib_drops ib0 "$r"); done
N=5
py=/usr/bin/python3
[ -x "$py" ] || py=python3
"$py" "$(dirname "$0")/softib-rawsend.py" vB "$N" "${reasons[@]}" || fail "raw sender failed"
sleep 1
cat "$SIB_DEBUGFS/ib0/drops"
for r in "${reasons[@]}"; do
	got=$(($(sib_drops ib0 "$r") - before[$r]))
	[ "$got" -eq "$N" ] || fail "ib0 counted $got '$r' drops, not $N"
done

# Unloading the module with devices present removes them cleanly.
rmmod softib || fail "rmmod softib with ib0 and ib1 present"
! rdma dev show ib0 2>/dev/null || fail "ib0 survived rmmod"
[ ! -d "$SIB_DEBUGFS" ] || fail "debugfs survived rmmod"
say "ok"
