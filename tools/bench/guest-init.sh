#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# PID 1 of the benchmark VM (started by tools/bench.sh; never run it on a host).
#
# The root filesystem is the host's / through hostfs, read-only. Settings come
# from the file named by ORCM_ENV (a kernel command-line variable). This init
# only prepares the machine and runs the guest driver ($ORCM_BENCH_GUEST,
# default tools/bench/guest.sh); everything the host needs is printed on the
# console as "@@BENCH " lines. PID 1 must never exit, so no `set -e` here.
set -u
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/tmp LANG=C LC_ALL=C

mark() { echo "@@BENCH mark $* t=$(cut -d' ' -f1 /proc/uptime 2>/dev/null)"; }

poweroff_vm() {
	mark "DONE"
	sync
	echo o >/proc/sysrq-trigger
	sleep 10
	exit 1
}

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mountpoint -q /dev || mount -t devtmpfs devtmpfs /dev
mount -t debugfs debugfs /sys/kernel/debug
mount -t tmpfs -o mode=755 tmpfs /run
mkdir -p /run/netns /run/orcm /run/orcm/debug
# `ip netns exec` mounts a fresh /sys: the bench driver's debugfs files are
# reached through this second mount, which every namespace sees.
mount -t debugfs debugfs /run/orcm/debug
mark "BOOT $(uname -r)"

[ -r "${ORCM_ENV:-}" ] || { mark "ERROR no ORCM_ENV file: '${ORCM_ENV:-}'"; poweroff_vm; }
cp "$ORCM_ENV" /run/orcm/env
set -a
# shellcheck source=/dev/null
. /run/orcm/env
set +a

# Scratch space, not over a path that holds the modules or the repository.
case "$ORCM_REPO/:$ORCM_MODROOT/:$ORCM_BENCH_DIR/" in
/tmp/* | *:/tmp/*)
	mkdir -p /run/orcm/tmp
	mount -t tmpfs tmpfs /run/orcm/tmp
	export TMPDIR=/run/orcm/tmp
	;;
*) mount -t tmpfs tmpfs /tmp ;;
esac
mount -t tmpfs tmpfs /dev/shm 2>/dev/null
ip link set lo up
hostname orcm-bench 2>/dev/null

# The kernel's own module requests come from the UML modroot, except for the
# connection managers: the driver loads the stack under test explicitly.
cat >/run/orcm/modprobe <<EOM
#!/bin/sh
for a; do name=\$a; done
case "\$name" in
rdma_cm | iw_cm | ib_cm | rdma_ucm) echo "@@BENCH mark MODPROBE-REFUSED \$*" >/dev/console; exit 1 ;;
esac
exec modprobe -d "$ORCM_MODROOT" -S "$ORCM_KREL" "\$@"
EOM
chmod 755 /run/orcm/modprobe
echo /run/orcm/modprobe >/proc/sys/kernel/modprobe

mark "GUEST-BEGIN"
(cd "${TMPDIR:-/tmp}" && timeout -k 10 "${ORCM_BENCH_GUEST_TIMEOUT:-1700}" \
	bash "${ORCM_BENCH_GUEST:-$ORCM_REPO/tools/bench/guest.sh}") </dev/null 2>&1
mark "GUEST-END rc=$?"
poweroff_vm
