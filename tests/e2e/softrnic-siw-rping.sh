#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# softrnic <-> stock siw, rping both ways (softrnic active and passive), for
# MPA revision 2, CRC on and off (REV CRC MARKERS P2P RTR). Not revision 1: stock siw 6.12 cannot
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
# Not peer-to-peer here: an RTR that stock siw receives in softirq
# (siw_rtr_data_ready) takes sk_callback_lock for writing there, and lockdep
# flags it against siw's read_lock of that lock with softirqs on at any siw
# close in process context in the same boot (a stock siw bug; seen in
# softrnic-perftest and parity, 2026-11-23). Our peer-to-peer initiator
# against siw is zz-iwhost-siw-p2p's (last); softrnic's RTRs are
# softrnic-pair-rping's.
sr_rping_modes siw 7300 "2 N N N 0" "2 Y N N 0"
