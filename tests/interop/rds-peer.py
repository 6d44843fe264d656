#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""One end of an RDS-over-RDMA exchange between the two interop VMs.

Binds an RDS socket (transport forced to IB: rds_rdma, whose connections
are rdma_cm's) to LADDR:PORT, then sends COUNT messages to PADDR:PORT while
it receives COUNT from there, both at once: each VM runs this at the same
moment, so both kernels open the RDS connection of the pair at once (RDS
then backs off and retries one of them). Message i carries its sequence
number, its size and the sha256 of its payload, drawn from a PRNG seeded by
the sender's role and i; the receiver checks all three and the order (RDS
delivers reliably and in order per connection). Sizes go from 1 byte to
64 KiB, over RDS's 8 KiB fragments.

Prints one line of figures, then the RDS counters that are not zero among
the connection ones (ib_connect_raced and friends), and exits 0 only when
every message went and came back intact before the deadline.
"""
import argparse
import ctypes
import hashlib
import os
import random
import select
import socket
import struct
import sys
import threading
import time

SOL_RDS = 276
SO_RDS_TRANSPORT = 8
RDS_TRANS_IB = 0
RDS_INFO_COUNTERS = 10000
HDR = struct.Struct("!II32s")
SIZES = (1, 100, 4000, 8192, 8193, 20000, 65000)


def payload(role, seq):
    size = SIZES[seq % len(SIZES)]
    return random.Random(f"{role}:{seq}").randbytes(size)


def message(role, seq):
    data = payload(role, seq)
    return HDR.pack(seq, len(data), hashlib.sha256(data).digest()) + data


def counters(sock):
    """The RDS counters (name -> value), from the RDS_INFO_COUNTERS option."""
    # (Python's getsockopt takes 1,024 bytes at most: libc's, through ctypes.)
    libc = ctypes.CDLL(None, use_errno=True)
    buf = ctypes.create_string_buffer(1 << 16)
    size = ctypes.c_uint(len(buf))
    if libc.getsockopt(sock.fileno(), SOL_RDS, RDS_INFO_COUNTERS, buf, ctypes.byref(size)) < 0:
        return {"(getsockopt errno)": ctypes.get_errno()}
    raw = buf.raw[:size.value]
    out = {}
    for off in range(0, len(raw) - 39, 40):
        name = raw[off:off + 32].split(b"\0", 1)[0].decode()
        out[name] = struct.unpack_from("=Q", raw, off + 32)[0]
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--role", required=True)
    ap.add_argument("--peer-role", required=True)
    ap.add_argument("--laddr", required=True)
    ap.add_argument("--paddr", required=True)
    ap.add_argument("--port", type=int, default=18000)
    ap.add_argument("--count", type=int, default=300)
    ap.add_argument("--deadline", type=float, default=60)
    ap.add_argument("--barrier", required=True,
                    help="path prefix: PREFIX.bound.ROLE is made once bound and "
                    "PREFIX.bound.PEER-ROLE awaited before sending; PREFIX.ROLE "
                    "when all came in, PREFIX.PEER-ROLE awaited before closing")
    a = ap.parse_args()

    s = socket.socket(socket.AF_RDS, socket.SOCK_SEQPACKET, 0)
    s.setsockopt(SOL_RDS, SO_RDS_TRANSPORT, RDS_TRANS_IB)
    s.bind((a.laddr, a.port))
    # RDS drops a message to a port nobody has bound (s_recv_drop_no_sock):
    # neither end sends before both are bound.
    with open(f"{a.barrier}.bound.{a.role}", "w"):
        pass
    end = time.monotonic() + 10
    while not os.path.exists(f"{a.barrier}.bound.{a.peer_role}"):
        if time.monotonic() > end:
            print(f"rds {a.role}: the peer did not bind within 10 s")
            return 1
        time.sleep(0.05)
    t0 = time.monotonic()
    end = t0 + a.deadline
    sent = [0, None]  # messages sent, error

    def sender():
        try:
            for seq in range(a.count):
                s.sendto(message(a.role, seq), (a.paddr, a.port))
                sent[0] += 1
        except OSError as e:
            sent[1] = e

    th = threading.Thread(target=sender, daemon=True)
    th.start()
    got, first_at, bad = 0, None, None
    while got < a.count and time.monotonic() < end and bad is None:
        # Readable also means a congestion map update (RDS's poll): the
        # receive itself does not wait.
        if not select.select([s], [], [], 1.0)[0]:
            continue
        try:
            buf, src = s.recvfrom(1 << 17, socket.MSG_DONTWAIT)
        except BlockingIOError:
            continue
        if first_at is None:
            first_at = time.monotonic() - t0
        if src[0] != a.paddr:
            bad = f"message from {src}, expected {a.paddr}"
            break
        seq, size, digest = HDR.unpack_from(buf)
        data = buf[HDR.size:]
        want = payload(a.peer_role, got)
        if seq != got or size != len(want) or len(data) != size:
            bad = f"message {got}: got seq {seq}, size {size}/{len(data)}, expected size {len(want)}"
        elif data != want or hashlib.sha256(data).digest() != digest:
            bad = f"message {got} ({size} bytes): payload differs"
        got += 1
    th.join(max(0.0, end - time.monotonic()))
    took = time.monotonic() - t0
    # Closing drops what the socket has queued and the peer has not acked:
    # both ends keep theirs open until both received everything.
    if bad is None and got == a.count:
        with open(f"{a.barrier}.{a.role}", "w"):
            pass
    while not os.path.exists(f"{a.barrier}.{a.peer_role}") and time.monotonic() < end + 10:
        time.sleep(0.1)
    c = counters(s)
    first = f"{first_at:.2f}" if first_at is not None else "-"
    print(f"rds {a.role}: sent {sent[0]}/{a.count}, received {got}/{a.count} intact in "
          f"{took:.2f} s (first after {first} s)")
    keys = sorted(k for k, v in c.items() if v and ("connect" in k or "listen" in k
                                                    or "reconnect" in k or "conn_reset" in k))
    print("rds counters: " + (" ".join(f"{k}={c[k]}" for k in keys) or "(none)"))
    s.close()
    if bad:
        print(f"rds {a.role}: {bad}")
        return 1
    if sent[1] is not None:
        print(f"rds {a.role}: sendto failed after {sent[0]}: {sent[1]}")
        return 1
    if th.is_alive() or sent[0] != a.count or got != a.count:
        print(f"rds {a.role}: not done within {a.deadline:.0f} s")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
