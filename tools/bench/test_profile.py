#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Unit tests of tools/bench/profile.py (no perf, no VM): symbol lookup,
the perf dump parser, sample ownership, the network split, the run windows
and the setup bound. `make check` runs it (step bench-tools); the last line
is "N passed, N failed"."""
import importlib.util
import io
import os
import sys
import tempfile
import unittest
from contextlib import redirect_stdout

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("profile_mod", os.path.join(HERE, "profile.py"))
prof = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(prof)

KALLSYMS = """\
0000000060001000 T _text
0000000060002000 T memset_orig
0000000060003000 T tcp_sendmsg
0000000060004000 T process_one_work
0000000060100000 T _etext
00000000c0001000 t cma_id_alloc\t[rdma_cm]
00000000c0002000 t iwcm_alloc_id\t[iw_cm]
00000000c0003000 t cb_work\t[cm_bench]
00000000c0004000 t null_iw_connect\t[null_rnic]
00000000c0005000 d some_data\t[rdma_cm]
"""

KERNEL_MEMSET = 0x60002010
KERNEL_TCP = 0x60003010
KERNEL_WORK = 0x60004010
RDMA_CM = 0xc0001010
IW_CM = 0xc0002010
CM_BENCH = 0xc0003010
NULL_RNIC = 0xc0004010
HOST_LIBC = 0x7f0000001000
HOST_KERNEL = 0xffffffff81000000
GUEST_USER = 0x400000


class ProfileTest(unittest.TestCase):
    def setUp(self):
        fd, self.path = tempfile.mkstemp()
        with os.fdopen(fd, "w") as f:
            f.write(KALLSYMS)
        self.syms = prof.Symbols(self.path)

    def tearDown(self):
        os.unlink(self.path)

    def test_lookup_classifies_every_address_space(self):
        cases = [
            (KERNEL_MEMSET, ("memset_orig", "kernel")),
            (RDMA_CM, ("cma_id_alloc", "rdma_cm")),
            (NULL_RNIC + 0x100, ("null_iw_connect", "null_rnic")),
            (HOST_LIBC, ("(host libc)", "host")),
            (HOST_KERNEL, ("(host kernel)", "host")),
            (GUEST_USER, ("(guest user)", "user")),
            # Past the kernel's text and beyond the modules: UML's own code.
            (0x60200000, ("(host libc)", "host")),
            (0xc0100000, ("(host libc)", "host")),
        ]
        for ip, want in cases:
            with self.subTest(ip=hex(ip)):
                self.assertEqual(self.syms.lookup(ip), want)

    def test_data_symbols_are_not_functions(self):
        # A 'd' symbol must not become the function of a text address.
        self.assertEqual(self.syms.lookup(0xc0005010)[0], "null_iw_connect")

    def test_parse_dump_drops_context_marks(self):
        dump = (
            "1000 0x10 [0x98]: PERF_RECORD_SAMPLE(IP, 0x2): 7/7: 0x60002010 period: 100000 addr: 0\n"
            "... FP chain: nr:4\n"
            ".....  0: ffffffffffffff80\n"
            ".....  1: ffffffff81000000\n"
            ".....  2: fffffffffffffe00\n"
            ".....  3: 0000000060002010\n"
            " ... thread: :7:7\n"
            "2000 0x20 [0x40]: PERF_RECORD_SAMPLE(IP, 0x2): 8/8: 0xc0001010 period: 100000 addr: 0\n"
            "... FP chain: nr:2\n"
            ".....  0: fffffffffffffe00\n"
            ".....  1: 00000000c0001010\n"
        )
        got = list(prof.parse_dump(io.StringIO(dump)))
        self.assertEqual(got, [(1000, 7, 100000, [HOST_KERNEL, KERNEL_MEMSET]),
                               (2000, 8, 100000, [RDMA_CM])])

    def test_parse_dump_ignores_garbage(self):
        self.assertEqual(list(prof.parse_dump(io.StringIO("x\nPERF_RECORD_SAMPLE nonsense\n"))), [])

    def test_owner_is_the_innermost_module_frame(self):
        cases = [
            ([KERNEL_MEMSET, RDMA_CM, CM_BENCH], "rdma_cm", "cma_id_alloc"),
            ([HOST_LIBC, KERNEL_MEMSET, NULL_RNIC, IW_CM], "null_rnic", "null_iw_connect"),
            ([KERNEL_MEMSET, KERNEL_WORK], "kernel", "memset_orig"),
            ([HOST_LIBC, KERNEL_WORK], "kernel", "process_one_work"),
            ([HOST_KERNEL, HOST_LIBC], "host", "(host kernel)"),
            ([GUEST_USER], "user", "(guest user)"),
        ]
        for chain, owner, fn in cases:
            with self.subTest(chain=[hex(c) for c in chain]):
                got = prof.owner_of(chain, self.syms)
                self.assertEqual(got[:2], (owner, fn))

    def test_network_split(self):
        self.assertTrue(prof.in_net([KERNEL_MEMSET, KERNEL_TCP, IW_CM], self.syms))
        self.assertFalse(prof.in_net([KERNEL_MEMSET, IW_CM], self.syms))
        # The network below the owner counts, above it does not.
        self.assertFalse(prof.in_net([KERNEL_MEMSET, IW_CM, KERNEL_TCP], self.syms))

    def test_windows_narrow_to_the_driver_run(self):
        raw = (
            "prof stack=ours round=1 transport=null workload=nsweep conc=1 count=100 "
            "t0=10.000000000 t1=12.000000000\n"
            "res stack=ours round=1 transport=null workload=nsweep conc=1 count=100 kind=rdma "
            "op=connect count=100 start_ns=500 end_ns=900 real_off_ns=10000000000 pass=prof\n"
            "res stack=ours round=1 transport=null workload=nsweep conc=1 count=100 kind=rdma "
            "op=teardown count=100 start_ns=700 end_ns=1500 real_off_ns=10000000000 pass=prof\n"
            "res stack=ours round=1 transport=null workload=nsweep conc=1 count=100 kind=rdma "
            "op=connect count=100 start_ns=1 end_ns=2 real_off_ns=0\n"
            "prof stack=stock round=1 transport=null workload=nids ids=0 conc=16 count=50 "
            "t0=20.5 t1=21.5\n"
        )
        fd, path = tempfile.mkstemp()
        with os.fdopen(fd, "w") as f:
            f.write(raw)
        try:
            wins = prof.windows_from_raw(path)
        finally:
            os.unlink(path)
        self.assertEqual(len(wins), 2)
        w = wins[0]
        self.assertEqual((w["stack"], w["key"], w["count"]), ("ours", "nsweep conc=1", 100))
        self.assertEqual((w["t0"], w["t1"]), (10_000_000_500, 10_000_001_500))
        w = wins[1]
        self.assertEqual((w["stack"], w["key"]), ("stock", "nids ids=0"))
        self.assertEqual((w["t0"], w["t1"]), (20_500_000_000, 21_500_000_000))

    def test_setup_bound(self):
        out = {}
        setup = {"srserial": [30.0, 34.0, 40.0], "tcpserial": [18.0, 20.0, 16.0],
                 "nsweep conc=1": [8.0, 7.0, 9.0]}
        with redirect_stdout(io.StringIO()) as buf:
            prof.print_bound(setup, out)
        self.assertAlmostEqual(out["setup_bound"]["ratio"], 34.0 / 18.0)
        self.assertAlmostEqual(out["setup_bound"]["bound"], (18.0 + 8.0) / 18.0)
        self.assertIn("1.44x", buf.getvalue())

    def test_setup_bound_needs_every_part(self):
        out = {}
        with redirect_stdout(io.StringIO()):
            prof.print_bound({"srserial": [30.0], "tcpserial": []}, out)
        self.assertNotIn("setup_bound", out)

    def test_median(self):
        self.assertEqual(prof.median([3, 1, 2]), 2)
        self.assertEqual(prof.median([4, 1, 2, 3]), 2.5)
        self.assertIsNone(prof.median([]))


class Summary(unittest.TextTestResult):
    """Prints FAIL lines for the harness."""

    def addFailure(self, test, err):
        super().addFailure(test, err)
        print(f"FAIL {test.id()}")

    def addError(self, test, err):
        super().addError(test, err)
        print(f"FAIL {test.id()} (error)")


def run(*cases):
    """Run the TestCase classes @cases; print "N passed, N failed" last."""
    suite = unittest.TestSuite(unittest.defaultTestLoader.loadTestsFromTestCase(c) for c in cases)
    result = unittest.TextTestRunner(stream=sys.stdout, verbosity=2,
                                     resultclass=Summary).run(suite)
    failed = len(result.failures) + len(result.errors)
    print(f"{result.testsRun - failed} passed, {failed} failed")
    return 1 if failed else 0


def main():
    return run(ProfileTest)


if __name__ == "__main__":
    sys.exit(main())
