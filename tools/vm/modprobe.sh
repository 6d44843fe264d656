#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# /proc/sys/kernel/modprobe inside the UML VM: the kernel's own module requests
# (request_module) are served from the UML modroot. With the `ours` stack, the
# in-tree connection managers are never loaded behind our back.
set -u
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
# shellcheck source=/dev/null
. /run/orcm/env
name=${*: -1}
if [ "$ORCM_STACK" = ours ]; then
	case "$name" in
	rdma_cm | iw_cm | ib_cm | rdma_ucm)
		echo "@@ORCM MODPROBE-REFUSED $*" >/dev/console
		exit 1
		;;
	esac
fi
echo "@@ORCM MODPROBE $*" >/dev/console
exec modprobe -d "$ORCM_MODROOT" -S "$ORCM_KREL" "$@"
