#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""cmfuzz's determinism, on the host (make check's step cmfuzz-selftest):
the fuzz scenario's draws are its seed's alone, whatever the CM answers and
when. A fake wire answers the fuzzer's REQs with REPs (all, none, or a
seeded half of them, with other answers mixed in); every run of one seed
must print the same draw count and CRC as the dry run, and another seed
must not. The last line is "N passed, N failed"."""
import argparse
import contextlib
import io
import os
import random
import struct
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cmfuzz  # noqa: E402


class FakeMad(cmfuzz.Mad):
    pass


class AnsweringWire(cmfuzz.NullWire):
    """Answers a REQ with a REP (to its comm id) when @answer(n) says so,
    and puts a DREP and a stray REJ in the way now and then."""

    def __init__(self, answer, noise_seed=1):
        self.answer, self.n = answer, 0
        self.pending = []
        self.noise = random.Random(noise_seed)

    def send_mad(self, mad, **kw):
        assert len(mad) == cmfuzz.MAD_SIZE
        attr = struct.unpack_from('>H', mad, 16)[0]
        if attr == cmfuzz.ATTR['REQ']:
            comm_id = struct.unpack_from('>I', mad, cmfuzz.MAD_HDR)[0]
            self.n += 1
            if self.answer(self.n):
                if self.noise.random() < 0.3:
                    self.pending.append(self.mad(cmfuzz.ATTR['DREP'], 7, 8))
                self.pending.append(self.mad(cmfuzz.ATTR['REP'],
                                             0x1000 + self.n, comm_id))

    @staticmethod
    def mad(attr, local, remote):
        body = struct.pack('>III', local, remote, 0x123 << 8)
        return FakeMad(cmfuzz.finish(attr, b'\0' * 8, body))

    def recv_mads(self, timeout):
        out, self.pending = self.pending, []
        return iter(out)


def fuzz_args(seed, transport='roce', count=600):
    a = argparse.Namespace(seed=seed, transport=transport, count=count,
                           wait=0, req_wait=0, dry_run=False, port=7630,
                           src_ip='198.18.2.77', dst_ip='198.18.2.1', ib=None)
    if transport == 'softib':
        a.ib = argparse.Namespace(src_lid=0x99, dst_lid=1,
                                  src_gid=b'\xfe\x80' + b'\0' * 14,
                                  dst_gid=b'\xfe\x80' + b'\0' * 13 + b'\1')
    return a


def draws(seed, wire, transport='roce', dry=False):
    args = fuzz_args(seed, transport)
    args.dry_run = dry
    rng = cmfuzz.TracedRandom(seed)
    peer = cmfuzz.Peer(args, rng)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        cmfuzz.scenario_fuzz(wire, peer, args)
    line = [x for x in out.getvalue().splitlines() if x.startswith('draws ')]
    return line[0]


class DeterminismTest(unittest.TestCase):
    def check_transport(self, transport):
        dry = draws(30, cmfuzz.NullWire(), transport, dry=True)
        half = random.Random(5)
        for name, wire in (
                ('every REQ answered', AnsweringWire(lambda n: True)),
                ('none answered', AnsweringWire(lambda n: False)),
                ('a random half', AnsweringWire(lambda n: half.random() < .5)),
                ('every third', AnsweringWire(lambda n: n % 3 == 0, 9))):
            with self.subTest(transport=transport, answers=name):
                self.assertEqual(draws(30, wire, transport), dry)
        self.assertNotEqual(draws(31, cmfuzz.NullWire(), transport, True),
                            dry)

    def test_roce(self):
        self.check_transport('roce')

    def test_softib(self):
        self.check_transport('softib')

    def test_traced_random_counts(self):
        r, s = cmfuzz.TracedRandom(1), cmfuzz.TracedRandom(1)
        a = [r.randrange(10), r.choice('abc'), r.random()]
        self.assertEqual(a, [s.randrange(10), s.choice('abc'), s.random()])
        self.assertEqual((r.draws, r.crc), (s.draws, s.crc))
        self.assertGreaterEqual(r.draws, 3)


if __name__ == '__main__':
    res = unittest.TextTestRunner(verbosity=2).run(
        unittest.defaultTestLoader.loadTestsFromTestCase(DeterminismTest))
    bad = len(res.failures) + len(res.errors)
    print('%d passed, %d failed' % (res.testsRun - bad, bad))
    sys.exit(1 if bad else 0)
