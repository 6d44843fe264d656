#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The RDMA CM port space is per network namespace: the same port is listened
# on in orcmA and orcmB at once, (1) each bound to its own address, (2) each
# on the wildcard address (the stock stack lists a per-device listener on
# every device for each), and each namespace's listener gets the connection
# from the other namespace. Within one namespace the same bind conflicts
# (EADDRINUSE), which shows the two listeners really share the number.
# No CM id is left.
# shellcheck source=tests/e2e/lib.bash
. "$(dirname "$0")/lib.bash"
# shellcheck source=tests/e2e/cmprobe.bash
. "$(dirname "$0")/cmprobe.bash"
setup_pair
PORT=7460

# both NAME ADDR-IN-A ADDR-IN-B: a server in each namespace, a client from
# the other one to each.
both() {
	local name=$1 la=$2 lb=$3 rc
	bg "/tmp/$name-a.log" "${IN_A[@]}" "$CMPROBE" -s -b "$la" -p $PORT -n 1 -T 20
	local sa=$LAST_PID
	bg "/tmp/$name-b.log" "${IN_B[@]}" "$CMPROBE" -s -b "$lb" -p $PORT -n 1 -T 20
	local sb=$LAST_PID
	wait_for 10 "$name: listening in $NS_A" listening "$name-a"
	wait_for 10 "$name: listening in $NS_B" listening "$name-b"
	say "$name: listeners"
	cm_ids | grep -E "state LISTEN .*:$PORT( |$)" | tee "/tmp/$name-ids.txt"
	# The same bind again in one of the namespaces conflicts.
	probe "$name-dup" 10 "${IN_B[@]}" "$CMPROBE" -s -b "$lb" -p $PORT -T 5
	grep -qE '^error rdma_bind_addr (EADDRINUSE|EADDRNOTAVAIL)$' "/tmp/$name-dup.log" ||
		fail "$name-dup: a second bind in $NS_B did not conflict"
	expect_result "$name-a-to-b" "$STEP" "ESTABLISHED status 0" "${IN_A[@]}" "$CMPROBE" -c -a "$ADDR_B" -p $PORT
	expect_result "$name-b-to-a" "$STEP" "ESTABLISHED status 0" "${IN_B[@]}" "$CMPROBE" -c -a "$ADDR_A" -p $PORT
	for s in a:$sa b:$sb; do
		rc=0
		wait_pid "${s#*:}" 10 || rc=$?
		show "/tmp/$name-${s%:*}.log"
		[ "$rc" -eq 0 ] || fail "$name: server in ${s%:*}: exit status $rc"
	done
	grep -qE "^peer $ADDR_B port " "/tmp/$name-a.log" || fail "$name: the server in $NS_A did not get $NS_B's client"
	grep -qE "^peer $ADDR_A port " "/tmp/$name-b.log" || fail "$name: the server in $NS_B did not get $NS_A's client"
	wait_for 10 "no CM id left after $name" cm_ids_empty
}

both bound "$ADDR_A" "$ADDR_B"
grep -q "siwA/1 .*src-addr $ADDR_A:$PORT" /tmp/bound-ids.txt || fail "bound: no listener $ADDR_A:$PORT on siwA"
grep -q "siwB/1 .*src-addr $ADDR_B:$PORT" /tmp/bound-ids.txt || fail "bound: no listener $ADDR_B:$PORT on siwB"
both wildcard 0.0.0.0 0.0.0.0
# The stock stack gives each wildcard listener a per-device listener on both
# devices; ours only on the device whose netdev is in the listener's
# namespace (tests/parity/deviations: iw-listen-other-netns), one each.
for d in siwA siwB; do
	n=$(grep -cE "^link $d/" /tmp/wildcard-ids.txt || true)
	if [ "${ORCM_STACK:-}" = ours ]; then
		[ "$n" -eq 1 ] || fail "wildcard: $n listeners on $d, want 1 (its own namespace's)"
	else
		[ "$n" -ge 2 ] || fail "wildcard: fewer than 2 listeners on $d"
	fi
done
say "ok: the same port in two namespaces at once, bound and wildcard"
