# SPDX-License-Identifier: GPL-2.0
# Helpers for the tests of the host-stack iWARP CM (iw_cm's host CM with the
# softrnic RNIC). Source it after lib.bash.
#
# need_softrnic: softrnic is loaded (tools/vm/init.sh loads it with our
# stack). Only our stack has the host CM: on the stock stack the script
# says so and exits 0.
# iwcm_param NAME [VALUE]: read or set a parameter of iw_cm
# (/sys/module/iw_cm/parameters/NAME); set ones are restored at exit.
# shellcheck shell=bash disable=SC2034

IWCM_PARAMS=/sys/module/iw_cm/parameters
declare -A IWCM_SAVED=()

iwhost_exit() {
	local p
	cleanup
	for p in "${!IWCM_SAVED[@]}"; do echo "${IWCM_SAVED[$p]}" >"$IWCM_PARAMS/$p" || true; done
}
trap iwhost_exit EXIT

need_softrnic() {
	if [ "${ORCM_STACK:-}" != ours ]; then
		skip "the stock stack has no host-stack iWARP CM (softrnic needs our iw_cm)"
	fi
	[ -d /sys/module/softrnic ] || fail "softrnic is not loaded"
}

iwcm_param() {
	local f=$IWCM_PARAMS/$1
	[ -r "$f" ] || fail "iw_cm has no parameter $1"
	if [ $# -eq 1 ]; then
		cat "$f"
		return
	fi
	[ -n "${IWCM_SAVED[$1]:-}" ] || IWCM_SAVED[$1]=$(cat "$f")
	echo "$2" >"$f" || fail "cannot set iw_cm parameter $1 to $2"
}
