#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Where each stack's null runs spend their CPU: a sampled profile.

    profile.py --raw raw.txt --perf perf.data --syms DIR --binary linux
               [--top N] [--json OUT]

The host's perf samples the UML process (ORCM_BENCH_PERF=1 in tools/bench.sh):
the UML kernel is host user code, so every sample carries the guest kernel's
instruction pointer and its frame-pointer call chain, whatever the guest's
interrupt state (an in-guest sampler loses those with interrupts off). The
guest records each null run's window in wall-clock time ("prof" records) and
its /proc/kallsyms after each stack loaded (DIR/kallsyms-STACK-ROUND.txt):
module addresses change with every load.

Each sample is charged to an owner: the innermost frame of its chain that
belongs to a CM module (rdma_cm, iw_cm, ib_cm), ib_core, the null RNIC
(null_rnic), the benchmark (cm_bench, cm_acct) or, if none, the kernel. So a
kmalloc() called by rdma_cm is rdma_cm's, one called by null_rnic is the
driver's. Stock's address resolution lives in ib_core (ib_addr), ours in
rdma_cm, so "CM" below is rdma_cm + iw_cm + ib_cm + ib_core for both stacks
(ib_core's verbs, QP create and destroy, are shared work in it).

Printed per workload: CPU us per connection, by owner, both stacks and the
ratio; then, over all the windows of each stack, the CM functions that own the
most samples (inclusive of the kernel code they call, exclusive of the CM
functions they call) and the leaf functions the CM's samples end in.
"""
import argparse
import bisect
import collections
import json
import os
import re
import statistics
import subprocess
import sys

CM_MODS = ("rdma_cm", "iw_cm", "ib_cm", "ib_core")
OWNERS = CM_MODS + ("softrnic", "null_rnic", "cm_bench", "cm_acct", "cm_floor")
# The host network stack, by function name: the TCP connection of a
# host-stack iWARP setup, and all of the kernel TCP floor's.
NET_PREFIXES = ("tcp_", "__tcp", "inet_", "__inet", "inet6_", "ip_", "__ip", "ipv4_",
                "ipv6_", "neigh_", "__neigh", "dev_", "__dev_", "veth_", "netif_",
                "__netif", "net_rx", "process_backlog", "sock_", "__sock", "sk_", "__sk",
                "release_sock", "lock_sock", "kernel_connect", "kernel_accept",
                "kernel_sendmsg", "kernel_recvmsg", "skb_", "__skb", "kfree_skb",
                "consume_skb", "fib_", "__fib", "nf_", "raw_v4", "icmp_", "secure_tcp",
                "csum_", "__alloc_skb", "alloc_skb", "napi_", "__napi")
SAMPLE_RE = re.compile(
    r"^(\d+) 0x[0-9a-f]+ \[0x[0-9a-f]+\]: PERF_RECORD_SAMPLE\([^)]*\): "
    r"(\d+)/(\d+): 0x([0-9a-f]+) period: (\d+)")
CHAIN_RE = re.compile(r"^\.{5}\s+\d+: ([0-9a-f]{16})$")
CONTEXT_MARK = 0xfffffffffffff000
# softrnic's serial setup and the kernel TCP floor's (our stack only).
SERIAL_KEYS = ("srserial", "tcpserial")


def parse_kv(tokens):
    return dict(t.split("=", 1) for t in tokens if "=" in t)


class Symbols:
    """One /proc/kallsyms: address -> (function, module)."""

    def __init__(self, path):
        rows = []
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                parts = line.split()
                if len(parts) < 3 or parts[1] not in "tTwW":
                    continue
                mod = parts[3].strip("[]") if len(parts) > 3 else "kernel"
                rows.append((int(parts[0], 16), parts[2], mod))
        rows.sort()
        self.addrs = [r[0] for r in rows]
        self.rows = rows
        etext = [a for a, n, m in rows if n == "_etext" and m == "kernel"]
        mods = [a for a, n, m in rows if m != "kernel"]
        self.kernel = (min(a for a, n, m in rows if m == "kernel"),
                       etext[0] if etext else max(a for a, n, m in rows if m == "kernel"))
        # A module's last function ends within a page or so of its symbol.
        self.modules = (min(mods), max(mods) + 0x4000) if mods else (0, 0)

    def lookup(self, ip):
        if ip < self.kernel[0]:
            return ("(guest user)", "user")
        if not (ip < self.kernel[1] or self.modules[0] <= ip < self.modules[1]):
            # The UML process's own host code: libc (signal masks, host
            # system calls) and its stub pages, no frame pointers there;
            # or the host kernel serving it (sampled when
            # perf_event_paranoid allows).
            if ip >= 0xffff800000000000:
                return ("(host kernel)", "host")
            return ("(host libc)", "host")
        i = bisect.bisect_right(self.addrs, ip) - 1
        if i < 0:
            return ("?", "?")
        _, name, mod = self.rows[i]
        return (name, mod)


def raw_records(path, kind, token=None):
    """(fields, workload key) of the raw file's KIND records (with TOKEN)."""
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            parts = line.split()
            if not parts or parts[0] != kind or (token and token not in parts):
                continue
            kv = parse_kv(parts[1:])
            key = kv.get("workload", "?")
            for extra in ("conc", "ids", "listeners"):
                if extra in kv and (extra != "conc" or key == "nsweep"):
                    key += f" {extra}={kv[extra]}"
            yield kv, key


def windows_from_raw(path):
    """The profiled runs' windows: the guest shell's (prof records), narrowed
    to the driver's own first start and last end (its result records, on the
    wall clock through real_off_ns), so that the shell's work around the run
    (starting the command, polling for its end) falls outside."""
    spans = {}
    for kv, key in raw_records(path, "res", "pass=prof"):
        try:
            off = int(kv["real_off_ns"])
            a, b = int(kv["start_ns"]) + off, int(kv["end_ns"]) + off
        except (KeyError, ValueError):
            continue
        if int(kv["start_ns"]) <= 0 or b <= a:
            continue
        k = (kv["stack"], kv["round"], key)
        lo, hi = spans.get(k, (a, b))
        spans[k] = (min(lo, a), max(hi, b))
    wins = []
    for kv, key in raw_records(path, "prof"):
        t0, t1 = int(float(kv["t0"]) * 1e9), int(float(kv["t1"]) * 1e9)
        lo, hi = spans.get((kv["stack"], kv["round"], key), (t0, t1))
        wins.append({
            "stack": kv["stack"], "round": kv["round"], "key": key,
            "count": int(kv.get("count", "1")),
            "t0": max(t0, lo), "t1": min(t1, hi),
        })
    wins.sort(key=lambda w: w["t0"])
    return wins


def parse_dump(lines):
    """(time ns, pid, period ns, [ips innermost first]) from the lines of
    `perf script -D`: each PERF_RECORD_SAMPLE line, then its frame-pointer
    chain without perf's context marks."""
    cur = None
    for line in lines:
        if cur is not None:
            m = CHAIN_RE.match(line)
            if m:
                ip = int(m.group(1), 16)
                if ip < CONTEXT_MARK and ip:
                    cur[3].append(ip)
                continue
            if line.startswith("... FP chain"):
                continue
            yield cur
            cur = None
        if "PERF_RECORD_SAMPLE" in line:
            m = SAMPLE_RE.match(line)
            if m:
                cur = (int(m.group(1)), int(m.group(2)), int(m.group(5)), [])
    if cur is not None:
        yield cur


def samples(perf_data):
    """The samples of PERF_DATA (parse_dump() of perf script -D)."""
    proc = subprocess.Popen(["perf", "script", "-i", perf_data, "-D"],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            text=True, errors="replace", bufsize=1 << 20)
    yield from parse_dump(proc.stdout)
    proc.wait()


def in_net(chain, syms):
    """Does the sample's chain run through the host network stack?"""
    for ip in chain:
        name, mod = syms.lookup(ip)
        if mod in OWNERS:
            return False
        if mod == "kernel" and name.startswith(NET_PREFIXES):
            return True
    return False


def owner_of(chain, syms):
    """(owner module, owning function, leaf function) of one sample."""
    leaf = syms.lookup(chain[0]) if chain else ("?", "?")
    for ip in chain:
        name, mod = syms.lookup(ip)
        if mod in OWNERS:
            return mod, name, leaf
    for ip in chain:
        name, mod = syms.lookup(ip)
        if mod != "host":
            return ("user" if mod == "user" else "kernel"), name, leaf
    return "host", leaf[0], leaf


def median(vals):
    return statistics.median(vals) if vals else None


def driver_walls(path):
    """(stack, round, key) -> {op: us per connection} from the profiled
    pass's result records (cm_bench's own clock: connect, teardown)."""
    out = collections.defaultdict(dict)
    for kv, key in raw_records(path, "res", "pass=prof"):
        try:
            us = (int(kv["end_ns"]) - int(kv["start_ns"])) / 1000 / int(kv["count"])
        except (KeyError, ValueError, ZeroDivisionError):
            continue
        out[(kv["stack"], kv["round"], key)][kv.get("op", "?")] = us
    return out


def print_bound(setup, out):
    """softrnic's setup p50 against its parts: the kernel TCP floor's and our
    CM's over the null RNIC (no TCP, no MPA), all from the profiled pass (no
    cm_acct in the path). On one CPU the parts cannot overlap."""
    med = {k: median(v) for k, v in setup.items() if v}
    sr, tcp, null = med.get("srserial"), med.get("tcpserial"), med.get("nsweep conc=1")
    if not (sr and tcp and null):
        return
    print(f"  setup p50 (medians over rounds): softrnic {sr:.1f} us = {sr / tcp:.2f}x the kernel "
          f"TCP floor's {tcp:.1f} us; our CM's own setup over the null RNIC {null:.1f} us.")
    print(f"  No host-stack setup can beat TCP floor + CM: ({tcp:.1f} + {null:.1f}) / {tcp:.1f} = "
          f"{(tcp + null) / tcp:.2f}x the floor, before MPA, RTR and the QP hand-off.")
    out["setup_bound"] = {"softrnic_p50_us": sr, "tcp_p50_us": tcp, "null_p50_us": null,
                          "ratio": sr / tcp, "bound": (tcp + null) / tcp}


def print_serial(serial, serial_fn, conns, rounds, top, out, setup=None):
    """softrnic's serial setup against the kernel TCP floor, CPU by owner."""
    n = {k: sum(conns[("ours", r, k)] for r in rounds) for k in SERIAL_KEYS}
    owners = sorted({o for k in serial for (o, _) in serial[k]},
                    key=lambda o: -sum(serial["srserial"][(o, x)] for x in (False, True)))
    print("\nsoftrnic serial setup (connect, teardown, 1 in flight) against the kernel TCP "
          "floor, sampled: CPU us per connection by owner, network stack / other")
    hdr = f"{'owner':<12} {'softrnic net':>12} {'other':>7} {'TCP floor net':>13} {'other':>7}"
    print(hdr)
    print("-" * len(hdr))
    tot = {k: [0.0, 0.0] for k in SERIAL_KEYS}
    for o in owners:
        row = []
        for k in SERIAL_KEYS:
            for j, net in enumerate((True, False)):
                v = serial[k][(o, net)] / 1000 / n[k] if n[k] else 0.0
                tot[k][j] += v
                row.append(v)
        print(f"{o:<12} {row[0]:>12.2f} {row[1]:>7.2f} {row[2]:>13.2f} {row[3]:>7.2f}")
    print(f"{'total':<12} {tot['srserial'][0]:>12.2f} {tot['srserial'][1]:>7.2f} "
          f"{tot['tcpserial'][0]:>13.2f} {tot['tcpserial'][1]:>7.2f}")
    a, b = sum(tot["srserial"]), sum(tot["tcpserial"])
    if b:
        print(f"  CPU per connection, both ends, setup and teardown: softrnic {a:.1f} us, "
              f"TCP floor {b:.1f} us (connect, 64 B request/reply, close): {a / b:.2f}x")
    if setup:
        print_bound(setup, out)
    print("softrnic serial: the functions that own the most CPU (innermost module frame; "
          "(network): in the host network stack below it), us per connection")
    for fn, v in serial_fn.most_common(top):
        print(f"  {v / 1000 / n['srserial']:6.2f}  {fn}")
    out["serial"] = {k: {f"{o}{' net' if net else ''}": v / 1000 / n[k]
                         for (o, net), v in serial[k].items()} for k in SERIAL_KEYS if n[k]}


def setup_p50s(path, stack):
    """workload key -> [setup p50 us per round] of STACK's profiled pass."""
    out = collections.defaultdict(list)
    for kv, key in raw_records(path, "res", "pass=prof"):
        if kv.get("stack") == stack and kv.get("op") == "connect" and "setup_p50_ns" in kv:
            out[key].append(int(kv["setup_p50_ns"]) / 1000)
    return out


def fmt_ratio(o, s):
    return f"{o / s:.2f}x" if s else "-"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--raw", required=True)
    ap.add_argument("--perf", required=True)
    ap.add_argument("--syms", required=True)
    ap.add_argument("--top", type=int, default=20)
    ap.add_argument("--target", type=float, default=0.5)
    ap.add_argument("--json")
    args = ap.parse_args()

    wins = windows_from_raw(args.raw)
    if not wins:
        sys.exit("no prof records in the raw file (ORCM_BENCH_PERF=1 and null runs?)")
    symcache = {}

    def syms_for(w):
        k = (w["stack"], w["round"])
        if k not in symcache:
            symcache[k] = Symbols(os.path.join(args.syms, f"kallsyms-{k[0]}-{k[1]}.txt"))
        return symcache[k]

    starts = [w["t0"] for w in wins]
    # (stack, round, key) -> owner -> ns; connections
    cpu = collections.defaultdict(collections.Counter)
    conns = collections.Counter()
    for w in wins:
        conns[(w["stack"], w["round"], w["key"])] += w["count"]
    fn_own = {s: collections.Counter() for s in ("stock", "ours")}
    fn_leaf = {s: collections.Counter() for s in ("stock", "ours")}
    serial = collections.defaultdict(collections.Counter)
    serial_fn = collections.Counter()
    period = 0
    nsamples = 0
    for t, _pid, per, chain in samples(args.perf):
        i = bisect.bisect_right(starts, t) - 1
        if i < 0 or t > wins[i]["t1"]:
            continue
        w = wins[i]
        period = per
        nsamples += 1
        own, fn, leaf = owner_of(chain, syms_for(w))
        cpu[(w["stack"], w["round"], w["key"])][own] += per
        if w["key"] in SERIAL_KEYS:
            net = in_net(chain, syms_for(w))
            serial[w["key"]][(own, net)] += per
            if w["key"] == "srserial":
                serial_fn[f"{fn} [{own}]" + (" (network)" if net else "")] += per
            continue
        if own in CM_MODS:
            fn_own[w["stack"]][f"{fn} [{own}]"] += per
            fn_leaf[w["stack"]][f"{leaf[0]} [{leaf[1]}]"] += per
    walls = driver_walls(args.raw)

    keys = []
    for w in wins:
        if w["key"] not in keys:
            keys.append(w["key"])
    rounds = sorted({w["round"] for w in wins}, key=int)

    def per_conn(stack, key, owners, rnd=None):
        rs = [rnd] if rnd else rounds
        ns = sum(cpu[(stack, r, key)][o] for r in rs for o in owners)
        n = sum(conns[(stack, r, key)] for r in rs)
        return ns / 1000 / n if n else None

    out = {"period_ns": period, "samples": nsamples, "target": args.target,
           "workloads": {}, "functions": {}, "leaves": {}}
    print("The CM's own CPU time per connection over the null RNIC, sampled (lower is better; "
          f"target <= {args.target}x)")
    hdr = (f"{'workload':<22} {'stock CM us':>11} {'ours CM us':>10} {'ours/stock':>10} "
           f"{'spread':>9} {'target':>8}  {'rdma_cm s/o':>11} {'iw_cm s/o':>9} "
           f"{'ib_core s/o':>11} {'driver s/o':>10} {'consumer s/o':>12} "
           f"{'all CPU s/o':>11} {'connect wall s/o':>16}")
    print(hdr)
    print("-" * len(hdr))
    all_owners = OWNERS + ("kernel", "user", "host")
    for k in keys:
        st, ou = per_conn("stock", k, CM_MODS), per_conn("ours", k, CM_MODS)
        if st is None or ou is None:
            continue
        ratios = []
        for r in rounds:
            a, b = per_conn("stock", k, CM_MODS, r), per_conn("ours", k, CM_MODS, r)
            if a and b:
                ratios.append(b / a)
        spread = f"{min(ratios):.2f}-{max(ratios):.2f}" if ratios else "-"
        med = median(ratios)
        verdict = "-" if med is None else ("met" if med <= args.target else "not met")

        def so(owners):
            return (f"{per_conn('stock', k, owners):.1f}/{per_conn('ours', k, owners):.1f}")
        wall = {}
        for s in ("stock", "ours"):
            v = [walls[(s, r, k)].get("connect") for r in rounds if (s, r, k) in walls]
            v = [x for x in v if x is not None]
            wall[s] = median(v)
        wall_s = (f"{wall['stock']:.1f}/{wall['ours']:.1f}"
                  if wall["stock"] and wall["ours"] else "-")
        print(f"{k:<22} {st:>11.2f} {ou:>10.2f} {fmt_ratio(ou, st):>10} {spread:>9} "
              f"{verdict:>8}  {so(('rdma_cm',)):>11} {so(('iw_cm',)):>9} "
              f"{so(('ib_core',)):>11} {so(('null_rnic',)):>10} {so(('cm_bench',)):>12} "
              f"{so(all_owners):>11} {wall_s:>16}")
        out["workloads"][k] = {
            "stock_cm_us": st, "ours_cm_us": ou, "ratio": ou / st if st else None,
            "ratio_median": med, "ratio_rounds": ratios,
            "by_owner_us": {s: {o: per_conn(s, k, (o,)) for o in all_owners}
                            for s in ("stock", "ours")},
            "connect_wall_us": wall,
        }
    # Flatness: against no other ids / one listener.
    growth = []
    for s in ("stock", "ours"):
        for base, kind in (("nids ids=0", "nids ids="), ("nlisten listeners=1", "nlisten listeners=")):
            b = per_conn(s, base, CM_MODS) if base in keys else None
            for k in keys:
                if k.startswith(kind) and k != base and b:
                    growth.append(f"{s} {k.split(' ', 1)[1]}: {per_conn(s, k, CM_MODS) / b:.2f}x")
    if growth:
        print("  Growth of CM us/conn against no other ids / one listener: " + ", ".join(growth))
    print(f"""  Host perf samples the UML process every {period / 1000:.0f} us of its CPU (user and,
  where perf_event_paranoid <= 1, host kernel time), {nsamples} samples in the windows of
  the profiled pass (the same null runs as above, run again without cm_acct); rounds
  {', '.join(rounds)}, pooled; spread: the per-round ratios. Each sample is charged to the
  innermost frame of its call chain that is in a CM module (rdma_cm, iw_cm, ib_cm, ib_core:
  stock's address resolution is in ib_core), the null RNIC (driver), cm_bench (consumer),
  else the kernel; CM = the four together. all CPU: every sample in the windows (also the
  guest's shell polling for the end of the run); connect wall: cm_bench's own clock for
  the connect phase, us per connection (no instrument in the path).""")

    for s in ("stock", "ours"):
        n = sum(conns[(s, r, k)] for r in rounds for k in keys)
        tot = sum(fn_own[s].values()) or 1
        print(f"\n{s}: the CM functions that own the most CPU (inclusive of the kernel code "
              "they call, exclusive of other CM functions), us per connection and share")
        for fn, v in fn_own[s].most_common(args.top):
            print(f"  {v / 1000 / n:6.2f}  {100 * v / tot:5.1f}%  {fn}")
        print(f"{s}: the leaf functions the CM's samples end in")
        for fn, v in fn_leaf[s].most_common(args.top):
            print(f"  {v / 1000 / n:6.2f}  {100 * v / tot:5.1f}%  {fn}")
        out["functions"][s] = {fn: v / 1000 / n for fn, v in fn_own[s].most_common(200)}
        out["leaves"][s] = {fn: v / 1000 / n for fn, v in fn_leaf[s].most_common(200)}
    if serial:
        print_serial(serial, serial_fn, conns, rounds, args.top, out,
                     setup_p50s(args.raw, "ours"))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
