#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The path cache after a change on the remote side only (issue 41: "tests
# warm the exact key, change the remote side only, and require a fresh
# query"). A softib subnet whose opensm runs on ib1's port (so that the
# master SM's LID is ib1's own and never moves), with no_clients_rereg
# (opensm sets no ClientReregister bit when it starts). ib1, in netns B, is
# the active side: cmprobe connects from its IPoIB address to a cmprobe
# server on ib0's, on one port, so that every connect resolves the same
# key (SGID, DGID, service id, P_Key, traffic class) on ib1.
#   1. warm: two connects; the first misses and queries the SA, the second
#      is a hit (the key is the one used below);
#   2. remote change only: opensm stopped, ib0's LID rewritten in its
#      guid2lid file, opensm started again: it moves ib0 to the new LID
#      (ib0 sees LID_CHANGE) and sets nothing new on ib1 (LID, MasterSMLID
#      and P_Keys as they were, no ClientReregister), so no event reaches
#      ib1's port and its record still names ib0's old LID;
#   3. the next connect goes through that record: the REQ goes to a LID
#      nobody has and times out (netns B's CM timers at 14 and 2 retries,
#      cm-timers.sh: 3 tries of twice the path's packet lifetime, opensm's
#      18, and 67 ms, about 7 s); the failure drops the record
#      (`failed`); the connect after it misses, asks the SA and is
#      ESTABLISHED with ib0's new LID.
# The in-tree CM asks the SA on every resolution and connects at once in
# step 3; ours loses one connect per record to a remote-only change before
# the TTL: tests/parity/deviations, kunit:cma_pc_kunit:pc_ttl, argued there.
# Ours only: the stock CM has no cache (softib-cm proves its resolution).
# orcm-timeout: 180
# shellcheck source=tests/e2e/lib.bash
. "$(dirname "$0")/lib.bash"
# shellcheck source=tests/e2e/softib-lib.bash
. "$(dirname "$0")/softib-lib.bash"
# shellcheck source=tests/e2e/cmprobe.bash
. "$(dirname "$0")/cmprobe.bash"
[ "${ORCM_STACK:-}" = ours ] || skip "the path cache is ours (the in-tree CM asks the SA for every route)"
[ -r "$PC" ] || fail "no $PC"
PORT=7380
CACHE=/tmp/opensm-cache

sib_load
rm -rf "$CACHE"
printf 'no_clients_rereg TRUE\n' >/tmp/opensm-pcr.conf
SIB_SM_DEV=ib1 sib_subnet_start 'sib_sm_stop; sib_cleanup'
sib_sm_stop
SIB_SM_DEV=ib1 sib_sm_start -F /tmp/opensm-pcr.conf
wait_for 30 "both ports ACTIVE under the opensm on ib1" sib_both ACTIVE
sib_ipoib_up
in_b sysctl -qw net.rdma_cm.cm_response_timeout=14 net.rdma_cm.cm_max_retries=2 ||
	fail "netns B's CM timers"
cmprobe_server pcr-server -b "$SIB_IP0" -p $PORT -n 0 -T 150
wait_for 20 "ping $SIB_IP0 from netns B" in_b ping -c 1 -W 1 "$SIB_IP0"

# connect NAME: one connect from ib1's address to the server, held 0 ms.
connect() { probe "$1" 30 "${IN_B[@]}" "$CMPROBE" -c -a "$SIB_IP0" -b "$SIB_IP1" -p $PORT -T 25; }
port_of() { rdma link show "$1/1" | grep -o 'lid [0-9]* sm_lid [0-9]*'; }

m0=$(pc misses) h0=$(pc hits)
connect pcr-warm1
has_line pcr-warm1 "result ESTABLISHED status 0"
connect pcr-warm2
has_line pcr-warm2 "result ESTABLISHED status 0"
{ [ $(($(pc misses) - m0)) -eq 1 ] && [ $(($(pc hits) - h0)) -eq 1 ]; } ||
	fail "warming: $(($(pc misses) - m0)) misses and $(($(pc hits) - h0)) hits for 2 connects, want 1 and 1"
say "warm: 2 connects to $SIB_IP0:$PORT (1 SA query, 1 hit); ib0 $(port_of ib0), ib1 $(port_of ib1)"

# The remote side only: ib0's LID in opensm's guid2lid, opensm again.
l0=$(sib_lid ib0) b1=$(port_of ib1) i0=$(pc invalidated) e0=$(pc entries)
NEW=64
sib_sm_stop
[ -s "$CACHE/guid2lid" ] || fail "opensm wrote no $CACHE/guid2lid"
# "GUID MINLID MAXLID" a line, LIDs in hex, an empty line after each: opensm
# ends an entry at an empty line only (a line of blanks would join the next
# entry to this one and lose it), so empty lines stay empty.
n=0
while read -r g lo hi; do
	if [ -z "$g" ]; then
		echo
	elif [ -n "$lo" ] && [ $((lo)) -eq "$l0" ]; then
		printf '%s 0x%04x 0x%04x\n' "$g" $NEW $NEW
		n=$((n + 1))
	else
		printf '%s %s %s\n' "$g" "$lo" "$hi"
	fi
done <"$CACHE/guid2lid" >/tmp/pcr-guid2lid
[ $n = 1 ] || fail "$n lines of LID $l0 in guid2lid: $(cat "$CACHE/guid2lid")"
cp /tmp/pcr-guid2lid "$CACHE/guid2lid"
: >/tmp/opensm.log
SIB_SM_DEV=ib1 sib_sm_start -F /tmp/opensm-pcr.conf
wait_for 30 "ib0 at LID $NEW" bash -c "$(declare -f sib_lid); [ \"\$(sib_lid ib0)\" = $NEW ]"
wait_for 30 "both ports ACTIVE again" sib_both ACTIVE
# opensm's first sweep as master is over when it says the subnet is up.
wait_for 30 "opensm's subnet up" grep -qs 'SUBNET UP' /tmp/opensm.log /tmp/opensm.out
[ "$(port_of ib1)" = "$b1" ] || fail "ib1 changed: $(port_of ib1), was $b1: the change is not the remote side's alone"
{ [ "$(pc invalidated)" = "$i0" ] && [ "$(pc entries)" = "$e0" ]; } ||
	fail "the cache dropped records on the remote change (invalidated $i0 -> $(pc invalidated), entries $e0 -> $(pc entries)): no event may reach ib1"
say "remote change: ib0 LID $l0 -> $(sib_lid ib0); ib1 as it was ($b1), the cache untouched ($e0 entries)"

# Through the stale record, then a fresh query.
f0=$(pc failed) m0=$(pc misses) h0=$(pc hits)
connect pcr-stale
show /tmp/pcr-stale.log
grep -q '^result UNREACHABLE' /tmp/pcr-stale.log ||
	fail "the connect through the stale record did not end UNREACHABLE (exit $PROBE_RC): was the record used?"
[ $(($(pc hits) - h0)) -eq 1 ] || fail "$(($(pc hits) - h0)) hits for the connect through the stale record, want 1"
[ $(($(pc failed) - f0)) -eq 1 ] || fail "the failed connect dropped $(($(pc failed) - f0)) records, want 1"
say "stale record: UNREACHABLE after $PROBE_MS ms, the record dropped (failed +1)"
connect pcr-fresh
has_line pcr-fresh "result ESTABLISHED status 0"
[ $(($(pc misses) - m0)) -eq 1 ] || fail "$(($(pc misses) - m0)) misses after the drop, want 1 (a fresh SA query)"
say "ok: after the failed connect, a fresh SA query and ESTABLISHED to ib0's new LID $NEW ($PROBE_MS ms)"
kill -TERM "$SERVER" 2>/dev/null || true
wait_pid "$SERVER" 10 || true
wait_for 10 "no CM id left" cm_ids_empty
