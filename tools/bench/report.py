#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn the benchmark VM's @@BENCH records into the report.

    report.py --raw build/bench/raw.txt --out build/bench [--gnuplot plot.gp]
              [--kconfig kernel.config]

Writes OUT/results.json (everything, schema "openrdma-cm/bench/v1"),
OUT/results.csv (the summary, one metric per row), OUT/table.txt (printed
too), OUT/sweep.dat and, with gnuplot, OUT/plot.png.

Each round runs the same workloads on both stacks, stock first in odd rounds
and ours first in even ones; every summary value is the median over the
rounds (min and max are kept too, and the round of each value). A ratio
ours/stock pairs the two stacks' values of the same round, never by position;
a round that has a value on one stack only is shown as such ("-"), and every
round's ratio is printed.
"""
import argparse
import csv
import datetime
import json
import os
import statistics
import subprocess
import sys

SCHEMA = "openrdma-cm/bench/v1"
STACKS = ("stock", "ours")
# Kernel TCP floors: "tcp" on the siw pair, "tcp2" on softrnic's pair.
TCP_TRANSPORTS = ("tcp", "tcp2")
NA_SOFTRNIC = "n/a (softrnic.ko needs our iw_cm)"
# The targets for softrnic, the host-stack model, on our stack.
SR_FLOOR_TARGET = 1.3          # serial setup p50 <= 1.3x the TCP floor (siw: 2.4x)
SR_CPS_TARGET = 1.5            # conn/s >= 1.5x siw's ...
SR_CPS_TARGET_AT = (64, 256)   # ... at these many connections in flight
# Our iw_cm's defaults for the MPA offer (iw_cm/host.c), as sysfs shows them.
IWCM_DEFAULTS = {"mpa_rev": "2", "crc": "N", "markers": "N", "peer2peer": "Y", "p2p_type": "2"}


def parse_kv(tokens):
    rec = {}
    for tok in tokens:
        if "=" not in tok:
            continue
        k, v = tok.split("=", 1)
        rec[k] = v
    return rec


def num(v):
    try:
        return int(v)
    except (TypeError, ValueError):
        try:
            return float(v)
        except (TypeError, ValueError):
            return v


def read_raw(path):
    records, kmemleak_lines = [], []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line:
                continue
            kind, _, rest = line.partition(" ")
            if kind == "kmemleak-line":
                kmemleak_lines.append(rest)
                continue
            rec = {k: num(v) for k, v in parse_kv(rest.split()).items()}
            rec["record"] = kind
            # The profiled pass of the null runs (ORCM_BENCH_PERF) is
            # tools/bench/profile.py's: not accounted, not in these tables.
            if rec.get("pass") == "prof" or kind == "prof":
                continue
            records.append(rec)
    return records, kmemleak_lines


class Series:
    """Values of one metric over the rounds, each with its round."""

    def __init__(self):
        self.values = []
        self.rounds = []

    def add(self, v, rnd=None):
        if v is not None:
            self.values.append(v)
            self.rounds.append(rnd)

    def summary(self):
        if not self.values:
            return None
        return {
            "median": statistics.median(self.values),
            "min": min(self.values),
            "max": max(self.values),
            "n": len(self.values),
            "values": self.values,
            "rounds": self.rounds,
        }


def ms(ns):
    return None if ns in (None, "") else ns / 1e6


def rate(count, start, end):
    """Per second; a run that made none is 0, not "no value" (a round with
    no successful connection must not drop out of one stack's figures)."""
    if count == 0 and isinstance(count, int):
        return 0.0
    if not count or not start or not end or end <= start:
        return None
    return count / ((end - start) / 1e9)


def null_key(r):
    """The metric prefix of a null run's record (res or acct)."""
    w = r.get("workload")
    if w == "nsweep":
        return "nsweep%d" % r["conc"]
    if w == "nids":
        return "nids%d" % r["ids"]
    if w == "nlisten":
        return "nlisten%d" % r["listeners"]
    if w == "nfloor":
        return "nfloor"
    return None


# cm_acct.ko's categories and the CM's phases (tests/bench/cm_acct.h).
ACCT_CATS = ("cm", "driver", "consumer", "wq", "idle", "other")
ACCT_PHASES = (("create_id", "active: rdma_create_id()"),
               ("addr", "active: resolve address"),
               ("route", "active: resolve route"),
               ("qp", "active: rdma_create_qp()"),
               ("connect", "active: connect -> ESTABLISHED"),
               ("disconnect", "active: disconnect -> DISCONNECTED"),
               ("destroy", "active: destroy QP + id"),
               ("request", "passive: CONNECT_REQUEST upcall"),
               ("accept", "passive: create QP, accept -> ESTABLISHED"),
               ("passive_down", "passive: DISCONNECT upcall, destroy"),
               ("async", "CM work of unknown origin"),
               ("other", "other CM calls"))
TARGET = 0.5    # issue 15: the CM's own time <= 0.5x stock's


def probe_ns(r, ph):
    """cm_acct's probes' own time charged to the CM in phase @ph of record @r."""
    return (r.get("cm_%s_segs" % ph, 0) * r.get("probe_seg_ns", 0)
            + r.get("cm_%s_queues" % ph, 0) * r.get("probe_queue_ns", 0)
            + r.get("cm_%s_allocs" % ph, 0) * r.get("probe_alloc_ns", 0))


def collect(records):
    """metrics[transport][stack][metric] -> Series; units[metric] -> unit."""
    metrics, units = {}, {}

    def put(transport, stack, metric, value, unit):
        if value is None:
            return
        rnd = r.get("round")
        units[metric] = unit
        stacks = [stack]
        if transport in TCP_TRANSPORTS:
            # Kernel TCP does not depend on the RDMA stack: it is measured
            # in every slot, and the floor pools all of them ("all").
            stacks.append("all")
        for st in stacks:
            (metrics.setdefault(transport, {}).setdefault(st, {})
             .setdefault(metric, Series()).add(value, rnd))

    for r in records:
        t, s = r.get("transport"), r.get("stack")
        if r["record"] == "acct":
            key = null_key(r)
            n = r.get("count")
            if key and n:
                for cat in ACCT_CATS + ("wall",):
                    put(t, s, "%s.acct_%s_us" % (key, cat), r.get(cat + "_ns", 0) / n / 1e3, "us")
                allocs = locks = probe = 0
                for ph, _ in ACCT_PHASES:
                    ns = r.get("cm_%s_ns" % ph, 0)
                    put(t, s, "%s.acct_cm_%s_us" % (key, ph), ns / n / 1e3, "us")
                    for c in ("allocs", "locks"):
                        put(t, s, "%s.acct_cm_%s_%s_per_conn" % (key, ph, c),
                            r.get("cm_%s_%s" % (ph, c), 0) / n, "count")
                    allocs += r.get("cm_%s_allocs" % ph, 0)
                    locks += r.get("cm_%s_locks" % ph, 0)
                    if "probe_seg_ns" in r:
                        # The instrument's own cost in the CM's figure (cm_acct.c).
                        p = probe_ns(r, ph)
                        probe += p
                        put(t, s, "%s.acct_cmnet_%s_us" % (key, ph), max(ns - p, 0) / n / 1e3,
                            "us")
                if "probe_seg_ns" in r:
                    put(t, s, "%s.acct_probe_us" % key, probe / n / 1e3, "us")
                    put(t, s, "%s.acct_cmnet_us" % key, max(r.get("cm_ns", 0) - probe, 0) / n / 1e3,
                        "us")
                put(t, s, "%s.acct_cm_allocs_per_conn" % key, allocs / n, "count")
                put(t, s, "%s.acct_cm_locks_per_conn" % key, locks / n, "count")
                for f in ("cm_works", "driver_works"):
                    put(t, s, "%s.acct_%s_per_conn" % (key, f), r.get(f, 0) / n, "count")
            continue
        if r["record"] == "res":
            w = r.get("workload")
            op = r.get("op")
            if w == "serial":
                key = "serial"
            elif w == "sweep":
                key = "sweep%d" % r["conc"]
            elif w == "tput":
                key = "tput%d" % r["count"]
            elif w == "ids":
                key = "ids"
            elif w == "nsweep":
                key = "nsweep%d" % r["conc"]
            elif w == "nids":
                key = "nids%d" % r["ids"]
            elif w == "nlisten":
                key = "nlisten%d" % r["listeners"]
            elif w in ("nstorm", "nbacklog"):
                key = w
            else:
                continue
            if op in ("connect", "resolve"):
                cps = rate(r.get("ok"), r.get("start_ns"), r.get("end_ns"))
                put(t, s, key + ".cps", cps, "conn/s")
                if t == "null" and cps:
                    # The CM's time per connection at this concurrency.
                    put(t, s, key + ".us_per_conn", 1e6 / cps, "us")
                put(t, s, key + ".setup_p50_ms", ms(r.get("setup_p50_ns")), "ms")
                put(t, s, key + ".setup_p99_ms", ms(r.get("setup_p99_ns")), "ms")
                put(t, s, key + ".fail", r.get("fail"), "count")
                if t not in TCP_TRANSPORTS and op == "connect":
                    for ph in ("addr", "route", "qp", "connect", "connect_call"):
                        put(t, s, "%s.%s_p50_ms" % (key, ph),
                            ms(r.get(ph + "_p50_ns")), "ms")
                    # The rdma_connect() call itself (older records: p50 only).
                    put(t, s, key + ".connect_call_p99_ms", ms(r.get("connect_call_p99_ns")),
                        "ms")
                    # Share of the calls in which the caller slept (waited) or
                    # was only preempted (not in older records).
                    for ev in ("slept", "preempted"):
                        n = r.get("connect_call_" + ev)
                        if isinstance(n, int) and r.get("ok"):
                            put(t, s, "%s.connect_call_%s_pct" % (key, ev),
                                100.0 * n / r["ok"], "%")
                if t in TCP_TRANSPORTS:
                    put(t, s, key + ".tcp_connect_p50_ms", ms(r.get("connect_p50_ns")), "ms")
                    put(t, s, key + ".teardown_p50_ms", ms(r.get("down_p50_ns")), "ms")
            elif op == "teardown":
                put(t, s, key + ".teardown_p50_ms", ms(r.get("down_p50_ns")), "ms")
                put(t, s, key + ".teardown_p99_ms", ms(r.get("down_p99_ns")), "ms")
                put(t, s, key + ".teardown_per_s",
                    rate(r.get("ok", 0) + r.get("forced", 0), r.get("start_ns"),
                         r.get("end_ns")), "conn/s")
                put(t, s, key + ".teardown_forced", r.get("forced"), "count")
        elif r["record"] == "mem":
            what, n = r.get("what"), r.get("count")
            if not n:
                continue
            unit_of = {"conn": "connection", "id": "id", "listen": "listener"}[what]
            key = "mem.%s%s" % (what, n if what == "conn" else "")
            for field, name in (("slab_kb", "slab"), ("sunreclaim_kb", "sunreclaim"),
                                ("vmalloc_kb", "vmalloc"), ("dbgslab_kb", "dbgslab")):
                b, a = r.get("b_" + field), r.get("a_" + field)
                if b is None or a is None:
                    continue
                put(t, s, "%s.%s_kb_per_%s" % (key, name, unit_of), (a - b) / n,
                    "kB/" + unit_of)
            b, a = r.get("b_memfree_kb"), r.get("a_memfree_kb")
            if b is not None and a is not None:
                put(t, s, "%s.total_kb_per_%s" % (key, unit_of), (b - a) / n,
                    "kB/" + unit_of)
            b, a = r.get("b_slab_kb"), r.get("a_slab_kb")
            db, da = r.get("b_dbgslab_kb"), r.get("a_dbgslab_kb")
            if None not in (a, b, da, db):
                put(t, s, "%s.slab_nodebug_kb_per_%s" % (key, unit_of),
                    ((a - b) - (da - db)) / n, "kB/" + unit_of)
        elif r["record"] == "cmtime":
            steps = ("create_id", "resolve_addr", "resolve_route", "create_qp", "connect")
            setup_ms = [r.get(st + "_ms") for st in steps]
            for st in steps + ("disconnect", "destroy"):
                put(t, s, "cmtime.%s_us_per_conn" % st, r.get(st + "_us_per_conn"), "us")
            if all(isinstance(v, (int, float)) for v in setup_ms):
                good = r.get("conns", 0) - r.get("fails", 0)
                put(t, s, "cmtime.setup_cps", good / (sum(setup_ms) / 1e3), "conn/s")
                put(t, s, "cmtime.connect_us_per_conn_ok",
                    r.get("connect_ms") * 1e3 / good if good else None, "us")
            put(t, s, "cmtime.fails", r.get("fails"), "count")
    return metrics, units


def summarize(metrics):
    out = {}
    for t, stacks in metrics.items():
        out[t] = {}
        for s, ms_ in stacks.items():
            out[t][s] = {m: ser.summary() for m, ser in sorted(ms_.items())}
        if all(s in stacks for s in STACKS):
            # ours/stock: the median of the per-round ratios, each round's
            # two values paired; rounds with a value on one stack only are
            # listed (by metric) instead of silently left out.
            ratio, unpaired = {}, {}
            for m in sorted(set(out[t]["stock"]) | set(out[t]["ours"])):
                per = pair_rounds(by_round(out[t]["ours"].get(m)), by_round(out[t]["stock"].get(m)))
                vals = [v for v in per.values() if v is not None]
                if vals:
                    ratio[m] = statistics.median(vals)
                one = [rnd for rnd in per
                       if (rnd in by_round(out[t]["ours"].get(m)))
                       != (rnd in by_round(out[t]["stock"].get(m)))]
                if one:
                    unpaired[m] = one
            out[t]["ratio_ours_stock"] = ratio
            out[t]["unpaired_rounds"] = unpaired
    return out


def med(summary, t, s, m):
    v = summary.get(t, {}).get(s, {}).get(m)
    return v["median"] if v else None


def fmt(v, spec="%.2f", na="-"):
    if v is None:
        return na
    if isinstance(v, str):
        return v
    return spec % v


def big_count(summary):
    """The counts of the throughput runs, as run (the 10k one may be capped)."""
    counts = set()
    for t in summary.values():
        for s in t.values():
            for m in s:
                if m.startswith("tput") and m.endswith(".cps"):
                    counts.add(int(m[4:].split(".")[0]))
    return sorted(counts)


def kconfig_flags(path):
    flags = []
    if not path or not os.path.exists(path):
        return flags
    want = ("CONFIG_KASAN", "CONFIG_PROVE_LOCKING", "CONFIG_DEBUG_KMEMLEAK",
            "CONFIG_DEBUG_OBJECTS", "CONFIG_DEBUG_LIST", "CONFIG_KASAN_VMALLOC")
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line.split("=")[0] in want and line.endswith("=y"):
                flags.append(line.split("=")[0])
    return flags


def by_round(v):
    """{round: value} of a Series summary (None: {})."""
    if not v:
        return {}
    return dict(zip(v.get("rounds") or range(1, len(v["values"]) + 1), v["values"]))


def round_key(rnd):
    return (0, rnd) if isinstance(rnd, (int, float)) else (1, str(rnd))


def pair_rounds(a, b):
    """{round: a/b} over every round either has: None where one has no value
    (or b is 0). a and b are {round: value}."""
    out = {}
    for rnd in sorted(set(a) | set(b), key=round_key):
        x, y = a.get(rnd), b.get(rnd)
        out[rnd] = x / y if x is not None and y else None
    return out


def round_ratios(summary, t, m):
    """ours/stock of metric @m, round by round: {round: ratio or None}."""
    return pair_rounds(by_round(summary.get(t, {}).get("ours", {}).get(m)),
                       by_round(summary.get(t, {}).get("stock", {}).get(m)))


def spread(rs, spec="%.2f"):
    """Every round's ratio, in round order ("-": a round with a value on one
    side only). @rs: {round: ratio or None}, or a plain list of ratios."""
    if not rs:
        return "-"
    if not isinstance(rs, dict):
        rs = dict(enumerate(rs, 1))
    return " ".join(fmt(rs[k], spec) for k in sorted(rs, key=round_key))


NULL_NOTE = ("null RNIC (tests/bench/null_rnic.ko): an iWARP device that connects at once, no TCP\n"
             "  and no MPA, so a connection costs rdma_cm + iw_cm + ib_core's verbs; the provider's\n"
             "  share (one ordered workqueue hop per event) is the same for both stacks. us/conn =\n"
             "  wall time of the run / connections, active and passive side together (both ends\n"
             "  run in this one kernel): the CM plus ib_core's verbs, the null RNIC, cm_bench and\n"
             "  the workqueue hops; the CM's own share is in the next table.")


def null_section(summary, records=()):
    L = []
    add = L.append
    if "null" not in summary:
        return L
    add("The CM alone: time per connection over the null RNIC (lower is better)")
    keys = sorted({m.split(".")[0] for s in ("stock", "ours")
                   for m in summary["null"].get(s, {})})

    def label(k):
        if k.startswith("nsweep"):
            return "%s in flight" % k[6:]
        if k.startswith("nids"):
            return "+%s live ids" % k[4:]
        return "%s listeners" % k[7:]

    keys = [k for k in keys if k not in ("nstorm", "nbacklog", "nfloor")]
    order = []
    for pref in ("nsweep", "nids", "nlisten"):
        order += sorted((k for k in keys if k.startswith(pref)),
                        key=lambda k, n=len(pref): int(k[n:]))
    rows = [["workload", "stock us/conn", "ours us/conn", "ours/stock", "per round",
             "stock setup p50 us", "ours setup p50 us", "fail (ours)"]]
    for k in order:
        m = k + ".us_per_conn"
        a = med(summary, "null", "stock", m)
        b = med(summary, "null", "ours", m)
        pa = med(summary, "null", "stock", k + ".setup_p50_ms")
        pb = med(summary, "null", "ours", k + ".setup_p50_ms")
        rt = summary["null"].get("ratio_ours_stock", {}).get(m)
        rows.append([label(k), fmt(a, "%.0f"), fmt(b, "%.0f"), fmt(rt, "%.2fx"),
                     spread(round_ratios(summary, "null", m)),
                     fmt(pa * 1e3 if pa else None, "%.0f"), fmt(pb * 1e3 if pb else None, "%.0f"),
                     fmt(med(summary, "null", "ours", k + ".fail"), "%.0f")])
    add(render(rows))
    # Phases at the lowest concurrency.
    sw = [k for k in order if k.startswith("nsweep")]
    if sw:
        k = sw[0]
        rows = [["phase (p50, %s in flight)" % k[6:], "stock us", "ours us", "ours/stock", "per round"]]
        for ph, name in (("addr", "resolve address"), ("route", "resolve route"),
                         ("qp", "create QP"), ("connect", "connect -> ESTABLISHED")):
            m = "%s.%s_p50_ms" % (k, ph)
            a = med(summary, "null", "stock", m)
            b = med(summary, "null", "ours", m)
            rt = summary["null"].get("ratio_ours_stock", {}).get(m)
            rows.append([name, fmt(a * 1e3 if a else None, "%.0f"),
                         fmt(b * 1e3 if b else None, "%.0f"), fmt(rt, "%.2fx"),
                         spread(round_ratios(summary, "null", m))])
        add("")
        add(render(rows))
    # Growth with scale, per stack.
    growth = []
    for base, pref in (("nids0", "nids"), ("nlisten1", "nlisten")):
        big = [k for k in order if k.startswith(pref) and k != base]
        for s in ("stock", "ours"):
            b0 = med(summary, "null", s, base + ".us_per_conn")
            for k in big:
                v = med(summary, "null", s, k + ".us_per_conn")
                if b0 and v:
                    growth.append("%s %s: %.2fx" % (s, label(k), v / b0))
    if growth:
        add("  Growth of us/conn against no other ids / one listener: " + ", ".join(growth))
    storm = []
    for k, what in (("nstorm", "5000 at 256 in flight"),
                    ("nbacklog", "1000 at 256 in flight, listener backlog 8")):
        for s in ("stock", "ours"):
            blk = summary["null"].get(s, {})
            ok = blk.get(k + ".cps")
            fail = blk.get(k + ".fail")
            if ok or fail:
                storm.append("%s %s: %s failed (max over rounds)" % (
                    s, what, fmt(fail["max"] if fail else None, "%.0f")))
    if storm:
        add("  Storms: " + "; ".join(storm))
    add("  " + NULL_NOTE)
    add("")
    acct = acct_section(summary, order, label)
    if acct:
        L.extend(acct)
        if sw:
            L.extend(acct_profile(records, sw[0]))
        add("")
    return L


ACCT_NOTE = (
    "CM own = CPU time spent in rdma_cm/iw_cm/ib_core code on behalf of the connections\n"
    "  (cm_acct.ko: per-task regions charged at every region change and context switch; the\n"
    "  null RNIC's ops and event queue and cm_bench's own code, handlers and PD/CQ verbs are\n"
    "  subtracted as nested regions; waiting costs no CPU and is not counted), / connections,\n"
    "  active and passive side together, from the first rdma_create_id() until the server has\n"
    "  destroyed its last id. drv+cons: the driver's and the consumer's CPU time per connection.\n"
    "  wq/conn: work items the CM ran per connection; hop us: worker threads' time between work\n"
    "  items (all queues, the CM's, the driver's, the consumer's; not in CM own) per connection;\n"
    "  alloc/conn, locks/conn: slab allocations and lockdep-tracked lock acquisitions (spinlocks,\n"
    "  mutexes, RCU read sections; counted with ORCM_BENCH_ACCT_LOCKS=1 only, whose probe\n"
    "  slows every lock) in CM regions. s/o: stock/ours. probes: cm_acct's own probes' time that\n"
    "  lands in CM regions (each stretch charged to the CM is bounded by two probe calls, and a\n"
    "  queue_work or allocation probe inside a CM region is charged to it whole): stretches x\n"
    "  the cost of one stretch's edges + probes x theirs, each calibrated when accounting starts\n"
    "  (the least of 5 batches of 2048, warm caches: it errs small). net = CM own - probes, the\n"
    "  CM's code alone; the target is judged on net.")


def acct_section(summary, keys, label):
    """The CM's own CPU time per connection, per workload and per phase."""
    L = []
    add = L.append
    null = summary.get("null", {})
    rt = null.get("ratio_ours_stock", {})
    keys = [k for k in keys if med(summary, "null", "ours", k + ".acct_cm_us") is not None
            or med(summary, "null", "stock", k + ".acct_cm_us") is not None]
    if not keys:
        return L
    add("The CM's own CPU time per connection over the null RNIC (lower is better; target <= %.1fx)"
        % TARGET)
    rows = [["workload", "stock CM us", "ours CM us", "ours/stock", "per round", "probes us s/o",
             "net s/o", "net ratio", "net per round", "target", "drv+cons us s/o", "wq/conn s/o",
             "hop us s/o", "alloc/conn s/o", "locks/conn s/o"]]

    def pair(k, m, spec):
        return "%s/%s" % (fmt(med(summary, "null", "stock", k + m), spec),
                          fmt(med(summary, "null", "ours", k + m), spec))

    for k in keys:
        m = k + ".acct_cm_us"
        r = rt.get(m)
        rs = round_ratios(summary, "null", m)
        mn = k + ".acct_cmnet_us"
        rn = rt.get(mn)
        rns = round_ratios(summary, "null", mn)
        # The target is judged on the CM's time without the instrument's.
        tr, trs = (rn, rns) if rn is not None else (r, rs)
        met = "-" if tr is None else ("met" if trs and max(trs) <= TARGET else
                                      "median met" if tr <= TARGET else "not met")
        dc = []
        for st in ("stock", "ours"):
            a = med(summary, "null", st, k + ".acct_driver_us")
            b = med(summary, "null", st, k + ".acct_consumer_us")
            dc.append(fmt(a + b if a is not None and b is not None else None, "%.0f"))
        rows.append([label(k), fmt(med(summary, "null", "stock", m), "%.0f"),
                     fmt(med(summary, "null", "ours", m), "%.0f"), fmt(r, "%.2fx"), spread(rs),
                     pair(k, ".acct_probe_us", "%.1f"), pair(k, ".acct_cmnet_us", "%.1f"),
                     fmt(rn, "%.2fx"), spread(rns),
                     met, "/".join(dc), pair(k, ".acct_cm_works_per_conn", "%.1f"),
                     pair(k, ".acct_wq_us", "%.0f"),
                     pair(k, ".acct_cm_allocs_per_conn", "%.0f"),
                     pair(k, ".acct_cm_locks_per_conn", "%.0f")])
    add(render(rows))
    L.extend(floor_section(summary, keys, label))
    sw = [k for k in keys if k.startswith("nsweep")]
    if sw:
        hdr = ["CM phase (%s in flight)" % sw[0][6:], "stock us", "ours us", "ours/stock",
               "per round", "net s/o", "net ratio", "net per round"] + [
                   "net @%s" % k[6:] for k in sw[1:]] + ["allocs s/o", "locks s/o"]
        rows = [hdr]

        def phase_row(name, gross, net, extra):
            return ([name, fmt(med(summary, "null", "stock", gross), "%.1f"),
                     fmt(med(summary, "null", "ours", gross), "%.1f"), fmt(rt.get(gross), "%.2fx"),
                     spread(round_ratios(summary, "null", gross)),
                     pair("", net, "%.1f"), fmt(rt.get(net), "%.2fx"),
                     spread(round_ratios(summary, "null", net))]
                    + [fmt(rt.get(k + net[len(sw[0]):]), "%.2fx") for k in sw[1:]]
                    + [pair(sw[0], extra % "allocs", "%.1f"), pair(sw[0], extra % "locks", "%.0f")])

        for ph, name in ACCT_PHASES:
            m = "%s.acct_cm_%s_us" % (sw[0], ph)
            if not med(summary, "null", "stock", m) and not med(summary, "null", "ours", m):
                continue
            rows.append(phase_row(name, m, "%s.acct_cmnet_%s_us" % (sw[0], ph),
                                  ".acct_cm_%s_%%s_per_conn" % ph))
        rows.append(phase_row("total", "%s.acct_cm_us" % sw[0], "%s.acct_cmnet_us" % sw[0],
                              ".acct_cm_%s_per_conn"))
        add("")
        add(render(rows))
    add("  " + ACCT_NOTE)
    return L


FLOOR_NOTE = (
    "floor: tests/bench/cm_floor.ko, one connection's generic kernel work done without a CM and\n"
    "  accounted like one (net of probes; the stack's own slots): the public part of its four\n"
    "  ids (2 rdma_cm_id, 2 iw_cm_id) allocated and freed, a port taken and given back, one route\n"
    "  lookup, the two QPs created, moved to INIT and to ERR and destroyed through ib_core (the\n"
    "  null RNIC's ops not counted), 8 events queued to a worker, 10 rounds of a handler lock.\n"
    "  No CM can cost less (both CMs do all of it and more: restrack, private data, state), so\n"
    "  floor/stock is the lowest ours/stock any CM could reach; above floor: (ours - floor) /\n"
    "  (stock - floor), the ratio of what the CMs' own designs add to it; 0.5x needs: the share\n"
    "  of stock's cost above the floor that a CM may keep to be at 0.5x stock.")


def floor_section(summary, keys, label):
    """The CM's time against a floor no CM goes below (cm_floor.ko)."""
    fs = med(summary, "null", "stock", "nfloor.acct_cmnet_us")
    fo = med(summary, "null", "ours", "nfloor.acct_cmnet_us")
    if fs is None or fo is None:
        return []
    rows = [["workload", "stock net us", "ours net us", "floor s/o", "floor/stock",
             "above floor s/o", "above-floor ratio", "0.5x needs"]]
    for k in keys:
        a = med(summary, "null", "stock", k + ".acct_cmnet_us")
        b = med(summary, "null", "ours", k + ".acct_cmnet_us")
        if not a or not b:
            continue
        need = (TARGET * a - fo) / (a - fs) if a > fs else None
        rows.append([label(k), fmt(a, "%.1f"), fmt(b, "%.1f"), "%.1f/%.1f" % (fs, fo),
                     fmt(fo / a, "%.2fx"), "%.1f/%.1f" % (a - fs, b - fo),
                     fmt((b - fo) / (a - fs) if a > fs else None, "%.2fx"),
                     fmt(need, "%.2fx")])
    return ["", "The CM's own time against its floor (medians over rounds)", render(rows),
            "  " + FLOOR_NOTE]


def acct_profile(records, key_want):
    """Where the CM's work items spend their time: the median run of each stack."""
    L = []
    for st in STACKS:
        runs = [r for r in records if r["record"] == "acct" and r.get("stack") == st
                and null_key(r) == key_want and r.get("count")]
        if not runs:
            continue
        runs.sort(key=lambda r: r.get("cm_ns", 0))
        r = runs[len(runs) // 2]
        n = r["count"]
        fns = []
        for f in str(r.get("fns", "")).split(","):
            parts = f.rsplit(":", 3)
            if len(parts) == 4 and parts[1] == "cm":
                fns.append((int(parts[2]) / n / 1e3, int(parts[3]) / n, parts[0].replace("@", " ")))
        fns.sort(reverse=True)
        L.append("  %s, round %s: CM work items per connection (us, count): %s" % (
            st, r.get("round"), "; ".join("%s %.1f us x%.2f" % (name, us, c)
                                          for us, c, name in fns[:8]) or "none"))
    return L


def write_scaling(summary, path):
    """Scaling data: x, then median/min/max us/conn stock, ours; ids then listeners."""
    null = summary.get("null", {})
    rows = []
    for pref, kind in (("nids", 0), ("nlisten", 1)):
        xs = sorted({int(m.split(".")[0][len(pref):]) for s in ("stock", "ours")
                     for m in null.get(s, {}) if m.startswith(pref) and m.endswith(".us_per_conn")})
        for x in xs:
            vals = [str(kind), str(max(x, 1))]
            for m in ("us_per_conn", "acct_cmnet_us"):
                for s in ("stock", "ours"):
                    v = null.get(s, {}).get("%s%d.%s" % (pref, x, m))
                    vals += ["%.1f" % v[k] if v else "NaN" for k in ("median", "min", "max")]
            rows.append(" ".join(vals))
    if not rows:
        return False
    with open(path, "w", encoding="utf-8") as f:
        f.write("# kind (0: other live ids, 1: listeners), x, then median/min/max of stock, ours:"
                " us/conn (wall), then the CM's own CPU us/conn (net of probes)\n")
        f.write("\n".join(rows) + "\n")
    return True


def res_rounds(records, t, s, workload, conc=None):
    """The connect result of one transport/stack/workload per round: {round: record}."""
    out = {}
    for r in records:
        if (r["record"] == "res" and r.get("transport") == t and r.get("stack") == s
                and r.get("workload") == workload and r.get("op") == "connect"
                and (conc is None or r.get("conc") == conc)):
            out[r.get("round")] = r
    return out


def round_ratio_series(a, b, value):
    """value(a[round]) / value(b[round]) for every round both have, as a Series
    summary (with its rounds)."""
    ser = Series()
    for rnd in sorted(set(a) & set(b), key=round_key):
        x, y = value(a[rnd]), value(b[rnd])
        if x is not None and y:
            ser.add(x / y, rnd)
    return ser.summary()


def sweep_levels(records, t):
    """The sweep's levels (connections in flight) that transport @t ran."""
    return sorted({r.get("conc") for r in records if r["record"] == "res"
                   and r.get("transport") == t and r.get("workload") == "sweep"})


def rec_cps(r):
    return rate(r.get("ok"), r.get("start_ns"), r.get("end_ns"))


def verdict(v, target, at_most):
    """met: every round on the right side of the target; median met: the median only."""
    if not v:
        return "not measured"
    ok = (lambda x: x <= target) if at_most else (lambda x: x >= target)
    if all(ok(x) for x in v["values"]):
        return "met"
    return "median met" if ok(v["median"]) else "not met"


def softrnic_targets(summary, records):
    """softrnic against siw on our stack, per round: the issue's targets.

    The floor of each transport is the kernel TCP run on its own veth pair in
    the same (ours) slot: "tcp" for siw, "tcp2" for softrnic."""
    m = {}
    for t, floor in (("siw", "tcp"), ("softrnic", "tcp2")):
        v = round_ratio_series(res_rounds(records, t, "ours", "serial"),
                               res_rounds(records, floor, "ours", "serial"),
                               lambda r: r.get("setup_p50_ns"))
        if v:
            m["%s.serial.setup_p50_over_tcp_floor" % t] = v
    for c in sweep_levels(records, "softrnic"):
        v = round_ratio_series(res_rounds(records, "softrnic", "ours", "sweep", c),
                               res_rounds(records, "siw", "ours", "sweep", c), rec_cps)
        if v:
            m["softrnic.sweep%d.cps_over_siw" % c] = v
    verdicts = {"serial.setup_p50_over_tcp_floor": verdict(
        m.get("softrnic.serial.setup_p50_over_tcp_floor"), SR_FLOOR_TARGET, True)}
    for c in SR_CPS_TARGET_AT:
        verdicts["sweep%d.cps_over_siw" % c] = verdict(
            m.get("softrnic.sweep%d.cps_over_siw" % c), SR_CPS_TARGET, False)
    return {"stack": "ours",
            "targets": {"setup_p50_over_tcp_floor_at_most": SR_FLOOR_TARGET,
                        "cps_over_siw_at_least": SR_CPS_TARGET,
                        "cps_in_flight": list(SR_CPS_TARGET_AT)},
            "metrics": m, "verdicts": verdicts}


def softrnic_absent(info, errors):
    if str(info.get("softrnic", "")) == "0":
        return "not run: ORCM_BENCH_SOFTRNIC=0 or ORCM_BENCH_SIW=0"
    if any(str(r.get("what", "")).startswith("softrnic") for r in errors):
        return "failed: see the errors below"
    return "not in this run"


DP_CASES = (("write", 65536, "mbps", "MB/s"), ("write", 64, "kmps", "kmsg/s"),
            ("send", 65536, "mbps", "MB/s"), ("send", 64, "kmps", "kmsg/s"))


def datapath(records, base="siw", other="softrnic"):
    """dp_bench.ko over one connection: @base and @other per round (siw and
    softrnic on our stack; rxe and softib through the stock CM).

    {"op.size": {base: Series summary, other: ..., "ratio": per-round
    other/base summary, "metric": "mbps"|"kmps"}}, plus "bad" (SENDs whose
    payload the server found wrong) and "errors" (failed runs)."""
    out = {"cases": {}, "bad": 0, "received": 0, "errors": []}
    for op, size, metric, unit in DP_CASES:
        per = {base: {}, other: {}}
        for r in records:
            if (r["record"] == "dp" and r.get("op") == op and r.get("size") == size
                    and r.get("transport") in per and metric in r):
                per[r["transport"]][r.get("round")] = r[metric]
        case = {"metric": metric, "unit": unit}
        for t, vals in per.items():
            ser = Series()
            for rnd in sorted(vals, key=round_key):
                ser.add(vals[rnd], rnd)
            case[t] = ser.summary()
        ratio = Series()
        for rnd in sorted(set(per[base]) & set(per[other]), key=round_key):
            if per[base][rnd]:
                ratio.add(per[other][rnd] / per[base][rnd], rnd)
        case["ratio"] = ratio.summary()
        out["cases"]["%s.%d" % (op, size)] = case
    for r in records:
        if r["record"] != "dp" or r.get("transport") not in (base, other):
            continue
        if "error" in r:
            out["errors"].append(r)
        if "bad" in r:
            out["bad"] += r["bad"] if isinstance(r["bad"], int) else 0
            out["received"] += r.get("received", 0) if isinstance(r.get("received"), int) else 0
    return out


def dp_rows(dp, base, other):
    """The data-path table of datapath(records, base, other): one row per
    case, the per-round ratios and the verdict against "other >= base"."""
    rows = [["op, message size", "unit", base, other, "%s/%s" % (other, base), "per round",
             "target"]]
    for op, size, _metric, unit in DP_CASES:
        c = dp["cases"]["%s.%d" % (op, size)]
        a = c[base]["median"] if c[base] else None
        b = c[other]["median"] if c[other] else None
        r = c["ratio"]
        rows.append(["%s %s" % ("RDMA WRITE" if op == "write" else "SEND",
                                "64 KiB" if size == 65536 else "%d B" % size),
                     unit, fmt(a, "%.0f"), fmt(b, "%.0f"), fmt(r and r["median"], "%.2fx"),
                     spread(by_round(r)), verdict(r, 1.0, False) if r else "-"])
    return rows


def datapath_section(records):
    """The issue's data-path target: softrnic at least siw's, one connection each."""
    L = []
    add = L.append
    dp = datapath(records)
    title = "Data path, softrnic against siw, our stack (tests/bench/dp_bench.ko; target: softrnic >= siw)"
    return L + dp_table(dp, "siw", "softrnic", title, "ORCM_BENCH_DP=0, or softrnic did not run", (
        "  One connection per run, every WR signaled; 64 KiB: 16 in flight, 64 B: 64 in flight.",
        "  SEND runs in batches of the depth, each acknowledged by the server once it has",
        "  reposted its receives (iWARP has no receiver-not-ready retry), the same for both."))


def dp_table(dp, base, other, title, absent, notes):
    """Lines: the data-path table of @dp (datapath(records, base, other))
    under @title, its @notes, the payload check and the failed runs; or
    the title and why nothing was measured (@absent)."""
    L = []
    add = L.append
    if not any(c[base] or c[other] for c in dp["cases"].values()):
        return [title + ": not measured (%s)" % absent, ""]
    add(title)
    add(render(dp_rows(dp, base, other)))
    L.extend(notes)
    add("  The server checked %d SEND payloads: %d wrong." % (dp["received"], dp["bad"]))
    for e in dp["errors"]:
        add("  error: " + " ".join("%s=%s" % (k, v) for k, v in e.items() if k != "record"))
    add("")
    return L


# The issues' targets over native InfiniBand (softib).
IB_CPS_TARGET = 1.5            # ours >= 1.5x stock's conn/s ...
IB_CPS_TARGET_AT = 64          # ... at this many in flight, warm path cache
SOFTIB_NOTE = (
    "  softib: drivers/softib, CAs ib0 (sA) and ib1 (sB) on one veth pair, stock opensm on ib1's\n"
    "  port; cm_bench from bchA (ib0's IPoIB netdev, 198.18.9.1) to bchB (ib1's, 198.18.9.2): ARP\n"
    "  over IPoIB, an SA PathRecord per route (stock) or from the path cache (ours), CM MADs and\n"
    "  QPs over the IB link. The SA-count run is each slot's first (ours: a cold cache, our\n"
    "  rdma_cm was just loaded); serial and the sweep follow it (ours: warm). PathRecord queries\n"
    "  counted on sB by tests/e2e/softib-madcount.py, once per transaction id.")


def sa_counts(records):
    """{stack: {"per_conn": Series summary, "queries": ..., "ok": ...}} from
    the "sa" records (one per slot)."""
    out = {}
    for s in STACKS:
        per, q, ok = Series(), Series(), Series()
        for r in records:
            if r["record"] != "sa" or r.get("stack") != s:
                continue
            nq, n = r.get("pathrecord_queries"), r.get("ok")
            if not isinstance(nq, int) or not isinstance(n, int):
                continue
            q.add(nq, r.get("round"))
            ok.add(n, r.get("round"))
            if n:
                per.add(nq / n, r.get("round"))
        out[s] = {"per_conn": per.summary(), "queries": q.summary(), "ok": ok.summary()}
    return out


def softib_targets(summary, records):
    """ours/stock conn/s over softib at IB_CPS_TARGET_AT in flight, per
    round; softib/rxe (both stock CM) conn/s per round and level."""
    m = {}
    for c in sweep_levels(records, "softib"):
        v = round_ratio_series(res_rounds(records, "softib", "ours", "sweep", c),
                               res_rounds(records, "softib", "stock", "sweep", c), rec_cps)
        if v:
            m["softib.sweep%d.cps_ours_over_stock" % c] = v
        v = round_ratio_series(res_rounds(records, "softib", "stock", "sweep", c),
                               res_rounds(records, "rxe", "stock", "sweep", c), rec_cps)
        if v:
            m["softib.sweep%d.cps_over_rxe_stock" % c] = v
    verdicts = {"sweep%d.cps_ours_over_stock" % IB_CPS_TARGET_AT: verdict(
        m.get("softib.sweep%d.cps_ours_over_stock" % IB_CPS_TARGET_AT), IB_CPS_TARGET, False)}
    return {"targets": {"cps_ours_over_stock_at_least": IB_CPS_TARGET,
                        "cps_in_flight": IB_CPS_TARGET_AT,
                        "softib_over_rxe_at_least": 1.0},
            "metrics": m, "verdicts": verdicts, "sa": sa_counts(records),
            "datapath": datapath(records, "rxe", "softib")}


def softib_section(summary, info, records, errors):
    """Native InfiniBand: setup over softib, ours against stock; SA queries
    per connection; softib against rxe through the stock CM."""
    L = []
    add = L.append
    title = "Native InfiniBand over softib: connection setup, ours against stock (cm_bench.ko over IPoIB)"
    if not summary.get("softib"):
        why = ("not run: ORCM_BENCH_SOFTIB=0" if str(info.get("softib", "")) == "0" else
               "failed: see the errors below" if any(str(r.get("what", "")).startswith("softib")
                                                    for r in errors) else "not in this run")
        add(title + ": " + why)
        add("")
        return L
    tg = softib_targets(summary, records)
    add(title)
    add("ours/stock: the ratio of the medians; median/ratios: the median of the per-round"
        " ratios, then each round's. One destination: ours serves every route but the first"
        " from its path cache, in-tree asks the SA per connect (not measured: ours with"
        " path_cache_ttl_ms=0, many destinations, in-tree with ibacm).")
    rows = [["in flight", "stock conn/s", "ours conn/s", "ours/stock", "median/ratios", "per round",
             "target", "stock p50 ms", "ours p50 ms", "rxe stock conn/s", "softib/rxe", "per round"]]
    levels = sorted({int(k[5:].split(".")[0]) for st in STACKS
                     for k in summary["softib"].get(st, {}) if k.startswith("sweep") and k.endswith(".cps")})
    for c in levels:
        a = med(summary, "softib", "stock", "sweep%d.cps" % c)
        b = med(summary, "softib", "ours", "sweep%d.cps" % c)
        r = tg["metrics"].get("softib.sweep%d.cps_ours_over_stock" % c)
        x = tg["metrics"].get("softib.sweep%d.cps_over_rxe_stock" % c)
        target = "-"
        if c == IB_CPS_TARGET_AT:
            target = ">= %.1fx: %s" % (IB_CPS_TARGET, verdict(r, IB_CPS_TARGET, False))
        rows.append([str(c), fmt(a, "%.0f"), fmt(b, "%.0f"), fmt(b / a if a and b else None, "%.2fx"),
                     fmt(r and r["median"], "%.2fx"), spread(by_round(r)), target,
                     fmt(med(summary, "softib", "stock", "sweep%d.setup_p50_ms" % c), "%.2f"),
                     fmt(med(summary, "softib", "ours", "sweep%d.setup_p50_ms" % c), "%.2f"),
                     fmt(med(summary, "rxe", "stock", "sweep%d.cps" % c), "%.0f"),
                     fmt(x and x["median"], "%.2fx"), spread(by_round(x))])
    a = med(summary, "softib", "stock", "serial.setup_p50_ms")
    b = med(summary, "softib", "ours", "serial.setup_p50_ms")
    rows.append(["serial p50 ms", fmt(a, "%.3f"), fmt(b, "%.3f"), fmt(b / a if a and b else None, "%.2fx"),
                 fmt(summary["softib"].get("ratio_ours_stock", {}).get("serial.setup_p50_ms"), "%.2fx"),
                 spread(round_ratios(summary, "softib", "serial.setup_p50_ms")), "", "", "",
                 fmt(med(summary, "rxe", "stock", "serial.setup_p50_ms"), "%.3f"), "", ""])
    add(render(rows))
    rows = [["phase (serial, p50 ms)", "stock", "ours", "ours/stock"]]
    for ph, label in (("addr", "create id + resolve addr"), ("route", "resolve route"),
                      ("qp", "create QP"), ("connect", "connect -> ESTABLISHED")):
        m = "serial.%s_p50_ms" % ph
        a = med(summary, "softib", "stock", m)
        b = med(summary, "softib", "ours", m)
        rows.append([label, fmt(a, "%.3f"), fmt(b, "%.3f"), fmt(b / a if a and b else None, "%.2fx")])
    add(render(rows))
    add("")
    sa = tg["sa"]
    add("SA PathRecord queries per connection over softib (%s connects to one destination,"
        " 16 in flight, cold cache; target: per destination, not per connect)" % info.get("softib_sa", "?"))
    rows = [["stack", "connected", "PathRecord queries", "per connection", "per round", "path cache (last slot)"]]
    pcs = {r.get("stack"): r for r in records if r["record"] == "pathcache"}
    for s in STACKS:
        v = sa[s]
        pc = pcs.get(s)
        pcs_txt = ("-" if not pc else "hits %s misses %s coalesced %s queries %s"
                   % (pc.get("hits"), pc.get("misses"), pc.get("coalesced"), pc.get("queries")))
        rows.append([s, fmt(v["ok"] and v["ok"]["median"], "%.0f"),
                     fmt(v["queries"] and v["queries"]["median"], "%.0f"),
                     fmt(v["per_conn"] and v["per_conn"]["median"], "%.3f"),
                     spread(by_round(v["per_conn"]), "%.3f"), pcs_txt])
    add(render(rows))
    add(SOFTIB_NOTE)
    add("")
    return L + dp_table(
        tg["datapath"], "rxe", "softib",
        "Data path, softib against rxe, both through the stock CM (tests/bench/dp_bench.ko;"
        " target: softib >= rxe)", "ORCM_BENCH_DP=0 or ORCM_BENCH_RXE=0", (
            "  softib: ib0 -> ib1 across the veth pair (IPoIB addresses in two netns); rxe: rxe0,",
            "  client and server on the one device (rxe lives in the initial netns only in 6.12, so",
            "  its packets loop inside rxe and never cross the veth: rxe's best case)."))


def mtu_section(records):
    """tests/bench/mtu_bench.ko: one MTU change on a netdev no id is on, with
    few and with many live connections on another one, both stacks."""
    L = []
    add = L.append
    title = ("Cost of one MTU change (dev_set_mtu() under RTNL, every netdev notifier; "
             "the changed netdev carries no id)")
    vals = {}
    for r in records:
        if r["record"] == "mtu" and isinstance(r.get("p50_ns"), int):
            vals.setdefault((r.get("stack"), r.get("conns")), {})[r.get("round")] = r
    if not vals:
        add(title + ": not measured (ORCM_BENCH_NULL_MTU empty, or the null RNIC did not run)")
        add("")
        return L
    add(title)
    conns = sorted({c for _, c in vals if isinstance(c, int)})
    rows = [["live connections", "stack", "p50 us (median of rounds)", "p90 us",
             "per round p50", "p50 / fewest", "flat (<= 1.5x)"]]
    for s in ("stock", "ours"):
        base = None
        for c in conns:
            per = vals.get((s, c))
            if not per:
                continue
            ks = sorted(per, key=round_key)
            p50 = statistics.median(per[k]["p50_ns"] for k in ks) / 1000
            p90 = statistics.median(per[k]["p90_ns"] for k in ks) / 1000
            first = base is None
            base = p50 if first else base
            ratio = p50 / base if base else None
            rows.append([str(c), s, fmt(p50, "%.1f"), fmt(p90, "%.1f"),
                         " ".join(fmt(per[k]["p50_ns"] / 1000, "%.1f") for k in ks),
                         fmt(ratio, "%.2fx"),
                         "-" if first or ratio is None else
                         ("met" if ratio <= 1.5 else "not met")])
    add(render(rows))
    add("  Flat: a p50 within 1.5x of the p50 with the fewest connections (issue 28's target,")
    add("  ours). Each connection is two ids (both ends run here) on the null RNIC's netdev.")
    add("")
    return L


STORM_SPEEDUP_TARGET = 2.0     # issue 40: stock's time / ours, at least
STORM_MADS_TARGET = 3.0        # issue 40: CM MADs per connection, at most
DEAD_TUNED_TARGET_MS = 5000    # issue 40: a tuned connect to a dead peer


def storm_figures(records):
    """{transport: {stack: {round: record}}} of the "storm" records with
    every connection counted (ok, conns, ms, mads as integers)."""
    out = {}
    for r in records:
        if r["record"] != "storm" or r.get("stack") not in STACKS:
            continue
        if not all(isinstance(r.get(k), int) for k in ("ok", "conns", "ms", "mads")):
            continue
        out.setdefault(r.get("transport"), {}).setdefault(r["stack"], {})[r.get("round")] = r
    return out


def storm_targets(records):
    """Per transport: the stock/ours time ratio per round (a round where a
    stack did not establish every connection has no ratio) and each
    stack's MADs per established connection, per round."""
    out = {}
    for t, per in storm_figures(records).items():
        st, ou = per.get("stock", {}), per.get("ours", {})
        speed = {}
        for rnd in sorted(set(st) | set(ou), key=round_key):
            a, b = st.get(rnd), ou.get(rnd)
            full = a and b and a["ok"] == a["conns"] and b["ok"] == b["conns"]
            speed[rnd] = a["ms"] / b["ms"] if full and b["ms"] else None
        mads = {s: {rnd: (r["mads"] / r["ok"] if r["ok"] else None)
                    for rnd, r in per.get(s, {}).items()} for s in STACKS}
        vals = [v for v in speed.values() if v is not None]
        ours_mads = [v for v in mads["ours"].values() if v is not None]
        out[t] = {
            "speedup_stock_over_ours": speed,
            "mads_per_conn": mads,
            "speedup_target": STORM_SPEEDUP_TARGET,
            "speedup_met": (min(vals) >= STORM_SPEEDUP_TARGET) if vals else None,
            "mads_target": STORM_MADS_TARGET,
            "mads_met": (max(ours_mads) <= STORM_MADS_TARGET) if ours_mads else None,
        }
    return out


def storm_section(records):
    """The reconnect storm (issue 40) and the connect to a dead peer."""
    L = []
    add = L.append
    figs = storm_figures(records)
    title = ("Reconnect storm: N connections held, torn down at once, opened again at once "
             "(all in flight)")
    if not figs:
        add(title + ": not measured (ORCM_BENCH_STORM=0, or no rxe/softib)")
    else:
        add(title)
        tg = storm_targets(records)
        rows = [["transport", "stack", "N", "ms (median)", "per round ms", "established",
                 "CM MADs/conn", "resends", "REQ/REP/DREQ", "SA queries"]]
        for t in sorted(figs):
            for s in STACKS:
                per = figs[t].get(s)
                if not per:
                    continue
                ks = sorted(per, key=round_key)
                rs = [per[k] for k in ks]
                rows.append([t, s, str(rs[0]["conns"]),
                             fmt(statistics.median(r["ms"] for r in rs), "%.0f"),
                             " ".join(str(r["ms"]) for r in rs),
                             " ".join("%d" % r["ok"] for r in rs),
                             " ".join(fmt(r["mads"] / r["ok"] if r["ok"] else None, "%.2f")
                                      for r in rs),
                             " ".join(str(r.get("resends", "-")) for r in rs),
                             " ".join("%s/%s/%s" % (r.get("req_resends", "-"),
                                                    r.get("rep_resends", "-"),
                                                    r.get("dreq_resends", "-")) for r in rs),
                             " ".join(str(r.get("sa_queries", "-")) for r in rs)])
        add(render(rows))
        for t in sorted(tg):
            v = tg[t]
            sp = [x for x in v["speedup_stock_over_ours"].values() if x is not None]
            add("  %s: stock time / ours per round: %s (median %s; target >= %.0fx: %s);"
                " ours <= %.0f CM MADs a connection: %s"
                % (t, spread(v["speedup_stock_over_ours"]),
                   fmt(statistics.median(sp) if sp else None, "%.2fx"),
                   STORM_SPEEDUP_TARGET,
                   {True: "met", False: "not met", None: "-"}[v["speedup_met"]],
                   STORM_MADS_TARGET,
                   {True: "met", False: "not met", None: "-"}[v["mads_met"]]))
        add("  A connection with no loss costs 3 CM MADs (REQ, REP, RTU); resends are the")
        add("  ports' cm_tx_retries. rxe: client and server on the one device (rxe0).")
    add("")
    dead = [r for r in records if r["record"] == "deadpeer" and isinstance(r.get("ms"), int)]
    title = "Connect to a dead peer (answers ARP, nothing else) over rxe: time to UNREACHABLE"
    if not dead:
        add(title + ": not measured (ORCM_BENCH_DEAD=0)")
        add("")
        return L
    add(title)
    rows = [["timers", "stack", "ms (median)", "per round", "result"]]
    for timers in ("default", "tuned"):
        for s in STACKS:
            rs = sorted((r for r in dead if r.get("stack") == s and r.get("timers") == timers),
                        key=lambda r: round_key(r.get("round")))
            if not rs:
                if timers == "tuned" and s == "stock":
                    rows.append([timers, s, "n/a", "-", "in-tree fixes its CM timers"])
                continue
            rows.append([timers, s, fmt(statistics.median(r["ms"] for r in rs), "%.0f"),
                         " ".join(str(r["ms"]) for r in rs),
                         " ".join(str(r.get("err", "-")) for r in rs)])
    add(render(rows))
    tuned = [r["ms"] for r in dead if r.get("stack") == "ours" and r.get("timers") == "tuned"]
    add("  default: the in-tree timers (response timeout 20, 15 retries), round 1 only;")
    add("  tuned: a ULP's cm_timeout=14 cm_retries=2 (orcm_rdma_set_cm_timers()), target"
        " <= %d ms: %s" % (DEAD_TUNED_TARGET_MS,
                           "-" if not tuned else
                           ("met" if max(tuned) <= DEAD_TUNED_TARGET_MS else "not met")))
    add("")
    return L


def softrnic_section(summary, info, records, errors):
    """softrnic (host-stack model) against siw, both on our stack."""
    L = []
    add = L.append
    sr = summary.get("softrnic", {}).get("ours")
    title = "softrnic (host-stack model) against siw, our stack"
    if not sr:
        add(title + ": n/a (%s)" % softrnic_absent(info, errors))
        add("")
        return L
    tg = softrnic_targets(summary, records)
    tm, vd = tg["metrics"], tg["verdicts"]
    add("%s (targets: setup p50 <= %.1fx the TCP floor; conn/s >= %.1fx siw's at %s in flight)"
        % (title, SR_FLOOR_TARGET, SR_CPS_TARGET, " and ".join(str(c) for c in SR_CPS_TARGET_AT)))

    def pair_row(label, m_siw, m_sr, spec, t_siw="siw", t_sr="softrnic"):
        a = med(summary, t_siw, "ours", m_siw)
        b = med(summary, t_sr, "ours", m_sr)
        rs = round_ratio_series(res_rounds(records, t_sr, "ours", "serial"),
                                res_rounds(records, t_siw, "ours", "serial"),
                                lambda r, k=m_sr: r.get(k.split(".", 1)[1].replace("_ms", "_ns")))
        return [label, fmt(a, spec), fmt(b, spec), fmt(b / a if a and b else None, "%.2fx"),
                spread(by_round(rs)), ""]

    rows = [["serial (%s connections, 1 in flight)" % info.get("serial", "?"), "siw ours",
             "softrnic ours", "softrnic/siw", "per round", "target"]]
    rows.append(pair_row("setup p50 ms", "serial.setup_p50_ms", "serial.setup_p50_ms", "%.3f"))
    rows.append(pair_row("setup p99 ms", "serial.setup_p99_ms", "serial.setup_p99_ms", "%.3f"))
    rows.append(pair_row("kernel TCP floor p50 ms (its pair)", "serial.setup_p50_ms",
                         "serial.setup_p50_ms", "%.3f", "tcp", "tcp2"))
    fs, fr = (tm.get("siw.serial.setup_p50_over_tcp_floor"),
              tm.get("softrnic.serial.setup_p50_over_tcp_floor"))
    rows.append(["setup p50 / TCP floor", fmt(fs and fs["median"], "%.2fx"),
                 fmt(fr and fr["median"], "%.2fx"),
                 fmt(fr["median"] / fs["median"] if fs and fr else None, "%.2fx"),
                 spread(by_round(fr)),
                 "<= %.1fx: %s" % (SR_FLOOR_TARGET, vd["serial.setup_p50_over_tcp_floor"])])
    rows.append(pair_row("rdma_connect() call p50 ms", "serial.connect_call_p50_ms",
                         "serial.connect_call_p50_ms", "%.3f"))
    rows.append(pair_row("rdma_connect() call p99 ms", "serial.connect_call_p99_ms",
                         "serial.connect_call_p99_ms", "%.3f"))
    for ev, what in (("slept", "slept in it"), ("preempted", "was preempted in it")):
        m = "serial.connect_call_%s_pct" % ev
        a = med(summary, "siw", "ours", m)
        b = med(summary, "softrnic", "ours", m)
        if a is not None or b is not None:
            rows.append(["rdma_connect() calls: caller %s" % what, fmt(a, "%.0f%%"),
                         fmt(b, "%.0f%%"), "", "", ""])
    add(render(rows))

    sweep = sorted({int(m[5:].split(".")[0]) for m in sr
                    if m.startswith("sweep") and m.endswith(".cps")})
    if sweep:
        slept = any(m.endswith(".connect_call_slept_pct") for m in sr)
        rows = [["in flight", "siw conn/s", "softrnic conn/s", "softrnic/siw", "per round", "target",
                 "TCP conn/s siw/2nd pair", "connect() call p50 ms siw/sr",
                 "connect() call p99 ms siw/sr"] + (["call slept % siw/sr"] if slept else [])]
        for c in sweep:
            k = "sweep%d" % c
            a = med(summary, "siw", "ours", k + ".cps")
            b = med(summary, "softrnic", "ours", k + ".cps")
            r = tm.get("softrnic.%s.cps_over_siw" % k)
            target = (">= %.1fx: %s" % (SR_CPS_TARGET, vd.get(k + ".cps_over_siw"))
                      if c in SR_CPS_TARGET_AT else "-")

            def two(t1, t2, m, spec):
                return "%s/%s" % (fmt(med(summary, t1, "ours", m), spec),
                                  fmt(med(summary, t2, "ours", m), spec))
            rows.append([str(c), fmt(a, "%.0f"), fmt(b, "%.0f"), fmt(r and r["median"], "%.2fx"),
                         spread(by_round(r)), target,
                         two("tcp", "tcp2", k + ".cps", "%.0f"),
                         two("siw", "softrnic", k + ".connect_call_p50_ms", "%.3f"),
                         two("siw", "softrnic", k + ".connect_call_p99_ms", "%.3f")]
                        + ([two("siw", "softrnic", k + ".connect_call_slept_pct", "%.0f")]
                           if slept else []))
        add("")
        add(render(rows))
    missing = [c for c in SR_CPS_TARGET_AT if c not in sweep]
    add("  Targets: setup p50 <= %.1fx the TCP floor: %s;" % (
        SR_FLOOR_TARGET, vd["serial.setup_p50_over_tcp_floor"]))
    add("  conn/s >= %.1fx siw's: %s%s." % (SR_CPS_TARGET, ", ".join(
        "at %d in flight %s" % (c, vd["sweep%d.cps_over_siw" % c]) for c in SR_CPS_TARGET_AT),
        " (this sweep had no %s in flight: ORCM_BENCH_SWEEP)" % " or ".join(map(str, missing))
        if missing else ""))
    add("  met: in every round; median met: the median of the per-round ratios only. This run measured siw")
    add("  at %s the floor (median of the rounds). per round: each round's ratio, in round order (the floor"
        % fmt(fs and fs["median"], "%.2fx"))
    add("  row: softrnic's multiple). Each floor is the kernel TCP run on the same veth pair in the same (ours) slot.")
    call = med(summary, "softrnic", "ours", "serial.connect_call_p50_ms")
    hs = med(summary, "tcp2", "ours", "serial.tcp_connect_p50_ms")
    scall = med(summary, "siw", "ours", "serial.connect_call_p50_ms")
    shs = med(summary, "tcp", "ours", "serial.tcp_connect_p50_ms")
    if call is not None:
        add("  rdma_connect() call: the wall time its caller spends inside it; slept: the share of calls in")
        add("  which the caller slept (waited), preempted: was only preempted. siw connects its TCP socket")
        add("  (blocking) and sends the MPA request inside the call; our iw_cm starts a non-blocking connect")
        add("  for softrnic. p50: softrnic %s ms, siw %s ms; a blocking kernel TCP connect: %s ms on"
            % (fmt(call, "%.3f"), fmt(scall, "%.3f"), fmt(hs, "%.3f")))
        add("  softrnic's pair, %s ms on siw's (same slot)." % fmt(shs, "%.3f"))
    params = next((r for r in reversed(records) if r["record"] == "softrnic"), None)
    if params:
        got = {k[6:]: str(v) for k, v in params.items() if k.startswith("iw_cm.")}
        add("  MPA: softrnic's offer is our iw_cm's, its module parameters %s:" % (
            "at their defaults" if got == IWCM_DEFAULTS else "NOT at their defaults (%s)" % " ".join(
                "%s=%s" % kv for kv in IWCM_DEFAULTS.items())))
        add("    %s;" % " ".join("%s=%s" % kv for kv in got.items()))
        add("  siw makes its own MPA (6.12: revision 2, no peer-to-peer, no CRC). softrnic runs after siw's")
        add("  workloads in the ours slot (so siw's stock and ours slots stay alike), serial and sweep only.")
    add("")
    return L


def table(summary, info, na, limits, errors, splats, kmemleak, flags, records=()):
    L = []
    add = L.append
    counts = big_count(summary)
    add("openrdma-cm connection-setup benchmark: ours vs the stock in-tree stack, one VM boot")
    add("VM: UML %s, %s MiB, %s CPU; %s rounds (stack order alternating by round); value = median over rounds"
        % (info.get("kernel", "?"), int(info.get("mem_kb", 0)) // 1024, info.get("cpus", "?"),
           info.get("rounds", "?")))
    if flags:
        add("Debug kernel (%s): absolute times are slow and memory is inflated; read the ratios."
            % ", ".join(f.replace("CONFIG_", "") for f in flags))
    add("")
    add("Connection setup (kernel driver cm_bench.ko; client and server in two netns on one veth pair)")
    conc = info.get("conc", "?")
    hdr = ["transport", "stack"]
    for n in counts:
        hdr.append("conn/s %d@%s" % (n, conc))
    hdr += ["setup p50 ms", "setup p99 ms", "teardown p50 ms"]
    for n in counts[:1]:
        hdr.append("teardown/s %d" % n)
    rows = [hdr]

    def row(t, s, label=None):
        r = [t, label or s]
        for n in counts:
            r.append(fmt(med(summary, t, s, "tput%d.cps" % n), "%.0f"))
        r.append(fmt(med(summary, t, s, "serial.setup_p50_ms"), "%.3f"))
        r.append(fmt(med(summary, t, s, "serial.setup_p99_ms"), "%.3f"))
        r.append(fmt(med(summary, t, s, "serial.teardown_p50_ms"), "%.3f"))
        for n in counts[:1]:
            r.append(fmt(med(summary, t, s, "tput%d.teardown_per_s" % n), "%.0f"))
        return r

    def of_medians(t, m):
        o, st = med(summary, t, "ours", m), med(summary, t, "stock", m)
        return o / st if o is not None and st else None

    def medians_row(t):
        # ours' median over stock's: the figure to quote (the row below
        # is the median of the per-round ratios, with its spread printed
        # after the table).
        r = [t, "ratio of medians"]
        for n in counts:
            r.append(fmt(of_medians(t, "tput%d.cps" % n), "%.2fx"))
        for m in ("serial.setup_p50_ms", "serial.setup_p99_ms", "serial.teardown_p50_ms"):
            r.append(fmt(of_medians(t, m), "%.2fx"))
        for n in counts[:1]:
            r.append(fmt(of_medians(t, "tput%d.teardown_per_s" % n), "%.2fx"))
        return r

    def ratio_row(t):
        rt = summary.get(t, {}).get("ratio_ours_stock", {})
        r = [t, "median of round ratios"]
        for n in counts:
            r.append(fmt(rt.get("tput%d.cps" % n), "%.2fx"))
        for m in ("serial.setup_p50_ms", "serial.setup_p99_ms", "serial.teardown_p50_ms"):
            r.append(fmt(rt.get(m), "%.2fx"))
        for n in counts[:1]:
            r.append(fmt(rt.get("tput%d.teardown_per_s" % n), "%.2fx"))
        return r

    for s in STACKS:
        rows.append(row("siw", s))
    rows.append(medians_row("siw"))
    rows.append(ratio_row("siw"))
    rows.append(Note("softrnic", "stock", NA_SOFTRNIC))
    if summary.get("softrnic", {}).get("ours"):
        rows.append(row("softrnic", "ours"))
    else:
        rows.append(Note("softrnic", "ours", "n/a (%s)" % softrnic_absent(info, errors)))
    for s in STACKS:
        rows.append(row("rxe", s))
    rows.append(medians_row("rxe"))
    rows.append(ratio_row("rxe"))
    rows.append(row("tcp", "all", "kernel TCP (floor)"))
    if summary.get("tcp2", {}).get("all"):
        rows.append(row("tcp2", "all", "kernel TCP, 2nd pair"))
    add(render(rows))
    for t in ("siw", "rxe"):
        if not summary.get(t, {}).get("ratio_ours_stock"):
            continue
        cells = []
        for m, label in [("tput%d.cps" % n, "conn/s %d" % n) for n in counts] + [
                ("serial.setup_p50_ms", "setup p50"), ("serial.setup_p99_ms", "setup p99"),
                ("serial.teardown_p50_ms", "teardown p50")]:
            rr = round_ratios(summary, t, m)
            if rr:
                cells.append("%s %s" % (label, spread(rr)))
        if cells:
            add("  %s ours/stock per round: %s" % (t, "; ".join(cells)))
    add("  rxe: rxe in 6.12 lives in the initial netns only: one rxe device, client and server on it (loopback).")
    add("  softrnic: our host-stack iWARP RNIC (iw_cm makes its TCP connections), our stack only, serial and")
    add("  sweep runs only, on a veth pair of its own (tcp2: the kernel TCP floor on that pair, ours slots).")
    add("  kernel TCP: connect + 64 B request/reply, measured in every slot and pooled.")
    if (info.get("mem_rounds") is not None and len(counts) > 1
            and int(info["mem_rounds"]) < int(info.get("rounds", 0))):
        add("  conn/s %d: from the first %s round(s) only (ORCM_BENCH_MEM_ROUNDS), like the memory figures."
            % (counts[-1], info.get("mem_rounds")))
    rt = summary.get("tcp", {}).get("ratio_ours_stock", {})
    noise = [(m, rt[m]) for m in ("serial.setup_p50_ms", "serial.cps") + tuple(
        "tput%d.cps" % n for n in counts[:1]) if m in rt]
    if noise:
        add("  Noise check: kernel TCP (independent of the CM) in the ours slots / in the stock slots: "
            + ", ".join("%s %.2fx" % (m, v) for m, v in noise))
    add("")

    L.extend(null_section(summary, records))

    # TCP floor multiples.
    add("Our iWARP (siw) setup cost as a multiple of the kernel TCP floor (same veth pair, same driver)")
    rows = [["metric", "stock siw", "ours siw", "kernel TCP", "stock/TCP", "ours/TCP"]]
    tcp_stack = "all"
    pairs = [("serial.setup_p50_ms", "setup p50 ms (serial)", "%.3f", False),
             ("serial.setup_p99_ms", "setup p99 ms (serial)", "%.3f", False),
             ("serial.cps", "conn/s (serial)", "%.0f", True)]
    for n in counts:
        pairs.append(("tput%d.cps" % n, "conn/s (%d@%s)" % (n, conc), "%.0f", True))
    for m, label, spec, inverse in pairs:
        a = med(summary, "siw", "stock", m)
        b = med(summary, "siw", "ours", m)
        f = med(summary, "tcp", tcp_stack, m)
        def mult(x):
            if x is None or f is None or not x or not f:
                return None
            return f / x if inverse else x / f
        rows.append([label, fmt(a, spec), fmt(b, spec), fmt(f, spec),
                     fmt(mult(a), "%.1fx"), fmt(mult(b), "%.1fx")])
    add(render(rows))
    add("  (a multiple: how many times the TCP floor's time, or 1/x of its rate)")
    add("")

    L.extend(softrnic_section(summary, info, records, errors))
    L.extend(datapath_section(records))
    L.extend(mtu_section(records))
    L.extend(storm_section(records))
    L.extend(softib_section(summary, info, records, errors))

    # Memory.
    add("Kernel memory (slab counters before/after, kB; a connection = both ends: 2 ids, 2 QPs, 2 sockets)")
    rows = [["what", "metric", "stock", "ours", "ours/stock", "per round", "ours-stock"]]
    mem_keys = []
    for n in counts:
        mem_keys.append(("mem.conn%d" % n, "per connection (%d held)" % n, "connection"))
    mem_keys += [("mem.id", "per resolved id (%s, no QP)" % info.get("ids", "?"), "id"),
                 ("mem.listen", "per listening id (%s, default backlog)" % info.get("listeners", "?"),
                  "listener")]
    for key, label, unit in mem_keys:
        for name in ("slab", "slab_nodebug", "vmalloc", "total"):
            m = "%s.%s_kb_per_%s" % (key, name, unit)
            a = med(summary, "siw", "stock", m)
            b = med(summary, "siw", "ours", m)
            if a is None and b is None:
                continue
            rt = summary.get("siw", {}).get("ratio_ours_stock", {}).get(m)
            diff = b - a if a is not None and b is not None else None
            rows.append([label, name, fmt(a, "%.1f"), fmt(b, "%.1f"), fmt(rt, "%.2fx"),
                         spread(round_ratios(summary, "siw", m)), fmt(diff, "%+.1f")])
            label = ""
    add(render(rows))
    add("  slab_nodebug: slab minus the kmemleak/debugobjects caches; total: MemFree delta (slab, vmalloc, pages)")
    if info.get("mem_rounds") is not None:
        add("  from the first %s round(s) (ORCM_BENCH_MEM_ROUNDS; stock first in odd rounds, ours first in even)"
            % info.get("mem_rounds"))
    add("")

    # Sweep.
    sweep = sorted({int(m[5:].split(".")[0]) for t in summary.values() for s in t.values()
                    for m in s if m.startswith("sweep") and m.endswith(".cps")})
    if sweep:
        add("Connections per second against concurrency (%s connections per point; plot.png: siw)"
            % info.get("sweep_count", "?"))
        rows = [["in flight", "siw stock", "siw ours", "ours/stock", "rxe stock", "rxe ours",
                 "ours/stock", "kernel TCP"]]
        for c in sweep:
            r = [str(c)]
            for t in ("siw", "rxe"):
                a = med(summary, t, "stock", "sweep%d.cps" % c)
                b = med(summary, t, "ours", "sweep%d.cps" % c)
                r += [fmt(a, "%.0f"), fmt(b, "%.0f"), fmt(b / a if a and b else None, "%.2fx")]
            r.append(fmt(med(summary, "tcp", "all", "sweep%d.cps" % c), "%.0f"))
            rows.append(r)
        add(render(rows))
        rows = [["in flight", "siw stock", "siw ours", "rxe stock", "rxe ours"]]
        for c in sweep:
            rows.append([str(c)] + [fmt(med(summary, t, s, "sweep%d.setup_p50_ms" % c), "%.2f")
                                    for t in ("siw", "rxe") for s in STACKS])
        add("  setup p50 ms:")
        add(render(rows))
        add("")

    # Phases.
    has_sr = bool(summary.get("softrnic", {}).get("ours"))
    add("Where the serial setup time goes (siw%s, p50 ms)" % (" and softrnic" if has_sr else ""))
    rows = [["phase", "stock", "ours", "ours/stock"] + (["softrnic ours"] if has_sr else [])]
    for ph, label in (("addr", "create id + resolve addr"), ("route", "resolve route"),
                      ("qp", "create QP"), ("connect_call", "rdma_connect() call"),
                      ("connect", "connect -> ESTABLISHED")):
        m = "serial.%s_p50_ms" % ph
        a = med(summary, "siw", "stock", m)
        b = med(summary, "siw", "ours", m)
        rows.append([label, fmt(a, "%.3f"), fmt(b, "%.3f"), fmt(b / a if a and b else None, "%.2fx")]
                    + ([fmt(med(summary, "softrnic", "ours", m), "%.3f")] if has_sr else []))
    add(render(rows))
    add("")

    # cmtime.
    if any("cmtime.setup_cps" in summary.get(t, {}).get(s, {}) for t in ("siw", "rxe") for s in STACKS):
        add("Stock cmtime through rdma_ucm (%s connections per run, lockstep phases; us per connection)"
            % info.get("cmtime_conns", "?"))
        rows = [["step", "siw stock", "siw ours", "ours/stock", "rxe stock", "rxe ours", "ours/stock"]]

        def cells(m, spec):
            r = []
            for t in ("siw", "rxe"):
                a = med(summary, t, "stock", m)
                b = med(summary, t, "ours", m)
                r += [fmt(a, spec), fmt(b, spec), fmt(b / a if a and b else None, "%.2fx")]
            return r
        for st in ("create_id", "resolve_addr", "resolve_route", "create_qp", "connect",
                   "disconnect", "destroy"):
            rows.append([st.replace("_", " ")] + cells("cmtime.%s_us_per_conn" % st, "%.0f"))
        rows.append(["setup conn/s"] + cells("cmtime.setup_cps", "%.0f"))
        fails = cells("cmtime.fails", "%d")
        fails[2] = fails[5] = ""
        rows.append(["failed"] + fails)
        add(render(rows))
        add("")

    add("Limits, errors, kernel splats")
    if limits:
        for r in limits:
            if r.get("reason") == "guest-memory":
                why = "guest memory: %s kB available, %s kB per connection" % (
                    r.get("avail_kb"), r.get("per_conn_kb"))
            else:
                why = ("host vm.max_map_count=%s: UML maps each vmalloc page with its own host mmap, "
                       "%s vmalloc pages in use, %s per connection"
                       % (r.get("max_map_count"), r.get("vmalloc_pages_now"),
                          r.get("vmalloc_pages_per_conn")))
            add("  limit: %s %s round %s: %s connections requested, %s held (%s)"
                % (r.get("transport"), r.get("stack"), r.get("round"), r.get("requested"),
                   r.get("used"), why))
    fails = [(t, s, m, v["max"]) for t, st in summary.items() for s, ms_ in st.items()
             if s in STACKS for m, v in ms_.items()
             if v and (m.endswith(".fail") or m.endswith("forced")) and v["max"]]
    for t, s, m, v in fails:
        add("  failures: %s %s %s: up to %s in a round" % (t, s, m, v))
    unpaired = [(t, m, rnds) for t, st in sorted(summary.items())
                for m, rnds in sorted(st.get("unpaired_rounds", {}).items())]
    for t, m, rnds in unpaired:
        add("  unpaired: %s %s: round(s) %s have a value on one stack only (no ratio for them)"
            % (t, m, ", ".join(str(x) for x in rnds)))
    for r in errors:
        add("  error: " + " ".join("%s=%s" % (k, v) for k, v in r.items() if k != "record"))
    for r in splats:
        add("  splat (%s): %s" % (r.get("where"), str(r.get("text", "")).replace("_", " ")))
    add("  kmemleak: %s unreferenced objects at the end" % (kmemleak if kmemleak is not None else "not scanned"))
    if not (limits or fails or errors or splats or unpaired):
        add("  none")
    return "\n".join(L) + "\n"


class Note(list):
    """A table row whose third cell is free text spanning the other columns."""

    def __init__(self, *cells):
        super().__init__(cells)


def render(rows):
    widths = [max(len(str(r[i])) for r in rows if i < len(r) and not isinstance(r, Note))
              for i in range(len(rows[0]))]
    out = []
    for n, r in enumerate(rows):
        if isinstance(r, Note):
            out.append("  ".join([r[0].ljust(widths[0]), r[1].ljust(widths[1]), r[2]]))
            continue
        out.append("  ".join(str(c).ljust(widths[i]) if i < 2 else str(c).rjust(widths[i])
                             for i, c in enumerate(r)).rstrip())
        if n == 0:
            out.append("  ".join("-" * w for w in widths))
    return "\n".join(out)


def write_sweep(summary, path):
    sweep = sorted({int(m[5:].split(".")[0]) for t in summary.values() for s in t.values()
                    for m in s if m.startswith("sweep") and m.endswith(".cps")})
    with open(path, "w", encoding="utf-8") as f:
        f.write("# concurrency, then median/min/max conn/s of: siw stock, siw ours, kernel TCP,"
                " softrnic ours\n")
        for c in sweep:
            vals = [str(c)]
            for t, s in (("siw", "stock"), ("siw", "ours"), ("tcp", "all"), ("softrnic", "ours")):
                v = summary.get(t, {}).get(s, {}).get("sweep%d.cps" % c)
                vals += ["%.1f" % v[k] if v else "NaN" for k in ("median", "min", "max")]
            f.write(" ".join(vals) + "\n")
    return bool(sweep)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--raw", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--gnuplot")
    ap.add_argument("--kconfig")
    args = ap.parse_args()

    records, kmemleak_lines = read_raw(args.raw)
    info = next((r for r in records if r["record"] == "info"), {})
    metrics, units = collect(records)
    summary = summarize(metrics)
    na = {(r.get("transport"), r.get("stack")): r.get("reason")
          for r in records if r["record"] == "na"}
    limits = [r for r in records if r["record"] == "limit"]
    errors = [r for r in records if r["record"] == "error"]
    splats = [r for r in records if r["record"] == "splat"]
    km = next((r.get("count") for r in records if r["record"] == "kmemleak"), None)
    flags = kconfig_flags(args.kconfig)

    os.makedirs(args.out, exist_ok=True)
    sr_targets = softrnic_targets(summary, records)
    doc = {
        "schema": SCHEMA,
        "generated_utc": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "environment": {"vm": info, "kernel_debug_options": flags},
        "units": units,
        "summary": summary,
        "softrnic_vs_siw": sr_targets,
        "datapath": datapath(records),
        "softib": softib_targets(summary, records),
        "storm": storm_targets(records),
        "limits": limits,
        "errors": errors,
        "splats": splats,
        "kmemleak": {"count": km, "report": kmemleak_lines},
        "records": records,
    }
    with open(os.path.join(args.out, "results.json"), "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1, sort_keys=False)
        f.write("\n")

    with open(os.path.join(args.out, "results.csv"), "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["transport", "stack", "metric", "unit", "median", "min", "max", "rounds"])
        for t in sorted(summary):
            for s in ("stock", "ours", "all", "ratio_ours_stock"):
                block = summary[t].get(s)
                if not isinstance(block, dict):
                    continue
                for m in sorted(block):
                    v = block[m]
                    if s == "ratio_ours_stock":
                        w.writerow([t, "ours/stock", m, "ratio", "%.4g" % v, "", "", ""])
                    elif v:
                        w.writerow([t, s, m, units.get(m, ""), "%.6g" % v["median"],
                                    "%.6g" % v["min"], "%.6g" % v["max"], v["n"]])
        # softrnic against siw (our stack): per-round ratios, "<transport>.<metric>".
        for m, v in sorted(sr_targets["metrics"].items()):
            t, m = m.split(".", 1)
            w.writerow([t, "ratio", m, "ratio", "%.4g" % v["median"], "%.4g" % v["min"],
                        "%.4g" % v["max"], v["n"]])

    text = table(summary, info, na, limits, errors, splats, km, flags, records)
    with open(os.path.join(args.out, "table.txt"), "w", encoding="utf-8") as f:
        f.write(text)
    sys.stdout.write(text)

    sdat = os.path.join(args.out, "scaling.dat")
    if write_scaling(summary, sdat) and args.gnuplot:
        sgp = os.path.join(os.path.dirname(args.gnuplot), "scaling.gp")
        try:
            subprocess.run(["gnuplot", "-e", "datafile='%s'; outfile='%s'"
                            % (sdat, os.path.join(args.out, "scaling.png")), sgp], check=True)
            print("plot: %s" % os.path.join(args.out, "scaling.png"))
        except (OSError, subprocess.CalledProcessError) as e:
            print("gnuplot (scaling) failed: %s" % e, file=sys.stderr)

    dat = os.path.join(args.out, "sweep.dat")
    if write_sweep(summary, dat) and args.gnuplot:
        png = os.path.join(args.out, "plot.png")
        subtitle = "UML VM, %s rounds, %s connections per point; median, bars: min-max" % (
            info.get("rounds", "?"), info.get("sweep_count", "?"))
        try:
            has_sr = int(any(m.startswith("sweep") and m.endswith(".cps")
                             for m in summary.get("softrnic", {}).get("ours", {})))
            subprocess.run(["gnuplot", "-e", "datafile='%s'; outfile='%s'; subtitle='%s'; softrnic=%d"
                            % (dat, png, subtitle, has_sr), args.gnuplot], check=True)
            print("plot: %s" % png)
        except (OSError, subprocess.CalledProcessError) as e:
            print("gnuplot failed: %s" % e, file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
