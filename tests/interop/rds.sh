#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# RDS over RDMA across the two VMs over RoCE (rxe): rds_rdma in each
# kernel, on top of that VM's CM (stock in one, ours in the other), and
# both VMs sending 300 messages (1 B to 64 KiB, checksummed, in order) to
# each other at once, so that both open the pair's RDS connection at the
# same time: RDS rejects the other's REQ while its own connect is pending
# and backs off (ib_connect_raced). Then rds_rdma unloads and no CM id is
# left.
# shellcheck source=tests/interop/lib.bash
. "$(dirname "$0")/lib.bash"
# shellcheck source=tests/interop/rds.bash
. "$(dirname "$0")/rds.bash"
setup_link
trap 'rds_unload_quiet; link_cleanup' EXIT
rds_load
rds_case rds-rxe "$LADDR" "$PADDR"
rds_unload
barrier end
