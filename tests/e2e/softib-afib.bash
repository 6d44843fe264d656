# SPDX-License-Identifier: GPL-2.0
# AF_IB through librdmacm on a softib subnet (sourced by softib-cm.sh once the
# subnet and IPoIB are up; tests/progs/afib.c does the calls):
#   - afib_checks: bind and resolve with struct sockaddr_ib: librdmacm's own
#     AF_IB probe, service ids and port spaces, a GID of a port, an unknown
#     GID, one port bound twice, a destination GID from a bound and an
#     unbound source, an unknown P_Key, an IP source, the zero GID;
#   - afib_connect: an RC connection between the GIDs of ib0 and ib1 to a
#     listener bound to AF_IB, with the addresses, GIDs and path that
#     rdma_ucm's QUERY (ADDR, GID, PATH) reports on both sides, private data
#     both ways (no rdma_cm header: the listener gets all 92 bytes), and
#     disconnect; once with the SA's route, once with rdma_set_ib_path()
#     from userspace (RDMA_OPTION_IB_PATH, a path the SA gave another id);
#   - afib_sendonly: librdmacm uses AF_IB-capable calls once its probe
#     succeeds, among them JOIN_MCAST with its flags: `mckey -o` on ib1
#     joins as a send-only full member (JoinState 0x8 in the MCMemberRecord
#     Set that reaches the SA on vA, softib-madcount.py); without the probe
#     it is a full member (0x1).
# Each transcript is compared, with GIDs and LIDs replaced by names, with
# what the stock VM (the in-tree CM) printed.
# shellcheck shell=bash

AFIB=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/build/progs/afib
[ -x "$AFIB" ] || fail "$AFIB is missing (make progs)"
RDMA_PROGS="$RDMA_PROGS|afib|mckey"

afib_gid() {
	python3 -c 'import ipaddress, sys; print(ipaddress.ip_address(sys.argv[1]))' \
		"$(cat "/sys/class/infiniband/$1/ports/1/gids/0")"
}
afib_lid() { echo $(($(cat "/sys/class/infiniband/$1/ports/1/lid"))); }

# afib_norm FILE: FILE with GIDs, LIDs named, the event lines and the rest.
afib_norm() {
	sed -E -e "s/$AG0/G0/g" -e "s/$AG1/G1/g" \
		-e "s/(slid|dlid) $AL0 /\1 L0 /g" -e "s/(slid|dlid) $AL1 /\1 L1 /g" "$1"
}

# afib_expect NAME: /tmp/NAME.log, normalised, is the expectation on stdin.
afib_expect() {
	cat >"/tmp/$1.want"
	afib_norm "/tmp/$1.log" >"/tmp/$1.got"
	if ! cmp -s "/tmp/$1.want" "/tmp/$1.got"; then
		say "$1: differs from the stock CM's transcript (< want, > got):"
		diff "/tmp/$1.want" "/tmp/$1.got" || true
		fail "$1: transcript differs from the in-tree CM's"
	fi
}

afib_setup() {
	AG0=$(afib_gid ib0) AG1=$(afib_gid ib1) AL0=$(afib_lid ib0) AL1=$(afib_lid ib1)
	say "AF_IB: ib0 $AG0 lid $AL0, ib1 $AG1 lid $AL1"
}

afib_checks() {
	run_to /tmp/afib-checks.log 20 "$AFIB" -e -g "$AG0" -G "$AG1" ||
		fail "afib checks: exit status $?"
	afib_expect afib-checks <<'EOF'
check probe ok
probe src ib gid :: pkey 0xffff flow 0x0 sid 0x000000000106/eph mask 0xffffffffffffffff scope 0
probe dev - port 0
check ib-any-mask0 ok
ib-any-mask0 src ib gid :: pkey 0xffff flow 0x0 sid 0x00000000013f/eph mask 0xffffffffffffffff scope 0
ib-any-mask0 dev - port 0
check tcp-any-mask0 ok
tcp-any-mask0 src ib gid :: pkey 0xffff flow 0x0 sid 0x000000000106/eph mask 0xffffffffffffffff scope 0
tcp-any-mask0 dev - port 0
check udp-sid-udp ok
udp-sid-udp src ib gid :: pkey 0xffff flow 0x0 sid 0x0000000001111388 mask 0xffffffffffffffff scope 0
udp-sid-udp dev - port 0
check tcp-sid-ib EPROTONOSUPPORT
check ipoib-sid-ib EPROTONOSUPPORT
check ib-sid-other EPROTONOSUPPORT
check ib-port-low ok
ib-port-low src ib gid :: pkey 0xffff flow 0x0 sid 0x00000000013f1234 mask 0xffffffffffffffff scope 0
ib-port-low dev - port 0
check gid ok
gid src ib gid G0 pkey 0xffff flow 0x0 sid 0x00000000013f1389 mask 0xffffffffffffffff scope 0
gid dev ib0 port 1
check loopback-gid ok
loopback-gid src ib gid ::1 pkey 0xffff flow 0x0 sid 0x00000000013f138a mask 0xffffffffffffffff scope 0
loopback-gid dev - port 0
check unknown-gid ENODEV
check twice-1 ok
check twice-2 EADDRINUSE
event ADDR_RESOLVED status 0
check resolve-unbound ok
resolve-unbound src ib gid G0 pkey 0xffff flow 0x0 sid 0x00000000013f/eph mask 0xffffffffffffffff scope 0
resolve-unbound dst ib gid G1 pkey 0xffff flow 0x0 sid 0x00000000013f138d mask 0xffffffffffffffff scope 0
resolve-unbound dev ib0 port 1
resolve-unbound gids sgid G0 dgid G1
event ADDR_RESOLVED status 0
check resolve-bound ok
resolve-bound src ib gid G0 pkey 0xffff flow 0x0 sid 0x00000000013f/eph mask 0xffffffffffffffff scope 0
resolve-bound dst ib gid G1 pkey 0xffff flow 0x0 sid 0x00000000013f138d mask 0xffffffffffffffff scope 0
resolve-bound dev ib0 port 1
resolve-bound gids sgid G0 dgid G1
check resolve-no-pkey ENODEV
check resolve-ip-src EINVAL
event ADDR_RESOLVED status 0
check resolve-zero-gid ok
resolve-zero-gid src ib gid ::1 pkey 0xffff flow 0x0 sid 0x00000000013f/eph mask 0xffffffffffffffff scope 0
resolve-zero-gid dst ib gid :: pkey 0xffff flow 0x0 sid 0x00000000013f138e mask 0xffffffffffffffff scope 0
resolve-zero-gid dev ib0 port 1
resolve-zero-gid gids sgid ::1 dgid ::
EOF
	say "ok: AF_IB bind/resolve checks as in-tree"
}

# afib_connect NAME CLIENT_ARGS...: a server on ib1's GID, a client to it.
afib_connect() {
	local name=$1 server rc=0 src=0
	shift
	bg "/tmp/$name-server.log" "$AFIB" -s -g "$AG1" -k 20 -T 15
	server=$LAST_PID
	wait_for 10 "$name: afib server listening" grep -q '^listening' "/tmp/$name-server.log"
	run_to "/tmp/$name-client.log" 15 "$AFIB" -c -g "$AG1" -P 60 -T 10 "$@" || rc=$?
	wait_pid "$server" 15 || src=$?
	show "/tmp/$name-server.log"
	[ "$rc" -eq 0 ] || fail "$name: client exit status $rc"
	[ "$src" -eq 0 ] || fail "$name: server exit status $src"
	wait_for 10 "no CM id left after $name" cm_ids_empty
}

afib_sendonly() {
	local counter
	bg /tmp/afib-mc-count.log python3 "$(dirname "${BASH_SOURCE[0]}")/softib-madcount.py" vA
	counter=$LAST_PID
	wait_for 10 "the MAD counter listening" grep -q listening /tmp/afib-mc-count.log
	run_to /tmp/afib-mckey.log 15 "${IN_B[@]}" mckey -m 239.3.0.7 -b "$SIB_IP1" -s -o -C 1 ||
		fail "mckey -o on ib1: exit status $?"
	kill -TERM "$counter"
	wait_pid "$counter" 10 || fail "the MAD counter did not stop"
	show /tmp/afib-mc-count.log
	grep -qx 'mcmember_set_joinstate 0x8' /tmp/afib-mc-count.log ||
		fail "mckey -o: no send-only (JoinState 0x8) MCMemberRecord join reached the SA"
	say "ok: mckey -o joins as a send-only full member (librdmacm's AF_IB probe succeeded)"
}

afib_tests() {
	afib_setup
	afib_checks
	afib_connect afib-rc
	AFIB_SERVER_WANT=$(cat <<'EOF'
listener src ib gid G1 pkey 0xffff flow 0x0 sid 0x00000000013f4321 mask 0xffffffffffffffff scope 0
listener dst ib gid :: pkey 0x0000 flow 0x0 sid 0x0000000000000000 mask 0x0000000000000000 scope 0
listener dev ib1 port 1
listener gids sgid G1 dgid ::
listening
event CONNECT_REQUEST status 0 pdata 92 0002030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c0000000000000000000000000000000000000000000000000000000000000000
request src ib gid G1 pkey 0xffff flow 0x0 sid 0x00000000013f4321 mask 0xffffffffffffffff scope 0
request dst ib gid G0 pkey 0xffff flow 0x0 sid 0x0000000000000000 mask 0x0000000000000000 scope 0
request dev ib1 port 1
request gids sgid G1 dgid G0
request path 0 sgid G1 dgid G0 slid L1 dlid L0 pkey 0xffff sl 0 mtu 5 rate 7 plt 18 tclass 0 hop 0 flow 0x0 reversible 1
event ESTABLISHED status 0 pdata 0
event DISCONNECTED status 0
EOF
)
	afib_expect afib-rc-server <<<"$AFIB_SERVER_WANT"
	AFIB_CLIENT_WANT=$(cat <<'EOF'
event ADDR_RESOLVED status 0
resolved src ib gid G0 pkey 0xffff flow 0x0 sid 0x00000000013f/eph mask 0xffffffffffffffff scope 0
resolved dst ib gid G1 pkey 0xffff flow 0x0 sid 0x00000000013f4321 mask 0xffffffffffffffff scope 0
resolved dev ib0 port 1
resolved gids sgid G0 dgid G1
event ROUTE_RESOLVED status 0
routed src ib gid G0 pkey 0xffff flow 0x0 sid 0x00000000013f/eph mask 0xffffffffffffffff scope 0
routed dst ib gid G1 pkey 0xffff flow 0x0 sid 0x00000000013f4321 mask 0xffffffffffffffff scope 0
routed dev ib0 port 1
routed gids sgid G0 dgid G1
routed path 0 sgid G0 dgid G1 slid L0 dlid L1 pkey 0xffff sl 0 mtu 5 rate 7 plt 18 tclass 0 hop 0 flow 0x0 reversible 1
event ESTABLISHED status 0 pdata 196 0102030405060708090a0b0c0d0e0f10111213140000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000
connected src ib gid G0 pkey 0xffff flow 0x0 sid 0x00000000013f/eph mask 0xffffffffffffffff scope 0
connected dst ib gid G1 pkey 0xffff flow 0x0 sid 0x00000000013f4321 mask 0xffffffffffffffff scope 0
connected dev ib0 port 1
connected gids sgid G0 dgid G1
connected path 0 sgid G0 dgid G1 slid L0 dlid L1 pkey 0xffff sl 0 mtu 5 rate 7 plt 18 tclass 0 hop 0 flow 0x0 reversible 1
event DISCONNECTED status 0
EOF
)
	afib_expect afib-rc-client <<<"$AFIB_CLIENT_WANT"
	say "ok: AF_IB RC connection with the SA's route"
	afib_connect afib-path -b "$AG0" -I
	# The same transcripts, but for the second id's events (its route).
	grep -qx 'helper event ROUTE_RESOLVED status 0' /tmp/afib-path-client.log ||
		fail "afib-path: the second id resolved no route"
	sed -i '/^helper event /d' /tmp/afib-path-client.log
	afib_expect afib-path-server <<<"$AFIB_SERVER_WANT"
	afib_expect afib-path-client <<<"$AFIB_CLIENT_WANT"
	say "ok: AF_IB RC connection with rdma_set_ib_path() from userspace"
	afib_sendonly
}
