#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# orcm-timeout: 240
# SMB Direct over softrnic: the body of ulp-smb.sh (ksmbd on 5445, cifs
# mounts with `rdma`, three sets of random data verified through the mount
# and in the share, clean teardown) with softrnic devices srT and srH
# instead of siw: the ULPs' fast-registered MRs and RDMA READ/WRITE over
# softrnic's data path, its connections made by our iw_cm. softrnic is part
# of our stack only.
if [ "${ORCM_STACK:-}" = stock ]; then
	echo "## SKIP: on the stock stack, softrnic needs our iw_cm"
	exit 77 # a skip (tests/e2e/lib.bash: skip)
fi
# shellcheck disable=SC2034 # read by ulp-lib.bash
ULP_RNIC=softrnic
# shellcheck source=tests/e2e/ulp-smb.bash
. "$(dirname "$0")/ulp-smb.bash"
smb_main
