# SPDX-License-Identifier: GPL-2.0
# NFS over RDMA through the CM with the stock kernel server and client: the
# body of tests/e2e/ulp-nfs.sh (siw) and ulp-nfs-softib.sh (native IB). A
# test sources this file, may redefine the topology (ulp_topology & co.,
# ulp-lib.bash), sets NFS_OVER and calls nfs_main.
# shellcheck shell=bash
# shellcheck source=tests/e2e/ulp-lib.bash
. "$(dirname "${BASH_SOURCE[0]}")/ulp-lib.bash"

NFS_PORT=20049
EXPORT=/tmp/ulp-nfs-export
MNT=/tmp/ulp-nfs-mnt
SRC=/tmp/ulp-nfs-src
NFSD=/proc/fs/nfsd
MOUNTED_VAR=0 MOUNTED_EXPORTS=0 MOUNTED_NFSD=0 RPCBIND='' MOUNTD=''
OPTS=rdma,port=$NFS_PORT,vers=3,nolock

# ---- server ------------------------------------------------------------------------
rpcbind_up() { rpcinfo -p 127.0.0.1 >/dev/null 2>&1; }
mountd_up() { rpcinfo -p 127.0.0.1 2>/dev/null | grep -q mountd; }
server_up() {
	# nfs-utils' state (/var/lib/nfs: etab, rmtab) and /etc/exports must be
	# writable: a tmpfs and a file bound over them.
	mount -t tmpfs -o mode=755 tmpfs /var/lib/nfs
	MOUNTED_VAR=1
	mkdir -p /var/lib/nfs/sm /var/lib/nfs/sm.bak /var/lib/nfs/v4recovery
	: >/var/lib/nfs/etab
	: >/var/lib/nfs/rmtab
	mkdir -p "$EXPORT"
	echo "$EXPORT 198.18.1.0/24(rw,sync,no_root_squash,insecure,no_subtree_check,fsid=1)" >/tmp/ulp-nfs.exports
	mount --bind /tmp/ulp-nfs.exports /etc/exports
	MOUNTED_EXPORTS=1
	mount -t nfsd nfsd "$NFSD"
	MOUNTED_NFSD=1
	bg /tmp/rpcbind.log rpcbind -f
	RPCBIND=$LAST_PID
	wait_for 10 "rpcbind answering" rpcbind_up
	put "+3 -4" "$NFSD/versions"
	run_to /tmp/exportfs.log "$STEP" exportfs -ra || fail "exportfs -ra: status $?"
	bg /tmp/mountd.log rpc.mountd -F -N 4
	MOUNTD=$LAST_PID
	wait_for 10 "rpc.mountd registered" mountd_up
	put "rdma $NFS_PORT" "$NFSD/portlist"
	put 2 "$NFSD/threads"
	wait_for 10 "nfsd (svcrdma) listening on $NFS_PORT" cm_id_listening $NFS_PORT
	say "nfsd portlist: $(tr '\n' ' ' <"$NFSD/portlist") versions: $(cat "$NFSD/versions")"
	exportfs -v | sed 's/^/  [exportfs] /'
	tsay "nfsd: $EXPORT exported, rdma listener on $NFS_PORT ($T_DEV)"
}
nfsd_listener_gone() { ! cm_id_listening $NFS_PORT; }
server_down() {
	local ok=0
	if [ "$MOUNTED_NFSD" = 1 ]; then
		echo 0 >"$NFSD/threads" 2>/dev/null || ok=1
		timeout -k 2 "$STEP" exportfs -ua 2>/dev/null
	fi
	for p in "$MOUNTD" "$RPCBIND"; do
		[ -n "$p" ] || continue
		kill "$p" 2>/dev/null
		wait_pid "$p" 10 2>/dev/null
	done
	MOUNTD='' RPCBIND=''
	if [ "$MOUNTED_NFSD" = 1 ]; then umount "$NFSD" && MOUNTED_NFSD=0 || ok=1; fi
	if [ "$MOUNTED_EXPORTS" = 1 ]; then umount /etc/exports && MOUNTED_EXPORTS=0 || ok=1; fi
	if [ "$MOUNTED_VAR" = 1 ]; then umount /var/lib/nfs && MOUNTED_VAR=0 || ok=1; fi
	rm -rf "$EXPORT" /tmp/ulp-nfs.exports /run/rpcbind /run/rpcbind.sock /run/rpcbind.lock
	return $ok
}

# ---- client ------------------------------------------------------------------------
nfs_ids_connected() {
	[ "$(cm_ids | grep -cE "$T_DEV/1 .*state CONNECT .*$T_ADDR:$NFS_PORT")" -eq 2 ]
}
client_mount() {
	mkdir -p "$MNT"
	run_to /tmp/nfs-mount.log "$STEP" mount -t nfs -o "$OPTS" "$T_ADDR:$EXPORT" "$MNT" ||
		fail "mount -t nfs -o $OPTS: status $?"
	grep " $MNT nfs " /proc/mounts | sed 's/^/  [mounts] /'
	grep -qE " $MNT nfs .*proto=rdma,.*port=$NFS_PORT" /proc/mounts || fail "$MNT is not an rdma mount"
	wait_for 10 "the client's and the server's ids connected on $T_DEV" nfs_ids_connected
}
client_umount() {
	mountpoint -q "$MNT" || return 0
	timeout -k 2 "$STEP" umount "$MNT"
}

ulp_teardown() {
	client_umount
	server_down
}

# ---- the test ----------------------------------------------------------------------
NFS_OVER=$ULP_RNIC
nfs_main() {
	ulp_check_stack before
	ulp_topology
	ulp_modprobe nfsd rpcrdma nfsv3
	ulp_binds rpcrdma
	server_up
	client_mount
	cm_ids
	tsay "mounted $T_ADDR:$EXPORT on $MNT over rdma"

	# name size: empty, 1 byte, 4 KiB, 1 MiB + 123 bytes, 64 MiB
	FILES="f0 0
	f1 1
	f4k 4096
	f1m $(((1 << 20) + 123))
	f64m $((64 << 20))"
	mkdir -p "$SRC"
	t=$SECONDS
	while read -r n size; do
		head -c "$size" /dev/urandom >"$SRC/$n"
		timeout -k 2 "$STEP" cp "$SRC/$n" "$MNT/$n" || fail "writing $MNT/$n"
	done <<<"$FILES"
	timeout -k 2 "$STEP" sync -f "$MNT" || fail "sync $MNT"
	tsay "wrote $(wc -l <<<"$FILES") files through the mount ($((SECONDS - t)) s)"

	# compare DIR WHEN: every file in DIR equals its source.
	compare() {
		local n size t=$SECONDS
		while read -r n size; do
			timeout -k 2 "$STEP" cmp "$SRC/$n" "$1/$n" || fail "$2: $1/$n differs from what was written"
		done <<<"$FILES"
		tsay "$2: $(wc -l <<<"$FILES") files equal ($((SECONDS - t)) s)"
	}
	compare "$EXPORT" "on the server"
	client_umount || fail "umount $MNT"
	wait_for 20 "the client's connection gone" bash -c "! rdma res show cm_id | grep -q 'state CONNECT'"
	echo 3 >/proc/sys/vm/drop_caches
	client_mount
	compare "$MNT" "through a new mount"
	client_umount || fail "umount $MNT"
	rmdir "$MNT"
	rm -rf "$SRC"
	server_down || fail "nfsd teardown failed"
	wait_for 20 "the nfsd listener gone" nfsd_listener_gone
	ulp_finish
	say "ok: NFSv3 over RDMA (xprtrdma <-> svcrdma) over $NFS_OVER through $ORCM_STACK rdma_cm: files verified, remount verified"
}
