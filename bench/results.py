# SPDX-License-Identifier: BSD-3-Clause
"""What one compare.py run measured (Results), how a number is shown, and the targets as data.

A row function adds measurements and skips to the Results object main() made; the report and
the targets only read it.  A target is a Target record evaluated by one function, evaluate();
a target too special for the record's fields names a function of its own (measure=).
Nothing here runs a program: the row modules and the report import it, it imports none of them.
"""
import statistics
import time
from dataclasses import dataclass
from typing import Callable, Optional

KIB, MIB = 1 << 10, 1 << 20
OURS = "softdoca"
# The peers Bench.ucx_over_veth() records (a target takes the better of them).
UCX_VETH_PEERS = ("ucx_perftest ucp_put_bw (tcp)", "ucx_perftest ucp_am_bw (tcp)")
# Same-host baselines of the two-process rows (issue 22; Bench.private_peers, bench/peer_put.c,
# bench/peer_ucp.c): the kernel's limit and UCP for memory nobody remapped, and the mapped peer.
UCP_PUT_BW = "ucx_perftest ucp_put_bw"
UCP_PRIVATE = {"write": "UCP put, private memory", "read": "UCP get, private memory"}
CMA_LIMIT = {"write": "process_vm_writev x16, private memory", "read": "process_vm_readv x16, private memory"}
MAPPED = "memcpy into a MAP_SHARED memfd"


def human_size(n):
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= (1 << shift) and n % (1 << shift) == 0:
            return "%d %s" % (n >> shift, unit)
    return "%d B" % n


def ratio(a, b):
    return a / b if a is not None and b else None


def fmt_bw(bps):
    return "-" if bps is None else "%.2f GB/s" % (bps / 1e9)


def fmt_rate(r):
    return "-" if r is None else "%.2f M/s" % (r / 1e6)


def fmt_us(ns):
    return "-" if ns is None else "%.2f us" % (ns / 1e3)


def fmt_ratio(x):
    return "-" if x is None else "%.3f" % x


def fmt_pct(p):
    return "-" if p is None else "%.2f %%" % p


# How a summary value is shown, by its key in Results.summary().
FORMAT = {"bps": fmt_bw, "bps_per_cpu": fmt_bw, "rate": fmt_rate, "lat_avg": fmt_us, "cpu": fmt_pct}


def perf_vals(row, cpu=False):
    """A doca_perf JSON row as the values Results.add() records (cpu: also its CPU share)."""
    vals = dict(bps=row["bytes_per_sec"], rate=row["tasks_per_sec"], lat=row["lat_ns"])
    if cpu:
        vals["cpu"] = row.get("cpu_percent")
    return vals


def loadavg():
    """The 1-, 5- and 15-minute load averages now, as /proc/loadavg says them ("?" if unreadable)."""
    try:
        with open("/proc/loadavg") as f:
            return " ".join(f.read().split()[:3])
    except OSError:
        return "?"


def load1():
    """The 1-minute load average now (None where /proc/loadavg cannot be read)."""
    try:
        return float(loadavg().split()[0])
    except ValueError:
        return None


def _med(rows, key):
    vals = [r[key] for r in rows if r.get(key) is not None]
    return statistics.median(vals) if vals else None


class Results:
    """Every measurement of one run (raw, in the order taken), the skips with their reasons, and
    time series for plots.  Created by main() and handed to every row function and plugin."""

    def __init__(self):
        self.raw = []           # dict(workload, size, who, **values), one per slice
        self.skips = {}         # row group ("netns", "rdma-write-tcp/ucx", ...) -> reason
        self.timelines = {}     # (who, label) -> [(seconds, MB/s)], drawn by a plugin's plot
        self.started = time.time()
        self.load_at_start = loadavg()

    def add(self, workload, size, who, **vals):
        """One slice's numbers; the 1-minute load average at its end is recorded beside them."""
        self.raw.append(dict(workload=workload, size=size, who=who, load1=load1(), **vals))

    def skip(self, group, reason):
        self.skips[group] = reason

    def skipped(self, workload):
        """True when the workload or one of its peers ("workload/peer") was skipped."""
        return any(k == workload or k.startswith(workload + "/") for k in self.skips)

    def elapsed(self):
        return time.time() - self.started

    # ---- queries ----------------------------------------------------------------

    def rows(self, workload, who=None, size=None):
        return [r for r in self.raw if r["workload"] == workload and (who is None or r["who"] == who)
                and (size is None or r["size"] == size)]

    def sizes(self, workload, who=None):
        return sorted({r["size"] for r in self.rows(workload, who)})

    def workloads(self):
        return sorted({r["workload"] for r in self.raw})

    def series(self):
        """(workload, who) of every measurement, sorted."""
        return sorted({(r["workload"], r["who"]) for r in self.raw})

    def pairings(self):
        """(workload, size, peer) for every peer measured, in the order first measured."""
        seen = []
        for r in self.raw:
            key = (r["workload"], r["size"], r["who"])
            if r["who"] != OURS and key not in seen:
                seen.append(key)
        return seen

    def summary(self, workload, size, who):
        """Medians over the rounds of one (workload, size, who), or None if nothing was measured."""
        rows = self.rows(workload, who, size)
        if not rows:
            return None
        out = {"bps": _med(rows, "bps"), "rate": _med(rows, "rate"), "n": len(rows)}
        lats = [r["lat"] for r in rows if isinstance(r.get("lat"), dict)]
        if lats:
            for k in ("p50", "p99", "p999", "avg"):
                out["lat_" + k] = statistics.median([lat[k] for lat in lats if k in lat])
        la = _med(rows, "lat_avg_ns")
        if la is not None:
            out["lat_avg"] = la
        cpu = _med(rows, "cpu")
        if cpu is not None:
            out["cpu"] = cpu
        # Bytes per CPU-second of the process: what a copy costs, whatever share of the
        # machine the process got (on a loaded box wall-clock bandwidth mostly says that).
        eff = [r["bps"] * 100.0 / r["cpu"] for r in rows if r.get("cpu") and r.get("bps")]
        if eff:
            out["bps_per_cpu"] = statistics.median(eff)
        return out

    def value(self, workload, size, who, key):
        s = self.summary(workload, size, who)
        return s and s.get(key)

    def best(self, workload, size, peers, key):
        """The highest value of key among peers (one name or a tuple of names); None if none has one."""
        vals = [self.value(workload, size, p, key) for p in ((peers,) if isinstance(peers, str) else peers)]
        return max((v for v in vals if v), default=None)

    def load(self, workload, size):
        """The median 1-minute load average over the slices of (workload, size), ours and peers'."""
        return _med(self.rows(workload, size=size), "load1")

    def cpu_ratio(self, workload, size, peer):
        """ours/peer in bytes per CPU-second (None unless both sides reported their CPU)."""
        return ratio(self.value(workload, size, OURS, "bps_per_cpu"), self.value(workload, size, peer, "bps_per_cpu"))


# ---- targets -------------------------------------------------------------------------

LARGEST = "largest"     # Target.size: the largest size measured, named in the value shown

_OPS = {">=": lambda x, g: x >= g, "<=": lambda x, g: x <= g, "<": lambda x, g: x < g}


@dataclass(frozen=True)
class Target:
    """One target of the issues, judged on the medians.

    Without measure=: ours (who "softdoca") on workload at size, summary key metric ("bps" wall
    clock, "bps_per_cpu" per CPU-second, "lat_avg", "rate", "cpu").  With a peer, the value is
    ours/peer (a tuple of peers: the best of them); without, ours itself.  Met when
    `value op goal`: ">=" higher is better, "<=" or "<" lower is better.  show_cpu adds the
    per-CPU-second ratio beside, show_values both medians ("(X vs Y)").
    measure(results, target) -> (shown, met) replaces all of that for a target that needs more.
    """
    id: str
    title: str
    workload: str = ""
    size: object = None
    metric: str = "bps"
    peer: object = None
    op: str = ">="
    goal: float = 0.0
    show_cpu: bool = False
    show_values: bool = False
    measure: Optional[Callable] = None

    def judge(self, x):
        return None if x is None else _OPS[self.op](x, self.goal)


def _standard(res, t):
    size = max(res.sizes(t.workload), default=None) if t.size == LARGEST else t.size
    if size is None:
        return "-", None
    ours = res.value(t.workload, size, OURS, t.metric)
    if t.peer is None:
        return FORMAT[t.metric](ours), t.judge(ours)
    theirs = res.best(t.workload, size, t.peer, t.metric)
    x = ratio(ours, theirs)
    shown = fmt_ratio(x)
    if t.show_cpu:
        c = res.cpu_ratio(t.workload, size, t.peer)
        shown += "" if c is None else " (per CPU-second %.3f)" % c
    if t.show_values and x is not None:
        shown += " (%s vs %s)" % (FORMAT[t.metric](ours), FORMAT[t.metric](theirs))
    if t.size == LARGEST:
        shown += " (%s)" % human_size(size)
    return shown, t.judge(x)


def all_of(*goals):
    """measure= for a target with several peers at once: goals are (peer, goal) pairs judged with
    the target's op, all of which must hold; a goal None is a reference, shown and not judged."""
    def measure(res, t):
        ours = res.value(t.workload, t.size, OURS, t.metric)
        parts, met = [], True
        for peer, goal in goals:
            x = ratio(ours, res.value(t.workload, t.size, peer, t.metric))
            parts.append("%s vs %s%s" % (fmt_ratio(x), peer, " (reference)" if goal is None else
                                         " (%s %g)" % (t.op, goal)))
            if goal is not None:
                met = None if x is None or met is None else met and _OPS[t.op](x, goal)
        return "; ".join(parts) + " (ours %s)" % FORMAT[t.metric](ours), met
    return measure


def _slice_lat_avg(row):
    """One slice's average latency (ns): doca_perf's histogram, or ucx_perftest's column."""
    lat = row.get("lat")
    return lat.get("avg") if isinstance(lat, dict) else row.get("lat_avg_ns")


def paired(res, t):
    """measure= for a two-process latency row (metric lat_avg): the median over the rounds of
    ours / the peer's slice of the same round, measured back to back.  A same-host ping-pong on
    these guests flips between modes several-fold apart every few seconds (ucp_am_lat 75, ~170 or
    ~600 ns); the ratio of the two medians can pair one side's fast mode with the other's slow one
    (stop 36 of docs/results/notes-issue22.md), the rounds' own ratios do so only in the round
    where a flip fell between the two slices.  The ratio of the medians is shown beside."""
    ours = {r["round"]: _slice_lat_avg(r) for r in res.rows(t.workload, OURS, t.size) if "round" in r}
    theirs = {r["round"]: _slice_lat_avg(r) for r in res.rows(t.workload, t.peer, t.size) if "round" in r}
    per_round = [ratio(ours[k], theirs[k]) for k in sorted(ours) if k in theirs]
    per_round = [x for x in per_round if x is not None]
    if not per_round:
        return "-", None
    x = statistics.median(per_round)
    medians = ratio(res.value(t.workload, t.size, OURS, t.metric), res.value(t.workload, t.size, t.peer, t.metric))
    shown = "%s (rounds %s; ratio of the medians %s)" % (fmt_ratio(x), " ".join("%.2f" % r for r in per_round),
                                                         fmt_ratio(medians))
    if t.show_values:
        shown += " (%s vs %s)" % (FORMAT[t.metric](res.value(t.workload, t.size, OURS, t.metric)),
                                  FORMAT[t.metric](res.value(t.workload, t.size, t.peer, t.metric)))
    return shown, t.judge(x)


def evaluate(res, table):
    """[(id, title, value shown, met True/False/None)] for every target of the table, in order."""
    return [(t.id, t.title) + tuple((t.measure or _standard)(res, t)) for t in table]


# Issue 22's same-host targets, shared by the RDMA rows (P4, P9, P10) and the Verbs rows (P19, P20).
P4_TITLE = ("%s write 1 MiB, two local processes >= 1.0x UCP put into private memory and >= 0.95x the "
            "process_vm_writev limit (ucp_put_bw, UCX-mapped memory: reference; its 0.6x goal for huge-page-backed "
            "private registrations is beyond a kernel copy here - shared huge pages take the mapped path, P36)")
P9_TITLE = "%s 4 KiB, two local processes >= 0.9x the batched process_vm_%s limit and >= 1.0x UCP %s into private memory"
LARGE_WRITE = all_of((UCP_PRIVATE["write"], 1.0), (CMA_LIMIT["write"], 0.95), (UCP_PUT_BW, None))


def small_copy(op):
    """P9, P10, P20: 4 KiB against the batched kernel copy (0.9x) and UCP into private memory (1.0x)."""
    return all_of((CMA_LIMIT[op], 0.9), (UCP_PRIVATE[op], 1.0))
