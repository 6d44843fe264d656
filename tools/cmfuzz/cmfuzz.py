#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""cmfuzz: craft, inject and fuzz IB CM MADs at a RoCEv2 port (rdma_rxe) or
a native IB port (softib).

Runs inside the test VM. It plays a remote CM that exists only on the wire:
frames are written with an AF_PACKET socket on one end of a veth pair whose
other end carries the device under test, and the CM's answers are read
back from the same socket. RoCEv2 (default): each frame is Ethernet / IPv4 /
UDP 4791 / BTH / DETH / a 256-byte CM MAD / ICRC; softib (--transport
softib): Ethernet (EtherType 0x88b5) / LRH / BTH / DETH / MAD / ICRC from a
LID of its own; either way to QP1 (GSI) with the GSI Q_Key, so the MAD
reaches the CM through the stock driver (or softib), ib_mad and (ours or
the in-tree) ib_cm exactly as a peer's would. On IB the fuzzer also sends
RTUs (established connections) and well-formed LAPs for them, mutated or
not, so that a LAP reaches the alternate path code.

Scenarios (each prints "ok: ..." lines, or "FAIL: ..." and exits 1):
  stale         a REQ, then a REQ with a new comm id from the same remote
                QPN and CA GUID (REJ STALE_CONN), then a fresh REQ, which
                must still be answered (issue 30, defect 0)
  dreq-unknown  a DREQ for a comm id nobody has: answered with a DREP
  fuzz          a seeded, stateful fuzzer: valid REQs to a listener, then
                mutated REP/RTU/REJ/MRA/DREQ/DREP/LAP/APR/SIDR and random
                MADs for the live comm ids; deterministic from --seed: the
                draws never depend on what the CM answers or when (a
                connection the CM did not answer stays in the list with
                the CM's ids as 0), and their count and CRC are printed
                ("draws N crc X"): --dry-run prints them without a wire,
                and a run must print the same. Answers that prove which
                CM handlers were reached (REP to REQs, DREP to DREQs of
                live connections, SIDR_REP to SIDR_REQs) are required.
The addresses (the rxe port's IP and MAC, the fake peer's) are arguments;
traffic never leaves the veth pair.
"""

import argparse
import os
import random
import select
import socket
import struct
import sys
import time
import zlib

ETH_P_IP = 0x0800
ROCE_PORT = 4791
GSI_QKEY = 0x80010000
BTH_UD_SEND_ONLY = 0x64
MAD_SIZE = 256
CM_CLASS = 0x07
CM_CLASS_VERSION = 2
METHOD_SEND = 0x03
MAD_HDR = 24

ATTR = {
    'REQ': 0x10, 'MRA': 0x11, 'REJ': 0x12, 'REP': 0x13, 'RTU': 0x14,
    'DREQ': 0x15, 'DREP': 0x16, 'SIDR_REQ': 0x17, 'SIDR_REP': 0x18,
    'LAP': 0x19, 'APR': 0x1a,
}
ATTR_NAME = {v: k for k, v in ATTR.items()}
REJ_STALE_CONN = 10
RDMA_PS_TCP_SID = 0x0000000001060000


def ip_bytes(addr):
    return socket.inet_aton(addr)


def mac_bytes(mac):
    return bytes(int(x, 16) for x in mac.split(':'))


def gid_v4(addr):
    """The RoCEv2 GID of an IPv4 address: ::ffff:a.b.c.d."""
    return b'\0' * 10 + b'\xff\xff' + ip_bytes(addr)


def ip_checksum(hdr):
    s = 0
    for i in range(0, len(hdr), 2):
        s += (hdr[i] << 8) | hdr[i + 1]
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return (~s) & 0xffff


def icrc(ip_hdr, udp_hdr, ib_part):
    """RoCEv2 invariant CRC: CRC-32 over 8 bytes of ones (the masked LRH),
    the IP and UDP headers with their variant fields set to ones, the BTH
    with resv8a set to ones, and the rest of the IB packet; the result is
    carried least significant byte first."""
    ip = bytearray(ip_hdr)
    ip[1] = 0xff            # TOS
    ip[8] = 0xff            # TTL
    ip[10:12] = b'\xff\xff'  # header checksum
    udp = bytearray(udp_hdr)
    udp[6:8] = b'\xff\xff'   # UDP checksum
    ib = bytearray(ib_part)
    ib[4] = 0xff             # BTH resv8a
    crc = zlib.crc32(b'\xff' * 8 + bytes(ip) + bytes(udp) + bytes(ib))
    return struct.pack('<I', crc)


class Wire:
    """The fake peer's end of the link: frames out, answers in."""

    def __init__(self, iface, src_mac, dst_mac, src_ip, dst_ip):
        self.sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW,
                                  socket.htons(ETH_P_IP))
        self.sock.bind((iface, 0))
        self.src_mac, self.dst_mac = mac_bytes(src_mac), mac_bytes(dst_mac)
        self.src_ip, self.dst_ip = src_ip, dst_ip
        self.ip_id = 1
        self.sent = 0

    def send_mad(self, mad, pkey=0xffff, qkey=GSI_QKEY, dst_qp=1):
        assert len(mad) == MAD_SIZE
        bth = struct.pack('>BBHI I', BTH_UD_SEND_ONLY, 0, pkey,
                          dst_qp & 0xffffff, self.sent & 0xffffff)
        deth = struct.pack('>II', qkey, 1)
        ib = bth + deth + mad
        udp_len = 8 + len(ib) + 4
        udp = struct.pack('>HHHH', 0xc000 | (self.sent & 0x3fff), ROCE_PORT,
                          udp_len, 0)
        ip = bytearray(struct.pack('>BBHHHBBH4s4s', 0x45, 0, 20 + udp_len,
                                   self.ip_id & 0xffff, 0x4000, 64, 17, 0,
                                   ip_bytes(self.src_ip),
                                   ip_bytes(self.dst_ip)))
        ip[10:12] = struct.pack('>H', ip_checksum(ip))
        self.ip_id += 1
        frame = (self.dst_mac + self.src_mac + struct.pack('>H', ETH_P_IP) +
                 bytes(ip) + udp + ib + icrc(ip, udp, ib))
        self.sock.send(frame)
        self.sent += 1

    def drain(self):
        """Forget what arrived so far."""
        while select.select([self.sock], [], [], 0)[0]:
            self.sock.recv(4096)

    def recv_mads(self, timeout):
        """CM MADs that the device under test sent to the fake peer."""
        end = time.monotonic() + timeout
        while True:
            left = end - time.monotonic()
            if left <= 0 or not select.select([self.sock], [], [], left)[0]:
                return
            mad = self.parse(self.sock.recv(4096))
            if mad is not None:
                yield mad

    def parse(self, f):
        return parse_frame(f, self.dst_ip)

    def expect(self, attr, timeout, match=lambda m: True):
        """The first CM MAD of @attr that @match accepts, or None."""
        for m in self.recv_mads(timeout):
            if m.attr == attr and match(m):
                return m
        return None


ETH_P_SOFTIB = 0x88b5


def softib_icrc(pkt):
    """IB ICRC (no GRH): CRC-32 over the packet with the LRH's VL and the
    BTH's resv8a set to ones, least significant byte first."""
    b = bytearray(pkt)
    b[0] |= 0xf0
    b[8 + 4] = 0xff
    return struct.pack('<I', zlib.crc32(bytes(b)) & 0xffffffff)


class SoftibWire(Wire):
    """The fake peer on a softib link: IB packets in Ethernet frames, from
    LID @src_lid to @dst_lid; answers are the frames to @src_lid."""

    def __init__(self, iface, src_lid, dst_lid):
        self.sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW,
                                  socket.htons(ETH_P_SOFTIB))
        self.sock.bind((iface, ETH_P_SOFTIB))
        with open('/sys/class/net/%s/address' % iface) as f:
            self.src_mac = mac_bytes(f.read().strip())
        self.src_lid, self.dst_lid = src_lid, dst_lid
        self.sent = 0

    def send_mad(self, mad, pkey=0xffff, qkey=GSI_QKEY, dst_qp=1):
        assert len(mad) == MAD_SIZE
        bth = struct.pack('>BBHII', BTH_UD_SEND_ONLY, 0, pkey,
                          dst_qp & 0xffffff, self.sent & 0xffffff)
        deth = struct.pack('>II', qkey, 1)
        words = (8 + len(bth) + len(deth) + MAD_SIZE + 4) // 4
        lrh = struct.pack('>BBHHH', 0, 2, self.dst_lid, words, self.src_lid)
        pkt = lrh + bth + deth + mad
        self.sock.send(b'\xff' * 6 + self.src_mac +
                       struct.pack('>H', ETH_P_SOFTIB) + pkt + softib_icrc(pkt))
        self.sent += 1

    def parse(self, f):
        """The CM MAD of a UD packet to our LID (no GRH), else None."""
        f = f[14:]
        if len(f) < 8 + 12 + 8 + MAD_SIZE + 4 or f[1] & 3 != 2:
            return None
        dlid, words = struct.unpack_from('>HH', f, 2)
        if dlid != self.src_lid or f[8] != BTH_UD_SEND_ONLY:
            return None
        end = words * 4 - 4
        mad = f[28:28 + MAD_SIZE]
        if mad[1] != CM_CLASS:
            return None
        if softib_icrc(f[:end]) != f[end:end + 4]:
            raise SystemExit('FAIL: the ICRC of a packet from the device '
                             'differs from ours: cmfuzz computes it wrongly')
        return Mad(mad)


class Mad:
    def __init__(self, raw):
        self.raw = raw
        self.attr = struct.unpack_from('>H', raw, 16)[0]
        self.tid = raw[8:16]
        self.method = raw[3]

    def u32(self, off):
        return struct.unpack_from('>I', self.raw, MAD_HDR + off)[0]

    def u16(self, off):
        return struct.unpack_from('>H', self.raw, MAD_HDR + off)[0]

    def name(self):
        return ATTR_NAME.get(self.attr, hex(self.attr))


def parse_frame(f, from_ip):
    """The CM MAD in a RoCEv2 UD frame from @from_ip to QP1, else None."""
    if len(f) < 14 + 20 + 8 + 12 + 8 + MAD_SIZE:
        return None
    if struct.unpack_from('>H', f, 12)[0] != ETH_P_IP:
        return None
    ihl = (f[14] & 0x0f) * 4
    if f[14 + 9] != 17 or socket.inet_ntoa(f[26:30]) != from_ip:
        return None
    udp = 14 + ihl
    if struct.unpack_from('>H', f, udp + 2)[0] != ROCE_PORT:
        return None
    bth = udp + 8
    if f[bth] != BTH_UD_SEND_ONLY:
        return None
    mad = f[bth + 20:bth + 20 + MAD_SIZE]
    if len(mad) != MAD_SIZE or mad[1] != CM_CLASS:
        return None
    # The kernel's own ICRC checks ours: a mismatch means our frames are
    # dropped by rxe for the same reason, and the run is meaningless.
    end = bth + 20 + MAD_SIZE
    if icrc(f[14:14 + ihl], f[udp:udp + 8], f[bth:end]) != f[end:end + 4]:
        raise SystemExit('FAIL: the ICRC of a frame from the device differs '
                         'from ours: cmfuzz computes it wrongly')
    return Mad(mad)


def mad_header(attr, tid, method=METHOD_SEND):
    return struct.pack('>BBBBHH8sHHI', 1, CM_CLASS, CM_CLASS_VERSION, method,
                       0, 0, tid, attr, 0, 0)


def finish(attr, tid, body):
    body = bytes(body)
    return mad_header(attr, tid) + body + b'\0' * (MAD_SIZE - MAD_HDR - len(body))


def cma_private_data(src_ip, src_port, dst_ip):
    """rdma_cm's header in a REQ: version 0, IPv4, ports and addresses."""
    return (struct.pack('>BBH', 0, 0x40, src_port) +
            b'\0' * 12 + ip_bytes(src_ip) + b'\0' * 12 + ip_bytes(dst_ip))


def build_req(comm_id, qpn, guid, sid, src_ip, dst_ip, src_port, tid,
              psn=0x1234, mtu=3, pd=None, ib=None):
    b = bytearray(232)
    struct.pack_into('>I', b, 0, comm_id)
    struct.pack_into('>Q', b, 8, sid)
    struct.pack_into('>Q', b, 16, guid)
    struct.pack_into('>I', b, 28, 0)                # local Q_Key
    struct.pack_into('>I', b, 32, (qpn << 8) | 1)   # QPN, responder res. 1
    struct.pack_into('>I', b, 36, 0)                # local EECN, initiator 0
    b[39] = 1                                       # initiator depth
    b[43] = (20 << 3) | (0 << 1)                    # remote CM resp. tmo, RC
    struct.pack_into('>I', b, 44, (psn << 8) | (20 << 3) | 7)
    struct.pack_into('>H', b, 48, 0xffff)           # P_Key
    b[50] = (mtu << 4) | 7                          # MTU, RNR retry 7
    b[51] = (15 << 4)                               # max CM retries
    if ib:                                          # LIDs, port GIDs
        struct.pack_into('>HH', b, 52, ib.src_lid, ib.dst_lid)
        b[56:72], b[72:88] = ib.src_gid, ib.dst_gid
    else:
        struct.pack_into('>HH', b, 52, 0xffff, 0xffff)  # permissive (RoCE)
        b[56:72] = gid_v4(src_ip)                   # primary local GID
        b[72:88] = gid_v4(dst_ip)                   # primary remote GID
    b[91] = 3                                       # packet rate 10 Gb/s
    b[93] = 0 if ib else 64                         # hop limit
    b[94] = 0x08                                    # SL 0, subnet local
    b[95] = 18 << 3                                 # local ACK timeout
    data = pd if pd is not None else cma_private_data(src_ip, src_port, dst_ip)
    b[140:140 + len(data)] = data
    return finish(ATTR['REQ'], tid, b)


def build_two_ids(attr, local, remote, tid, extra=b''):
    return finish(attr, tid, struct.pack('>II', local, remote) + extra)


def build_rej(local, remote, tid, reason, msg_rejected=2, ari=b''):
    extra = struct.pack('>BBH', msg_rejected << 6, len(ari) << 1, reason) + ari
    return build_two_ids(ATTR['REJ'], local, remote, tid, extra)


def build_dreq(local, remote, qpn, tid):
    return build_two_ids(ATTR['DREQ'], local, remote, tid,
                         struct.pack('>I', qpn << 8))


def build_lap(local, remote, qpn, tid, ib, rng):
    """A well-formed LAP (IB) for the receiver's QP @qpn: an alternate path
    between the same ports, on a random SL, rate and ACK timeout, with
    private data."""
    b = bytearray(232)
    struct.pack_into('>III', b, 0, local, remote, 0)
    struct.pack_into('>I', b, 12, (qpn << 8) | (18 << 3))
    struct.pack_into('>HH', b, 20, ib.src_lid, ib.dst_lid)
    b[24:40], b[40:56] = ib.src_gid, ib.dst_gid
    struct.pack_into('>I', b, 56, rng.randrange(1 << 20) << 12)
    b[61] = rng.randrange(2, 17)                    # packet rate
    b[62] = (rng.randrange(16) << 4) | 0x08         # SL, subnet local
    b[63] = rng.randrange(32) << 3                  # local ACK timeout
    b[64:64 + 168] = bytes(rng.randrange(256) for _ in range(168))
    return finish(ATTR['LAP'], tid, b)


class TracedRandom(random.Random):
    """random.Random whose every draw goes into a count and a CRC, so that
    two runs can show they drew the same sequence (randrange and choice
    draw through getrandbits, the float draws through random)."""

    def __init__(self, seed):
        self.draws, self.crc = 0, 0
        super().__init__(seed)

    def _note(self, v):
        self.draws += 1
        self.crc = zlib.crc32(repr(v).encode(), self.crc)
        return v

    def random(self):
        return self._note(super().random())

    def getrandbits(self, k):
        return self._note(super().getrandbits(k))


class NullWire:
    """--dry-run: sends nowhere, never answers."""

    sent = 0

    def send_mad(self, mad, **kw):
        assert len(mad) == MAD_SIZE
        self.sent += 1

    def drain(self):
        pass

    def recv_mads(self, timeout):
        return iter(())

    def expect(self, attr, timeout, match=lambda m: True):
        return None


class Peer:
    """Identities of the fake remote CM: comm ids, QPNs, a CA GUID, TIDs."""

    def __init__(self, args, rng):
        self.args, self.rng = args, rng
        self.guid = 0x0002c90300a1b2c3
        self.next_comm = rng.randrange(1, 1 << 30)
        self.next_qpn = 0x100 + rng.randrange(0, 1 << 16)
        self.next_tid = rng.randrange(1, 1 << 40)
        self.next_port = 40000

    def comm_id(self):
        self.next_comm += 1
        return self.next_comm

    def qpn(self):
        self.next_qpn += 1
        return self.next_qpn & 0xffffff

    def tid(self):
        self.next_tid += 1
        return struct.pack('>Q', self.next_tid)

    def req(self, comm_id, qpn, **kw):
        self.next_port += 1
        a = self.args
        return build_req(comm_id, qpn, self.guid, RDMA_PS_TCP_SID | a.port,
                         a.src_ip, a.dst_ip, self.next_port, self.tid(),
                         ib=self.args.ib, **kw)


def answers_req(comm_id):
    """A REP or REJ that names @comm_id as its remote comm id."""
    return lambda m: m.u32(4) == comm_id


def scenario_stale(w, peer, args):
    ok = True
    a_id, q = peer.comm_id(), peer.qpn()
    w.drain()
    w.send_mad(peer.req(a_id, q))
    rep = w.expect(ATTR['REP'], args.wait, answers_req(a_id))
    if not rep:
        print('FAIL: no REP to a valid REQ (comm id %#x, QPN %#x)' % (a_id, q))
        return False
    print('ok: REQ %#x answered by REP (its comm id %#x)' % (a_id, rep.u32(0)))
    b_id = peer.comm_id()
    w.send_mad(peer.req(b_id, q))
    rej = w.expect(ATTR['REJ'], args.wait, answers_req(b_id))
    if rej and rej.u16(10) == REJ_STALE_CONN:
        print('ok: REQ %#x from the same QPN and CA GUID: REJ stale conn'
              % b_id)
    else:
        print('FAIL: REQ %#x from the same QPN: want REJ STALE_CONN, got %s'
              % (b_id, 'reason %d' % rej.u16(10) if rej else 'nothing'))
        ok = False
    c_id = peer.comm_id()
    w.send_mad(peer.req(c_id, peer.qpn()))
    m = w.expect(ATTR['REP'], args.wait, answers_req(c_id))
    if m:
        print('ok: a fresh REQ %#x afterwards is answered (REP)' % c_id)
    else:
        print('FAIL: a fresh REQ %#x afterwards gets no REP: the CM is stuck'
              % c_id)
        ok = False
    return ok


def scenario_dreq_unknown(w, peer, args):
    local, remote = peer.comm_id(), peer.rng.randrange(1, 1 << 32)
    w.drain()
    w.send_mad(build_dreq(local, remote, peer.qpn(), peer.tid()))
    m = w.expect(ATTR['DREP'], args.wait,
                 lambda m: m.u32(4) == local)
    if not m:
        print('FAIL: a DREQ for unknown comm id %#x got no DREP' % remote)
        return False
    print('ok: a DREQ for unknown comm id %#x answered by a DREP' % remote)
    return True


# ---- the fuzzer ----

BOUNDARY32 = (0, 1, 0x7fffffff, 0x80000000, 0xffffffff)


def mutate(rng, mad):
    """Field-level and byte-level mutations of a MAD, header included."""
    b = bytearray(mad)
    for _ in range(rng.randrange(1, 5)):
        k = rng.randrange(6)
        if k == 0:          # one byte of the CM attribute
            b[MAD_HDR + rng.randrange(232)] = rng.randrange(256)
        elif k == 1:        # a 32-bit boundary value at an aligned offset
            struct.pack_into('>I', b, MAD_HDR + 4 * rng.randrange(58),
                             rng.choice(BOUNDARY32))
        elif k == 2:        # a bit flip
            i = MAD_HDR + rng.randrange(232)
            b[i] ^= 1 << rng.randrange(8)
        elif k == 3:        # the header: version, class version, method
            i = rng.choice((0, 2, 3, 4, 5, 18, 19))
            b[i] = rng.randrange(256)
        elif k == 4:        # another attribute id
            struct.pack_into('>H', b, 16, rng.choice(list(ATTR.values()) +
                                                     [0, 0x20, 0xffff]))
        else:               # a length field at its limits (REJ/APR/SIDR)
            b[MAD_HDR + rng.choice((5, 8, 9))] = rng.choice((0, 72, 73, 0xff))
    return bytes(b)


def scenario_fuzz(w, peer, args):
    rng = peer.rng
    live = []               # (peer comm id, CM's comm id, QPN, CM's QPN)
    counts = {}
    answers = {}
    unanswered = 0
    sent0 = w.sent
    t0 = time.monotonic()
    n = 0
    while n < args.count:
        if len(live) < 4 or rng.random() < 0.05:
            cid, q = peer.comm_id(), peer.qpn()
            rtu = args.ib and rng.random() < 0.5     # established (IB)
            w.send_mad(peer.req(cid, q))
            n += 1
            rep = None
            for m in w.recv_mads(args.req_wait):    # every answer counts
                answers[m.name()] = answers.get(m.name(), 0) + 1
                if m.attr == ATTR['REP'] and answers_req(cid)(m):
                    rep = m
                    break
            if rep:
                live.append((cid, rep.u32(0), q, rep.u32(12) >> 8))
                if rtu:     # not counted in n: n is the seed's
                    w.send_mad(build_two_ids(ATTR['RTU'], cid, rep.u32(0),
                                             rep.tid))
            else:
                # The same list whatever the CM did: the draws stay the
                # seed's (its ids unknown: 0).
                unanswered += 1
                live.append((cid, 0, q, 0))
            live = live[-8:]
            continue
        cid, their, q, their_qpn = rng.choice(live)
        kinds = ['REP', 'RTU', 'REJ', 'MRA', 'DREQ', 'DREP', 'LAP', 'APR',
                 'SIDR_REQ', 'REQ', 'random']
        if args.ib:
            kinds += ['LAP-IB'] * 4
        kind = rng.choice(kinds)
        tid = peer.tid()
        if kind == 'LAP-IB':
            mad = build_lap(cid, their, their_qpn, tid, args.ib, rng)
            if rng.random() < 0.3:          # once more: a duplicate
                w.send_mad(mad)
                n += 1
        elif kind == 'random':
            mad = bytes(rng.randrange(256) for _ in range(MAD_SIZE))
            mad = mad[:1] + bytes([CM_CLASS, CM_CLASS_VERSION]) + mad[3:]
        elif kind == 'REQ':
            mad = peer.req(cid if rng.random() < 0.5 else peer.comm_id(), q)
        elif kind == 'REJ':
            mad = build_rej(cid, their, tid, rng.randrange(0, 40),
                            rng.randrange(4))
        elif kind == 'DREQ':
            mad = build_dreq(cid, their, rng.choice((q, 0, q + 1)), tid)
        else:
            mad = build_two_ids(ATTR[kind], cid, their, tid)
        if rng.random() < 0.7:
            mad = mutate(rng, mad)
        w.send_mad(mad)
        n += 1
        counts[kind] = counts.get(kind, 0) + 1
        for m in w.recv_mads(0.002):
            answers[m.name()] = answers.get(m.name(), 0) + 1
    for m in w.recv_mads(0.5):
        answers[m.name()] = answers.get(m.name(), 0) + 1
    dt = time.monotonic() - t0
    print('draws %d crc %08x' % (rng.draws, rng.crc))
    print('ok: fuzz seed %d (%s): %d steps, %d MADs in %.1f s; sent %s; '
          'answers %s; REQs unanswered %d' % (
              args.seed, args.transport, n, w.sent - sent0, dt,
              ' '.join('%s=%d' % kv for kv in sorted(counts.items())),
              ' '.join('%s=%d' % kv for kv in sorted(answers.items()))
              or 'none', unanswered))
    if args.dry_run:
        return True
    # Handlers reached: a REQ's (REP), a live connection's DREQ's (DREP,
    # from the CM or from rdma_cm's disconnect), SIDR_REQ's (SIDR_REP).
    ok = True
    for want in ('REP', 'DREP', 'SIDR_REP'):
        if not answers.get(want):
            print('FAIL: no %s among the answers: the fuzz never reached '
                  'the handler that sends it' % want)
            ok = False
    # The CM must still answer a fresh, valid REQ.
    return scenario_alive(w, peer, args) and ok


def scenario_alive(w, peer, args):
    cid = peer.comm_id()
    w.drain()
    w.send_mad(peer.req(cid, peer.qpn()))
    got = []
    for m in w.recv_mads(args.wait):
        if m.u32(4) != cid:
            continue
        if m.attr == ATTR['REP']:
            print('ok: the CM still answers a valid REQ')
            return True
        got.append(m.name() + (' reason %d' % m.u16(10)
                               if m.attr == ATTR['REJ'] else ''))
    print('FAIL: the CM no longer answers a valid REQ with a REP (got: %s)'
          % (', '.join(got) or 'nothing'))
    return False


def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('scenario', choices=('stale', 'dreq-unknown', 'fuzz',
                                        'alive'))
    p.add_argument('--iface', required=True, help='the fake peer\'s netdev')
    p.add_argument('--transport', choices=('roce', 'softib'), default='roce')
    p.add_argument('--src-mac', help='RoCE: the fake peer\'s MAC')
    p.add_argument('--dst-mac', help='RoCE: the rxe port\'s MAC')
    p.add_argument('--src-lid', type=lambda x: int(x, 0),
                   help='softib: the fake peer\'s LID (nobody else\'s)')
    p.add_argument('--dst-lid', type=lambda x: int(x, 0),
                   help='softib: the port\'s LID')
    p.add_argument('--src-gid', help='softib: the fake peer\'s GID (hex)')
    p.add_argument('--dst-gid', help='softib: the port\'s GID (hex)')
    p.add_argument('--src-ip', required=True, help='the fake peer\'s IP')
    p.add_argument('--dst-ip', required=True, help='the port\'s IP')
    p.add_argument('--port', type=int, required=True,
                   help='the rdma_cm listener\'s TCP port space port')
    p.add_argument('--seed', type=int,
                   default=int(os.environ.get('ORCM_FUZZ_SEED', '30')))
    p.add_argument('--count', type=int, default=2000)
    p.add_argument('--wait', type=float, default=3.0,
                   help='seconds to wait for an answer')
    p.add_argument('--req-wait', type=float, default=1.0,
                   help='fuzz: seconds to wait for the REP to a REQ')
    p.add_argument('--dry-run', action='store_true',
                   help='fuzz without a wire: print the draws only')
    args = p.parse_args()
    rng = TracedRandom(args.seed)
    args.ib = None
    if args.dry_run and args.scenario != 'fuzz':
        p.error('--dry-run is for the fuzz scenario')
    if args.transport == 'softib':
        args.ib = argparse.Namespace(
            src_lid=args.src_lid, dst_lid=args.dst_lid,
            src_gid=bytes.fromhex(args.src_gid.replace(':', '')),
            dst_gid=bytes.fromhex(args.dst_gid.replace(':', '')))
    if args.dry_run:
        w = NullWire()
    elif args.ib:
        w = SoftibWire(args.iface, args.src_lid, args.dst_lid)
    else:
        w = Wire(args.iface, args.src_mac, args.dst_mac, args.src_ip,
                 args.dst_ip)
    peer = Peer(args, rng)
    fn = {'stale': scenario_stale, 'dreq-unknown': scenario_dreq_unknown,
          'fuzz': scenario_fuzz, 'alive': scenario_alive}[args.scenario]
    return 0 if fn(w, peer, args) else 1


if __name__ == '__main__':
    sys.exit(main())
