#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# orcm-timeout: 300
# iSER over softrnic: the body of ulp-iser.sh (LIO target with ib_isert,
# open-iscsi initiator with ib_iser, ext4 on the LUN, files verified after a
# remount and a new login) with softrnic devices srT and srH instead of siw.
# A softrnic listener is a host TCP socket, as siw's: the portal is made from
# its own namespace as over siw. softrnic is part of our stack only.
if [ "${ORCM_STACK:-}" = stock ]; then
	echo "## SKIP: on the stock stack, softrnic needs our iw_cm"
	exit 77 # a skip (tests/e2e/lib.bash: skip)
fi
# shellcheck disable=SC2034 # read by ulp-lib.bash
ULP_RNIC=softrnic
# shellcheck source=tests/e2e/ulp-iser.bash
. "$(dirname "$0")/ulp-iser.bash"
iser_main
