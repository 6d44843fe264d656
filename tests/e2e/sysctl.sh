#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The knobs scripts already use: net.iw_cm.default_backlog (as in-tree:
# default 256, writable, out-of-range values refused) and, on our stack, the
# debugfs count of live ids that the leak checks read.
# shellcheck source=tests/e2e/lib.bash
. "$(dirname "$0")/lib.bash"

v=$(sysctl -n net.iw_cm.default_backlog) || fail "no sysctl net.iw_cm.default_backlog"
[ "$v" = 256 ] || fail "net.iw_cm.default_backlog is $v, want 256"
sysctl -q -w net.iw_cm.default_backlog=17 || fail "cannot set net.iw_cm.default_backlog"
[ "$(sysctl -n net.iw_cm.default_backlog)" = 17 ] || fail "net.iw_cm.default_backlog did not take 17"
sysctl -q -w net.iw_cm.default_backlog=256
say "net.iw_cm.default_backlog: 256 by default, writable"

if [ "${ORCM_STACK:-}" = ours ]; then
	n=$(cat "$ORCM_IDS_FILE") || fail "cannot read $ORCM_IDS_FILE"
	[ "$n" -eq 0 ] || fail "$n live ids before the test"
	setup_pair # librdmacm wants an RDMA device
	bg /tmp/sysctl-srv.log "${IN_B[@]}" rping -s -a 0.0.0.0 -p 7190 -C 1
	wait_for 10 "a live id is counted" bash -c "[ \$(cat $ORCM_IDS_FILE) -gt 0 ]"
	kill -KILL "$LAST_PID"
	wait_pid "$LAST_PID" 10 || true
	say "live ids are counted in $ORCM_IDS_FILE"
fi
wait_for 10 "no CM id left" cm_ids_empty
say "ok"
