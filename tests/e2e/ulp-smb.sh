#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# orcm-timeout: 240
# SMB Direct over iWARP: the body of tests/e2e/ulp-smb.bash (ksmbd shares a
# directory and listens on 5445, cifs mounts it with `rdma` (it binds no
# source: its connection goes from siwT's address to itself), three sets of random data verified through the
# mount and in the share, umount, ksmbd down, no CM id left) over stock siw
# and the loaded iw_cm (ours: the host-stack iWARP CM). Both stacks.
# shellcheck source=tests/e2e/ulp-smb.bash
. "$(dirname "$0")/ulp-smb.bash"
smb_main
