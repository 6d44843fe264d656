#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Unit tests of tools/bench/report.py (no VM): ratios pair the stacks by
round, a round without a successful connection stays in, every round's ratio
is printed, the text quotes this run's figures, the memory rounds cover both
stack orders. `make check` runs it with test_profile.py (step bench-tools,
tools/bench/run_tests.py); the last line is "N passed, N failed"."""
import importlib.util
import os
import re
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("report_mod", os.path.join(HERE, "report.py"))
rep = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(rep)

MS = 1000000  # ns


def serial(t, s, rnd, p50_ms, ok=200, secs=1.0, p99_ms=None):
    """A serial connect result as guest.sh emits it."""
    return ("res stack=%s round=%d transport=%s workload=serial conc=1 threads=1 op=connect "
            "ok=%d fail=%d start_ns=1000 end_ns=%d setup_p50_ns=%s setup_p99_ns=%s"
            % (s, rnd, t, ok, 200 - ok, 1000 + int(secs * 1e9),
               "" if p50_ms is None else int(p50_ms * MS),
               "" if p50_ms is None else int((p99_ms or 2 * p50_ms) * MS)))


def tput(t, s, rnd, n, ok, secs):
    return ("res stack=%s round=%d transport=%s workload=tput count=%d conc=64 threads=4 "
            "op=connect ok=%d fail=%d start_ns=1000 end_ns=%d"
            % (s, rnd, t, n, ok, n - ok, 1000 + int(secs * 1e9)))


def mem(s, rnd, n, slab_kb):
    return ("mem stack=%s round=%d transport=siw what=conn count=%d b_slab_kb=1000 a_slab_kb=%d"
            % (s, rnd, n, 1000 + slab_kb))


def sweep(t, s, rnd, conc, ok, secs, p50_ms=1.0):
    return ("res stack=%s round=%d transport=%s workload=sweep conc=%d threads=4 op=connect "
            "ok=%d fail=0 start_ns=1000 end_ns=%d setup_p50_ns=%d setup_p99_ns=%d"
            % (s, rnd, t, conc, ok, 1000 + int(secs * 1e9), int(p50_ms * MS), int(2 * p50_ms * MS)))


def load(lines):
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write("\n".join(lines) + "\n")
        path = f.name
    try:
        records, _ = rep.read_raw(path)
    finally:
        os.unlink(path)
    metrics, _ = rep.collect(records)
    return records, rep.summarize(metrics)


INFO = ("info kernel=6.12 mem_kb=3000000 cpus=1 rounds=3 serial=200 sweep=1 sweep_count=300 "
        "threads=4 conc=64 counts=1000 ids=10 listeners=5 cmtime_conns=50 cmtime_runs=1 "
        "mem_rounds=2 softrnic=1")


def render_table(records, summary):
    info = next((r for r in records if r["record"] == "info"), {})
    return rep.table(summary, info, {}, [], [], [], 0, [], records)


class ReportTest(unittest.TestCase):
    def test_pairs_by_round_not_by_position(self):
        # Ours has no value in round 2: by position, ours' round 3 would be
        # divided by stock's round 2.
        _, s = load([serial("siw", "stock", 1, 1.0), serial("siw", "stock", 2, 4.0),
                     serial("siw", "stock", 3, 2.0),
                     serial("siw", "ours", 1, 0.5), serial("siw", "ours", 2, None, ok=0),
                     serial("siw", "ours", 3, 1.0)])
        rr = rep.round_ratios(s, "siw", "serial.setup_p50_ms")
        self.assertEqual(sorted(rr), [1, 2, 3])
        self.assertAlmostEqual(rr[1], 0.5)
        self.assertIsNone(rr[2])
        self.assertAlmostEqual(rr[3], 0.5)
        # The headline ratio is the median of the paired rounds (0.5), not
        # median(ours) / median(stock) = 0.75 / 2.0.
        self.assertAlmostEqual(s["siw"]["ratio_ours_stock"]["serial.setup_p50_ms"], 0.5)
        self.assertEqual(s["siw"]["unpaired_rounds"]["serial.setup_p50_ms"], [2])

    def test_round_without_success_stays_in(self):
        # No successful connection on ours in round 2: 0 conn/s, not a
        # round that only stock has.
        lines = []
        for rnd in (1, 2, 3):
            lines.append(tput("siw", "stock", rnd, 1000, 1000, 1.0))
            lines.append(tput("siw", "ours", rnd, 1000, 0 if rnd == 2 else 1000, 0.5))
        _, s = load(lines)
        v = s["siw"]["ours"]["tput1000.cps"]
        self.assertEqual(v["n"], 3)
        self.assertEqual(v["rounds"], [1, 2, 3])
        self.assertEqual(v["values"][1], 0.0)
        rr = rep.round_ratios(s, "siw", "tput1000.cps")
        self.assertEqual([rr[k] for k in (1, 2, 3)], [2.0, 0.0, 2.0])
        self.assertNotIn("tput1000.cps", s["siw"]["unpaired_rounds"])

    def test_every_round_printed(self):
        self.assertEqual(rep.spread({3: 1.5, 1: 0.25, 2: None}), "0.25 - 1.50")
        self.assertEqual(rep.spread({}), "-")
        lines = [INFO]
        for rnd, (a, b) in enumerate(((1.0, 0.5), (1.0, 2.0), (2.0, 1.0)), 1):
            lines += [serial("siw", "stock", rnd, a), serial("siw", "ours", rnd, b)]
        records, s = load(lines)
        text = render_table(records, s)
        m = re.search(r"siw ours/stock per round: .*setup p50 ([0-9. -]+);", text)
        self.assertTrue(m, text)
        self.assertEqual(m.group(1).strip(), "0.50 2.00 0.50")

    def test_unpaired_round_reported(self):
        lines = [INFO, serial("siw", "stock", 1, 1.0), serial("siw", "stock", 2, 1.0),
                 serial("siw", "ours", 1, 1.0)]
        records, s = load(lines)
        text = render_table(records, s)
        self.assertIn("unpaired: siw serial.setup_p50_ms: round(s) 2", text)

    def test_memory_every_round(self):
        # Round 1 runs stock first, round 2 ours first: both rounds' ratios.
        lines = [INFO, mem("stock", 1, 1000, 10000), mem("ours", 1, 1000, 8000),
                 mem("ours", 2, 1000, 12000), mem("stock", 2, 1000, 10000)]
        lines += [tput("siw", st, rnd, 1000, 1000, 1.0) for st in ("stock", "ours") for rnd in (1, 2)]
        records, s = load(lines)
        rr = rep.round_ratios(s, "siw", "mem.conn1000.slab_kb_per_connection")
        self.assertAlmostEqual(rr[1], 0.8)
        self.assertAlmostEqual(rr[2], 1.2)
        text = render_table(records, s)
        row = next(l for l in text.splitlines() if l.startswith("per connection (1000 held)"))
        self.assertIn("0.80 1.20", row)
        self.assertIn("from the first 2 round(s)", text)

    def test_floor_text_is_measured(self):
        # siw at 3x its TCP floor in this run: the text says so, no fixed figure.
        lines = [INFO]
        for rnd in (1, 2):
            lines += [serial("siw", "ours", rnd, 3.0), serial("tcp", "ours", rnd, 1.0),
                      serial("softrnic", "ours", rnd, 1.2), serial("tcp2", "ours", rnd, 1.0),
                      serial("siw", "stock", rnd, 3.0), serial("tcp", "stock", rnd, 1.0)]
        records, s = load(lines)
        text = render_table(records, s)
        self.assertIn("This run measured siw", text)
        self.assertIn("at 3.00x the floor", text)
        self.assertNotIn("2.4x", text)

    def test_mtu_cost_flat_or_not(self):
        # The verdict is computed from the run: flat in round 1's figures,
        # linear when the 10,000-connection p50 is 20x the 10's.
        def mtu(s, rnd, n, p50_us):
            return ("mtu stack=%s round=%d conns=%d changes=400 p10_ns=1 p50_ns=%d "
                    "p90_ns=%d max_ns=9" % (s, rnd, n, p50_us * 1000, p50_us * 2000))
        for big, want in ((110, "met"), (2000, "not met")):
            lines = [INFO, mtu("ours", 1, 10, 100), mtu("ours", 1, 10000, big),
                     mtu("stock", 1, 10, 90), mtu("stock", 1, 10000, 95)]
            records, s = load(lines)
            text = "\n".join(rep.mtu_section(records))
            row = next(l for l in text.splitlines() if "10000" in l and "ours" in l)
            self.assertTrue(row.rstrip().endswith(want), row)
            self.assertIn("%.1f" % big, row)
        self.assertIn("not measured", "\n".join(rep.mtu_section([])))

    def test_softib_section(self):
        # Ours 2x then 1.2x stock at 64 in flight: the target (1.5x) is met
        # by the median only; softib over rxe pairs the stock slots; SA
        # queries per connection from the "sa" records; softib against rxe
        # from the dp records, nothing else.
        lines = [INFO + " softib=1 softib_sa=200"]
        for rnd, (st, ou) in enumerate(((1.0, 0.5), (1.0, 0.8), (1.0, 0.4)), 1):
            lines += [sweep("softib", "stock", rnd, 64, 300, st),
                      sweep("softib", "ours", rnd, 64, 300, ou),
                      sweep("rxe", "stock", rnd, 64, 300, 0.5),
                      "sa stack=stock round=%d transport=softib conns=200 ok=200 "
                      "pathrecord_queries=200 sa_mads=400" % rnd,
                      "sa stack=ours round=%d transport=softib conns=200 ok=200 "
                      "pathrecord_queries=1 sa_mads=2" % rnd,
                      "dp stack=stock round=%d transport=rxe op=write size=65536 mbps=100" % rnd,
                      "dp stack=stock round=%d transport=softib op=write size=65536 mbps=%d"
                      % (rnd, 150 if rnd != 2 else 90),
                      "dp stack=ours round=%d transport=siw op=write size=65536 mbps=7" % rnd]
        records, s = load(lines)
        tg = rep.softib_targets(s, records)
        r = tg["metrics"]["softib.sweep64.cps_ours_over_stock"]
        self.assertEqual([round(x, 3) for x in r["values"]], [2.0, 1.25, 2.5])
        self.assertEqual(tg["verdicts"]["sweep64.cps_ours_over_stock"], "median met")
        x = tg["metrics"]["softib.sweep64.cps_over_rxe_stock"]
        self.assertEqual([round(v, 3) for v in x["values"]], [0.5, 0.5, 0.5])
        self.assertAlmostEqual(tg["sa"]["stock"]["per_conn"]["median"], 1.0)
        self.assertAlmostEqual(tg["sa"]["ours"]["per_conn"]["median"], 0.005)
        c = tg["datapath"]["cases"]["write.65536"]
        self.assertEqual([round(v, 2) for v in c["ratio"]["values"]], [1.5, 0.9, 1.5])
        text = render_table(records, s)
        self.assertIn("Native InfiniBand over softib", text)
        self.assertRegex(text, r"\n64 +300 +600 +2\.00x +2\.00x +2\.00 1\.25 2\.50 +>= 1\.5x: median met")
        self.assertRegex(text, r"\nours +200 +1 +0\.005 ")
        self.assertRegex(text, r"RDMA WRITE 64 KiB +MB/s +100 +150 +1\.50x +1\.50 0\.90 1\.50 +median met")
        # Without softib records the section says why.
        records, s = load([INFO + " softib=0"])
        self.assertRegex(render_table(records, s),
                         r"Native InfiniBand over softib: .*: not run: ORCM_BENCH_SOFTIB=0")

    def test_storm_ratios_by_round_and_mads(self):
        def storm(s, rnd, ms, ok=1000, mads=3000, resends=0, t="rxe"):
            return ("storm stack=%s round=%d transport=%s conns=1000 ok=%d ms=%d mads=%d "
                    "resends=%d sa_queries=-" % (s, rnd, t, ok, ms, mads, resends))
        lines = [INFO,
                 storm("stock", 1, 6000, mads=3300, resends=300), storm("ours", 1, 2000),
                 storm("stock", 2, 5000), storm("ours", 2, 2500, ok=999, mads=2997),
                 storm("stock", 3, 4000), storm("ours", 3, 1000),
                 "deadpeer stack=stock round=1 timers=default ms=70000 fail=1 err=unreachable:-110",
                 "deadpeer stack=ours round=1 timers=default ms=69000 fail=1 err=unreachable:-110",
                 "deadpeer stack=ours round=1 timers=tuned ms=2100 fail=1 err=unreachable:-110"]
        records, s = load(lines)
        tg = rep.storm_targets(records)["rxe"]
        # Round 2: ours lost a connection, so that round has no ratio.
        self.assertEqual(tg["speedup_stock_over_ours"], {1: 3.0, 2: None, 3: 4.0})
        self.assertTrue(tg["speedup_met"])
        self.assertAlmostEqual(tg["mads_per_conn"]["stock"][1], 3.3)
        self.assertAlmostEqual(tg["mads_per_conn"]["ours"][2], 3.0)
        self.assertTrue(tg["mads_met"])
        text = render_table(records, s)
        self.assertIn("rxe: stock time / ours per round: 3.00 - 4.00 (median 3.50x; "
                      "target >= 2x: met); ours <= 3 CM MADs a connection: met", text)
        self.assertRegex(text, r"\nrxe +stock +1000 +5000 +6000 5000 4000 +1000 1000 1000 "
                               r"+3\.30 3\.00 3\.00 +300 0 0 ")
        self.assertRegex(text, r"\ntuned +stock +n/a ")
        self.assertIn("<= 5000 ms: met", text)
        # One slow ours round fails the target: the minimum counts.
        records, _ = load([storm("stock", 1, 3000), storm("ours", 1, 2000)])
        self.assertFalse(rep.storm_targets(records)["rxe"]["speedup_met"])
        records, s = load([INFO])
        self.assertIn("Reconnect storm: N connections held, torn down at once, opened again "
                      "at once (all in flight): not measured", render_table(records, s))

    def test_guest_alternates_and_measures_memory_in_both_orders(self):
        with open(os.path.join(HERE, "guest.sh"), encoding="utf-8") as f:
            g = f.read()
        mem_rounds = int(re.search(r'ORCM_BENCH_MEM_ROUNDS:=(\d+)', g).group(1))
        self.assertGreaterEqual(mem_rounds, 2)
        self.assertEqual(mem_rounds % 2, 0)
        self.assertIn('[ $((ROUND % 2)) -eq 1 ] || order="ours stock"', g)


def main():
    sys.path.insert(0, HERE)
    import test_profile  # pylint: disable=import-outside-toplevel

    return test_profile.run(ReportTest)


if __name__ == "__main__":
    sys.exit(main())
