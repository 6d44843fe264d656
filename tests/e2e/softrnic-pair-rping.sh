#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# softrnic <-> softrnic, rping both ways, for what siw lacks: markers (one
# way and both), the zero-length SEND RTR; also READ RTR, CRC, MPA
# revision 1 (REV CRC MARKERS P2P RTR, RTR 1 SEND, 2 WRITE, 3 READ).
# orcm-timeout: 300
# shellcheck source=tests/e2e/lib.bash
. "$(dirname "$0")/lib.bash"
# shellcheck source=tests/e2e/softrnic-lib.bash
. "$(dirname "$0")/softrnic-lib.bash"
sr_rping_modes softrnic 7400 "2 N N Y 1" "2 Y Y Y 1" "2 N Y Y 3" "2 Y N Y 2" \
	"1 Y Y N 0" "1 N N N 0"
