#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The set-up paths as a newcomer's machine runs them (`make check`, step
# newcomer): every tool that another one captures (`O=$(tools/uml/build.sh)`)
# must print its progress on stderr and only its value on stdout, also when it
# installs packages. Issue 26: apt-get's progress on stdout became the UML
# directory of `make demo` after a cold kernel build.
#
#   tools/newcomer-check.sh
#
# Runs each set-up path under `env -i` (no ORCM_UML_DIR, no ORCM_APT_UPDATED,
# nothing of the caller's environment but HOME and ORCM_CACHE, so the warm
# caches are found) with a fake apt-get, dpkg-query and sudo first on PATH:
# dpkg-query says every package is missing (and prints noise on stdout),
# apt-get records its calls and prints noise on stdout, installing nothing
# (the packages are really there: `make check` installed them first).
# Versions (the UML cache key) still come from the real dpkg-query.
#
# Tests, one line each, then "N passed, N failed":
#   setup:ensure_pkgs            $(ensure_pkgs PKG) is empty, apt-get install ran
#   setup:uml-build              $(tools/uml/build.sh) is the UML build directory
#   setup:uml-print              $(tools/uml/build.sh --print) is the same
#   setup:build-modules-uml      $(tools/build-modules.sh uml) is a directory with
#                                our modules and the test modules
#   setup:build-modules-debian   $(tools/build-modules.sh debian) is a directory
#                                with our modules and no test module
#   setup:bench-fragment         $(orcm_bench_fragment) is the fragment's path
#   newcomer:make-demo           `make demo` in that environment passes (one UML
#                                boot; ORCM_NEWCOMER_DEMO=0 skips it)
# Needs the UML kernel built (tools/uml/build.sh): it never starts a kernel
# build; without one the UML tests fail, saying so. Seconds, plus the demo's
# minute.
set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/lib.sh"

orcm_tally

FAKE=$(mktemp -d "${TMPDIR:-/tmp}/orcm-newcomer.XXXXXX")
trap 'rm -rf "$FAKE"' EXIT
mkdir "$FAKE/bin"
cat >"$FAKE/bin/apt-get" <<EOF
#!/bin/sh
echo "apt-get \$*" >>"$FAKE/calls"
echo "Reading package lists... Done (fake apt-get, noise on stdout)"
echo "Setting up fake-package (1.0) ..."
EOF
cat >"$FAKE/bin/dpkg-query" <<EOF
#!/bin/sh
echo "dpkg-query \$*" >>"$FAKE/calls"
case "\$*" in
*Status*) echo "fake dpkg-query: no such package" ;;
*) exec $(command -v dpkg-query) "\$@" ;;
esac
EOF
cat >"$FAKE/bin/sudo" <<'EOF'
#!/bin/sh
exec "$@"
EOF
chmod 755 "$FAKE/bin"/*

# newcomer CMD...: CMD in the clean environment; its stdout on stdout, its
# stderr in $FAKE/stderr.
newcomer() {
	env -i HOME="${HOME:-$(getent passwd "$(id -u)" | cut -d: -f6)}" ORCM_CACHE="$ORCM_CACHE" ${ORCM_JOBS:+ORCM_JOBS=$ORCM_JOBS} \
		PATH="$FAKE/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
		"$@" 2>"$FAKE/stderr"
}
# apt_ran NAME: the fake apt-get was asked to install, since the last reset.
apt_ran() { grep -q '^apt-get install' "$FAKE/calls" 2>/dev/null; }
reset_calls() { : >"$FAKE/calls"; }
# one_dir VALUE: VALUE is one line naming an existing directory by absolute path.
one_dir() { [ "$(grep -c . <<<"$1")" -eq 1 ] && [[ $1 == /* ]] && [ -d "$1" ]; }
shown() { printf '%q' "$(head -c 200 <<<"$1")"; }
# captured NAME APT CMD...: CMD as a newcomer runs it, its stdout in VALUE. Fails
# NAME (returns 1) unless CMD exits 0, VALUE is one line naming a directory and,
# with APT=1, the fake apt-get was asked to install.
captured() {
	local name=$1 apt=$2 rc=0
	shift 2
	reset_calls
	VALUE=$(newcomer "$@") || rc=$?
	if [ "$rc" -ne 0 ]; then
		fail "$name" "exit status $rc: $(tail -n 2 "$FAKE/stderr")"
	elif ! one_dir "$VALUE"; then
		fail "$name" "captured $(shown "$VALUE")"
	elif [ "$apt" = 1 ] && ! apt_ran; then
		fail "$name" "never called apt-get install (ensure_pkgs skipped?)"
	else
		return 0
	fi
	return 1
}

# 1. ensure_pkgs itself.
reset_calls
rc=0
out=$(newcomer bash -c ". '$ORCM_REPO/tools/lib.sh'; ensure_pkgs nvme-cli") || rc=$?
if [ "$rc" -ne 0 ]; then
	fail setup:ensure_pkgs "exit status $rc: $(tail -n 2 "$FAKE/stderr")"
elif [ -n "$out" ]; then
	fail setup:ensure_pkgs "printed on stdout: $(shown "$out")"
elif ! apt_ran; then
	fail setup:ensure_pkgs "never called apt-get install (a package that looks missing)"
else
	pass setup:ensure_pkgs
fi

# 2. The UML kernel, warm cache, ORCM_UML_DIR unset: what tools/vm/run.sh,
#    tools/bench.sh and `make demo` capture.
want=$("$ORCM_REPO/tools/uml/build.sh" --print)
if [ ! -f "$want/.orcm-build-ok" ]; then
	for t in setup:uml-build setup:uml-print setup:build-modules-uml; do
		fail "$t" "no UML kernel in $want (run tools/uml/build.sh first; this test never builds one)"
	done
else
	if captured setup:uml-build 1 "$ORCM_REPO/tools/uml/build.sh"; then
		if [ "$VALUE" = "$want" ]; then pass setup:uml-build; else fail setup:uml-build "captured $VALUE, want $want"; fi
	fi
	if captured setup:uml-print 0 "$ORCM_REPO/tools/uml/build.sh" --print; then
		if [ "$VALUE" = "$want" ]; then pass setup:uml-print; else fail setup:uml-print "captured $VALUE, want $want"; fi
	fi
	if captured setup:build-modules-uml 0 "$ORCM_REPO/tools/build-modules.sh" uml; then
		if [ -f "$VALUE/rdma_cm/rdma_cm.ko" ] && compgen -G "$VALUE/tests/kunit/*_kunit.ko" >/dev/null; then
			pass setup:build-modules-uml
		else
			fail setup:build-modules-uml "$VALUE has no rdma_cm.ko or no KUnit modules (ORCM_TESTS=1?)"
		fi
	fi
fi

# 3. Our modules against Debian's headers (tools/crc-check.sh captures it).
if captured setup:build-modules-debian 1 "$ORCM_REPO/tools/build-modules.sh" debian; then
	tests=$(find "$VALUE/tests" -name '*.ko' 2>/dev/null | head -n 3)
	if [ ! -f "$VALUE/rdma_cm/rdma_cm.ko" ]; then
		fail setup:build-modules-debian "$VALUE has no rdma_cm/rdma_cm.ko"
	elif [ -n "$tests" ]; then
		fail setup:build-modules-debian "test modules built without ORCM_TESTS=1: $(tr '\n' ' ' <<<"$tests")"
	else
		pass setup:build-modules-debian
	fi
fi

# 3b. The README's first command itself, as the newcomer types it: `make demo`
#     (tools/vm/run.sh captures tools/uml/build.sh and build-modules.sh; issue
#     26's failure was there). One UML boot, about a minute. ORCM_NEWCOMER_DEMO=0
#     skips it.
nskip=0
if ! orcm_flag ORCM_NEWCOMER_DEMO; then
	echo "SKIP newcomer:make-demo: turned off by ORCM_NEWCOMER_DEMO=0"
	nskip=1
else
	if [ ! -f "$want/.orcm-build-ok" ]; then
		fail newcomer:make-demo "no UML kernel in $want (this test never builds one)"
	else
		reset_calls
		rc=0
		newcomer make -s -C "$ORCM_REPO" demo >"$FAKE/demo.out" || rc=$?
		last=$(tail -n 1 "$FAKE/demo.out")
		if [ "$rc" -eq 0 ] && [[ $last =~ ^[1-9][0-9]*\ passed,\ 0\ failed$ ]] && apt_ran; then
			pass newcomer:make-demo
		else
			fail newcomer:make-demo "exit status $rc, last line '$last', apt-get install $(apt_ran && echo ran || echo 'never ran'); $(grep -h -m1 -E 'ERROR|FAIL|too long|No such' "$FAKE/demo.out" "$FAKE/stderr" || tail -n 1 "$FAKE/stderr")"
		fi
	fi
fi

# 4. The benchmark's fragment (tools/bench.sh).
rc=0
F=$(newcomer bash -c ". '$ORCM_REPO/tools/lib.sh'; orcm_bench_fragment") || rc=$?
if [ "$rc" -eq 0 ] && [ "$F" = "$ORCM_CACHE/uml/bench.fragment" ] && [ -s "$F" ]; then
	pass setup:bench-fragment
else
	fail setup:bench-fragment "exit status $rc, captured $(shown "$F")"
fi

echo "$nskip skipped"
summary
