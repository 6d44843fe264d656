#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# ucmatose (RDMA_PS_TCP): 4 connections, 20 messages each, both ends exit 0
# (ucmatose_pair in lib.bash; stock siw's MPA-reply race, one more attempt
# for its signature alone, is described there).
# shellcheck source=tests/e2e/lib.bash
. "$(dirname "$0")/lib.bash"
setup_pair
ucmatose_pair ucmatose "$NS_B" "$ADDR_B" "$NS_A" "$ADDR_A" 7471 yes
say "ok: ucmatose 4 connections x 20 messages"
