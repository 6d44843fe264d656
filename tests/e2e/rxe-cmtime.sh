#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# cmtime (librdmacm's connection setup timer) over RoCE, on two rxe devices
# on a veth pair: 50 connections set up and torn down, none failing.
# (perftest's ib_write_bw -R connects and transfers here too, but it cannot
# report in this VM: it samples the CPU clock, which is too noisy under UML
# ("Correlation coefficient r^2 < 0.9"), and one side then waits for the
# other for good; it is left out of the suite.)
# orcm-timeout: 240
# shellcheck source=tests/e2e/lib.bash
. "$(dirname "$0")/lib.bash"
# shellcheck source=tests/e2e/rxe-lib.bash
. "$(dirname "$0")/rxe-lib.bash"
setup_rxe_pair

cmtime_pair rxe-cmtime 7342 cmtime -b "$RADDR_B" -p 7342 -- \
	cmtime -s "$RADDR_B" -p 7342 -c 50
say "ok: cmtime over rxe, 50 connections"
