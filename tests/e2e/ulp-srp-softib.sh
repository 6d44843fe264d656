#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# orcm-timeout: 240
# SRP over native InfiniBand through ib_cm alone (issue 29): the stock LIO
# SRP target (ib_srpt) on ib1's port, the stock SRP initiator (ib_srp) on
# ib0's, softib under stock opensm (ib0 <=> ib1 on a veth pair, no IPoIB, no
# rdma_cm id anywhere). Debian's srp_daemon (srptools) finds the target
# through the SA (the ports with DeviceMgmt in their CapabilityMask) and
# the DM MADs that ib_srpt answers (IOUnitInfo, IOControllerProfile,
# ServiceEntries); its target string must name ib1's GID and ib_srpt's
# service GUID. Written to ib_srp's add_target, the initiator resolves the
# path through the SA and logs in with its own ib_cm REQ/REP/RTU to ib1,
# carrying SRP_LOGIN_REQ/RSP as private data; the LUN appears as a SCSI disk.
# Every RTU ib0 sends during the login is dropped (sib_cm_netem on its
# carrier): ib_srpt's channel goes live when its QP, still in RTR, gets
# the first SRP request, through the QP's COMM_EST event and
# ib_cm_notify() (IB_CM_USER_ESTABLISHED) instead of the RTU.
# Random data written with direct I/O (1 MiB + 4 KiB at 0, 4 MiB at
# 8 MiB) reads back with the same sha256 from the disk and from the
# target's file; a stale duplicate of ib_srpt's last RDMA READ, replayed
# from a raw socket once ib_srp has invalidated the MR, gets no answer
# (issue 42). The remote port's delete sends a DREQ; ib_srpt answers and
# releases its channel at the TimeWait exit; on our stack ib_cm's id count
# falls back to ib_srpt's two listeners, then to what it was. LIO's tree is
# removed in order, every module loaded here is unloaded. Both stacks: the
# in-tree ib_cm is the oracle.
# shellcheck source=tests/e2e/ulp-lib.bash
. "$(dirname "$0")/ulp-lib.bash"
# shellcheck source=tests/e2e/ulp-softib.bash
. "$(dirname "$0")/ulp-softib.bash"

LIO=$CONFIGFS/target
LUN_FILE=/tmp/ulp-srp-lun0.img
LUN_SIZE=$((64 << 20))
SRP_HOST=/sys/class/infiniband_srp/srp-ib0-1
IBCM_IDS=/sys/kernel/debug/ib_cm/ids
WWN='' TPG='' ACL='' DISK=''
ULP_CMS='rdma_cm iw_cm ib_cm'

# port_guid DEV: the port GUID of DEV's port 1 as ib_srpt spells it
# (xxxx:xxxx:xxxx:xxxx, the interface id of GID 0); port_gid DEV: GID 0 as
# 32 hex digits (a dgid).
port_guid() { local g; g=$(cat "/sys/class/infiniband/$1/ports/1/gids/0"); echo "${g:20}"; }
port_gid() { tr -d ':' <"/sys/class/infiniband/$1/ports/1/gids/0"; }
# ibcm_ids: ib_cm's live ids (ours: debugfs; the stock CM has no such count).
ibcm_ids() { if [ "$ORCM_STACK" = ours ]; then cat "$IBCM_IDS"; else echo '?'; fi; }
ibcm_ids_are() { [ "$(ibcm_ids)" = "$1" ]; }

# ---- topology: no IPoIB, the SRP ends talk by GID ------------------------------
ulp_topology() {
	sib_load
	sib_subnet_up
	trap ulp_exit EXIT
}

# ---- target --------------------------------------------------------------------
# The TPG of ib1's port under its port GUID (ib_srpt also takes the GID form
# 0x<32 hex>), one fileio LUN, an ACL for ib0's port GUID (ib_srpt has no
# demo mode: the session name of an IB login is the initiator's port GUID).
lio_up() {
	local i_guid
	WWN=$LIO/srpt/$(port_guid ib1)
	TPG=$WWN/tpgt_1
	i_guid=$(port_guid ib0)
	ACL=$TPG/acls/$i_guid
	truncate -s "$LUN_SIZE" "$LUN_FILE"
	mkdir -p "$LIO/core/fileio_0/lun0"
	put "fd_dev_name=$LUN_FILE,fd_dev_size=$LUN_SIZE" "$LIO/core/fileio_0/lun0/control"
	put 1 "$LIO/core/fileio_0/lun0/enable"
	mkdir -p "$LIO/srpt"
	mkdir "$WWN" || fail "ib_srpt refused the port $(port_guid ib1) (ib1)"
	mkdir "$TPG" "$TPG/lun/lun_0"
	ln -s "$LIO/core/fileio_0/lun0" "$TPG/lun/lun_0/lun0" || fail "linking the LUN"
	mkdir "$ACL" "$ACL/lun_0" || fail "making the ACL $i_guid"
	ln -s "$TPG/lun/lun_0" "$ACL/lun_0/lun0" || fail "mapping the LUN for $i_guid"
	put 1 "$TPG/enable"
	tsay "LIO SRP target on ib1 ($(port_guid ib1)): fileio LUN $LUN_FILE ($((LUN_SIZE >> 20)) MiB)," \
		"ACL $i_guid (ib0), service GUID $(srpt_guid)"
}
srpt_guid() { cat /sys/module/ib_srpt/parameters/srpt_service_guid; }
lio_down() {
	[ -d "$LIO" ] || return 0
	if [ -n "$TPG" ] && [ -d "$TPG" ]; then
		echo 0 >"$TPG/enable" 2>/dev/null
		rm -f "$ACL/lun_0/lun0"
		rmdir "$ACL/lun_0" "$ACL" 2>/dev/null
		rm -f "$TPG/lun/lun_0/lun0"
		rmdir "$TPG/lun/lun_0" "$TPG" 2>/dev/null
	fi
	[ -n "$WWN" ] && [ -d "$WWN" ] && rmdir "$WWN"
	[ -d "$LIO/srpt" ] && rmdir "$LIO/srpt" 2>/dev/null
	rmdir "$LIO/core/fileio_0/lun0" "$LIO/core/fileio_0" 2>/dev/null
	rm -f "$LUN_FILE"
	[ ! -d "$LIO/srpt" ] && [ ! -d "$LIO/core/fileio_0" ]
}

# ---- initiator -----------------------------------------------------------------
# srp_discover: srp_daemon's one scan from ib0's port (it lists ib_srpt on
# both ports: ib0's own and ib1's); TARGET, the line for ib1's GID, which
# must carry ib_srpt's service GUID as id_ext, ioc_guid and service_id.
srp_discover() {
	local sg want_dgid f
	: >/tmp/srp_daemon.conf # no rules: every target allowed
	run_to /tmp/srp_daemon.log 30 srp_daemon -c -o -n -a -i ib0 -p 1 -t 2000 -f /tmp/srp_daemon.conf ||
		fail "srp_daemon: status $?"
	sg=$(srpt_guid) want_dgid=$(port_gid ib1)
	sg=${sg#0x}
	TARGET=$(grep "dgid=$want_dgid," /tmp/srp_daemon.log | head -n 1)
	[ -n "$TARGET" ] || fail "srp_daemon found no target at ib1's GID $want_dgid"
	for f in "id_ext=$sg" "ioc_guid=$sg" pkey=ffff "service_id=$sg"; do
		[[ ",$TARGET," == *",$f,"* ]] ||
			fail "srp_daemon's target string has no $f (ib_srpt's service GUID $sg): $TARGET"
	done
	tsay "srp_daemon (SA + DM MADs) found ib_srpt on ib1: $TARGET"
}
# srp_disk: the SCSI disk of ib_srp's host, once scanned, of the LUN's size.
srp_disk() {
	local h b
	for h in /sys/class/scsi_host/host*; do
		[ "$(cat "$h/proc_name")" = ib_srp ] || continue
		for b in "$h"/device/target*/*:0:0:0/block/*; do
			[ -e "$b" ] || return 1
			b=${b##*/}
			[ -b "/dev/$b" ] && [ "$(cat "/sys/class/block/$b/size")" -eq $((LUN_SIZE / 512)) ] || return 1
			DISK=/dev/$b
			return 0
		done
	done
	return 1
}
srp_rports() { compgen -G '/sys/class/srp_remote_ports/port-*' || true; }
no_rport() { [ -z "$(srp_rports)" ]; }
login_count() { dmesg | grep -c 'Received SRP_LOGIN_REQ' || true; }
timewait_exits() { dmesg | grep -c 'Received CM TimeWait exit for ch' || true; }
initiator_down() {
	local p
	for p in $(srp_rports); do
		echo 1 >"$p/delete" 2>/dev/null || true
	done
	wait_for 30 "ib_srp's remote port deleted" no_rport
	DISK=''
}
ulp_teardown() {
	initiator_down
	lio_down
}

# ---- data ----------------------------------------------------------------------
# Each set: name, offset, size. Written from a random file with direct I/O,
# read back (direct) from the disk and from the target's file.
SETS="a 0 $(((1 << 20) + 4096))
b $((8 << 20)) $((4 << 20))"
declare -A SUM
srp_io() {
	local n off size t
	while read -r n off size; do
		t=$SECONDS
		if [ "$1" = write ]; then
			head -c "$size" /dev/urandom >/tmp/srp-set.dat
			SUM[$n]=$(sha256sum </tmp/srp-set.dat | cut -d' ' -f1)
			timeout -k 2 "$STEP" dd if=/tmp/srp-set.dat of="$DISK" bs=1M oflag=direct,seek_bytes \
				seek="$off" conv=notrunc,fsync status=none || fail "writing set $n to $DISK: status $?"
			rm -f /tmp/srp-set.dat
			tsay "set $n: wrote $size bytes at $off ($((SECONDS - t)) s)"
			continue
		fi
		same_sum "set $n" "$DISK" "$off" "$size" "${SUM[$n]}" direct
		same_sum "set $n" "$LUN_FILE" "$off" "$size" "${SUM[$n]}"
		tsay "set $n: verified from $DISK and $LUN_FILE ($((SECONDS - t)) s)"
	done <<<"$SETS"
}

# ---- the test ------------------------------------------------------------------
command -v srp_daemon >/dev/null || fail "no srp_daemon (Debian package srptools)"
ulp_check_stack before
IDS0=$(ibcm_ids)
ulp_topology
ulp_modprobe target_core_mod target_core_file ib_srpt ib_srp sd_mod
ulp_binds_to ib_cm ib_srpt ib_srp
[ -d "$SRP_HOST" ] || fail "ib_srp made no $SRP_HOST"
# ib_srpt listens on every port with its service GUID: one id per device.
[ "$ORCM_STACK" != ours ] || wait_for 10 "ib_srpt's 2 listening ib_cm ids" ibcm_ids_are $((IDS0 + 2))
ulp_configfs
lio_up
srp_discover

L0=$(login_count) T0=$(timewait_exits)
t=$SECONDS
sib_cm_netem vA 100% match u16 0x0014 0xffff at 44 # the RTUs (attribute 0x0014)
put "$TARGET" "$SRP_HOST/add_target"
wait_for 30 "the SRP LUN's disk" srp_disk
RTUS=$(sib_cm_netem_drops vA)
tc qdisc del dev vA root
[ "${RTUS:-0}" -ge 1 ] || fail "no RTU of the login was dropped: the filter matched nothing"
CHANNELS=$(($(login_count) - L0))
[ "$CHANNELS" -ge 1 ] || fail "ib_srpt logged no SRP_LOGIN_REQ"
dmesg | grep 'Received SRP_LOGIN_REQ' | tail -n "$CHANNELS" | sed 's/^/  [dmesg] /'
[ "$ORCM_STACK" != ours ] ||
	wait_for 10 "2 ib_cm ids per channel ($CHANNELS)" ibcm_ids_are $((IDS0 + 2 + 2 * CHANNELS))
cm_ids_empty || { cm_ids; fail "an rdma_cm id is listed: SRP over IB must not use rdma_cm"; }
tsay "logged in over ib_cm, $RTUS RTU(s) dropped (live through COMM_EST): $CHANNELS channel(s), $DISK ($(($(cat "/sys/class/block/${DISK#/dev/}/size") / 2048)) MiB)," \
	"ib_cm ids $(ibcm_ids), $((SECONDS - t)) s"

# A stale duplicate RDMA READ from the segment (issue 42): ib_srpt reads
# the data of the writes from ib_srp's FRWR MRs; a raw socket on ib0's
# carrier keeps the last READ request that came in, and once the I/O is
# done (ib_srp has invalidated those MRs) sends it again from ib1's
# carrier, as it was (a PSN in a range ib0 answered). ib0 must answer
# nothing (the R_Key is checked again against the MR as it is now:
# counted as `rkey`); the reads of the verify below show the connection
# unharmed. Before the fix (e4e66ee) the duplicate was answered from the
# ack queue's stale entry: READ responses left, the "no READ response"
# check fails.
bg /tmp/srp-dupread.log python3 "$(dirname "$0")/softib-rkey0.py" dupread vA vB "$(sib_lid ib1)" /tmp/srp-dupread.go
DUPREAD=$LAST_PID
wait_for 10 "the raw socket listening" grep -q listening /tmp/srp-dupread.log
srp_io write
RKEY0=$(sib_drops ib0 rkey)
touch /tmp/srp-dupread.go
wait_pid "$DUPREAD" 30 || { show /tmp/srp-dupread.log; fail "the raw sender failed"; }
show /tmp/srp-dupread.log
grep -q '^answers read_resp=0$' /tmp/srp-dupread.log ||
	fail "ib0 answered a stale duplicate READ (its MR invalidated by ib_srp)"
[ "$(sib_drops ib0 rkey)" -gt "$RKEY0" ] || fail "ib0 counted no rkey drop for the stale duplicate READ"
tsay "ok: a stale duplicate READ replayed from the segment got no answer ($(grep '^reads' /tmp/srp-dupread.log))"
echo 3 >/proc/sys/vm/drop_caches
srp_io verify
sib_ulp_counters
[ "$ORCM_STACK" != ours ] || say "ib_cm counters: $(tr '\n' ' ' </sys/kernel/debug/ib_cm/counters)"

# The remote port's delete: ib_srp sends a DREQ per channel and removes the
# SCSI host; ib_srpt answers with a DREP and releases each channel (and its
# LIO session) when ib_cm reports the TimeWait exit.
t=$SECONDS
initiator_down
wait_for 30 "ib_srpt's TimeWait exit of $CHANNELS channel(s)" \
	bash -c "[ \$(dmesg | grep -c 'Received CM TimeWait exit for ch') -ge $((T0 + CHANNELS)) ]"
[ "$ORCM_STACK" != ours ] || wait_for 10 "ib_cm back to ib_srpt's listeners" ibcm_ids_are $((IDS0 + 2))
tsay "disconnected: SCSI host gone, $CHANNELS channel(s) released by ib_srpt, ib_cm ids $(ibcm_ids) ($((SECONDS - t)) s)"
lio_down || fail "LIO configfs teardown failed"
ulp_finish
[ "$ORCM_STACK" != ours ] || ibcm_ids_are "$IDS0" || fail "ib_cm ids $(ibcm_ids) at the end, $IDS0 before"
say "ok: ib_srp <-> ib_srpt over softib through $ORCM_STACK ib_cm: found by srp_daemon, data verified, no id left"
