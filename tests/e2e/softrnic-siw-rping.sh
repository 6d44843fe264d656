#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# softrnic <-> stock siw, rping both ways (softrnic active and passive), for
# MPA revision 2 and 1, CRC on and off, and softrnic as peer-to-peer
# initiator with WRITE and READ RTR against siw as responder (REV CRC
# MARKERS P2P RTR, RTR 1 SEND, 2 WRITE, 3 READ). Revision 1 only with siw
# as the client (softrnic answers its revision 2 request with 1): stock siw
# 6.12 as the responder of a revision 1 request fails its own first RDMA
# READ (post_send ENOTCONN, seen in a capture after a correct SEND from
# softrnic), so softrnic as revision 1 initiator is tested against softrnic
# (softrnic-pair-rping).
# orcm-timeout: 300
# shellcheck source=tests/e2e/lib.bash
. "$(dirname "$0")/lib.bash"
# shellcheck source=tests/e2e/softrnic-lib.bash
. "$(dirname "$0")/softrnic-lib.bash"
sr_rping_modes siw 7300 "2 N N Y 2" "2 Y N Y 3" "2 N N N 0" "1 Y N N 0 b2a" \
	"1 N N N 0 b2a" "2 Y N Y 2"
