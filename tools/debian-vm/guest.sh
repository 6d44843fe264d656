#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# PID 1 of the Debian test VM (started by tools/debian-vm/run.sh through its
# initramfs; never run it on a host). Debian's own kernel, the host's root
# read-only over virtio-9p, our modules as DKMS installed them.
#
# Settings come from the file named by ORCM_ENV (kernel command line). Every
# result is a console line "@@DVM PASS name", "@@DVM FAIL name: why" or
# "@@DVM SKIP name: why" (not run here, on purpose), then "@@DVM DONE";
# run.sh judges them. PID 1 must not exit: no `set -e`.
set -u
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/tmp LANG=C LC_ALL=C

mark() { echo "@@DVM $*"; }
pass() { mark "PASS $1"; }
fail() { mark "FAIL $1: $2"; }
skip() { mark "SKIP $1: $2"; }
poweroff_vm() {
	mark DONE
	sync
	echo o >/proc/sysrq-trigger
	sleep 10
	exit 1
}

# ---- filesystems -------------------------------------------------------------
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
mount -t debugfs debugfs /sys/kernel/debug
mount -t tmpfs -o mode=755 tmpfs /run
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /var/tmp
mkdir -p /run/netns /run/orcm/mods
ip link set lo up
echo 1 >/proc/sys/kernel/sysrq
mark "BOOT $(uname -r) $(cut -d' ' -f1 /proc/uptime)s"

[ -r "${ORCM_ENV:-}" ] || { fail boot "no ORCM_ENV file: '${ORCM_ENV:-}'"; poweroff_vm; }
# shellcheck source=/dev/null
. "$ORCM_ENV"
K=$(uname -r)
[ "$K" = "$DVM_KREL" ] || fail boot "booted $K, expected $DVM_KREL"

# The module tree: Debian's kernel/ (the host's, read-only) beside the
# updates/dkms/ that DKMS installed into the run's tree and the modules.*
# that depmod made there, bound over /lib/modules/$K, so that modprobe and
# the kernel's own request_module see exactly what an installed system sees.
M=/run/orcm/mods
cp "$DVM_MODTREE"/modules.* "$M/"
mkdir -p "$M/kernel" "$M/updates"
mount --bind "/lib/modules/$K/kernel" "$M/kernel"
mount --bind "$DVM_MODTREE/updates" "$M/updates"
mount --rbind "$M" "/lib/modules/$K"

OURS=(iw_cm ib_cm rdma_cm softrnic softib)

# ---- 1. our stack from updates/dkms, srcversions of the DKMS build -----------
for m in "${OURS[@]}"; do
	want=$(tr ' ' '\n' <<<"$DVM_SRCVERSIONS" | sed -n "s/^$m=//p")
	path=$(modinfo -n "$m" 2>&1)
	if [[ "$path" != "/lib/modules/$K/updates/dkms/$m.ko"@(|.xz|.zst|.gz) ]]; then
		fail "load:$m" "modinfo resolves $m to $path, not updates/dkms"
	elif ! out=$(modprobe "$m" 2>&1); then
		fail "load:$m" "modprobe $m: $out"
	elif [ "$(cat "/sys/module/$m/srcversion" 2>/dev/null)" != "$want" ]; then
		fail "load:$m" "loaded srcversion $(cat "/sys/module/$m/srcversion" 2>&1), DKMS built $want"
	else
		pass "load:$m"
	fi
done

# ---- 2. every Debian module that imports from rdma_cm, iw_cm or ib_cm ---------
# (run.sh lists them from modules.dep); each must load on ours and hold one of
# them.
for m in $DVM_IMPORTERS; do
	u=${m//-/_}
	if ! out=$(modprobe "$m" 2>&1); then
		fail "importer:$m" "modprobe: $out $(dmesg | tail -n 3 | tr '\n' ' ')"
		continue
	fi
	held=''
	for o in rdma_cm iw_cm ib_cm; do
		[ -e "/sys/module/$o/holders/$u" ] && held="$held $o"
	done
	if [ -n "$held" ]; then
		pass "importer:$m"
		echo "## $m holds:$held"
	else
		fail "importer:$m" "loaded, but holds none of our modules"
	fi
done

# Unload them again: some hold CM ids of their own while loaded (rds_rdma
# listens on every device), and the tests below leave no CM id behind.
# rmmod, not modprobe -r: our modules stay loaded (the srcversions above).
for _ in 1 2 3; do
	for m in $DVM_IMPORTERS; do rmmod "${m//-/_}" >/dev/null 2>&1; done
done
for m in $DVM_IMPORTERS; do
	[ -d "/sys/module/${m//-/_}" ] && fail "importer:$m" "does not unload: $(rmmod "${m//-/_}" 2>&1)"
done
# rdma-core's programs need rdma_ucm (/dev/infiniband/rdma_cm), as on any system.
modprobe rdma_ucm || fail importer:rdma_ucm "does not load again"

# ---- 3. the e2e tests that run unchanged here -----------------------------------
# They load what they need with modprobe -d ORCM_MODROOT -S ORCM_KREL and
# check that the loaded rdma_cm/iw_cm are the ORCM_OURS_DIR ones.
export ORCM_STACK=ours ORCM_MODROOT=/ ORCM_KREL=$K ORCM_OURS_DIR=$DVM_OURS_DIR
export ORCM_REPO=$DVM_REPO ORCM_STEP_TIMEOUT=60
E2E=$DVM_REPO/tests/e2e
# e2e NAME TIMEOUT CMD...: run one test; its output is shown, its status judged.
e2e() {
	local name=$1 secs=$2 rc=0 t0=$SECONDS
	shift 2
	timeout -k 5 "$secs" "$@" >"/tmp/$name.out" 2>&1 || rc=$?
	sed "s|^|  [$name] |" "/tmp/$name.out"
	if [ "$rc" -eq 0 ]; then
		pass "$name ($((SECONDS - t0)) s)"
	else
		fail "$name" "exit status $rc after $((SECONDS - t0)) s: $(grep '^## FAIL' "/tmp/$name.out" | tail -n 1)"
	fi
}

# rping over softrnic between two namespaces joined by a veth.
cat >/tmp/rping-softrnic.sh <<EOF
. "$E2E/lib.bash"
trap cleanup EXIT
setup_pair softrnic softrnic
rping_pair rping-softrnic "\$NS_B" "\$ADDR_B" "\$NS_A" "\$ADDR_B" 7300
EOF
e2e rping:softrnic 150 bash /tmp/rping-softrnic.sh
# rping over rdma_rxe (RoCE v2 through our ib_cm), across a veth pair.
e2e rping:rxe 150 bash "$E2E/rxe-pair-rping.sh"
# softib on Debian's own rdmavt.ko: two CAs on a veth pair, opened by
# rdma-core's stock ipathverbs provider, ports INIT with the carrier up.
cat >/tmp/softib.sh <<'EOF2'
set -e
ip link add sibA mtu 9000 type veth peer name sibB mtu 9000
ip link set sibA up; ip link set sibB up
trap 'rdma link delete sib0 2>/dev/null; ip link delete sibA 2>/dev/null' EXIT
rdma link add sib0 type softib netdev sibA
grep -q '^rdmavt ' /proc/modules || { echo "## FAIL: softib without Debian's rdmavt"; exit 1; }
ibv_devinfo -d sib0 | tee /tmp/sib0.txt
grep -q 'link_layer:.*InfiniBand' /tmp/sib0.txt || { echo "## FAIL: not InfiniBand"; exit 1; }
grep -q 'state:.*PORT_INIT' /tmp/sib0.txt || { echo "## FAIL: port not INIT"; exit 1; }
EOF2
e2e softib:dev 60 bash /tmp/softib.sh
# A softib subnet under stock opensm: ping and rping over IPoIB addresses.
# Not on 6.1: Debian 6.1's own rdmavt.ko warns (a WARNING in a memcpy of its
# send path) when opensm's MADs go out through softib, which fails the
# splat check; seen 2026-11-28, not yet traced (docs/kernels.md).
case $K in
6.1.*) skip softib:ipoib-rping "not run on $K: Debian 6.1's rdmavt warns in a memcpy when a MAD is sent (docs/kernels.md)" ;;
*) e2e softib:ipoib-rping 180 bash "$DVM_REPO/tools/debian-vm/softib-ipoib.sh" ;;
esac
# NVMe-oF over softrnic: nvmet-rdma target, nvme-rdma host, written data
# read back and checksummed on the host side and in the target's file,
# `rdma res show cm_id` listing both connected ids and the listener.
e2e nvme:softrnic 240 bash "$DVM_REPO/tools/debian-vm/nvme.sh"

# The differential parity scenarios (tests/e2e/parity.sh, as in the UML VM):
# ours, then this kernel's in-tree rdma_cm/iw_cm/ib_cm, loaded by modprobe
# from DVM_STOCKROOT (Debian's kernel/ without our updates/dkms), then ours
# again; the iWARP scenarios over siw, built by run.sh from this series'
# Debian source (Debian's kernel has none).
if [ -n "${DVM_PARITY_KO:-}" ]; then
	# (No ULP may hold our CM during the swap.)
	for m in nvme_rdma nvmet_rdma; do rmmod "$m" 2>/dev/null; done
	# Our CM loaded again after ib_uverbs, as the in-tree one will be after
	# the swap (and as the UML VM loads it): ib_core removes a device's
	# clients newest first, and ib_uverbs, without disassociate on siw,
	# waits for the last user to close it; loaded after it, the CM's
	# DEVICE_REMOVAL reaches those users first (ucma-removal).
	for m in ib_ipoib softrnic rdma_ucm rdma_cm ib_cm iw_cm; do
		[ ! -d "/sys/module/$m" ] || rmmod "$m" || fail parity "cannot unload $m"
	done
	{ modprobe ib_uverbs && modprobe rdma_ucm && modprobe softrnic; } ||
		fail parity "cannot load our stack again"
	for d in $(modinfo -F depends "$DVM_SIW_KO" | tr , ' '); do modprobe "$d"; done
	if ! out=$(insmod "$DVM_SIW_KO" 2>&1); then
		fail parity "insmod $DVM_SIW_KO: $out"
	else
		# Left out on both stacks: the in-tree rdma_resolve_route() adds a
		# RoCE id to its neighbour tree (cma_add_id_to_tree()) after it
		# queued the work that delivers ROUTE_RESOLVED, holding no
		# reference of its own; on a preemptible kernel the work can run
		# first, and a handler that destroys the id leaves a freed id in
		# the tree: the next RoCE route resolution to that address hits
		# "list_add corruption" (a BUG on Debian's kernel; seen on 6.12 in
		# this VM). UML's kernel never preempts there: the UML VM runs it.
		# Without preemption while they run, as in the UML VM: Debian's
		# kernels preempt voluntarily (PREEMPT_DYNAMIC), and a work item
		# woken by a call then often runs before the call returns, so the
		# traces would order "event route resolved" before the return of
		# rdma_resolve_route() on one stack and after it on the other.
		P=/sys/kernel/debug/sched/preempt
		pmode=$(sed -n 's/.*(\([a-z]*\)).*/\1/p' "$P" 2>/dev/null)
		[ -z "$pmode" ] || echo none >"$P"
		pskip=roce-handler-destroys-route-resolved
		e2e parity 700 env ORCM_MODROOT="$DVM_STOCKROOT" ORCM_PARITY_KO="$DVM_PARITY_KO" \
			ORCM_PARITY_SKIP="$pskip" bash "$E2E/parity.sh"
		# (A skip, not a pass: run.sh counts it so, make check recaps it.)
		skip "parity:$pskip" "left out on both stacks: Debian's in-tree rdma_cm BUGs on it (above; the UML VM runs it)"
		[ -z "$pmode" ] || echo "$pmode" >"$P"
		rmmod siw || fail parity "siw does not unload"
	fi
fi

# ---- 4. unload -----------------------------------------------------------------
left=''
for _ in 1 2 3 4 5; do
	for m in $DVM_IMPORTERS nvmet nvme_fabrics rdma_rxe "${OURS[@]}"; do
		modprobe -r "$m" 2>/dev/null
	done
	left=''
	for m in "${OURS[@]}"; do [ -d "/sys/module/$m" ] && left="$left $m"; done
	[ -z "$left" ] && break
	sleep 1
done
if [ -z "$left" ]; then
	pass unload
else
	fail unload "still loaded:$left ($(grep -E "^(${OURS[*]// /|}) " /proc/modules | tr '\n' ' '))"
fi

# ---- 5. the kernel log ---------------------------------------------------------
SPLAT='WARNING:|BUG:|Oops|general protection|Call Trace|UBSAN|KASAN|refcount_t|list_(add|del) corruption|soft lockup|hung_task|blocked for more than'
# Left out of the check, that report alone (from its "memcpy: detected" line
# to its end of trace): Debian 6.1's rdmavt copies a UD work request (80
# bytes) into its WQE's union through the union's 40-byte
# ib_send_wr member, and FORTIFY_SOURCE warns (once) on the first MAD that
# opensm sends through softib; the union holds the whole request, and
# upstream copies through the ud_wr member instead (6.12 does not warn).
dmesg >/tmp/dmesg-all
awk '/memcpy: detected field-spanning write .* "&wqe->wr" at drivers\/infiniband\/sw\/rdmavt\/qp\.c/ { k = 1 }
	!k { print } k && /---\[ end trace/ { k = 0 }' /tmp/dmesg-all >/tmp/dmesg-judged
if ! cmp -s /tmp/dmesg-all /tmp/dmesg-judged; then
	echo "## dmesg: Debian's rdmavt FORTIFY warning on a UD send, known and not judged (below)"
fi
if grep -E "$SPLAT" /tmp/dmesg-judged >/tmp/splat; then
	fail dmesg:no-splat "$(head -n 1 /tmp/splat)"
	dmesg | sed 's/^/  [dmesg] /'
else
	pass dmesg:no-splat
	dmesg | grep -E 'softrnic|rdma_cm|iw_cm|ib_cm|nvme|taint' | sed 's/^/  [dmesg] /' | tail -n 30
fi
poweroff_vm
