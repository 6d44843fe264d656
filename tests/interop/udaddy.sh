#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# udaddy (UD ids, SIDR) across the two VMs over RoCE, each VM once server
# and once client (udaddy has no port option: 7174).
# shellcheck source=tests/interop/lib.bash
. "$(dirname "$0")/lib.bash"
setup_link
for s in a b; do
	if [ "$s" = a ]; then srv=198.18.6.1; else srv=198.18.6.2; fi
	pair_case "udaddy-$s" "$s" 7174 udaddy_ok \
		udaddy -b "$srv" -c 2 -C 10 -- udaddy -s "$srv" -c 2 -C 10
done
