#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""SOFTDOCA_TRACE (docs/diagnostics.md "Timelines") through unchanged programs; prints TAP.

Usage: test_trace.py DOCA_PERF DMA_LOCAL_COPY DOCA_RDMA_SEND DOCA_RDMA_RECEIVE TRACE_THREADS
                     [COMCH_CTRL_SERVER COMCH_CTRL_CLIENT]

Each run's file must be JSON in the trace-event format: a named track per
context, exactly one complete slice per task (a known count), never two
slices overlapping on one tid, state instants, RDMA's connection instants,
the progress counter; a tiny ring rotates and then drops as documented; an
unwritable path costs one error line and nothing else.
"""
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

from softdoca_testbed import pairs, tap
from softdoca_testbed.pairs import Proc, Run, Session, Side
from softdoca_testbed.tap import Skip, check

PERF, LOCAL_COPY, SEND, RECEIVE, THREADS = sys.argv[1:6]
COMCH = sys.argv[6:8]
TIMEOUT = 60
TRACK = re.compile(r"^(dma|rdma) ctx 0x[0-9a-f]+ \(mlx5_\d+\)$")
TMP = tempfile.mkdtemp(prefix="sd-trace-")


def run(argv, trace, **extra):
    env = dict(os.environ, SOFTDOCA_TRACE=trace, **extra)
    p = subprocess.run(argv, capture_output=True, timeout=TIMEOUT, env=env)
    return Run(argv, p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace"))


def perf_dma(trace, n, **extra):
    return run([PERF, "dma", "-s", "64", "-n", str(n), "--warmup", "0"], trace, **extra)


def load(path, *runs):
    check(os.path.exists(path), "no trace file at %s" % path, *runs)
    with open(path) as f:
        doc = json.load(f)
    check(doc.get("displayTimeUnit") == "ns" and isinstance(doc.get("traceEvents"), list),
          "not a trace-event document: %s" % list(doc), *runs)
    return doc


def events(doc, ph):
    return [e for e in doc["traceEvents"] if e["ph"] == ph]


def tracks(doc):
    """tid -> name from the thread_name metadata; lanes end with ' lane k'."""
    return {e["tid"]: e["args"]["name"] for e in events(doc, "M") if e["name"] == "thread_name"}


def context_tracks(doc):
    return [n for n in tracks(doc).values() if " lane " not in n]


def check_slices(doc, name, count):
    """count slices called name, each on a named lane of a context track, none overlapping on a tid."""
    names = tracks(doc)
    slices = [e for e in events(doc, "X") if e["name"] == name]
    check(len(slices) == count, "%d %s slices, expected one per task: %d" % (len(slices), name, count))
    by_tid = collections.defaultdict(list)
    for e in slices:
        check(e["dur"] >= 0 and e["ts"] >= 0, "a slice with negative time: %s" % e)
        check(e["tid"] in names, "a slice on an unnamed tid: %s" % e)
        check(e["args"]["status"] == "DOCA_SUCCESS", "a slice did not succeed: %s" % e)
        check(names[e["tid"]].startswith(names[e["tid"] % 65536]), "lane %s not under its track" % names[e["tid"]])
        by_tid[e["tid"]].append((e["ts"], e["ts"] + e["dur"]))
    for spans in by_tid.values():
        spans.sort()
        # %.3f rounding of ts and dur: 2 ns of slack
        check(all(b[0] >= a[1] - 0.002 for a, b in zip(spans, spans[1:])), "slices overlap on one tid")
    return slices


def states(doc):
    return [e["name"] for e in sorted(events(doc, "i"), key=lambda e: e["ts"]) if e["cat"] == "state"]


def test_dma_sample_one_task():
    path = os.path.join(TMP, "copy.json")
    r = run([LOCAL_COPY, "-t", "softdoca"], path)
    check(r.code == 0 and "memory copied and verified" in r.out + r.err, "the sample failed", r)
    check("[softdoca-trace] " in r.err and path in r.err and "ui.perfetto.dev" in r.err,
          "no line saying where the trace is and how to open it", r)
    doc = load(path, r)
    names = context_tracks(doc)
    check(len(names) == 1 and TRACK.match(names[0]) and names[0].startswith("dma "), "tracks: %s" % names, r)
    check_slices(doc, "memcpy", 1)
    check(states(doc) == ["RUNNING", "STOPPING", "IDLE"], "state instants %s" % states(doc), r)


def test_perf_dma_known_count():
    path = os.path.join(TMP, "perf.json")
    r = perf_dma(path, 3000)
    check(r.code == 0, "doca_perf failed", r)
    doc = load(path, r)
    check(len(context_tracks(doc)) == 1, "tracks: %s" % context_tracks(doc), r)
    slices = check_slices(doc, "memcpy", 3000)
    check(len({e["args"]["task"] for e in slices}) == 32, "expected the 32 tasks of -t 32 reused", r)
    check(len(tracks(doc)) > 1, "32 tasks in flight and a single lane", r)
    check(states(doc) == ["RUNNING", "IDLE"], "state instants %s" % states(doc), r)
    counters = events(doc, "C")
    check(counters and all(c["name"].startswith("pe 0x") and "progress: dma ctx" in c["name"] for c in counters),
          "no progress counter", r)
    check(sum(c["args"]["completions_per_ms"] for c in counters) > 0, "the counter saw no completion", r)
    check(counters[-1]["args"] == {"progress_calls_per_ms": 0.0, "completions_per_ms": 0.0},
          "the counter does not drop to 0 at IDLE", r)
    other = doc["otherData"]
    check(other["softdoca_events_dropped"] == 0 and other["softdoca_events_in_file"] ==
          other["softdoca_events_recorded"] == sum(1 for e in doc["traceEvents"] if e["ph"] != "M"),
          "event counts in otherData do not match the file: %s" % other, r)


def rdma_checks(path, task, run_):
    doc = load(path, run_)
    names = context_tracks(doc)
    check(len(names) == 1 and names[0].startswith("rdma "), "tracks: %s" % names, run_)
    check_slices(doc, task, 1)
    check(states(doc) == ["STARTING", "RUNNING", "STOPPING", "IDLE"], "state instants %s" % states(doc), run_)
    conn = [e["name"] for e in events(doc, "i") if e["cat"] == "connection"]
    return conn


def test_rdma_pair_descriptor_files():
    with Session() as s:
        rt, st = s.path("recv.json"), s.path("send.json")
        rs, rr = pairs.send_receive(s, "traced", a=Side(env={"SOFTDOCA_TRACE": rt}), b=Side(env={"SOFTDOCA_TRACE": st}))
        for path, task, r in ((rt, "receive", rr), (st, "send", rs)):
            conn = rdma_checks(path, task, r)
            check(conn[:1] == ["connection established"], "connection instants %s" % conn, r)


def test_rdma_pair_cm_connects_and_disconnects():
    port = pairs.free_port()
    with Session() as s:
        rt, st = s.path("recv.json"), s.path("send.json")
        recv = pairs.cm_server(s, Side(env={"SOFTDOCA_TRACE": rt}), "receive", port)
        send = pairs.cm_client(s, Side(env={"SOFTDOCA_TRACE": st}), "send", port, "-s", "traced over CM")
        rs, rr = send.finish(), recv.finish()
        pairs.expect_success(rs)
        pairs.expect_success(rr)
        for path, task, r in ((rt, "receive", rr), (st, "send", rs)):
            conn = rdma_checks(path, task, r)
            check(conn == ["connection established", "connection disconnected"], "connection instants %s" % conn, r)


def test_pes_on_threads_trace_at_once():
    # tasks complete on the worker engine's threads; the PEs progress on four others
    path = os.path.join(TMP, "threads.json")
    r = run([THREADS, "4", "400"], path, SOFTDOCA_DMA_ENGINE="worker")
    check(r.code == 0 and "ok 4 x 400" in r.out, "trace_threads failed", r)
    doc = load(path, r)
    names = context_tracks(doc)
    check(len(names) == 4 and all(TRACK.match(n) for n in names), "tracks: %s" % names, r)
    check_slices(doc, "memcpy", 4 * 400)
    per_ctx = collections.Counter(e["args"]["ctx"] for e in events(doc, "X"))
    check(sorted(per_ctx.values()) == [400] * 4, "slices per context %s" % per_ctx, r)


def test_comch_pair_server_sees_the_client():
    if not COMCH:
        raise Skip("the Comch control-path samples are not built")
    env = dict(os.environ, SOFTDOCA_RUNTIME_DIR=os.path.join(TMP, "rt"))
    st, ct = os.path.join(TMP, "comch-server.json"), os.path.join(TMP, "comch-client.json")
    procs = [Proc([COMCH[0], "-p", "03:00.0", "-r", "b1:00.0", "-t", "from the DPU"], dict(env, SOFTDOCA_TRACE=st))]
    try:
        time.sleep(0.3)
        procs.append(Proc([COMCH[1], "-p", "b1:00.0", "-t", "from the host"], dict(env, SOFTDOCA_TRACE=ct)))
        rc, rs = procs[1].finish(TIMEOUT), procs[0].finish(TIMEOUT)
    finally:
        for p in procs:
            p.kill()
    check(rc.code == 0 and rs.code == 0, "a Comch sample failed", rc, rs)
    for path, kind, first, r in ((st, "comch_server ", "RUNNING", rs), (ct, "comch_client ", "STARTING", rc)):
        doc = load(path, r)
        names = context_tracks(doc)
        check(len(names) == 1 and names[0].startswith(kind), "tracks: %s" % names, r)
        check_slices(doc, "send", 1)
        check(states(doc)[:1] == [first] and states(doc)[-1:] == ["IDLE"], "state instants %s" % states(doc), r)
    conn = [e["name"] for e in events(load(st), "i") if e["cat"] == "connection"]
    check(conn[:1] == ["connection established"], "the server's connection instants: %s" % conn, rs)


def test_ring_rotates_then_drops():
    path = os.path.join(TMP, "ring.json")
    r = perf_dma(path, 1000, SOFTDOCA_TRACE_EVENTS="100", SOFTDOCA_TRACE_FILES="2")
    check(r.code == 0, "doca_perf failed with a tiny ring", r)
    files = [os.path.join(TMP, "ring.1.json"), os.path.join(TMP, "ring.2.json"), path]
    docs = [load(f, r) for f in files]
    check(not os.path.exists(os.path.join(TMP, "ring.3.json")), "more rotated files than SOFTDOCA_TRACE_FILES", r)
    in_file = [sum(1 for e in d["traceEvents"] if e["ph"] != "M") for d in docs]
    check(in_file == [100, 100, 100], "events per file %s, expected the ring's 100 each" % in_file, r)
    check(all(len(context_tracks(d)) == 1 for d in docs), "a file without its track", r)
    last = docs[-1]["otherData"]
    check(last["softdoca_rotated_files"] == 2 and last["softdoca_events_dropped"] ==
          last["softdoca_events_recorded"] - 300 > 0, "rotation/drop counts: %s" % last, r)
    slices = sum(len(events(d, "X")) for d in docs)
    check(slices < 1000 and slices + last["softdoca_events_dropped"] >= 1000, "slices %d vs dropped" % slices, r)
    # the first file holds the start (RUNNING), the final one the end (IDLE)
    check(states(docs[0])[:1] == ["RUNNING"] and states(docs[-1])[-1:] == ["IDLE"], "start/end misplaced", r)


def test_ring_without_rotation_keeps_newest():
    path = os.path.join(TMP, "newest.json")
    r = perf_dma(path, 500, SOFTDOCA_TRACE_EVENTS="64", SOFTDOCA_TRACE_FILES="0")
    check(r.code == 0, "doca_perf failed", r)
    doc = load(path, r)
    other = doc["otherData"]
    check(other["softdoca_events_in_file"] == 64 and other["softdoca_events_dropped"] ==
          other["softdoca_events_recorded"] - 64, "newest-64 rule broken: %s" % other, r)
    check(states(doc)[-1:] == ["IDLE"], "the newest events lost the end", r)
    check(os.path.getsize(path) < 64 * 400 + 8192, "file of %d bytes for 64 events" % os.path.getsize(path), r)


def test_unwritable_path_one_error():
    r = run([LOCAL_COPY, "-t", "softdoca"], "/nonexistent-dir-of-softdoca/t.json")
    check(r.code == 0 and "memory copied and verified" in r.out + r.err, "the program did not run normally", r)
    lines = [ln for ln in r.err.splitlines() if "SOFTDOCA_TRACE" in ln]
    check(len(lines) == 1 and "cannot create /nonexistent-dir-of-softdoca/t.json" in lines[0] and
          "no trace is recorded" in lines[0], "expected one clear error line: %s" % lines, r)
    check("[softdoca-trace]" not in r.err, "a trace was reported written", r)


def test_pid_in_path():
    r = run([LOCAL_COPY, "-t", "softdoca"], os.path.join(TMP, "pid-%p.json"))
    m = re.search(r"written to (\S+pid-(\d+)\.json)", r.err)
    check(r.code == 0 and m is not None and os.path.exists(m.group(1)), "%p was not replaced by the pid", r)
    check(load(m.group(1), r)["traceEvents"][0]["pid"] == int(m.group(2)), "pid in the file differs", r)


def main():
    try:
        pairs.load_samples([SEND, RECEIVE])
        return tap.run(tap.cases(globals()))
    finally:
        shutil.rmtree(TMP, ignore_errors=True)


if __name__ == "__main__":
    os.environ.setdefault("SOFTDOCA_TOPOLOGY", "builtin")
    sys.exit(main())
