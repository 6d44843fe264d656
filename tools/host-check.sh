#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# What the test VMs need of the host, checked before any of them boots
# (`make check`'s first step; tools/vm/run.sh runs the XSAVE check before
# every boot, `make demo` too):
#
#   tools/host-check.sh               every check below
#   tools/host-check.sh --xsave KDIR  the XSAVE check only, against the UML
#                                     kernel built in KDIR
#
#   arch     an x86-64 host (the UML kernel is ARCH=um on x86_64)
#   xsave    the host's user XSAVE area fits the UML kernel's FP register
#            buffer (HOST_FP_SIZE): UML restores FP state with
#            PTRACE_SETREGSET, which the host refuses from a smaller buffer,
#            and the VM panics at boot (hosts with AMX: 11008 bytes)
#   ptrace   a child can be traced and its registers read (UML runs every
#            guest process under ptrace: yama's ptrace_scope 3 or a seccomp
#            filter that forbids ptrace stops it)
#   memory   MemAvailable for two VM lanes at once (a UML VM of mem=1G
#            beside qemu's 1536 MiB; ORCM_HOST_MIN_MEM_MB, default 4096)
#   tmpdir   room for the UML VMs' memory files where UML puts them
#            ($TMPDIR, $TMP, $TEMP, else /dev/shm, else /tmp; 2 GiB)
#   disk     room in the cache for a cold UML kernel build (12 GiB; 2 GiB
#            once it is built)
#   cores    counted; one core runs the two lanes one after the other
#   kvm      not needed (the Debian-kernel step runs qemu under TCG): shown
#
# One line a check (PASS/FAIL host:NAME: what was found), then "N passed,
# N failed". Exit status 1 when a check failed.
set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/lib.sh"

pass=0 fail=0
ok() { echo "PASS host:$1: $2"; pass=$((pass + 1)); }
bad() { echo "FAIL host:$1: $2"; fail=$((fail + 1)); }

# The helper for what a shell cannot tell (XSAVE size, ptrace).
HC=$ORCM_REPO/build/progs/host-check
make -s -C "$ORCM_REPO" build/progs/host-check >&2 ||
	die "tools/host-check does not build (g++ missing? make check installs it)"

# check_xsave KERNEL_BYTES [HOST_BYTES]: print the verdict; status 1 when
# the buffer does not fit (ORCM_HOST_XSAVE_BYTES stands for the host's
# measured size, to show the check on a host without AMX).
check_xsave() {
	local out rc=0 msg
	out=$("$HC" xsave "$1" ${2:+"$2"}) || rc=$?
	msg=$(echo "$out" | sed 's/^xsave: //' | paste -sd ';' | sed 's/;\([^ ]\)/; \1/g')
	if [ "$rc" -eq 0 ]; then ok xsave "$msg"; else bad xsave "$msg"; fi
	return "$rc"
}

if [ "${1:-}" = --xsave ]; then
	kb=$(orcm_uml_fp_bytes "${2:?--xsave KDIR}")
	[ -n "$kb" ] || die "no HOST_FP_SIZE in ${2}'s generated user_constants.h"
	check_xsave "$kb" ${ORCM_HOST_XSAVE_BYTES:+"$ORCM_HOST_XSAVE_BYTES"}
	exit
fi

# free_mb DIR: free space of DIR's filesystem in MiB.
free_mb() { df -Pm "$1" 2>/dev/null | awk 'NR == 2 { print $4 }'; }

m=$(uname -m)
if [ "$m" = x86_64 ]; then ok arch "$m"; else bad arch "$m: the UML test kernel is built for x86_64 hosts"; fi

# The buffer of the kernel that is built, else of the one the patches make.
O=$(orcm_uml_dir)
if [ -f "$O/include/generated/user_constants.h" ]; then
	kb=$(orcm_uml_fp_bytes "$O")
else
	kb=$(orcm_uml_fp_bytes)
fi
check_xsave "$kb" ${ORCM_HOST_XSAVE_BYTES:+"$ORCM_HOST_XSAVE_BYTES"} || true

scope=$(cat /proc/sys/kernel/yama/ptrace_scope 2>/dev/null || echo 'no yama')
if out=$("$HC" ptrace); then
	ok ptrace "${out#ptrace: } (yama ptrace_scope: $scope)"
else
	bad ptrace "${out#ptrace: } (yama ptrace_scope: $scope; UML needs 0, 1 or 2 as root)"
fi

want=${ORCM_HOST_MIN_MEM_MB:-4096}
have=$(awk '/^MemAvailable:/ { print int($2 / 1024) }' /proc/meminfo)
if [ "${have:-0}" -ge "$want" ]; then
	ok memory "${have} MiB available (two lanes need about $want)"
else
	bad memory "${have:-?} MiB available, two VM lanes need about $want MiB (ORCM_HOST_MIN_MEM_MB)"
fi

tdir=
for v in TMPDIR TMP TEMP; do
	if [ -n "${!v:-}" ]; then tdir=${!v}; break; fi
done
if [ -z "$tdir" ]; then
	if [ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ]; then tdir=/dev/shm; else tdir=/tmp; fi
fi
t=$(free_mb "$tdir")
if [ "${t:-0}" -ge 2048 ]; then
	ok tmpdir "$tdir: ${t} MiB free for the VMs' memory files"
else
	bad tmpdir "$tdir: ${t:-?} MiB free, the VMs' memory files need 2048 (set TMPDIR elsewhere)"
fi

mkdir -p "$ORCM_CACHE"
need=12288
[ -f "$O/.orcm-build-ok" ] && need=2048
d=$(free_mb "$ORCM_CACHE")
if [ "${d:-0}" -ge "$need" ]; then
	ok disk "$ORCM_CACHE: ${d} MiB free (need $need$([ "$need" = 2048 ] && echo ', kernel built'))"
else
	bad disk "$ORCM_CACHE: ${d:-?} MiB free, need $need MiB"
fi

n=$(nproc)
if [ "$n" -ge 2 ]; then
	ok cores "$n (the two VM lanes run at once)"
else
	ok cores "$n (the two VM lanes run one after the other: slower)"
fi

if [ -w /dev/kvm ]; then k='present (not used)'; else k='absent (not needed: qemu runs under TCG)'; fi
ok kvm "$k"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
