#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Two UML VMs joined by an Ethernet link, for interoperability tests: one with
# the stock in-tree stack, one with ours (they cannot share a kernel).
#
#   tools/vm/interop.sh [--a STACK] [--b STACK] [--e2e 'GLOBS'] [--quiet]
#
# The link is a socketpair on this machine (AF_UNIX, SOCK_SEQPACKET), handed to
# each VM as vec0 through UML's vector "fd" transport: no packet ever leaves
# this machine, not even to loopback. VM a (default: stock) and VM b (default:
# ours) each run tools/vm/run.sh with the tests/interop scripts, with
# ORCM_ROLE=a or b, and meet in a shared host directory
# (tests/interop/lib.bash: barriers). Prints both VMs' test lines, tagged
# with the VM, and "N passed, N failed".
set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/../lib.sh"

stack_a=stock stack_b=ours globs='*' quiet=()
while [ $# -gt 0 ]; do
	case "$1" in
	--a) stack_a=$2; shift ;;
	--b) stack_b=$2; shift ;;
	--e2e) globs=$2; shift ;;
	--quiet) quiet=(--quiet) ;;
	*) die "unknown option $1 (see the head of $0)" ;;
	esac
	shift
done

# Build once, before two run.sh race for the same build directory.
"$ORCM_REPO/tools/uml/build.sh" >/dev/null
"$ORCM_REPO/tools/build-modules.sh" uml >/dev/null
make -s -C "$ORCM_REPO" progs >&2

mkdir -p "$ORCM_CACHE/runs" "$ORCM_REPO/build/logs"
shared=$(mktemp -d "$ORCM_CACHE/runs/interop-shared.XXXXXX")
trap 'rm -rf "$shared"' EXIT
chmod 777 "$shared"

rm -f "$ORCM_REPO"/build/logs/vm-*-interop-?.results
rc=0
python3 - "$ORCM_REPO" "$shared" "$globs" "$stack_a" "$stack_b" "${quiet[@]}" <<'PY' || rc=$?
import os
import socket
import subprocess
import sys

repo, shared, globs, stack_a, stack_b = sys.argv[1:6]
extra = sys.argv[6:]
# SEQPACKET keeps frame boundaries without the datagram queue limit of 10
# (net.unix.max_dgram_qlen): a full link makes UML's vector driver sleep in
# atomic context (its transmit path re-arms the fd's SIGIO with a mutex).
ends = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
for e in ends:
    e.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4 << 20)
    e.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    e.setblocking(False)    # UML polls its fds (SIGIO) and expects EAGAIN
procs = []
for i, (role, stack) in enumerate((("a", stack_a), ("b", stack_b))):
    fd = ends[i].fileno()
    env = dict(os.environ, ORCM_ROLE=role, ORCM_SHARED=shared,
               ORCM_LOG_TAG="interop-" + role,
               ORCM_VM_ARGS="vec0:transport=fd,fd=%d" % fd)
    cmd = [repo + "/tools/vm/run.sh", "--stack", stack, "--no-kunit",
           "--e2e-dir", "tests/interop", "--e2e", globs] + extra
    out = open(os.path.join(repo, "build/logs/interop-%s.out" % role), "w")
    procs.append(subprocess.Popen(cmd, env=env, pass_fds=(fd,), stdout=out,
                                  stderr=subprocess.STDOUT))
# Both ends stay open here until both VMs are gone: a VM that stops first
# must not make the other's link fail (UML's vector driver handles a dead
# peer badly: it re-arms SIGIO with a mutex in atomic context).
rc = max(p.wait() for p in procs)
for e in ends:
    e.close()
sys.exit(rc)
PY

npass=0 nfail=0 nskip=0
for role in a b; do
	stack=$([ $role = a ] && echo "$stack_a" || echo "$stack_b")
	res=$ORCM_REPO/build/logs/vm-$stack-interop-$role.results
	if [ ! -f "$res" ]; then
		echo "FAIL interop-$role:vm: no results (see build/logs/interop-$role.out)"
		nfail=$((nfail + 1))
		continue
	fi
	while IFS= read -r l; do
		case "$l" in
		PASS\ *) echo "PASS interop-$role($stack):${l#PASS }"; npass=$((npass + 1)) ;;
		FAIL\ *) echo "FAIL interop-$role($stack):${l#FAIL }"; nfail=$((nfail + 1)) ;;
		SKIP\ *) echo "SKIP interop-$role($stack):${l#SKIP }"; nskip=$((nskip + 1)) ;;
		"    | "*) echo "$l" ;;
		esac
	done <"$res"
done
echo "$nskip skipped"
echo "$npass passed, $nfail failed"
[ "$nfail" -eq 0 ] && [ "$rc" -eq 0 ]
