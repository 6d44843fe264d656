# SPDX-License-Identifier: GPL-2.0
# SMB Direct through the CM, stock on both ends in this kernel: the body of
# ulp-smb.sh (siw: iWARP), ulp-smb-rxe.sh (RoCE) and ulp-smb-softrnic.sh.
# The in-kernel SMB3 server ksmbd (its daemon ksmbd.mountd from Debian's
# ksmbd-tools, unpacked into the cache by tools/vm/run.sh, not installed
# on the host) shares a directory; it listens with rdma_cm on
# port 445 of every address when an RDMA device that can fast-register is
# there (5445 on iWARP). The in-kernel SMB3 client cifs mounts the share
# with `rdma` (mount.cifs from cifs-utils): it asks port 5445 first, which
# on IB/RoCE is refused (no listener: a REJ), then 445, and negotiates SMB
# Direct over the connection. With cache=none every read and write crosses
# the transport; those above 4 KiB go as RDMA READ/WRITE through the
# client's fast-registered MRs. Random data of three sizes written through
# the mount reads back with the same sha256 through the mount and from the
# server's directory. Then umount, ksmbd shut down, no CM id left, the
# modules unload.
# A test sources this file after its topology's and calls smb_main.
# shellcheck shell=bash
# shellcheck source=tests/e2e/ulp-lib.bash
. "$(dirname "$0")/ulp-lib.bash"

SMB_DIR=/tmp/ulp-smb
SMB_SHARE=$SMB_DIR/share
SMB_MNT=$SMB_DIR/mnt
SMB_CONF=$SMB_DIR/ksmbd.conf
SMB_PWDDB=$SMB_DIR/ksmbdpwd.db
SMB_USER=root SMB_PASS=orcm-smb
SMB_OVER=$ULP_RNIC
# ksmbd's SMB Direct port: 445 on IB and RoCE, 5445 once an iWARP device is
# there (where 445 is its TCP listener's); the client asks 5445 first.
smb_port() { if [ "$SMB_OVER" = rxe ]; then echo 445; else echo 5445; fi; }
SMB_MOUNTD=''

smb_up() {
	rm -rf "$SMB_DIR"
	mkdir -p "$SMB_SHARE" "$SMB_MNT"
	# store dos attributes: not in user xattrs of whatever /tmp is.
	cat >"$SMB_CONF" <<-EOF
		[global]
		server min protocol = SMB3
		[orcm]
		path = $SMB_SHARE
		read only = no
		store dos attributes = no
		oplocks = no
	EOF
	# Debian's ksmbd-tools, unpacked by tools/vm/run.sh (orcm_ksmbd_tools).
	[ -x "${ORCM_KSMBD_TOOLS:-}/usr/sbin/ksmbd.mountd" ] ||
		fail "no ksmbd.mountd (Debian's ksmbd-tools, unpacked by tools/vm/run.sh: '${ORCM_KSMBD_TOOLS:-}')"
	PATH=$ORCM_KSMBD_TOOLS/usr/sbin:$PATH
	command -v mount.cifs >/dev/null || fail "no mount.cifs (Debian package cifs-utils)"
	ksmbd.adduser -c "$SMB_CONF" -i "$SMB_PWDDB" -a "$SMB_USER" -p "$SMB_PASS" >/dev/null ||
		fail "ksmbd.adduser"
	ulp_modprobe ksmbd cifs
	ulp_binds ksmbd cifs
	# -n0: detached, as a service runs it; its pid comes from its lock file.
	timeout -k 2 "$STEP" ksmbd.mountd -c "$SMB_CONF" -u "$SMB_PWDDB" -n0 ||
		fail "ksmbd.mountd failed to start"
	SMB_MOUNTD=$(cat /run/ksmbd.lock 2>/dev/null || true)
	[ -n "$SMB_MOUNTD" ] || fail "ksmbd.mountd left no pid in /run/ksmbd.lock"
	SMB_PORT=$(smb_port)
	wait_for 20 "ksmbd listening with rdma_cm on $SMB_PORT" cm_id_listening "$SMB_PORT"
	tsay "ksmbd up (mountd pid ${SMB_MOUNTD:-?}), share $SMB_SHARE"
	cm_ids | sed 's/^/  [cm_id] /'
	timeout -k 2 "$STEP" mount -t cifs "//$T_ADDR/orcm" "$SMB_MNT" \
		-o "rdma,vers=3.1.1,cache=none,username=$SMB_USER,password=$SMB_PASS" ||
		fail "mount -t cifs -o rdma //$T_ADDR/orcm: status $?"
	grep " $SMB_MNT cifs " /proc/mounts | sed 's/^/  [mount] /'
	grep -q " $SMB_MNT cifs .*rdma" /proc/mounts || fail "the cifs mount is not over rdma"
	# cifs lists the SMB Direct transport of each of its connections.
	grep -q 'SMBDirect (in hex) protocol version' /proc/fs/cifs/DebugData ||
		{ show /proc/fs/cifs/DebugData; fail "no SMBDirect connection in /proc/fs/cifs/DebugData"; }
	cm_ids | sed 's/^/  [cm_id] /'
	cm_ids | grep -q "dst-addr $T_ADDR:$SMB_PORT" ||
		fail "no connected CM id towards $T_ADDR:$SMB_PORT"
}

# smb_sets: NAME SIZE per line; each a file of random data written through
# the mount, then read back through it and from the server's directory.
smb_write_sets() {
	local n size
	while read -r n size; do
		head -c "$size" /dev/urandom >"$SMB_DIR/$n.src"
		SMB_SUM[$n]=$(sha256sum <"$SMB_DIR/$n.src" | cut -d' ' -f1)
		timeout -k 2 "$STEP" dd if="$SMB_DIR/$n.src" of="$SMB_MNT/$n.dat" bs=1M \
			conv=fsync status=none || fail "writing $n through the mount: status $?"
	done <<<"$SETS"
}
smb_verify_sets() {
	local n size got
	while read -r n size; do
		got=$(timeout -k 2 "$STEP" sha256sum <"$SMB_MNT/$n.dat" | cut -d' ' -f1)
		[ "$got" = "${SMB_SUM[$n]}" ] ||
			fail "$1: set $n ($size bytes) read back $got through the mount, wrote ${SMB_SUM[$n]}"
		got=$(sha256sum <"$SMB_SHARE/$n.dat" | cut -d' ' -f1)
		[ "$got" = "${SMB_SUM[$n]}" ] ||
			fail "$1: set $n ($size bytes) is $got in the share, wrote ${SMB_SUM[$n]}"
		tsay "$1: set $n ok ($size bytes)"
	done <<<"$SETS"
}

# smb_teardown: umount, ksmbd's daemon and server shut down. Idempotent.
smb_teardown() {
	local i
	if mountpoint -q "$SMB_MNT" 2>/dev/null; then
		timeout -k 2 30 umount "$SMB_MNT" || timeout -k 2 10 umount -l "$SMB_MNT"
	fi
	# The server goes with its module's control file whatever mountd did.
	if [ -d /sys/module/ksmbd ]; then
		timeout -k 2 20 ksmbd.control -s >/dev/null 2>&1 || true
	fi
	if [ -n "$SMB_MOUNTD" ]; then
		for ((i = 0; i < 100; i++)); do
			kill -0 "$SMB_MOUNTD" 2>/dev/null || break
			sleep 0.1
		done
	fi
	pkill -9 -x ksmbd.mountd 2>/dev/null || true
	SMB_MOUNTD=''
	# Never through a mount that stayed: that would delete over SMB.
	mountpoint -q "$SMB_MNT" 2>/dev/null || rm -rf "$SMB_DIR"
}
ulp_teardown() { smb_teardown; }

declare -A SMB_SUM
smb_main() {
	ulp_check_stack before
	ulp_topology
	smb_up
	SETS="a 4096
b $(((1 << 20) + 4096))
c $((4 << 20))"
	smb_write_sets
	smb_verify_sets "smb direct over $SMB_OVER"
	timeout -k 2 30 umount "$SMB_MNT" || fail "umount $SMB_MNT: status $?"
	# ksmbd.control -s stops the server (its listener goes) and the daemon.
	timeout -k 2 20 ksmbd.control -s >/dev/null || fail "ksmbd.control -s: status $?"
	wait_for 10 "ksmbd.mountd gone" sh -c "! kill -0 $SMB_MOUNTD 2>/dev/null"
	wait_for 10 "ksmbd's listener gone" sh -c "! rdma res show cm_id | grep -q 'state LISTEN'"
	smb_teardown
	ulp_finish
	say "ok: SMB Direct over $SMB_OVER, 3 sets verified through the mount and in the share, clean teardown"
}
