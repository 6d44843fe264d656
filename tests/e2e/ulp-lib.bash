# SPDX-License-Identifier: GPL-2.0
# Helpers for the kernel-ULP end-to-end tests (tests/e2e/ulp-*.sh): stock
# NVMe-oF, iSER and NFS-RDMA over siw, through the loaded rdma_cm/iw_cm.
# Sources lib.bash (set -euo pipefail, say/fail/wait_for/run_to/cm_ids...).
#
# Kernel ULPs create their CM ids in init_net (nvmet, nvme-rdma, isert, iser;
# rpcrdma uses the transport's namespace, init_net here), and siw makes its TCP
# sockets in the namespace of the task that listens or connects (the test
# script, or a kernel worker: init_net). So these tests run in the initial
# namespace, on one veth pair whose two ends both live there:
#
#   init_net: ulpT 198.18.1.1/24, siwT  <== veth ==>  ulpH 198.18.1.2/24, siwH
#
# Target and initiator run in this one kernel. A connection from 198.18.1.2 (or
# from 198.18.1.1 itself) to 198.18.1.1 is local: its TCP goes through lo, and
# the CM picks the RDMA device by the bound source address (siwH when the ULP
# binds 198.18.1.2, as nvme-rdma does with host_traddr; siwT otherwise).
#
# Each script defines ulp_teardown (idempotent, best effort); the EXIT trap
# runs it, then removes the topology and unloads every module loaded since
# the script started. The success path calls the same steps itself, checked.
# shellcheck shell=bash disable=SC2034
# shellcheck source=tests/e2e/lib.bash
. "$(dirname "${BASH_SOURCE[0]}")/lib.bash"

T_ADDR=198.18.1.1 H_ADDR=198.18.1.2
T_IF=ulpT H_IF=ulpH
# The RNIC under the ULPs: stock siw, or our softrnic (ulp-*-softrnic.sh set
# ULP_RNIC=softrnic before sourcing; its devices are srT and srH).
ULP_RNIC=${ULP_RNIC:-siw}
if [ "$ULP_RNIC" = siw ]; then
	T_DEV=siwT H_DEV=siwH
else
	T_DEV=srT H_DEV=srH
fi
CONFIGFS=/sys/kernel/config
MP=(modprobe -d "$ORCM_MODROOT" -S "$ORCM_KREL")

# Modules loaded before this script: everything else is unloaded at the end.
ULP_MODS_BEFORE=" $(awk '{ printf "%s ", $1 }' /proc/modules)"
ULP_MOUNTED_CONFIGFS=0
ULP_T0=$SECONDS

# tsay MSG: say, with the seconds since the script started.
tsay() { say "[+$((SECONDS - ULP_T0))s] $*"; }

# ---- which stack is loaded ---------------------------------------------------
# The .ko file of MODULE in the stack under test.
stack_ko() {
	case "$ORCM_STACK" in
	ours) echo "$ORCM_OURS_DIR/$1/$1.ko" ;;
	stock) modinfo -b "$ORCM_MODROOT" -k "$ORCM_KREL" -n "$1" ;;
	*) return 1 ;;
	esac
}
# The GNU build id of a loaded module (its ELF note, from sysfs) and of a file.
loaded_build_id() {
	od -An -tx1 -v "/sys/module/$1/notes/.note.gnu.build-id" | tr -d ' \n' | tail -c 40
}
file_build_id() { readelf -n "$1" | sed -n 's/^ *Build ID: *//p' | head -n 1; }
# ulp_check_stack WHEN: the loaded rdma_cm and iw_cm (and whatever else
# $ULP_CMS names: a ULP of ib_cm's sets it) are the files of $ORCM_STACK
# (same build id; on ours also the srcversion the runner checks), so that a
# test cannot pass on the other stack's CM by mistake.
ulp_check_stack() {
	local m f have want bid
	for m in ${ULP_CMS:-rdma_cm iw_cm}; do
		[ -d "/sys/module/$m" ] || fail "$m is not loaded ($1)"
		f=$(stack_ko "$m") && [ -f "$f" ] || fail "no $ORCM_STACK $m.ko ($1)"
		bid=$(loaded_build_id "$m") || fail "no build id for the loaded $m ($1)"
		want=$(file_build_id "$f")
		[ -n "$want" ] && [ "$bid" = "$want" ] ||
			fail "loaded $m (build id $bid) is not $f ($want) ($1)"
		if [ "$ORCM_STACK" = ours ]; then
			have=$(cat "/sys/module/$m/srcversion") || fail "our $m has no srcversion ($1)"
			want=$(modinfo -F srcversion "$f")
			[ "$have" = "$want" ] || fail "loaded $m srcversion $have, ours is $want ($1)"
		fi
		say "$1: $m is the $ORCM_STACK one (build id $bid)"
	done
}
# ulp_binds MOD...: each ULP module links against the loaded rdma_cm;
# ulp_binds_to CM MOD...: against the loaded CM (ib_cm for SRP).
ulp_binds() { ulp_binds_to rdma_cm "$@"; }
ulp_binds_to() {
	local cm=$1 m
	shift
	for m in "$@"; do
		[ -e "/sys/module/$cm/holders/$m" ] ||
			fail "$m does not use the loaded $cm (holders: $(ls "/sys/module/$cm/holders" | tr '\n' ' '))"
	done
	say "$cm ($ORCM_STACK) holders: $(ls "/sys/module/$cm/holders" | tr '\n' ' ')"
}

# ulp_modprobe MOD...: load ULP modules from the UML modroot. modprobe skips
# the dependencies that are loaded already (rdma_cm, iw_cm of the stack under
# test), so the ULP binds to them.
ulp_modprobe() {
	local m
	for m in "$@"; do
		timeout -k 2 "$STEP" "${MP[@]}" "$m" || fail "modprobe $m failed"
	done
}

# ulp_unload_modules: unload every module loaded since the script started
# (ULPs, their dependencies, whatever the kernel requested), in dependency
# order. Returns 1 and names them when some stay.
ulp_unload_modules() {
	local pass m left progress
	for ((pass = 0; pass < 20; pass++)); do
		left='' progress=0
		while read -r m _ refs _; do
			[[ "$ULP_MODS_BEFORE" == *" $m "* ]] && continue
			left="$left $m"
			[ "$refs" = 0 ] || continue
			timeout -k 2 10 rmmod "$m" 2>/dev/null && progress=1
		done </proc/modules
		[ -z "$left" ] && return 0
		[ "$progress" = 1 ] || sleep 0.5
	done
	say "modules that do not unload:$left"
	for m in $left; do grep "^$m " /proc/modules || true; done
	return 1
}

# ---- configfs ----------------------------------------------------------------
ulp_configfs() {
	if ! mountpoint -q "$CONFIGFS"; then
		mount -t configfs configfs "$CONFIGFS"
		ULP_MOUNTED_CONFIGFS=1
	fi
}
ulp_configfs_down() {
	if [ "$ULP_MOUNTED_CONFIGFS" = 1 ] && mountpoint -q "$CONFIGFS"; then
		umount "$CONFIGFS" && ULP_MOUNTED_CONFIGFS=0
	fi
}
# put VALUE FILE: write one configfs/sysfs attribute, failing loudly.
put() { echo "$1" >"$2" || fail "echo '$1' > $2"; }

# ---- topology ----------------------------------------------------------------
ulp_topology() {
	ip link add "$T_IF" index 201 type veth peer name "$H_IF" index 202
	ip addr add "$T_ADDR/24" dev "$T_IF"
	ip addr add "$H_ADDR/24" dev "$H_IF"
	ip link set "$T_IF" up
	ip link set "$H_IF" up
	# Both addresses are local: ARP between them is ignored (a request from
	# one of our own addresses), so the CM's neighbour lookup for $T_ADDR out
	# of $H_IF (an id bound to $H_ADDR) needs a static entry. The TCP of the
	# connection itself goes through lo.
	ip neigh replace "$T_ADDR" lladdr "$(cat "/sys/class/net/$T_IF/address")" dev "$H_IF" nud permanent
	ip neigh replace "$H_ADDR" lladdr "$(cat "/sys/class/net/$H_IF/address")" dev "$T_IF" nud permanent
	rdma link add "$T_DEV" type "$ULP_RNIC" netdev "$T_IF"
	rdma link add "$H_DEV" type "$ULP_RNIC" netdev "$H_IF"
	wait_for 10 "$T_DEV and $H_DEV ACTIVE" ulp_devs_active
	say "topology (init_net): $T_IF $T_ADDR $T_DEV <-> $H_IF $H_ADDR $H_DEV"
	rdma link show
}
# ulp_link_delete DEV [SECONDS]: `rdma link delete DEV`, which must complete.
# A removal that blocks is a failure, found without waiting on the blocked
# process (it sleeps uninterruptibly: timeout(1) and `wait` would block too);
# the kernel then is wedged, so the EXIT trap skips the teardown and dumps the
# blocked tasks (sysrq w) for the log.
ULP_WEDGED=0
# (A marker file too: a delete that hangs in a subshell wedges the kernel
# all the same.)
ULP_WEDGED_MARK=/tmp/ulp-wedged
rm -f "$ULP_WEDGED_MARK"
ulp_link_delete() {
	local secs=${2:-30} pid end rc=0
	rdma link delete "$1" >/tmp/link-delete.log 2>&1 &
	pid=$!
	end=$((SECONDS + secs))
	while [ "$SECONDS" -lt "$end" ] && kill -0 "$pid" 2>/dev/null; do
		sleep 0.1
	done
	if kill -0 "$pid" 2>/dev/null; then
		ULP_WEDGED=1
		: >"$ULP_WEDGED_MARK"
		fail "rdma link delete $1 hangs: still blocked after ${secs}s"
	fi
	wait "$pid" || rc=$?
	show /tmp/link-delete.log
	[ "$rc" -eq 0 ] || fail "rdma link delete $1: status $rc"
}
dev_active() { rdma link show "$1/1" 2>/dev/null | grep -q 'state ACTIVE'; }
ulp_devs_active() { dev_active "$T_DEV" && dev_active "$H_DEV"; }
ulp_topology_down() {
	local d
	for d in "$H_DEV" "$T_DEV"; do
		if rdma link show "$d/1" >/dev/null 2>&1; then
			ulp_link_delete "$d"
		fi
	done
	ip link del "$T_IF" 2>/dev/null || true
}

# ---- data --------------------------------------------------------------------
# sum_at FILE OFFSET SIZE [direct]: sha256 of SIZE bytes at OFFSET of a file or
# a block device. Direct I/O on devices, so that the data really crosses the
# fabric and does not come from the page cache., or a block device: sha256 of SIZE bytes at OFFSET.
sum_at() {
	local fl=skip_bytes,count_bytes
	[ "${4:-}" = direct ] && fl=$fl,direct
	dd if="$1" bs=1M iflag="$fl" skip="$2" count="$3" status=none | sha256sum | cut -d' ' -f1
}
# write_at SRC DEV OFFSET: write the file SRC to DEV at OFFSET, direct, synced.
write_at() {
	timeout -k 2 "$STEP" dd if="$1" of="$2" bs=1M oflag=direct,seek_bytes seek="$3" \
		conv=notrunc,fsync status=none || fail "writing $1 to $2 at $3: status $?"
}
# same_sum WHAT FILE OFFSET SIZE SHA256 [direct]: sum_at FILE OFFSET SIZE is
# SHA256, or the test fails (WHAT names the data).
same_sum() {
	local got
	got=$(sum_at "$2" "$3" "$4" "${6:-}")
	[ "$got" = "$5" ] || fail "$1: $4 bytes at $3 of $2 read back $got, wrote $5"
}

# ---- exit --------------------------------------------------------------------

# A test's ulp_topology_down writes its reason here when what it left in
# place must not be unloaded either (a module unload would remove it).
ULP_KEEP=/tmp/ulp-keep-modules
ulp_exit() {
	local rc=$?
	set +e
	trap - EXIT
	if [ "$ULP_WEDGED" = 1 ] || [ -e "$ULP_WEDGED_MARK" ]; then
		say "the kernel is wedged: no teardown; blocked tasks (sysrq w):"
		echo w >/proc/sysrq-trigger
		sleep 2
		exit "$rc"
	fi
	if [ "$rc" -ne 0 ]; then
		say "failed (status $rc): tearing down; kernel log tail:"
		dmesg | tail -n 40 | sed 's/^/  [dmesg] /'
	fi
	declare -F ulp_teardown >/dev/null && (ulp_teardown)
	rm -f "$ULP_KEEP"
	(ulp_topology_down)
	ulp_configfs_down
	if [ -e "$ULP_KEEP" ]; then
		say "modules left loaded: $(cat "$ULP_KEEP")"
	else
		ulp_unload_modules >/dev/null 2>&1
	fi
	cleanup
	exit "$rc"
}
trap ulp_exit EXIT

# ulp_finish: the checked end of a passing test (after ulp_teardown ran):
# no CM id left, devices removed, modules unloaded, the same CMs still loaded.
ulp_finish() {
	wait_for 30 "no CM id left" cm_ids_empty
	ulp_topology_down
	dev_active "$T_DEV" && fail "$T_DEV still there"
	ulp_configfs_down
	ulp_unload_modules || fail "ULP modules did not unload"
	ulp_check_stack after
	tsay "total"
}
