#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Count SA PathRecord queries on a softib carrier (tests/e2e/softib-cm.sh).

softib-madcount.py NETDEV

Listens on NETDEV (a raw AF_PACKET socket, EtherType 0x88b5) until SIGTERM,
then prints "pathrecord_queries N" and "sa_mads N": the MADs of management
class SA (0x03) it saw arriving on NETDEV, and the queries among them that
ask for PathRecords (attribute 0x0035, method Get 0x01 or GetTable 0x12),
counted once per transaction id; and one line "mcmember_set_joinstate 0xJ"
for each JoinState that MCMemberRecord joins (attribute 0x0038, method Set
0x02; the record's byte 48, low nibble, after the 56-byte SA header) asked
for, in the order first seen (the MAD layer resends a query it got no
answer for with the same TID: that is one query). The IB
packet is parsed from its LRH (a GRH when LNH says so), the BTH and DETH,
independently of the driver's code.
"""
import signal
import socket
import struct
import sys

ETHERTYPE = 0x88B5
SA_CLASS = 0x03
PATH_RECORD = 0x0035
MCMEMBER_RECORD = 0x0038
SA_SET = 0x02
JOIN_STATE_OFF = 56 + 48
QUERY_METHODS = (0x01, 0x12)

stop = False


def on_term(_sig, _frame):
    global stop
    stop = True


def main():
    dev = sys.argv[1]
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETHERTYPE))
    s.bind((dev, ETHERTYPE))
    s.settimeout(0.2)
    signal.signal(signal.SIGTERM, on_term)
    tids = set()
    joins = []
    sa = 0
    print("listening", flush=True)
    while not stop:
        try:
            frame, addr = s.recvfrom(4096)
        except socket.timeout:
            continue
        except InterruptedError:
            continue
        if addr[2] == socket.PACKET_OUTGOING:
            continue
        pkt = frame[14:]
        if len(pkt) < 8:
            continue
        off = 8 + (40 if pkt[1] & 3 == 3 else 0)    # LRH (+ GRH)
        off += 12 + 8                               # BTH, DETH (UD)
        mad = pkt[off:off + 256]
        if len(mad) < 24 or mad[1] != SA_CLASS:
            continue
        sa += 1
        attr = struct.unpack_from(">H", mad, 16)[0]
        if attr == PATH_RECORD and mad[3] in QUERY_METHODS:
            tids.add(bytes(mad[8:16]))
        if (attr == MCMEMBER_RECORD and mad[3] == SA_SET and
                len(mad) > JOIN_STATE_OFF):
            state = mad[JOIN_STATE_OFF] & 0x0F
            if state not in joins:
                joins.append(state)
    print("pathrecord_queries %d" % len(tids))
    for state in joins:
        print("mcmember_set_joinstate 0x%x" % state)
    print("sa_mads %d" % sa, flush=True)


if __name__ == "__main__":
    main()
