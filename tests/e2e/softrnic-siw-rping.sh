#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# softrnic <-> stock siw, rping both ways (softrnic active and passive), for
# MPA revision 2, CRC on and off, and softrnic as peer-to-peer initiator
# with WRITE and READ RTR against siw as responder (REV CRC MARKERS P2P
# RTR, RTR 1 SEND, 2 WRITE, 3 READ). Not revision 1: stock siw 6.12 cannot
# do it with a host-stack peer either way. As the responder of a revision 1
# request it fails its own first RDMA READ (post_send ENOTCONN; a capture
# shows softrnic's SEND before it correct), and as initiator it refuses a
# revision 1 reply (REJECTED, ECONNRESET). softrnic-pair-rping covers
# revision 1.
# orcm-timeout: 300
# shellcheck source=tests/e2e/lib.bash
. "$(dirname "$0")/lib.bash"
# shellcheck source=tests/e2e/softrnic-lib.bash
. "$(dirname "$0")/softrnic-lib.bash"
sr_rping_modes siw 7300 "2 N N Y 2" "2 Y N Y 3" "2 N N N 0" "2 Y N N 0" \
	"2 Y N Y 2"
