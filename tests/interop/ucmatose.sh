#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# ucmatose (RC, several connections with data) across the two VMs over RoCE,
# each VM once server and once client.
# shellcheck source=tests/interop/lib.bash
. "$(dirname "$0")/lib.bash"
setup_link
for s in a b; do
	if [ "$s" = a ]; then srv=198.18.6.1; else srv=198.18.6.2; fi
	pair_case "ucmatose-$s" "$s" 7310 cmatose_ok \
		ucmatose -b "$srv" -p 7310 -c 4 -C 10 -- ucmatose -s "$srv" -p 7310 -c 4 -C 10
done
