#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# orcm-timeout: 300
# iSER through the CM, with stock kernel ULPs on both ends: a LIO iSCSI target
# (configfs by hand: a fileio backstore on tmpfs, one LUN, a portal with iSER
# enabled: ib_isert listens through rdma_cm on siwT) and the open-iscsi
# initiator (iscsid + `iscsiadm -I iser`: ib_iser connects through rdma_cm).
# Proves: login over iSER (ids connected on siwT, the session's transport is
# iser), mkfs.ext4 on the LUN, files of several sizes written, read back with
# the same sha256 after a remount, logout, a new login, the files again and a
# clean e2fsck; teardown leaves no CM id and every module unloads; rdma_cm and
# iw_cm are those of the stack under test before and after.
#
# siw listens with a real kernel TCP socket, so the iSER listener cannot share
# its address and port with the portal's iSCSI/TCP listener (EADDRINUSE), and
# LIO always opens that one first (the `iser` attribute adds iSER to a TCP
# portal). LIO creates the TCP socket in the network namespace of the task
# that makes the portal, ib_isert's listener (siw) in that of the task that
# sets `iser`: the portal is made from netns orcmI (where 198.18.1.1 is on lo)
# and iSER enabled from init_net. Hence no sendtargets discovery (that is
# iSCSI/TCP): the node record is created by hand (`iscsiadm -m node -o new`).
# shellcheck source=tests/e2e/ulp-iser.bash
. "$(dirname "$0")/ulp-iser.bash"
iser_main
