#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# iw_cm's host-stack CM as an RFC 6581 peer-to-peer initiator against stock
# siw as responder, with the test-only device tests/hostcm/hostcm_peer.ko
# (no data path: it sends the RTR as a hand-written MPA FPDU, CRC off) in
# netns orcmA and cmprobe on siwB: MPA revision 2 with a WRITE RTR and with
# a READ RTR; siw reports ESTABLISHED only once it parsed the RTR.
#
# Stock siw as a p2p responder trips its own sk_callback_lock bug
# (siw_rtr_data_ready writes the lock in softirq); the test VM's kernel
# carries the fix, tools/uml/patches/0002-rdma-siw-callback-lock-bh.patch.
# shellcheck source=tests/e2e/iwhost.bash
. "$(dirname "$0")/iwhost.bash"

# The ird/ord we send are 1/1 and cmprobe's accept gives siw's.
initiator v2-p2p-write 2 1 2 "-k 8" \
	"CONNECT_REPLY status 0 pd 8 rev 2 p2p 1 rtr 2 crc 0 ird 1 ord 1"
initiator v2-p2p-read 2 1 3 "-k 8" \
	"CONNECT_REPLY status 0 pd 8 rev 2 p2p 1 rtr 3 crc 0 ird 1 ord 1"
params_restore
say "ok: siw as peer-to-peer responder took our WRITE and READ RTR"
