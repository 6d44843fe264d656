#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# orcm-timeout: 300
# NVMe over Fabrics over softrnic: the body of ulp-nvme.sh (stock nvmet-rdma
# target, stock nvme-rdma host, data verified, reconnect) with softrnic
# devices srT and srH instead of siw, so the kernel ULP's fast-register MRs,
# remote invalidation and kernel QPs run over our RNIC and our host-stack
# iw_cm. softrnic is part of our stack only.
if [ "${ORCM_STACK:-}" = stock ]; then
	echo "## SKIP: on the stock stack, softrnic needs our iw_cm"
	exit 77 # a skip (tests/e2e/lib.bash: skip)
fi
export ULP_RNIC=softrnic
exec bash "$(dirname "$0")/ulp-nvme.sh"
