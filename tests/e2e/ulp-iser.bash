# SPDX-License-Identifier: GPL-2.0
# iSER through the CM with stock kernel ULPs on both ends (a LIO target with
# ib_isert, the open-iscsi initiator with ib_iser): the body of
# tests/e2e/ulp-iser.sh (siw) and ulp-iser-rxe.sh (RoCE). A test sources this
# file, may redefine the topology (ulp_topology & co., ulp-lib.bash) and
# iser_portal_make, sets ISER_OVER and calls iser_main.
# shellcheck shell=bash
# shellcheck source=tests/e2e/ulp-lib.bash
. "$(dirname "$0")/ulp-lib.bash"

IQN=iqn.2024-01.org.openrdma-cm:ulp-iser
INITIATOR=iqn.2024-01.org.openrdma-cm:ulp-iser-initiator
PORTAL=$T_ADDR:3260
ISER_NS=orcmI
LIO=$CONFIGFS/target
TPG=$LIO/iscsi/$IQN/tpgt_1
LUN_FILE=/tmp/ulp-iser-lun0.img
LUN_SIZE=$((192 << 20))
MNT=/tmp/ulp-iser-mnt
ETC_MOUNTED=0 ISCSID='' DISK=''
ISCSIADM=(timeout -k 2 "$STEP" iscsiadm)

# ---- target ------------------------------------------------------------------------
# iser_portal_make: the portal $PORTAL (LIO opens its iSCSI/TCP listener
# there); a test over another transport may redefine it. Over siw the iSER
# listener is a kernel TCP socket too and cannot share the portal's address
# and port: the portal is made from netns $ISER_NS, where $T_ADDR is on lo
# (see tests/e2e/ulp-iser.sh).
iser_portal_make() {
	ip netns add "$ISER_NS"
	ip -n "$ISER_NS" link set lo up
	ip -n "$ISER_NS" addr add "$T_ADDR/32" dev lo
	nsenter --net="/run/netns/$ISER_NS" mkdir "$TPG/np/$PORTAL" || fail "making the portal $PORTAL"
}
lio_up() {
	mkdir -p "$LIO/core/fileio_0/lun0"
	put "fd_dev_name=$LUN_FILE,fd_dev_size=$LUN_SIZE" "$LIO/core/fileio_0/lun0/control"
	put 1 "$LIO/core/fileio_0/lun0/enable"
	mkdir -p "$TPG/lun/lun_0"
	ln -s "$LIO/core/fileio_0/lun0" "$TPG/lun/lun_0/lun0" || fail "linking the LUN"
	iser_portal_make
	put 1 "$TPG/np/$PORTAL/iser"
	put 0 "$TPG/attrib/authentication"
	put 1 "$TPG/attrib/generate_node_acls"
	put 0 "$TPG/attrib/demo_mode_write_protect"
	put 1 "$TPG/enable"
	wait_for 10 "ib_isert listening on $PORTAL" cm_id_listening 3260
	tsay "LIO target $IQN: fileio LUN $LUN_FILE ($((LUN_SIZE >> 20)) MiB), iSER portal $PORTAL on $T_DEV"
}
lio_down() {
	[ -d "$LIO" ] || return 0
	if [ -d "$TPG" ]; then
		echo 0 >"$TPG/enable" 2>/dev/null
		[ -d "$TPG/np/$PORTAL" ] && echo 0 >"$TPG/np/$PORTAL/iser" 2>/dev/null
		rmdir "$TPG/np/$PORTAL" 2>/dev/null
		rm -f "$TPG/lun/lun_0/lun0"
		rmdir "$TPG/lun/lun_0" "$TPG" "$LIO/iscsi/$IQN" 2>/dev/null
	fi
	[ -d "$LIO/iscsi" ] && rmdir "$LIO/iscsi" 2>/dev/null
	rmdir "$LIO/core/fileio_0/lun0" "$LIO/core/fileio_0" 2>/dev/null
	ip netns delete "$ISER_NS" 2>/dev/null
	rm -f "$LUN_FILE"
	[ ! -d "$LIO/iscsi" ] && [ ! -d "$LIO/core/fileio_0" ]
}

# ---- initiator ---------------------------------------------------------------------
# open-iscsi keeps its node database in /etc/iscsi (read-only here): a tmpfs
# over it, with the host's iscsid.conf (when there is one) and our name.
initiator_up() {
	local conf=''
	[ -f /etc/iscsi/iscsid.conf ] && { cp /etc/iscsi/iscsid.conf /tmp/iscsid.conf; conf=/tmp/iscsid.conf; }
	mount -t tmpfs -o mode=755 tmpfs /etc/iscsi
	ETC_MOUNTED=1
	[ -n "$conf" ] && cp "$conf" /etc/iscsi/iscsid.conf
	echo "InitiatorName=$INITIATOR" >/etc/iscsi/initiatorname.iscsi
	mkdir -p /run/lock/iscsi
	# Its own session: iscsid, when it stops, signals its log process, which
	# in the foreground is pid 0: the whole process group.
	bg /tmp/iscsid.log setsid iscsid -f
	ISCSID=$LAST_PID
	wait_for 10 "iscsid listening for iscsiadm" iscsid_up
	"${ISCSIADM[@]}" -m node -o new -T "$IQN" -p "$PORTAL" -I iser >/tmp/iscsiadm.log 2>&1 ||
		{ show /tmp/iscsiadm.log; fail "iscsiadm -m node -o new: status $?"; }
	tsay "open-iscsi: iscsid running, node $IQN at $PORTAL on iface iser"
}
iscsid_up() { grep -q '@ISCSIADM_ABSTRACT_NAMESPACE' /proc/net/unix; }
# The disk of our session (sdX), once SCSI scanned it.
session_disk() {
	local b
	for b in /sys/class/iscsi_session/session*/device/target*/*:0:0:0/block/*; do
		[ -e "$b" ] || return 1
		b=$(basename "$b")
		[ -b "/dev/$b" ] && [ "$(cat "/sys/class/block/$b/size")" -eq $((LUN_SIZE / 512)) ] || return 1
		DISK=/dev/$b
		return 0
	done
	return 1
}
no_session() { ! ls /sys/class/iscsi_session/session* >/dev/null 2>&1; }
iser_ids_connected() {
	[ "$(cm_ids | grep -cE "$T_DEV/1 .*state CONNECT .*$T_ADDR:3260")" -eq 2 ]
}
login() {
	run_to /tmp/iscsi-login.log "$STEP" iscsiadm -m node -T "$IQN" -p "$PORTAL" -I iser --login ||
		fail "iscsiadm --login: status $?"
	wait_for 20 "the LUN's disk" session_disk
	wait_for 10 "connected ids of ib_iser and ib_isert on $T_DEV" iser_ids_connected
	"${ISCSIADM[@]}" -m session >/tmp/iscsi-session.log 2>&1 || true
	show /tmp/iscsi-session.log
	grep -q "^iser: .*$PORTAL,1 $IQN" /tmp/iscsi-session.log || fail "no iser session to $IQN"
	tsay "logged in over iSER -> $DISK ($(($(cat "/sys/class/block/${DISK#/dev/}/size") / 2048)) MiB)"
}
# The target's count of its sessions (0 once its own close of the last one
# is done; the initiator's logout returns before that).
lio_sessions() { cat "$LIO/iscsi/$IQN/fabric_statistics/iscsi_instance/sessions"; }
lio_no_session() { [ "$(lio_sessions)" = 0 ]; }
# logout: the initiator's session gone, and the target's too. LIO closes its
# side in its tx thread (iscsit_close_session()), which still takes the
# TPG's session lock after the initiator is done: a TPG removed before that
# is used after being freed (a KASAN report seen once on the stock stack
# over softib, 2026-11-27, in lio_down right after the logout).
logout() {
	no_session && return 0
	run_to /tmp/iscsi-logout.log "$STEP" iscsiadm -m node -T "$IQN" -p "$PORTAL" -I iser --logout || return 1
	wait_for 20 "the iSCSI session gone" no_session
	wait_for 20 "the target's session closed ($(lio_sessions) left)" lio_no_session
	DISK=''
}
initiator_down() {
	mountpoint -q "$MNT" && timeout -k 2 20 umount "$MNT"
	logout
	[ -e /etc/iscsi/nodes ] && "${ISCSIADM[@]}" -m node -o delete -T "$IQN" >/dev/null 2>&1
	if [ -n "$ISCSID" ]; then
		kill "$ISCSID" 2>/dev/null
		wait_pid "$ISCSID" 10 2>/dev/null
		ISCSID=''
	fi
	rm -rf /run/lock/iscsi /run/iscsid.pid
	if [ "$ETC_MOUNTED" = 1 ]; then
		umount /etc/iscsi && ETC_MOUNTED=0
	fi
	[ "$ETC_MOUNTED" = 0 ] && ! mountpoint -q "$MNT"
}

ulp_teardown() {
	initiator_down
	lio_down
}

# ---- the test ----------------------------------------------------------------------
ISER_OVER=$ULP_RNIC
iser_main() {
	ulp_check_stack before
	ulp_topology
	ulp_modprobe target_core_mod target_core_file iscsi_target_mod ib_isert ib_iser sd_mod
	ulp_binds ib_isert ib_iser
	ulp_configfs
	lio_up
	initiator_up
	login
	cm_ids

	t=$SECONDS
	run_to /tmp/mkfs.log 90 mkfs.ext4 -q -F -E nodiscard,lazy_itable_init=1,lazy_journal_init=1 "$DISK" ||
		fail "mkfs.ext4 $DISK: status $?"
	tsay "mkfs.ext4 on $DISK ($((SECONDS - t)) s)"
	mkdir -p "$MNT"
	mount -o noinit_itable "$DISK" "$MNT"

	# name size: 1 byte, 4 KiB, 3 MiB + 7 bytes, 48 MiB
	FILES="f1 1
	f4k 4096
	f3m $(((3 << 20) + 7))
	f48m $((48 << 20))"
	declare -A SUM
	t=$SECONDS
	while read -r n size; do
		head -c "$size" /dev/urandom >"/tmp/iser-$n.dat"
		SUM[$n]=$(sha256sum <"/tmp/iser-$n.dat" | cut -d' ' -f1)
		timeout -k 2 "$STEP" cp "/tmp/iser-$n.dat" "$MNT/$n" || fail "writing $MNT/$n"
		rm "/tmp/iser-$n.dat"
	done <<<"$FILES"
	timeout -k 2 "$STEP" sync -f "$MNT" || fail "sync $MNT"
	tsay "wrote $(wc -l <<<"$FILES") files ($((SECONDS - t)) s)"

	# verify WHEN: mount (with no page cache left from before), compare, unmount.
	verify() {
		local n size got t=$SECONDS
		echo 3 >/proc/sys/vm/drop_caches
		mount -o noinit_itable "$DISK" "$MNT"
		while read -r n size; do
			[ "$(stat -c %s "$MNT/$n")" -eq "$size" ] || fail "$1: $n has $(stat -c %s "$MNT/$n") bytes, want $size"
			got=$(timeout -k 2 "$STEP" sha256sum <"$MNT/$n" | cut -d' ' -f1)
			[ "$got" = "${SUM[$n]}" ] || fail "$1: $n reads back $got, wrote ${SUM[$n]}"
		done <<<"$FILES"
		timeout -k 2 "$STEP" umount "$MNT" || fail "$1: umount $MNT"
		tsay "$1: $(wc -l <<<"$FILES") files verified ($((SECONDS - t)) s)"
	}
	timeout -k 2 "$STEP" umount "$MNT" || fail "umount $MNT"
	verify "after remount"
	logout || fail "iscsiadm --logout failed"
	tsay "logged out"

	login
	verify "after a new login"
	run_to /tmp/fsck.log 60 e2fsck -f -n "$DISK" || fail "e2fsck -f -n $DISK: status $?"
	logout || fail "iscsiadm --logout failed"
	initiator_down || fail "initiator teardown failed"
	lio_down || fail "LIO configfs teardown failed"
	rmdir "$MNT"
	ulp_finish
	say "ok: ib_iser <-> ib_isert over $ISER_OVER through $ORCM_STACK rdma_cm: ext4 on the LUN, files verified, re-login verified"
}
