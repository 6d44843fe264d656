#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# orcm-timeout: 240
# RNBD over RoCE: the body of tests/e2e/ulp-rnbd.bash (rnbd_server exports a
# loop device, rnbd_client maps it over RTRS, three sets of random data
# verified on the device and in the backing file, unmap, no CM id left) on
# one rdma_rxe device holding both addresses (rxe in 6.12 lives in the
# initial namespace only), as ulp-iser-rxe.sh. Both stacks: the in-tree CM
# is the oracle that this works.
# shellcheck source=tests/e2e/ulp-rnbd.bash
. "$(dirname "$0")/ulp-rnbd.bash"

T_DEV=rxeN H_DEV=rxeN RNBD_OVER=rxe
# shellcheck source=tests/e2e/ulp-rxe.bash
. "$(dirname "$0")/ulp-rxe.bash"
rnbd_main
