#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Our modules on Debian's real kernel, installed the way the README installs
# them, in a throwaway VM (`make check`, step debian-vm):
#
#   tools/debian-vm/run.sh [--kernel debian|debian-6.1] [--timeout SECONDS]
#
# --kernel: which Debian kernel (tools/lib.sh): debian, the default, is
# $ORCM_HDR_KREL (6.12); debian-6.1 is Debian 12's default, $ORCM_HDR_KREL_6_1.
# Below, K is that kernel release.
#
# 1. On the host: `git archive` of the checkout (HEAD plus what is changed or
#    added and not ignored, as `git add -A` would commit it) into a private
#    DKMS source tree, then `dkms install openrdma-cm/0.1 -k $K`, as the README
#    says, with --dkmstree/--sourcetree/--installtree/--no-depmod pointing into
#    this tool's cache so that the host's /lib/modules and /var/lib/dkms trees
#    stay untouched (DKMS signs with its MOK key, /var/lib/dkms/mok.key, which
#    it creates on first use, as on a user's machine). depmod over Debian's
#    kernel/ plus our updates/dkms/.
#    DKMS runs here and not in the guest: the guest is TCG (no KVM on the CI
#    machine), where the same compile takes several times as long, and
#    the headers and the compiler are the host's anyway.
# 2. Boot linux-image-$K under qemu-system-x86_64 (TCG) with a small
#    initramfs (busybox-static, the 9p modules and, where the kernel has them
#    as modules, virtio_pci's, as modprobe resolves them) that mounts the
#    host's / read-only over virtio-9p and runs tools/debian-vm/guest.sh.
#    No network device (-nic none): every packet stays inside the guest
#    (veths, namespaces).
#
# Tests, one line each ("PASS name", "FAIL name: why", "SKIP name: why": not
# run on this kernel or left out, on purpose, never a pass), then "N skipped"
# and "N passed, N failed":
#   dkms:install        dkms install succeeds for that kernel
#   dkms:shipped-only   DKMS compiled exactly the modules dkms.conf installs
#                       (no test modules) and installed those into updates/dkms
#   dkms:signed         they carry DKMS's signature by the key of
#                       /var/lib/dkms/mok.pub (the one to enroll for Secure Boot)
#   load:<m>            in the guest, modprobe takes rdma_cm, iw_cm, ib_cm,
#                       softrnic, softib from updates/dkms, srcversion as DKMS built it
#   softib:dev          a softib CA on Debian's rdmavt.ko, opened by ipathverbs
#   softib:ipoib-rping  a softib subnet under stock opensm on Debian's rdmavt,
#                       ib_umad and ib_ipoib: ping and rping over IPoIB
#                       addresses (tools/debian-vm/softib-ipoib.sh); 6.12
#                       only (a skip on 6.1: docs/kernels.md)
#   importer:<m>        every Debian module importing from rdma_cm/iw_cm/ib_cm
#                       (from modules.dep) loads and holds ours
#   rping:softrnic      rping between two namespaces over softrnic on a veth
#   rping:rxe           rping over rdma_rxe (tests/e2e/rxe-pair-rping.sh)
#   nvme:softrnic       NVMe-oF connect, checksummed write and read, rdma res
#                       show cm_id (tools/debian-vm/nvme.sh)
#   parity              the differential parity scenarios, ours against this
#                       kernel's in-tree rdma_cm/iw_cm/ib_cm in the same boot
#                       (tests/e2e/parity.sh; docs/parity.md): cm_parity.ko
#                       built against this kernel's headers (build-modules.sh
#                       debian[-6.1]-parity), siw from this series' Debian
#                       source (build-siw-pristine.sh KREL; Debian builds
#                       none), the in-tree CM loaded from a module tree
#                       without updates/ ($W/stockroot). On by default;
#                       ORCM_DVM_PARITY=0 leaves it out (about 3.5 minutes
#                       of the VM's time). One scenario is left out on both
#                       stacks (a skip: parity:<scenario>, guest.sh says why)
#   unload              all of it unloads
#   dmesg:no-splat      no WARNING/BUG/Oops/... in the guest's kernel log
#   vm:boot             the guest booted Debian's kernel and finished in time
# Logs: build/logs/debian-vm[-6.1].log (console), <cache>/debian-vm/*/K/dkms.log.
set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/../lib.sh"

# ORCM_DVM_PARITY=0: without the parity scenarios (on by default, as in
# `make check`; docs/debian-vm.md, "parity"): they take about 3.5 minutes of
# the VM's time.
parity=0
! orcm_flag ORCM_DVM_PARITY || parity=1
timeout_s=${ORCM_DVM_TIMEOUT:-$([ "$parity" = 1 ] && echo 900 || echo 330)}
target=debian
while [ $# -gt 0 ]; do
	case "$1" in
	--timeout) timeout_s=$2; shift ;;
	--kernel) target=$2; shift ;;
	*) die "unknown option $1 (see the head of $0)" ;;
	esac
	shift
done

K=$(orcm_target_krel "$target")
OURS=(rdma_cm iw_cm ib_cm softrnic softib)
ensure_pkgs qemu-system-x86 "$(orcm_image_pkg "$K")" "linux-headers-$K" dkms busybox-static \
	cpio xz-utils kmod git rdma-core rdmacm-utils ibverbs-providers iproute2 nvme-cli

orcm_tally
expected=()
mkdir -p "$ORCM_REPO/build/logs"
LOG=$ORCM_REPO/build/logs/debian-vm$([ "$target" = debian ] || echo "-${target#debian-}").log

# ---- 1. DKMS, from a git archive of the checkout --------------------------------
W=$ORCM_CACHE/debian-vm/$(orcm_repo_key)/$K
mkdir -p "$W"
# The checkout as it is (HEAD plus every change not ignored by .gitignore, as
# `git add -A` would commit it) as a tree object, through a private index.
idx=$(mktemp "$W/index.XXXXXX")
cp "$(git -C "$ORCM_REPO" rev-parse --path-format=absolute --git-path index)" "$idx"
GIT_INDEX_FILE=$idx git -C "$ORCM_REPO" add -A
rev=$(GIT_INDEX_FILE=$idx git -C "$ORCM_REPO" write-tree)
rm -f "$idx"
# The build is kept while what DKMS compiles is unchanged (a warm run skips
# it); any change there means a fresh archive, build and install.
key="$K $(git -C "$ORCM_REPO" ls-tree -r "$rev" -- dkms.conf Makefile Kbuild rdma_cm iw_cm ib_cm \
	drivers include tests/kunit tests/parity tests/hostcm tests/bench | sha256sum | cut -c1-16)"
PV=openrdma-cm/0.1
# dkms install wants root (as in the README: sudo dkms install ...).
SUDO=()
[ "$(id -u)" -eq 0 ] || SUDO=(sudo)
DK=(--dkmstree "$W/dkms" --sourcetree "$W/src" --installtree "$W/mods" --no-depmod -k "$K")
if [ "$(cat "$W/.key" 2>/dev/null)" != "$key" ]; then
	"${SUDO[@]}" rm -rf "$W/src" "$W/dkms" "$W/mods" "$W/modroot" "$W/ours" "$W/.key"
	mkdir -p "$W/src" "$W/dkms" "$W/mods/$K"
	git -C "$ORCM_REPO" archive --prefix=openrdma-cm-0.1/ "$rev" | tar -C "$W/src" -x
	log "dkms install $PV -k $K (log: $W/dkms.log)"
	t0=$(date +%s)
	# One dkms at a time: make check may run both kernels' steps at once,
	# and the first dkms to sign creates /var/lib/dkms/mok.key.
	if flock "$ORCM_CACHE/debian-vm/dkms.lock" "${SUDO[@]}" dkms install "$PV" "${DK[@]}" \
		>"$W/dkms.log" 2>&1; then
		log "dkms built and installed in $(($(date +%s) - t0)) s"
		echo "$key" >"$W/.key.dkms"
	else
		rm -f "$W/.key.dkms"
	fi
fi
if [ "$(cat "$W/.key.dkms" 2>/dev/null)" = "$key" ]; then
	pass dkms:install
else
	fail dkms:install "dkms install failed: $(grep -m1 -iE 'error' "$W/dkms.log" || tail -n 1 "$W/dkms.log")"
	sed 's/^/  [dkms] /' "$W/dkms.log" | tail -n 30
	summary
	exit 1
fi

# What make compiled (dkms's make.log) and what dkms installed, against the
# BUILT_MODULE_NAME list of dkms.conf.
want=$(sed -n 's/^BUILT_MODULE_NAME\[[0-9]*\]="\(.*\)"/\1/p' "$ORCM_REPO/dkms.conf" | sort | tr '\n' ' ')
built=$(find "$W/dkms" -path '*/log/make.log' -exec sed -n 's|^ *LD \[M\] *.*/\([^/]*\)\.ko$|\1|p' {} + | sort | tr '\n' ' ')
installed=$(find "$W/mods/$K/updates/dkms" -name '*.ko*' -printf '%f\n' | sed 's/\.ko.*//' | sort | tr '\n' ' ')
if [ "$built" = "$want" ] && [ "$installed" = "$want" ]; then
	pass dkms:shipped-only
else
	fail dkms:shipped-only "dkms.conf ships: $want; make built: $built; installed: $installed"
fi

MOK=/var/lib/dkms/mok.pub
serial=$(openssl x509 -inform DER -in "$MOK" -noout -serial 2>/dev/null | sed 's/^serial=//' | tr -d ':' | tr 'a-f' 'A-F')
bad=''
for f in "$W/mods/$K"/updates/dkms/*.ko*; do
	s=$(modinfo -F sig_key "$f" | tr -d ':' | tr 'a-f' 'A-F')
	[ -n "$s" ] && [ "$s" = "$serial" ] || bad="$bad $(basename "$f")(sig_key '$s')"
done
if [ -z "$serial" ]; then
	fail dkms:signed "no readable $MOK"
elif [ -n "$bad" ]; then
	fail dkms:signed "not signed by $MOK (serial $serial):$bad"
else
	pass dkms:signed
fi

# unko FILE: a module as it is, uncompressed (DKMS compresses as the kernel's
# config says: xz for 6.12, not at all for 6.1).
unko() {
	case "$1" in
	*.xz) xz -dc "$1" ;;
	*.zst) zstd -dcq "$1" ;;
	*.gz) gzip -dc "$1" ;;
	*) cat "$1" ;;
	esac
}

# The module tree the guest binds over /lib/modules/$K, and our modules
# uncompressed where the e2e helpers look for them ($ORCM_OURS_DIR/<m>/<m>.ko).
if [ "$(cat "$W/.key" 2>/dev/null)" != "$key" ]; then
	R=$W/modroot/lib/modules/$K
	rm -rf "$W/modroot" "$W/ours"
	mkdir -p "$R"
	ln -s "/lib/modules/$K/kernel" "$R/kernel"
	cp "/lib/modules/$K"/modules.{order,builtin,builtin.modinfo} "$R/"
	cp -r "$W/mods/$K/updates" "$R/"
	log "depmod over Debian's kernel/ and our updates/dkms/"
	depmod -b "$W/modroot" "$K"
	for m in "${OURS[@]}"; do
		mkdir -p "$W/ours/$m"
		unko "$R/updates/dkms/$m.ko"* >"$W/ours/$m/$m.ko"
	done
	echo "$key" >"$W/.key"
fi
# Where parity.sh (as the UML VM's e2e scripts) looks for our drivers.
for m in softrnic softib; do
	mkdir -p "$W/ours/drivers/$m"
	ln -f "$W/ours/$m/$m.ko" "$W/ours/drivers/$m/$m.ko"
done
R=$W/modroot/lib/modules/$K
srcversions=''
for m in "${OURS[@]}"; do
	srcversions="$srcversions $m=$(modinfo -F srcversion "$W/dkms/openrdma-cm/0.1/$K/x86_64/module/$m.ko"*)"
done
# Every Debian module that imports from the modules we replace.
importers=$(awk -F: '$1 !~ /^updates\// && $2 ~ /updates\/dkms\/(rdma_cm|iw_cm|ib_cm)\.ko/ { print $1 }' "$R/modules.dep" |
	sed 's|.*/||; s|\.ko.*||' | sort | tr '\n' ' ')

# ---- 1b. what the parity scenarios need beside our modules ----------------------
# cm_parity.ko and siw.ko for this kernel (test modules, on the host: never
# DKMS), cmprobe (build/progs), and the in-tree CM's module tree: Debian's
# kernel/ alone, depmod'ed, so that modprobe -d there loads the in-tree
# rdma_cm, iw_cm and ib_cm (the guest's /lib/modules prefers updates/dkms).
parity_env=''
if [ "$parity" = 1 ]; then
	perr=''
	pko=$("$ORCM_REPO/tools/build-modules.sh" "$target-parity") || perr="cm_parity.ko does not build for $K"
	[ -n "$perr" ] || siw=$("$ORCM_REPO/tools/build-siw-pristine.sh" "$K") || perr="siw.ko does not build for $K"
	[ -n "$perr" ] || make -s -C "$ORCM_REPO" build/progs/cmprobe >&2 ||
		perr="cmprobe does not build (make progs; librdmacm-dev, libibverbs-dev?)"
	SR=$W/stockroot/lib/modules/$K
	if [ -z "$perr" ] && [ ! -f "$SR/modules.dep" ]; then
		rm -rf "$W/stockroot"
		mkdir -p "$SR"
		ln -s "/lib/modules/$K/kernel" "$SR/kernel"
		cp "/lib/modules/$K"/modules.{order,builtin,builtin.modinfo} "$SR/"
		depmod -b "$W/stockroot" "$K" || perr="depmod of the in-tree module tree failed"
	fi
	if [ -n "$perr" ]; then
		fail parity "$perr"
	else
		parity_env="DVM_PARITY_KO=$pko/tests/parity/cm_parity.ko
DVM_SIW_KO=$siw
DVM_STOCKROOT=$W/stockroot"
	fi
fi

# ---- 2. the initramfs: busybox, the 9p modules, an init that mounts / -----------
# The modules to mount the host's / over virtio-9p, dependencies first, as
# modprobe resolves them for this kernel (built-in ones are left out: 6.12
# builds virtio_pci in, 6.1 as modules).
initrd_mods=$(modprobe -a -S "$K" --show-depends virtio_pci 9pnet_virtio 9p |
	awk '$1 == "insmod" && !seen[$2]++ { print $2 }' | tr '\n' ' ')
INITRD=$W/initrd.cpio.gz
if [ ! -f "$INITRD" ] || [ "$(cat "$W/.initrd-key" 2>/dev/null)" != "$K $initrd_mods" ]; then
	ir=$(mktemp -d "$W/initrd.XXXXXX")
	mkdir -p "$ir/bin" "$ir/m" "$ir/proc" "$ir/dev" "$ir/newroot"
	cp /bin/busybox "$ir/bin/busybox"
	n=0
	for f in $initrd_mods; do
		n=$((n + 1))
		unko "$f" >"$ir/m/$(printf %02d "$n")-$(basename "${f%%.ko*}").ko"
	done
	cat >"$ir/init" <<-'EOF'
		#!/bin/busybox sh
		/bin/busybox --install -s /bin
		mount -t proc proc /proc
		mount -t devtmpfs devtmpfs /dev
		for m in /m/*.ko; do insmod $m || echo "@@DVM FAIL vm:boot: insmod $m"; done
		mount -t 9p -o trans=virtio,version=9p2000.L,ro,cache=loose,msize=512000 hostroot /newroot ||
			{ echo "@@DVM FAIL vm:boot: cannot mount the host's root"; echo o >/proc/sysrq-trigger; }
		umount /dev /proc
		exec switch_root /newroot /bin/bash "$ORCM_GUEST"
	EOF
	chmod 755 "$ir/init"
	(cd "$ir" && find . | cpio -o -H newc --quiet | gzip -1) >"$INITRD.tmp"
	mv "$INITRD.tmp" "$INITRD"
	rm -rf "$ir"
	echo "$K $initrd_mods" >"$W/.initrd-key"
fi

# ---- 3. boot ---------------------------------------------------------------------
RUN=$(mktemp -d "$W/run.XXXXXX")
trap 'rm -rf "$RUN"' EXIT
cat >"$RUN/env" <<EOF
DVM_KREL=$K
DVM_REPO=$ORCM_REPO
DVM_MODTREE=$R
DVM_OURS_DIR=$W/ours
DVM_SRCVERSIONS='${srcversions# }'
DVM_IMPORTERS='${importers% }'
$parity_env
EOF
expected=()
for m in "${OURS[@]}"; do expected+=("load:$m"); done
for m in $importers; do expected+=("importer:$m"); done
expected+=(rping:softrnic rping:rxe softib:dev)
# The softib subnet under opensm: not on 6.1 (guest.sh reports a skip).
[ "$target" = debian-6.1 ] || expected+=(softib:ipoib-rping)
expected+=(nvme:softrnic)
[ -z "$parity_env" ] || expected+=(parity)
expected+=(unload dmesg:no-splat)

log "booting Debian's $K under qemu (TCG; timeout ${timeout_s}s; console: $LOG)"
# ORCM_VM_LOCK=FILE: run the VM (only the VM, not the DKMS build above)
# under flock FILE, for hosts where VMs take turns; the time is the VM's.
if [ -n "${ORCM_VM_LOCK:-}" ]; then
	exec {lockfd}>>"$ORCM_VM_LOCK"
	flock "$lockfd"
	log "got $ORCM_VM_LOCK"
fi
t0=$(date +%s)
rc=0
# One vCPU: with two, TCG sometimes loses a race with the kernel patching its
# own text at boot (static keys, int3 breakpoints) and the guest dies with
# "Oops: int3" before any module of ours is loaded (seen once in 5 boots).
timeout -k 5 "$timeout_s" qemu-system-x86_64 -accel tcg -cpu max -smp 1 -m 1536 \
	-nographic -monitor none -no-reboot -nic none \
	-kernel "/boot/vmlinuz-$K" -initrd "$INITRD" \
	-virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
	-append "console=ttyS0 panic=-1 loglevel=4 ORCM_ENV=$RUN/env ORCM_GUEST=$ORCM_REPO/tools/debian-vm/guest.sh" \
	</dev/null >"$LOG" 2>&1 || rc=$?
took=$(($(date +%s) - t0))
[ -z "${ORCM_VM_LOCK:-}" ] || exec {lockfd}>&-
log "the VM ran $took s (status $rc)"
tr -d '\r' <"$LOG" | grep -E '^(@@DVM|  \[|## )' | grep -vE '^@@DVM (PASS|FAIL|SKIP)' || true

# ---- 4. judge ----------------------------------------------------------------------
res=$(tr -d '\r' <"$LOG" | sed -n 's/^@@DVM \(PASS\|FAIL\|SKIP\) /\1 /p')
for t in "${expected[@]}"; do
	# A test may report more than once (a later check of it failing): any
	# FAIL line wins. An expected test that only skipped fails: it applies.
	l=$(grep -E "^FAIL $t(:|$)" <<<"$res" | head -n 1 || true)
	[ -n "$l" ] || l=$(grep -E "^PASS $t( |$)" <<<"$res" | head -n 1 || true)
	[ -n "$l" ] || l=$(grep -E "^SKIP $t(:|$)" <<<"$res" | head -n 1 || true)
	case "$l" in
	PASS*) pass "${l#PASS }" ;;
	FAIL*) l=${l#FAIL }; fail "${l%%: *}" "${l#*: }" ;;
	SKIP*) l=${l#SKIP }; fail "$t" "skipped on $K, where it must run: ${l#*: }" ;;
	*) fail "$t" "never reported (VM status $rc after $took s; console: $LOG)" ;;
	esac
done
# The skips the guest reported for what is not expected on this kernel
# (neither a pass nor a failure: make check recaps them).
nskip=0
while IFS= read -r l; do
	n=${l#SKIP } n=${n%%: *}
	[[ " ${expected[*]} " != *" $n "* ]] || continue
	echo "$l"
	nskip=$((nskip + 1))
done < <(grep '^SKIP ' <<<"$res" || true)
if grep -q '^@@DVM DONE' <(tr -d '\r' <"$LOG") && [ "$rc" -eq 0 ]; then
	pass "vm:boot ($K, $took s)"
else
	fail vm:boot "no orderly end (qemu status $rc after $took s; 124: timed out); console: $LOG"
	tr -d '\r' <"$LOG" | tail -n 20 | sed 's/^/  [console] /'
fi
echo "$nskip skipped"
summary
