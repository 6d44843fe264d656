#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# orcm-timeout: 240
# SMB Direct over RoCE: the body of tests/e2e/ulp-smb.bash (ksmbd shares a
# directory, cifs mounts it with `rdma`, three sets of random data verified
# through the mount and in the share, umount, ksmbd down, no CM id left) on
# one rdma_rxe device holding both addresses (rxe in 6.12 lives in the
# initial namespace only), as ulp-rnbd-rxe.sh. Both stacks: the in-tree CM
# is the oracle that this works.
# shellcheck source=tests/e2e/ulp-smb.bash
. "$(dirname "$0")/ulp-smb.bash"

T_DEV=rxeS H_DEV=rxeS SMB_OVER=rxe
# shellcheck source=tests/e2e/ulp-rxe.bash
. "$(dirname "$0")/ulp-rxe.bash"
smb_main
