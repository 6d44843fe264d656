# SPDX-License-Identifier: GPL-2.0
# Shared helpers for the openrdma-cm tools. Source it; do not run it.
# shellcheck shell=bash disable=SC2034

ORCM_REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ORCM_CACHE=${ORCM_CACHE:-${XDG_CACHE_HOME:-${HOME:-$(getent passwd "$(id -u)" | cut -d: -f6)}/.cache}/openrdma-cm}
ORCM_JOBS=${ORCM_JOBS:-3}
# The kernels the project targets, as Debian 12 ships them: 6.12 (the UML
# test VM's source, and the headers DKMS builds against) and Debian 12's
# default 6.1 (ORCM_HDR_KREL_6_1): both supported, both checked by make check.
ORCM_SRC_PKG=linux-source-6.12
ORCM_SRC_TARBALL=/usr/src/linux-source-6.12.tar.xz
ORCM_HDR_KREL=${ORCM_HDR_KREL:-6.12.117+deb12-amd64}
ORCM_HDR_KREL_6_1=${ORCM_HDR_KREL_6_1:-6.1.0-57-amd64}
ORCM_HDR_DIR=/usr/src/linux-headers-$ORCM_HDR_KREL
# orcm_target_krel TARGET: the Debian kernel release of a build target of
# tools/build-modules.sh (debian: 6.12, debian-6.1: 6.1).
orcm_target_krel() {
	case "$1" in
	debian) echo "$ORCM_HDR_KREL" ;;
	debian-6.1) echo "$ORCM_HDR_KREL_6_1" ;;
	*) die "unknown Debian target '$1' (debian, debian-6.1)" ;;
	esac
}
ORCM_FRAGMENT=$ORCM_REPO/tools/uml/config.fragment
# ORCM_UML_FLAVOUR=bench: the benchmark's kernel, the same fragment without its
# debugging sections (see orcm_bench_fragment); the default, test, is the
# debug kernel of `make check`.
if [ "${ORCM_UML_FLAVOUR:-test}" = bench ]; then
	ORCM_FRAGMENT=$ORCM_CACHE/uml/bench.fragment
fi
export ORCM_REPO ORCM_CACHE
export LC_ALL=C

log() { printf '[%s] %s\n' "${0##*/}" "$*" >&2; }
die() { printf '[%s] ERROR: %s\n' "${0##*/}" "$*" >&2; exit 1; }

# Debian packages the whole suite needs (build the UML kernel, build our modules
# against the Debian headers, run rdma-core tools inside the VM).
ORCM_PKGS=(
	"$ORCM_SRC_PKG" "linux-headers-$ORCM_HDR_KREL" "linux-headers-$ORCM_HDR_KREL_6_1"
	build-essential bc flex bison libelf-dev libssl-dev xz-utils kmod patch
	rdma-core rdmacm-utils ibverbs-utils ibverbs-providers perftest iproute2 iputils-ping procps
)
# tests/progs (make progs): the test programs that the e2e scripts run.
ORCM_PKGS+=(librdmacm-dev libibverbs-dev)
# tools/bench/test_profile.py (make check, step bench-tools).
ORCM_PKGS+=(python3)
# tests/e2e/ulp-*.sh (kernel ULPs), run inside the VM from the host's /: nvme-cli,
# open-iscsi (iscsid, iscsiadm), the NFS server and client tools (exportfs,
# rpc.mountd, mount.nfs, rpcbind, rpcinfo), mkfs.ext4 and e2fsck.
ORCM_PKGS+=(nvme-cli open-iscsi nfs-kernel-server nfs-common rpcbind e2fsprogs)
# tests/e2e/pyverbs-rdmacm.sh: rdma-core's own rdma_cm test suite (pyverbs).
ORCM_PKGS+=(python3-pyverbs)
# iWARP host-stack tests: tshark decodes our MPA/DDP/RDMAP frames, nft blocks a
# port; the adversarial MPA peer (tools/mpa-peer) is C++20 with GoogleTest.
ORCM_PKGS+=(tshark nftables g++ libgtest-dev)
# tools/layout-check.sh: pahole reads the BTF of each Debian kernel's
# ib_core.ko over its vmlinux, unpacked from the xz (6.1) or zstd (6.12)
# bzImage (their linux-image packages it installs itself).
ORCM_PKGS+=(pahole zstd)
# softib's subnet (tests/e2e/softib-*.sh): the stock subnet manager and the
# InfiniBand diagnostics; SRP's discovery (srp_daemon, tests/e2e/ulp-srp-softib.sh).
ORCM_PKGS+=(opensm infiniband-diags srptools)
# SMB Direct (tests/e2e/ulp-smb*.sh): mount.cifs, and the libraries of
# ksmbd's user-space tools. ksmbd-tools itself is not installed on the host
# (it conflicts with samba, and its service would start there):
# orcm_ksmbd_tools unpacks it into the cache for the VM.
ORCM_PKGS+=(cifs-utils libglib2.0-0 libnl-3-200 libnl-genl-3-200)

# ensure_pkgs PKG...: install the packages that are missing. A warm machine never
# touches apt: dpkg-query answers locally.
ensure_pkgs() {
	local p missing=()
	for p in "$@"; do
		if [ "$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null)" != installed ]; then
			missing+=("$p")
		fi
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	log "installing missing packages: ${missing[*]}"
	local sudo=()
	[ "$(id -u)" -eq 0 ] || sudo=(sudo)
	export DEBIAN_FRONTEND=noninteractive
	if [ -z "${ORCM_APT_UPDATED:-}" ]; then
		"${sudo[@]}" apt-get update -q -o DPkg::Lock::Timeout=600 >&2 ||
			die "apt-get update failed"
		ORCM_APT_UPDATED=1
		export ORCM_APT_UPDATED
	fi
	# The two lanes of make check may both install: wait for dpkg's lock.
	"${sudo[@]}" apt-get install -y -q --no-install-recommends \
		-o DPkg::Lock::Timeout=600 "${missing[@]}" >&2 ||
		die "apt-get install ${missing[*]} failed"
}

# orcm_ksmbd_tools: Debian's ksmbd-tools unpacked (not installed) under the
# cache, for the UML VM, which sees the host's files; prints its directory
# (its usr/sbin/ksmbd.* are what the package installs).
orcm_ksmbd_tools() {
	local ver dir tmp
	ver=$(apt-cache policy ksmbd-tools 2>/dev/null | sed -n 's/^ *Candidate: *//p')
	[ -n "$ver" ] && [ "$ver" != "(none)" ] || {
		log "no ksmbd-tools package in apt's lists"
		return 1
	}
	dir=$ORCM_CACHE/ksmbd-tools/$ver
	if [ ! -x "$dir/usr/sbin/ksmbd.mountd" ]; then
		mkdir -p "$ORCM_CACHE/ksmbd-tools"
		tmp=$(mktemp -d "$ORCM_CACHE/ksmbd-tools/.new.XXXXXX")
		if ! (cd "$tmp" && apt-get download -q "ksmbd-tools=$ver" >&2 &&
			dpkg-deb -x ./ksmbd-tools_*.deb root); then
			rm -rf "$tmp"
			log "cannot download or unpack ksmbd-tools $ver"
			return 1
		fi
		# Two lanes may unpack at once: the first rename wins.
		mv -T "$tmp/root" "$dir" 2>/dev/null || true
		rm -rf "$tmp"
	fi
	echo "$dir"
}

# orcm_image_pkg KREL: the package of Debian's kernel image KREL: the one
# installed, else linux-image-KREL where the archive has it, else its
# -unsigned build (Debian 12's security updates of 6.1 ship only that).
orcm_image_pkg() {
	local p
	for p in "linux-image-$1" "linux-image-$1-unsigned"; do
		if [ "$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null)" = installed ]; then
			echo "$p"
			return
		fi
	done
	if apt-cache policy "linux-image-$1" 2>/dev/null | grep -q 'Candidate: [0-9]'; then
		echo "linux-image-$1"
	else
		echo "linux-image-$1-unsigned"
	fi
}

# orcm_tally: a host tool's tests, one line each (pass NAME, fail NAME WHY),
# then summary: "N passed, N failed", false when anything failed.
# shellcheck disable=SC2317 # the tool calls them, not orcm_tally
orcm_tally() {
	npass=0 nfail=0
	pass() { echo "PASS $1"; npass=$((npass + 1)); }
	fail() { echo "FAIL $1: $2"; nfail=$((nfail + 1)); }
	summary() {
		echo "$npass passed, $nfail failed"
		[ "$nfail" -eq 0 ]
	}
}

# orcm_flag VAR: whether the on/off switch VAR (ORCM_CHECK_STOCK, ...) is on:
# unset or 1 is on, 0 is off; any other value stops the caller, so that a
# "yes" or "true" never turns a step off unseen.
orcm_flag() {
	case "${!1:-1}" in
	1) return 0 ;;
	0) return 1 ;;
	*) die "$1='${!1}': 0 (off) or 1 (on, the default) only" ;;
	esac
}

# The UML build directory (O=) is keyed by the source package version and the
# sha of the config fragment and of the test VM's kernel patches
# (tools/uml/patches), so a change of either gets a fresh build.
orcm_src_version() {
	dpkg-query -W -f='${Version}' "$ORCM_SRC_PKG" 2>/dev/null | tr -c 'A-Za-z0-9.+\n-' '_'
}
orcm_uml_dir() {
	local sha
	# ORCM_UML_DIR: use this (already built) UML build directory instead.
	if [ -n "${ORCM_UML_DIR:-}" ]; then
		echo "$ORCM_UML_DIR"
		return
	fi
	sha=$(cat "$ORCM_FRAGMENT" "$ORCM_REPO"/tools/uml/patches/*.patch 2>/dev/null | sha256sum | cut -c1-12)
	printf '%s/uml/%s-%s\n' "$ORCM_CACHE" "$(orcm_src_version)" "$sha"
}
# orcm_uml_fp_bytes [KDIR]: the UML kernel's FP register buffer in bytes
# (HOST_FP_SIZE): of the kernel built in KDIR (its generated
# user_constants.h), else the size tools/uml/patches set.
orcm_uml_fp_bytes() {
	local n
	if [ -n "${1:-}" ]; then
		n=$(sed -n 's/^#define HOST_FP_SIZE \([0-9][0-9]*\).*/\1/p' \
			"$1/include/generated/user_constants.h" 2>/dev/null)
		[ -z "$n" ] || echo $((n * 8))
		return
	fi
	sed -n 's/^+[[:space:]]*DEFINE_LONGS(HOST_FP_SIZE, \([0-9][0-9]*\));/\1/p' \
		"$ORCM_REPO"/tools/uml/patches/*.patch | tail -n 1
}
# orcm_bench_fragment: write $ORCM_CACHE/uml/bench.fragment, the test
# fragment with its debugging sections (the lines from "# Debugging:" to the
# next section that is neither debugging nor KASAN) replaced by explicit
# "is not set" lines: no lockdep, KASAN, kmemleak, list or object debugging.
# debugfs stays (cm_acct.ko and cm_bench.ko live there).
orcm_bench_fragment() {
	local out=$ORCM_CACHE/uml/bench.fragment
	mkdir -p "$ORCM_CACHE/uml"
	{
		awk '
			/^# Debugging:/ || /^# KASAN on UML/ { skip = 1 }
			/^# Kernel ULPs/ { skip = 0 }
			!skip
		' "$ORCM_REPO/tools/uml/config.fragment"
		cat <<-'EOF'
			# The benchmark kernel (ORCM_UML_FLAVOUR=bench): no debugging.
			CONFIG_DEBUG_KERNEL=y
			CONFIG_DEBUG_FS=y
			# CONFIG_PROVE_LOCKING is not set
			# CONFIG_DEBUG_ATOMIC_SLEEP is not set
			# CONFIG_DEBUG_KMEMLEAK is not set
			# CONFIG_DEBUG_LIST is not set
			# CONFIG_DEBUG_OBJECTS is not set
			# CONFIG_KASAN is not set
			# Host signal frames hold a 12 KiB FP buffer
			# (tools/uml/patches/0005): 64 KiB stacks.
			CONFIG_KERNEL_STACK_ORDER=4
		EOF
	} >"$out.tmp"
	mv "$out.tmp" "$out"
	echo "$out"
}
# Per-checkout directories, so that two clones can run their suites at once.
orcm_repo_key() { printf '%s' "$ORCM_REPO" | sha256sum | cut -c1-8; }
orcm_ours_dir() { printf '%s/ours/%s/%s\n' "$ORCM_CACHE" "$(orcm_repo_key)" "$1"; }

orcm_uml_krel() { cat "$1/include/config/kernel.release"; }

# tree_tar FILE: the repository's sources (no .git, no build output) as a tar
# file. A module build works on a fresh copy of them (copy_tree), so that a
# build for one kernel never leaves objects that another build (UML, Debian
# headers, a developer's in-tree build) would pick up. Only what Kbuild reads
# (tests/bench too: e2e tests load null_rnic.ko and cm_bench.ko):
# editing a test script, a tool or the documentation must not rebuild (and
# so remove, under a running VM) the modules. Every mtime is 0 (the key of a
# build is the tar's sha: a new file beside README.md changes the mtime of
# the top directory, not what Kbuild reads; each build extracts a fresh copy).
tree_tar() {
	tar -C "$ORCM_REPO" -cf "$1" --sort=name --mtime=@0 \
		--exclude=./.git --exclude=./build --exclude=./.compat \
		--exclude='*.o' --exclude='*.ko' --exclude='*.mod' --exclude='*.mod.c' \
		--exclude='.*.cmd' --exclude='*.symtypes' --exclude=modules.order \
		--exclude=Module.symvers --exclude='*.d' --exclude=.tmp_versions \
		--exclude=./tools --exclude=./tests/e2e --exclude=./tests/progs \
		--exclude=./docs --exclude='*.md' .
}

# copy_tree DEST: a fresh copy of those sources in DEST.
copy_tree() {
	local dest=$1
	rm -rf "$dest"
	mkdir -p "$dest"
	tree_tar - | tar -C "$dest" -xf -
}

# Summing results: every tool prints `N passed, N failed` as its last line.
# parse_summary FILE -> "P F" (or nothing when the line is missing).
parse_summary() {
	tail -n 1 "$1" 2>/dev/null | sed -n 's/^\([0-9][0-9]*\) passed, \([0-9][0-9]*\) failed$/\1 \2/p'
}
