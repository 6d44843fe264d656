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
independently of the driver's code. A socket filter (classic BPF) passes it
only the frames whose management class byte is the SA's, so that the RC
data and CM MADs of a fast run do not overrun it; the last line, "drops N",
is what the kernel still dropped for a full receive buffer
(PACKET_STATISTICS): a count is only exact with 0.
"""
import ctypes
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

SO_ATTACH_FILTER = 26
SO_RCVBUFFORCE = 33
SOL_PACKET = 263
PACKET_STATISTICS = 6
RCVBUF = 8 << 20
# Offsets in the frame: Ethernet 14, LRH 8 (LNH in the low bits of its
# byte 1), GRH 40 if LNH is 3, BTH 12, DETH 8, then the MAD (class: byte 1).
CLASS_NO_GRH = 14 + 8 + 12 + 8 + 1
CLASS_GRH = CLASS_NO_GRH + 40

stop = False


def sa_filter():
    """Classic BPF: accept a frame if its MAD's class byte is SA's."""
    def ins(code, jt, jf, k):
        return struct.pack("HBBI", code, jt, jf, k)
    ld_b, and_k, jeq_k, ret_k = 0x30, 0x54, 0x15, 0x06
    prog = b"".join([
        ins(ld_b, 0, 0, 15),                  # A = LRH byte 1
        ins(and_k, 0, 0, 3),                  # A &= 3 (LNH)
        ins(jeq_k, 0, 2, 3),                  # GRH? else skip 2
        ins(ld_b, 0, 0, CLASS_GRH),
        ins(0x05, 0, 0, 1),                   # ja +1
        ins(ld_b, 0, 0, CLASS_NO_GRH),
        ins(jeq_k, 0, 1, SA_CLASS),
        ins(ret_k, 0, 0, 0x40000),            # accept
        ins(ret_k, 0, 0, 0),                  # drop
    ])
    return prog, len(prog) // 8


def on_term(_sig, _frame):
    global stop
    stop = True


def main():
    dev = sys.argv[1]
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETHERTYPE))
    s.bind((dev, ETHERTYPE))
    prog, n = sa_filter()
    buf = ctypes.create_string_buffer(prog)
    fprog = struct.pack("HL", n, ctypes.addressof(buf))
    s.setsockopt(socket.SOL_SOCKET, SO_ATTACH_FILTER, fprog)
    try:
        s.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, RCVBUF)
    except OSError:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, RCVBUF)
    # frames queued before the filter was attached: read and forget them
    s.setblocking(False)
    try:
        while True:
            s.recv(4096)
    except (BlockingIOError, InterruptedError):
        pass
    s.getsockopt(SOL_PACKET, PACKET_STATISTICS, 8)  # reset the counts
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
    print("sa_mads %d" % sa)
    _, drops = struct.unpack("II", s.getsockopt(SOL_PACKET, PACKET_STATISTICS, 8))
    print("drops %d" % drops, flush=True)


if __name__ == "__main__":
    main()
