#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# softrnic as a device: `rdma link add NAME type softrnic netdev DEV`, seen by
# the rdma tool and by rdma-core's siw provider (ibv_devinfo opens it through
# the siw uABI), the port follows the netdev's carrier, one device per netdev,
# bad links refused, user objects listed by restrack, and the device goes
# away with its netdev.
# shellcheck source=tests/e2e/lib.bash
. "$(dirname "$0")/lib.bash"
# shellcheck source=tests/e2e/softrnic-lib.bash
. "$(dirname "$0")/softrnic-lib.bash"
sr_stock_check
sr_setup_pair softrnic softrnic

rdma dev show srA | tee /tmp/sr-dev.txt
grep -q 'node_type rnic' /tmp/sr-dev.txt || fail "srA is not an RNIC"
mac=$(in_a cat /sys/class/net/vA/address)
in_a rdma link show srA/1 | grep -q "netdev vA" || fail "srA is not on vA"

run_to /tmp/sr-devinfo.log "$STEP" ibv_devinfo -v -d srA || fail "ibv_devinfo -d srA failed"
grep -q 'transport:.*iWARP' /tmp/sr-devinfo.log || fail "ibv_devinfo: not iWARP"
grep -q 'state:.*PORT_ACTIVE' /tmp/sr-devinfo.log || fail "ibv_devinfo: port not active"
grep -q 'fw_ver:.*0\.1\.0' /tmp/sr-devinfo.log || fail "ibv_devinfo: fw_ver"
grep -q 'max_qp_rd_atom:.*128' /tmp/sr-devinfo.log || fail "ibv_devinfo: max_qp_rd_atom"
# The node GUID is the MAC's EUI-64: ab:cd:ef:gh:ij:kl -> a9cd:efff:fegh:ijkl
m=${mac//:/}
guid_tail=$(printf '%s' "${m:6:6}" | sed -E 's/^(..)(....)$/fe\1:\2/')
grep -q "node_guid:.*$guid_tail" /tmp/sr-devinfo.log || fail "node GUID does not come from $mac"
ibv_devices | grep -q 'srA' || fail "ibv_devices does not list srA"

# The port follows carrier.
in_b ip link set vB down
wait_for 10 "srA DOWN with vB down" bash -c "rdma link show srA/1 | grep -q 'state DOWN'"
in_b ip link set vB up
wait_for 10 "srA ACTIVE again" sr_active srA

# One softrnic per netdev; no device without a netdev; bad type of netdev.
! in_a rdma link add srX type softrnic netdev vA 2>/dev/null || fail "a second softrnic on vA"
! rdma link add srX type softrnic netdev nosuchdev 2>/dev/null || fail "softrnic on a missing netdev"
ip link add vS type veth peer name vSp
rdma link add srS type softrnic netdev vS || fail "softrnic on a second netdev"
rdma link delete srS || fail "rdma link delete srS"
ip link delete vS

# User objects (PD, CQ, QP in INIT with posted receives, MR) of an
# ibv_rc_pingpong server waiting for its peer are listed by restrack.
bg /tmp/sr-pp.log "${IN_A[@]}" ibv_rc_pingpong -d srA -g 0 -p 18515
pp=$LAST_PID
wait_for 10 "the QP of ibv_rc_pingpong" bash -c "rdma res show qp link srA/1 | grep -q ibv_rc_pingpong"
rdma res show qp link srA/1 | tee /tmp/sr-res.txt
grep -q 'type RC state INIT' /tmp/sr-res.txt || fail "QP not RC in INIT"
rdma res show cq dev srA | grep -q ibv_rc_pingpong || fail "CQ not listed"
rdma res show mr dev srA | grep -q ibv_rc_pingpong || fail "MR not listed"
rdma res show pd dev srA | grep -q ibv_rc_pingpong || fail "PD not listed"
kill -TERM "$pp"
wait_pid "$pp" "$STEP" || true
wait_for 10 "the QP gone with its process" bash -c "! rdma res show qp link srA/1 | grep -q ibv_rc_pingpong"

# The device goes with its netdev.
ip netns exec "$NS_B" ip link delete vB
wait_for 10 "srA and srB gone with the veth pair" bash -c "! rdma dev show srA && ! rdma dev show srB"
say "ok: softrnic devices srA/srB: rdma tool, ibv_devinfo, carrier, restrack, netdev removal"
