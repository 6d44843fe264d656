#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# orcm-timeout: 300
# RNBD over native InfiniBand: the body of tests/e2e/ulp-rnbd.bash over
# softib under stock opensm, both addresses on ib0's stock IPoIB netdev
# (tests/e2e/ulp-softib.bash: ARP over IPoIB, an SA PathRecord to ib0's own
# LID, softib's loopback). rtrs_server registers its chunks with
# ib_map_mr_sg() at 128 KiB pages: before softib mapped MRs at the page
# size it is given (drivers/softib/mr.c), the first write ran past the MR's
# segments and panicked the kernel (issue 42), on either CM. Both stacks.
# shellcheck source=tests/e2e/ulp-rnbd.bash
. "$(dirname "$0")/ulp-rnbd.bash"
# shellcheck source=tests/e2e/ulp-softib.bash
. "$(dirname "$0")/ulp-softib.bash"

RNBD_OVER=softib
rnbd_main
