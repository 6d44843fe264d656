#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# orcm-timeout: 300
# NFS over RDMA through the CM, with the stock kernel server and client: nfsd
# with an rdma listener on port 20049 (`echo rdma 20049 > portlist`: svcrdma
# listens through rdma_cm on siwT), a tmpfs directory exported (exportfs,
# rpc.mountd, rpcbind), the kernel client mounting it with
# `-o rdma,port=20049,vers=3` (xprtrdma connects through rdma_cm).
# Proves: the mount's transport is rdma (ids connected on siwT); files of
# several sizes (0 B .. 64 MiB) written through the mount equal their sources,
# on the server and, after unmount + mount (no client cache left), through
# the client; teardown leaves no CM id, every module unloads; rdma_cm and
# iw_cm are those of the stack under test before and after.
#
# NFSv3: the UML kernel's client has no NFSv4.1/4.2 (CONFIG_NFS_V4_1 is off),
# and v4.0 would make the first OPEN wait out nfsd's grace period.
# shellcheck source=tests/e2e/ulp-nfs.bash
. "$(dirname "$0")/ulp-nfs.bash"

nfs_main
