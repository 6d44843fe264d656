# SPDX-License-Identifier: GPL-2.0
# Which CM modules are loaded: sourced in the test VM by tools/vm/init.sh (at
# load) and by the e2e scripts that swap modules (tests/e2e/parity.sh,
# tests/e2e/ibcm-stock-rdmacm.sh) after every swap. Needs ORCM_MODROOT,
# ORCM_KREL and ORCM_OURS_DIR.
#
#   stack_check MOD=WHO...     WHO: ours, stock or absent
#
# Prints one line per module ("rdma_cm: ours (build id ...)") and a line
# "MISMATCH ..." for each module that is not the one asked for; returns 1
# then. A module is identified by the GNU build id of the loaded module
# (/sys/module/MOD/notes) against the file's, which tells the in-tree module
# from ours whatever their versions say (the in-tree CM modules carry no
# srcversion); ours must match the srcversion as well.
# shellcheck shell=bash

# The file of MOD for WHO (ours or stock).
stack_ko() {
	case "$2" in
	ours) echo "$ORCM_OURS_DIR/$1/$1.ko" ;;
	stock) modinfo -b "$ORCM_MODROOT" -k "$ORCM_KREL" -n "$1" 2>/dev/null ;;
	*) return 1 ;;
	esac
}

stack_loaded_build_id() {
	od -An -tx1 -v "/sys/module/$1/notes/.note.gnu.build-id" 2>/dev/null |
		tr -d ' \n' | tail -c 40
}

# (A compressed module, as Debian's 6.12 ships its in-tree ones, is read
# from an uncompressed copy.)
stack_file_build_id() {
	local f=$1 t=''
	case "$f" in
	*.xz | *.zst | *.gz)
		t=$(mktemp) || return 1
		case "$f" in
		*.xz) xz -dc "$f" ;;
		*.zst) zstd -dcq "$f" ;;
		*) gzip -dc "$f" ;;
		esac >"$t" 2>/dev/null
		f=$t
		;;
	esac
	readelf -n "$f" 2>/dev/null | sed -n 's/^ *Build ID: *//p' | head -n 1
	[ -z "$t" ] || rm -f "$t"
}

stack_check() {
	local kv m who f have want bid bad=0
	for kv in "$@"; do
		m=${kv%%=*} who=${kv#*=}
		if [ "$who" = absent ]; then
			if [ -d "/sys/module/$m" ]; then
				echo "MISMATCH $m: loaded, should not be"
				bad=1
			else
				echo "$m: absent"
			fi
			continue
		fi
		if [ ! -d "/sys/module/$m" ]; then
			echo "MISMATCH $m: not loaded, want the $who one"
			bad=1
			continue
		fi
		f=$(stack_ko "$m" "$who") || f=''
		if [ -z "$f" ] || [ ! -f "$f" ]; then
			echo "MISMATCH $m: no $who $m.ko to compare with ('$f')"
			bad=1
			continue
		fi
		bid=$(stack_loaded_build_id "$m")
		want=$(stack_file_build_id "$f")
		if [ -z "$want" ] || [ "$bid" != "$want" ]; then
			echo "MISMATCH $m: loaded build id '$bid' is not the $who one ($f: '$want')"
			bad=1
			continue
		fi
		if [ "$who" = ours ]; then
			have=$(cat "/sys/module/$m/srcversion" 2>/dev/null)
			want=$(modinfo -F srcversion "$f")
			if [ -z "$want" ] || [ "$have" != "$want" ]; then
				echo "MISMATCH $m: srcversion '$have', ours is '$want'"
				bad=1
				continue
			fi
		fi
		echo "$m: $who (build id $bid)"
	done
	return $bad
}

# stack_show MOD=WHO...: stack_check, its lines indented (for a test's log).
stack_show() {
	local out rc=0
	out=$(stack_check "$@") || rc=1
	printf '%s\n' "$out" | sed 's/^/    /'
	return $rc
}
