#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Host-stack proof, port space: a softrnic listener owns a real host TCP
# port. A TCP socket bound to port P makes an RDMA listen on P fail with
# EADDRINUSE (cmprobe and rping say so), and an RDMA listen on P makes a TCP
# bind to P fail; an established RDMA connection is a TCP connection that
# `ss` lists; once the TCP socket is gone, the RDMA listen works. Both ends
# softrnic.
# orcm-timeout: 150
# shellcheck source=tests/e2e/lib.bash
. "$(dirname "$0")/lib.bash"
# shellcheck source=tests/e2e/cmprobe.bash
. "$(dirname "$0")/cmprobe.bash"
# shellcheck source=tests/e2e/iwhost-lib.bash
. "$(dirname "$0")/iwhost-lib.bash"
need_softrnic
# shellcheck source=tests/e2e/mpa-peer.bash
. "$(dirname "$0")/mpa-peer.bash"
setup_pair softrnic softrnic
PORT=7330

# holder ADDR: a plain TCP socket bound and listening on ADDR:PORT in $NS_B.
holder() {
	bg /tmp/ps-holder.log "${IN_B[@]}" "$MPA_PEER" -a "$1" -p $PORT -e bound -t 60 hold-port
	HOLDER=$LAST_PID
	wait_for 10 "the TCP socket on $1:$PORT" grep -q '^mpa-peer: bound' /tmp/ps-holder.log
}
unhold() {
	kill "$HOLDER"
	wait_pid "$HOLDER" 10 || true
}

# TCP first, then RDMA: EADDRINUSE, for the same and for the wildcard address.
for a in "$ADDR_B" 0.0.0.0; do
	holder "$a"
	probe "ps-rdma-on-tcp-$a" 20 "${IN_B[@]}" "$CMPROBE" -s -b "$ADDR_B" -p $PORT -n 1 -T 3
	grep -qE '^error rdma_(bind_addr|listen) EADDRINUSE' "/tmp/ps-rdma-on-tcp-$a.log" ||
		fail "an RDMA listen on $ADDR_B:$PORT beside a TCP socket on $a:$PORT did not fail with EADDRINUSE"
	rc=0
	run_to "/tmp/ps-rping-on-tcp-$a.log" 20 "${IN_B[@]}" rping -s -a "$ADDR_B" -p $PORT -C 1 || rc=$?
	[ "$rc" -ne 0 ] || fail "rping -s listened on a port a TCP socket holds"
	grep -qiE 'address already in use|EADDRINUSE|-98' "/tmp/ps-rping-on-tcp-$a.log" ||
		fail "rping -s did not report EADDRINUSE"
	unhold
	say "TCP on $a:$PORT: RDMA listen on $ADDR_B:$PORT fails with EADDRINUSE"
done

# RDMA first, then TCP.
bg /tmp/ps-server.log "${IN_B[@]}" "$CMPROBE" -s -b "$ADDR_B" -p $PORT -n 0 -T 60
server=$LAST_PID
wait_for 10 "the RDMA listener on $ADDR_B:$PORT" cm_id_listening $PORT
for a in "$ADDR_B" 0.0.0.0; do
	rc=0
	run_to "/tmp/ps-tcp-on-rdma-$a.log" 10 "${IN_B[@]}" "$MPA_PEER" -a "$a" -p $PORT \
		-e eaddrinuse -t 1 hold-port || rc=$?
	[ "$rc" -eq 0 ] || fail "a TCP bind to $a:$PORT beside the RDMA listener did not fail with EADDRINUSE"
done
say "RDMA listener on $ADDR_B:$PORT: TCP binds to the port fail with EADDRINUSE"

# An established RDMA connection is a host TCP connection.
bg /tmp/ps-client.log "${IN_A[@]}" "$CMPROBE" -c -a "$ADDR_B" -p $PORT -H 3000 -T 15
client=$LAST_PID
wait_for 10 "the RDMA connection established" grep -q '^event ESTABLISHED' /tmp/ps-client.log
in_a ss -tn state established "dport = :$PORT" | tee /tmp/ps-ss.log
grep -q "$ADDR_B:$PORT" /tmp/ps-ss.log || fail "ss lists no TCP connection for the RDMA connection"
wait_pid "$client" 20 || fail "the RDMA client failed"
kill -TERM "$server"
wait_pid "$server" 10 || true

# The port is free again for both.
holder "$ADDR_B"
unhold
wait_for 10 "no CM id left" cm_ids_empty
probe ps-relisten 20 "${IN_B[@]}" "$CMPROBE" -s -b "$ADDR_B" -p $PORT -n 0 -T 2
[ "$PROBE_RC" -eq 0 ] || fail "no RDMA listen on $ADDR_B:$PORT once the TCP socket is gone"
has_line ps-relisten "listening $ADDR_B port $PORT"
say "ok"
