#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Send bad softib frames from a raw socket (softib-dev.sh, softib-switch.sh,
softib-ipoib-oversize.sh).

softib-rawsend.py NETDEV COUNT KIND...   KIND: short icrc lver opcode dlid pkey
                                         sw-hop0 sw-hopcnt sw-port sw-ret
                                         sw-icrc sw-len
                                         ud,DLID,QPN,QKEY,BYTES
                                         mc,MLID,MGID,QKEY,BYTES
                                         pkeyset,DLID,SLID,PKEY

Each KIND is an IB packet (EtherType 0x88b5, broadcast) wrong in exactly one
way, sent COUNT times. The ICRC is computed here from the IBA rule (CRC-32
over LRH..payload, LRH VL, GRH TClass/FlowLabel/HopLmt and BTH resv8a as
ones), independently of the driver's code: a packet meant to fail a later
check fails with "icrc" instead if the two disagree.

The last two are good UD SEND packets with a payload of BYTES (a receive
buffer may be too small for them): to QPN at DLID, or to the multicast group
MGID (IPv6 notation) at MLID, with a GRH and QPN 0xFFFFFF. Numbers may be
hexadecimal (0x...). Many of them are paced, so that the receiver's backlog
takes them all.

pkeyset is a LID-routed SubnSet(P_KeyTable) of block 0 with M_Key 0 to DLID
from SLID: P_Keys 0xFFFF and PKEY (softib-mgmt.sh). SIB_SRC_MAC, when set,
is the frames' Ethernet source (another host on the segment), in place of
NETDEV's own address.
"""
import os
import socket
import struct
import sys
import time
import zlib

ETHERTYPE = 0x88B5


def icrc(pkt):
    b = bytearray(pkt)
    b[0] |= 0xF0                      # LRH VL
    bth = 8
    if b[1] & 3 == 3:                 # GRH
        b[8] |= 0x0F                  # traffic class, flow label
        b[9] = b[10] = b[11] = 0xFF
        b[15] = 0xFF                  # hop limit
        bth += 40
    b[bth + 4] = 0xFF                 # BTH resv8a
    return struct.pack("<I", zlib.crc32(bytes(b)) & 0xFFFFFFFF)


BCAST_MGID = bytes.fromhex("ff12401bffff000000000000ffffffff")


def packet(dlid=0x0001, slid=0x0002, vl=0, lver=0, opcode=0x64, pkey=0xFFFF,
           dqpn=1, qkey=0x80010000, grh=False, payload=b"softib-bad-input",
           bad_icrc=False, pktlen=None, dgid=BCAST_MGID):
    payload += b"\0" * (-len(payload) & 3)
    bth = struct.pack(">BBHII", opcode, 0, pkey, dqpn & 0xFFFFFF, 0)
    deth = struct.pack(">II", qkey, 0x42)
    body = bth + deth + payload
    g = b""
    if grh:
        g = struct.pack(">IHBB", 6 << 28, len(body) + 4, 0x1B, 64)
        g += bytes(16) + dgid
    lnh = 3 if grh else 2
    words = (8 + len(g) + len(body) + 4) // 4
    if pktlen is not None:
        words = pktlen
    lrh = struct.pack(">BBHHH", (vl << 4) | lver, lnh, dlid, words, slid)
    pkt = lrh + g + body
    crc = icrc(pkt)
    if bad_icrc:
        crc = bytes(c ^ 0x5A for c in crc)
    return pkt + crc


def smp(hop_ptr=1, hop_cnt=1, path=(0, 1), ret=(), returning=False):
    """A directed-route SubnGet(NodeInfo) MAD (IBA 14.2.1.2)."""
    mad = bytearray(256)
    mad[0:4] = bytes((1, 0x81, 1, 1))
    struct.pack_into(">H", mad, 4, 0x8000 if returning else 0)
    mad[6], mad[7] = hop_ptr, hop_cnt
    struct.pack_into(">QH", mad, 8, 0x5EED, 0x0011)
    struct.pack_into(">HH", mad, 32, 0xFFFF, 0xFFFF)
    mad[128:128 + len(path)] = bytes(path)
    mad[192:192 + len(ret)] = bytes(ret)
    return bytes(mad)


def dr(mad, **kw):
    """The SMP as a switch port receives it: VL15, permissive LIDs, QP0."""
    return packet(vl=15, dlid=0xFFFF, slid=0xFFFF, dqpn=0, qkey=0,
                  payload=mad, **kw)


KINDS = {
    # directed-route SMPs a switch must discard (C14-9, C14-13)
    "sw-hop0": lambda: dr(smp(hop_ptr=0)),
    "sw-hopcnt": lambda: dr(smp(hop_cnt=64)),
    "sw-port": lambda: dr(smp(hop_cnt=2, path=(0, 1, 99))),
    "sw-ret": lambda: dr(smp(hop_cnt=2, ret=(0, 1), returning=True)),
    # an SMP for the switch with a bad ICRC, or not one MAD long
    "sw-icrc": lambda: dr(smp(), bad_icrc=True),
    "sw-len": lambda: dr(smp()[:200]),
    # LRH says 32 words, the frame holds far fewer bytes
    "short": lambda: packet(pktlen=32)[:40],
    "icrc": lambda: packet(bad_icrc=True),
    "lver": lambda: packet(lver=1),
    # 0x1f: RC opcode space, reserved
    "opcode": lambda: packet(opcode=0x1F),
    # a LID nobody has (ib0 has none before an SM assigns one)
    "dlid": lambda: packet(dlid=0x0042),
    # multicast passes the DLID check; P_Key 0x1234 is not in the table
    "pkey": lambda: packet(dlid=0xC001, dqpn=0xFFFFFF, pkey=0x1234, grh=True),
}


def pkeyset(dlid, slid, pkey):
    """A LID-routed SubnSet(P_KeyTable) block 0: 0xFFFF, pkey, 0..."""
    mad = bytearray(256)
    mad[0:4] = bytes((1, 0x01, 1, 0x02))
    struct.pack_into(">QH", mad, 8, 0x5E7, 0x0016)
    struct.pack_into(">HH", mad, 64, 0xFFFF, pkey)
    return packet(vl=15, dlid=dlid, slid=slid, dqpn=0, qkey=0,
                  payload=bytes(mad))


def ud(spec):
    """ud,DLID,QPN,QKEY,BYTES or mc,MLID,MGID,QKEY,BYTES: a good UD SEND."""
    if spec.startswith("pkeyset,"):
        return pkeyset(*(int(v, 0) for v in spec.split(",")[1:]))
    kind, lid, dst, qkey, size = spec.split(",")
    payload = bytes(i & 0xFF for i in range(int(size, 0)))
    if kind == "ud":
        return packet(dlid=int(lid, 0), dqpn=int(dst, 0), qkey=int(qkey, 0),
                      payload=payload)
    if kind == "mc":
        return packet(dlid=int(lid, 0), dqpn=0xFFFFFF, qkey=int(qkey, 0),
                      grh=True, payload=payload,
                      dgid=socket.inet_pton(socket.AF_INET6, dst))
    raise KeyError(spec)


def main():
    ifname, count, kinds = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((ifname, 0))
    src = os.environ.get("SIB_SRC_MAC") or \
        open(f"/sys/class/net/{ifname}/address").read().strip()
    eth = b"\xff" * 6 + bytes.fromhex(src.replace(":", "")) + \
        struct.pack(">H", ETHERTYPE)
    for kind in kinds:
        frame = eth + (ud(kind) if "," in kind else KINDS[kind]())
        for i in range(count):
            s.send(frame)
            if i % 16 == 15:
                time.sleep(0.002)
    return 0


if __name__ == "__main__":
    sys.exit(main())
