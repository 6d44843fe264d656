#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# rping across the two VMs over RoCE (rxe), each VM once server and once
# client: 3 verified pings each way, IPv4 and IPv6.
# shellcheck source=tests/interop/lib.bash
. "$(dirname "$0")/lib.bash"
setup_link
for s in a b; do
	if [ "$s" = a ]; then srv=198.18.6.1 srv6=fd00:198:18:6::1; else srv=198.18.6.2 srv6=fd00:198:18:6::2; fi
	pair_case "rping-$s" "$s" 7300 rping_ok \
		rping -s -v -V -a "$srv" -p 7300 -C 3 -- rping -c -v -V -a "$srv" -p 7300 -C 3
	pair_case "rping6-$s" "$s" 7301 rping_ok \
		rping -s -v -V -a "$srv6" -p 7301 -C 3 -- rping -c -v -V -a "$srv6" -p 7301 -C 3
done
