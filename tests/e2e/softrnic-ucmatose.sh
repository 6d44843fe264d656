#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# ucmatose (RDMA_PS_TCP, 4 connections x 20 messages, both ends exit 0) over
# softrnic: softrnic <-> stock siw both ways (softrnic's host CM with its
# default offer, MPA revision 2 peer-to-peer with a WRITE RTR, then with CRC
# and a READ RTR) and softrnic <-> softrnic. ucmatose's server sends as soon
# as it is ESTABLISHED, so the client's end must take data right behind the
# MPA reply (softrnic's host CM hands the socket over positioned exactly
# after the frame). Stock siw as the client has a race of its own there
# (ucmatose_pair in lib.bash: "connect error -22"); for that signature alone,
# and only with siw as the client, one more attempt is made.
# orcm-timeout: 300
# shellcheck source=tests/e2e/lib.bash
. "$(dirname "$0")/lib.bash"
# shellcheck source=tests/e2e/softrnic-lib.bash
. "$(dirname "$0")/softrnic-lib.bash"

# uc NAME SERVER_NS SERVER_ADDR CLIENT_NS CLIENT_ADDR PORT CLIENT_KIND
uc() {
	ucmatose_pair "$1" "$2" "$3" "$4" "$5" "$6" "$([ "$7" = siw ] && echo yes || echo no)"
	say "$1: ok"
}

sr_data_pair softrnic siw
port=7700
for mode in "2 N N Y 2" "2 Y N Y 3"; do
	# shellcheck disable=SC2086 # word splitting on purpose
	sr_mode $mode
	tag=$(echo "$mode" | tr -d ' ')
	uc "uc-sr2siw-$tag" "$NS_B" "$ADDR_B" "$NS_A" "$ADDR_A" $port softrnic
	uc "uc-siw2sr-$tag" "$NS_A" "$ADDR_A" "$NS_B" "$ADDR_B" $((port + 1)) siw
	port=$((port + 2))
done
cleanup
sr_setup_pair softrnic softrnic
sr_mode 2 N N Y 2
uc uc-sr2sr "$NS_B" "$ADDR_B" "$NS_A" "$ADDR_A" $port softrnic
say "ok: ucmatose over softrnic, with stock siw both ways and softrnic to softrnic"
