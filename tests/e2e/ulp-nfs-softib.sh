#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# orcm-timeout: 300
# NFS over RDMA over native InfiniBand: the body of ulp-nfs.sh (nfsd with
# an rdma listener, svcrdma; the kernel client mounting with
# `-o rdma,port=20049,vers=3`, xprtrdma; files from 0 B to 64 MiB compared
# on the server and through a new mount) over softib under stock opensm,
# server and client on ib0's stock IPoIB netdev
# (tests/e2e/ulp-softib.bash: ARP over IPoIB, an SA PathRecord to ib0's own
# LID, softib's loopback). Both stacks: the in-tree CM is the oracle.
# shellcheck source=tests/e2e/ulp-nfs.bash
. "$(dirname "$0")/ulp-nfs.bash"
# shellcheck source=tests/e2e/ulp-softib.bash
. "$(dirname "$0")/ulp-softib.bash"

NFS_OVER=softib
nfs_main
