#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Count softib frames on a carrier by where they went (softib-unicast.sh).

softib-framecount.py NETDEV

Listens on NETDEV (a raw AF_PACKET socket, EtherType 0x88b5) until SIGTERM,
then prints one line "DIR DLID DEST N" for each kind of frame seen: DIR
"out" (sent from NETDEV) or "in" (received on it); DLID the LRH's DLID as
"ucast", "mcast" (0xc000-0xfffe) or "perm" (0xffff); DEST the Ethernet
destination as "bcast" (ff:ff:ff:ff:ff:ff), "mcast" (another group
address) or "ucast"; and "ucast_to MAC N" for each unicast destination.
The last line, "drops N", is what the kernel dropped for a full receive
buffer (PACKET_STATISTICS): the counts are only exact with 0.
"""
import collections
import signal
import socket
import struct
import sys

ETHERTYPE = 0x88B5
SO_RCVBUFFORCE = 33
SOL_PACKET = 263
PACKET_STATISTICS = 6
RCVBUF = 8 << 20

stop = False


def on_term(_sig, _frame):
    global stop
    stop = True


def main():
    dev = sys.argv[1]
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETHERTYPE))
    s.bind((dev, ETHERTYPE))
    try:
        s.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, RCVBUF)
    except OSError:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, RCVBUF)
    s.getsockopt(SOL_PACKET, PACKET_STATISTICS, 8)  # reset the counts
    s.settimeout(0.2)
    signal.signal(signal.SIGTERM, on_term)
    kinds = collections.Counter()
    to = collections.Counter()
    print("listening", flush=True)
    while not stop:
        try:
            frame, addr = s.recvfrom(64)
        except (socket.timeout, InterruptedError):
            continue
        if len(frame) < 14 + 8:
            continue
        way = "out" if addr[2] == socket.PACKET_OUTGOING else "in"
        dlid = struct.unpack_from(">H", frame, 14 + 2)[0]
        lid = "perm" if dlid == 0xFFFF else \
            "mcast" if dlid >= 0xC000 else "ucast"
        dst = frame[0:6]
        if dst == b"\xff" * 6:
            dest = "bcast"
        elif dst[0] & 1:
            dest = "mcast"
        else:
            dest = "ucast"
            to[dst.hex(":")] += 1
        kinds[(way, lid, dest)] += 1
    for k in sorted(kinds):
        print("%s %s %s %d" % (k + (kinds[k],)))
    for mac in sorted(to):
        print("ucast_to %s %d" % (mac, to[mac]))
    _, drops = struct.unpack("II", s.getsockopt(SOL_PACKET, PACKET_STATISTICS, 8))
    print("drops %d" % drops, flush=True)


if __name__ == "__main__":
    main()
