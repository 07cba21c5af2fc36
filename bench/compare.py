#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Side-by-side comparison: softdoca's doca_perf against its peers, in one run.

Peers, on the same sizes: a plain memcpy loop and a raw process_vm_readv loop
(bench/peer_copy.c), ucx_perftest (ucp_put_bw, ucp_get, ucp_am_bw, ucp_am_lat over
shm and tcp), and iperf3 between two network namespaces.  Each (workload, size) is
measured in ROUNDS slices that alternate ours and the peer's, so both see the same
noise on a shared machine; the table shows medians and ours/peer ratios, the issues'
targets (TARGETS, one table) are marked met / missed, the raw numbers go to results.json,
gnuplot draws bw.png and lat.png, and --page writes the results page (docs/results/README.md).
The DOCA Verbs rows (P19-P22) are the plugin verbs_rows.py, the Multi-Rail rows (P7,
P16-P18) the plugin multi_rail.py.

  compare.py --build BUILD [--out DIR] [--page DIR] [--smoke] [--rounds N] [--slice S]

--smoke: tiny slices, one round: checks that every number is produced (exit 1 if a
row that is not skipped has no number), never how fast.  Skips always say why.

Layout: runner.py (Bench: the programs a row runs), results.py (Results, Target, evaluate),
report.py (tables, results.json, plots, page); this file holds the steps, the core targets
and main(), which makes the one Bench and the one Results and hands them to every step.
"""
import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

try:
    from softdoca_testbed.tap import Skip
except ImportError:
    sys.exit("compare.py: the softdoca_testbed package is not on PYTHONPATH: run scripts/bench.sh BUILD, "
             "or PYTHONPATH=python python3 bench/compare.py ...")

import engine_rows  # noqa: E402  issue 20 rows: P28-P35
import multi_rail  # noqa: E402  issue 14 rows: P7, P16-P18
import report  # noqa: E402
import verbs_rows  # noqa: E402  issue 13 rows: P19-P22
from results import (KIB, LARGEST, MIB, OURS, UCX_VETH_PEERS, Results, Target,  # noqa: E402
                     fmt_ratio, human_size, perf_vals, ratio)
from results import LARGE_WRITE, P4_TITLE, P9_TITLE, UCP_PUT_BW, paired, small_copy  # noqa: E402
from runner import Bench, last_line, run  # noqa: E402

PLUGINS = (verbs_rows, multi_rail, engine_rows)


def log(msg):
    print(msg, file=sys.stderr, flush=True)


# ---- workloads -------------------------------------------------------------------
# Every step is fn(bench, results, smoke): it measures and adds to results, skips with a reason.

def comch_rows(b, res, smoke):
    """P23 control-path round trip, P24 fast path (private and mapped buffers), P25 DMA Copy of a file vs cp."""
    if not os.access(b.comch, os.X_OK):
        res.skip("comch", "bench/comch_bench is not built")
        return
    iters = 2000 if smoke else 50000
    secs = 0.2 if smoke else max(0.5, b.slice * 2)
    for r in range(b.rounds):
        try:
            lat = json.loads(run([b.comch, "lat", "64", str(iters)], timeout=120).strip().splitlines()[-1])
            res.add("comch-ctrl-lat", 64, OURS, round=r, lat_avg_ns=lat["comch_rtt_ns"])
            res.add("comch-ctrl-lat", 64, "unix socket ping-pong", round=r, lat_avg_ns=lat["unix_rtt_ns"])
        except (RuntimeError, ValueError, subprocess.TimeoutExpired) as e:
            res.skip("comch-ctrl-lat", "comch_bench lat failed: %s" % str(e)[-200:])
        try:
            bw = json.loads(run([b.comch, "bw", str(64 * KIB), str(secs)], timeout=120).strip().splitlines()[-1])
            res.add("comch-fastpath", 64 * KIB, OURS, round=r, bps=bw["comch_bps"])
            res.add("comch-fastpath", 64 * KIB, "shared-memory ring", round=r, bps=bw["ring_bps"])
        except (RuntimeError, ValueError, subprocess.TimeoutExpired) as e:
            res.skip("comch-fastpath", "comch_bench bw failed: %s" % str(e)[-200:])
        try:
            # The same, both sides' buffers in a sealed memfd: the producer writes through its window.
            bw = json.loads(run([b.comch, "bw", str(64 * KIB), str(secs), "memfd"],
                                timeout=120).strip().splitlines()[-1])
            if bw.get("mapped_sends", 0) == 0:
                raise ValueError("no send took the mapped path (SOFTDOCA_COMCH_MAPPED=0?)")
            res.add("comch-fastpath-mapped", 64 * KIB, OURS, round=r, bps=bw["comch_bps"])
            res.add("comch-fastpath-mapped", 64 * KIB, "shared-memory ring", round=r, bps=bw["ring_bps"])
        except (RuntimeError, ValueError, subprocess.TimeoutExpired) as e:
            res.skip("comch-fastpath-mapped", "comch_bench bw memfd failed: %s" % str(e)[-200:])
    dma_copy_file_rows(b, res, MIB if smoke else 1 << 30)


def dma_copy_file_rows(b, res, size):
    """doca_dma_copy (DPU side started first, then the host side) against cp, warm page cache; each
    timed copy after a warm-up of the destination's page cache (warm_page_cache)."""
    if not all(os.access(p, os.X_OK) for p in b.dma_copy.values()):
        res.skip("dma-copy-file", "applications/dma_copy is not built")
        return
    tmp = tempfile.mkdtemp(prefix="sd-bench-dmacopy.")
    env = dict(os.environ, SOFTDOCA_RUNTIME_DIR=os.path.join(tmp, "rt"))
    for d in ("host", "dpu"):
        os.makedirs(os.path.join(tmp, d))
    try:
        block = os.urandom(MIB)
        for d in ("host", "dpu"):
            with open(os.path.join(tmp, d, "src"), "wb") as f:
                for _ in range(max(1, size // MIB)):
                    f.write(block[:min(size, MIB)])
        os.sync()  # else the first rounds share the disk with the write-back of the sources
        # Both sides allocate 1 GiB of page cache, whose cost swings with what the guest must get
        # back first: each timed copy comes right after a warm-up of as much page cache, and the
        # direction alternates every round and which of the pair runs first every two rounds.
        for r in range(b.pipeline_rounds):
            to_dpu = r % 2 == 0
            src_side, dst_side = ("host", "dpu") if to_dpu else ("dpu", "host")
            src = os.path.join(tmp, src_side, "src")
            with open(src, "rb") as f:          # warm the page cache
                while f.read(16 * MIB):
                    pass
            runs = [lambda: cp_file(src, os.path.join(tmp, dst_side, "copy")),
                    lambda: dma_copy_file(b, env, tmp, src_side)]
            if r % 4 >= 2:
                runs.reverse()
            times = {}
            for fn in runs:
                warm_page_cache(os.path.join(tmp, dst_side), size)
                name, t = fn()
                if t is None:
                    res.skip("dma-copy-file", "doca_dma_copy failed: %s" % name)
                    return
                times[name] = t
            res.add("dma-copy-file", size, OURS, round=r, bps=size / times[OURS],
                    direction="host->dpu" if to_dpu else "dpu->host", first="cp" if r % 4 < 2 else OURS)
            res.add("dma-copy-file", size, "cp", round=r, bps=size / times["cp"])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


MADV_POPULATE_WRITE = 23  # Linux 5.14; the mmap module has no name for it before Python 3.12


def warm_page_cache(directory, size):
    """Allocate SIZE bytes of page cache in an unnamed file of DIRECTORY and free them, so that the
    timed copy after it finds its pages as the one before it left them.  On these guests the first
    1 GiB of page cache after a pause took 1.6-3.2 s to populate and 0.22-0.25 s right after another
    file's 1 GiB was freed (the free memory comes back from the hypervisor, or is reassembled into
    large folios), which otherwise lands on whichever of the pair runs first
    (docs/results/notes-issue22.md, P25)."""
    import mmap
    try:
        fd = os.open(directory, os.O_TMPFILE | os.O_RDWR, 0o600)
    except OSError:
        return  # no unnamed files here: both sides of the pair go unwarmed
    try:
        os.posix_fallocate(fd, 0, size)
        with mmap.mmap(fd, size) as m:
            m.madvise(MADV_POPULATE_WRITE)
    except OSError:
        pass  # a kernel before 5.14: the pages are not populated, nor are they for the copies
    finally:
        os.close(fd)


def cp_file(src, dst):
    """cp of src to dst (removed after): ("cp", seconds)."""
    t0 = time.time()
    run(["cp", src, dst], timeout=600)
    t = time.time() - t0
    os.unlink(dst)
    return "cp", t


def dma_copy_file(b, env, tmp, src_side):
    """doca_dma_copy of SRC_SIDE's src to the other side (removed after): (OURS, seconds), or (reason, None)."""
    name = "copy"
    os.link(os.path.join(tmp, src_side, "src"), os.path.join(tmp, src_side, name))
    dpu = subprocess.Popen([b.dma_copy["dpu"], "-f", os.path.join(tmp, "dpu", name), "-p", "03:00.0",
                            "-r", "b1:00.0"], env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    while "Server waiting" not in (dpu.stdout.readline() or "Server waiting"):
        pass
    t0 = time.time()
    host = subprocess.run([b.dma_copy["host"], "-f", os.path.join(tmp, "host", name), "-p", "b1:00.0"],
                          env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, timeout=600)
    dpu.communicate(timeout=600)
    t = time.time() - t0
    for d in ("host", "dpu"):
        os.unlink(os.path.join(tmp, d, name))
    if host.returncode != 0 or dpu.returncode != 0:
        return host.stderr[-200:], None
    return OURS, t


def dma_rows(b, res, smoke):
    sizes = [64, 4 * KIB, 64 * KIB, MIB, 16 * MIB] if not smoke else [64, 64 * KIB, MIB]

    def ours(flags):
        return lambda sz: b.perf_json(["dma"] + flags + ["-s", ",".join(map(str, sz)), "-t", "32", "-D", str(b.slice)])

    def memcpy(s):
        return b.peer_copy("memcpy", s, 32)
    # Memory-bound copies (1 MiB x 32 buffers is a 64 MiB working set) drift by +-10 % between
    # rounds on this VM: more rounds, as for the host<->DPU rows below.
    steady = None if smoke else max(b.rounds, 3) * 2 + 1
    b.alternate(res, "dma-local", sizes, ours([]), memcpy, "memcpy", rounds=steady)

    # 64 B through doca_perf against the same library in a bare loop (P2: doca_perf's own cost).
    b.alternate(res, "dma-local-64", [64], ours([]), b.dma_loop, "bare DOCA loop", rounds=steady)

    # The same copies by an application that sleeps on the PE's notification handle.
    esizes = [64 * KIB, MIB] if not smoke else [MIB]
    b.alternate(res, "dma-local-event", esizes, ours(["--event"]), memcpy, "memcpy", rounds=steady)

    rsizes = [64 * KIB, 256 * KIB, MIB, 4 * MIB] if not smoke else [64 * KIB, MIB]
    # Kernel copies of a 128 MiB working set between two processes swing by +-20 % from one
    # run to the next even on a quiet machine.
    b.alternate(res, "dma-host-dpu", rsizes, ours(["--remote"]), lambda s: b.peer_copy("pvr", s, 32),
                "process_vm_readv", rounds=steady)


def _scale(b, res, group, workload, xs, argv):
    """doca_perf once per x in xs and round (argv(x): its flags); False when a run failed."""
    for x in xs:
        for r in range(b.rounds):
            try:
                row = b.perf_json(argv(x) + ["-D", str(b.slice)])[0]
            except RuntimeError as e:
                res.skip(group, last_line(e))
                return False
            res.add(workload, x, OURS, round=r, **perf_vals(row))
    return True


def scaling_rows(b, res, smoke):
    depths = [1, 4, 16, 64, 256] if not smoke else [1, 256]
    for size in ([64 * KIB, MIB] if not smoke else [64 * KIB]):
        if not _scale(b, res, "scaling-dma", "scale-dma-depth-%s" % human_size(size), depths,
                      lambda d: ["dma", "-s", str(size), "-t", str(d)]):
            return
    if not b.rdma_ok:
        res.skip("scaling-rdma", b.rdma_why)
        return
    if not _scale(b, res, "scaling-rdma", "scale-rdma-write-depth", depths,
                  lambda d: ["rdma", "write", "-s", str(64 * KIB), "-t", str(d)]):
        return
    _scale(b, res, "scaling-rdma-conns", "scale-rdma-write-conns", [1, 4, 16, 64] if not smoke else [1, 4],
           lambda c: ["rdma", "write", "-s", str(64 * KIB), "-t", "16", "-c", str(c)])


# P13/P14: RDMA write 1 MiB on many connections of one context against one connection, the same
# 4 buffers per side in every run: doca_perf otherwise gives each task in flight its own buffer, and
# 64 x 4 x 1 MiB per side (256 MiB) runs from DRAM where one connection's 4 MiB stays in the cache
# (docs/results/notes-issue22.md, "Many connections").
CONNS_ROWS = (("rdma-write-conns64", 64, 4), ("rdma-write-conns1024", 1024, 1))


def conns_rows(b, res, smoke):
    if not b.rdma_ok:
        for workload, _, _ in CONNS_ROWS:
            res.skip(workload, b.rdma_why)
        return

    def write(conns, depth):
        return b.perf_json(["rdma", "write", "-s", str(MIB), "--buffers", "4", "-c", str(conns), "-t", str(depth),
                            "-D", str(b.slice)])

    def one(size):
        row = write(1, 4)[0]
        return (row["bytes_per_sec"], row["tasks_per_sec"], None, row.get("cpu_percent"))

    for workload, conns, depth in CONNS_ROWS:
        b.alternate(res, workload, [MIB], lambda sz, c=conns, d=depth: write(c, d), one, "1 connection",
                    rounds=b.pipeline_rounds)


def _rdma_ours(b, res, workload, argv, r, env):
    """doca_perf rdma (every size) as ours of workload in round r; skipped with the reason."""
    if not b.rdma_ok:
        res.skip(workload, b.rdma_why)
        return
    try:
        for row in b.perf_json(argv + ["-D", str(b.slice)], env=env):
            res.add(workload, row["size"], OURS, round=r, **perf_vals(row))
    except RuntimeError as e:
        res.skip(workload, "ours failed: " + last_line(e))


def ucx_rows(b, res, smoke):
    """ucx_perftest on loopback (shm and tcp) beside doca_perf rdma on the same sizes."""
    sizes = [4 * KIB, 64 * KIB, MIB] if not smoke else [4 * KIB, MIB]
    if not b.ucx:
        res.skip("ucx", "ucx_perftest not installed (package ucx-utils)")
    for tls in (["shm", "tcp"] if not smoke else ["shm"]):
        env = {"UCX_TLS": "tcp"} if tls == "tcp" else None
        for op, test in (("write", "ucp_put_bw"), ("read", "ucp_get")):
            workload = "rdma-%s-%s" % (op, tls)
            for r in range(b.pipeline_rounds if tls == "shm" else b.rounds):
                # --buffers 1: one buffer a side, as ucx_perftest (same working set).
                _rdma_ours(b, res, workload, ["rdma", op, "-s", ",".join(map(str, sizes)), "-t", "16",
                                              "--buffers", "1"], r, env)
                if b.ucx:
                    for s in sizes:
                        b.ucx_peer(res, workload, test, s, tls, r, lat=("avg",))
                if tls == "shm":  # P4, P9, P10: private-memory and mapped peers
                    b.private_peers(res, workload, op, sizes if op == "write" else [4 * KIB], r)
            if tls == "tcp" and b.ucx:
                for r in range(b.rounds):
                    b.ucx_peer(res, "rdma-write-tcp", "ucp_am_bw", MIB, tls, r, group="rdma-write-tcp/am_bw")
        # Latency: 8-byte send/recv ping-pong against ucp_am_lat.
        workload = "rdma-send-lat-%s" % tls
        for r in range(b.pipeline_rounds if tls == "shm" else b.rounds):
            _rdma_ours(b, res, workload, ["rdma", "send", "--lat", "-s", "8"], r, env)
            if b.ucx:
                b.ucx_peer(res, workload, "ucp_am_lat", 8, tls, r, lat=("avg", "p50"))


def mapped_rows(b, res, smoke):
    """P36: doca_perf rdma write whose registrations lie in a sealed memfd (--memory memfd: the
    mapped path, a memcpy through the peer's window) beside ucp_put_bw, whose buffers UCX maps in
    both processes, and a bare memcpy into a memfd both map."""
    sizes = [4 * KIB, 64 * KIB, MIB] if not smoke else [MIB]
    workload = "rdma-write-mapped"
    for r in range(b.pipeline_rounds):
        _rdma_ours(b, res, workload, ["rdma", "write", "-s", ",".join(map(str, sizes)), "-t", "16", "--buffers", "1",
                                      "--memory", "memfd"], r, None)
        if b.ucx:
            for s in sizes:
                b.ucx_peer(res, workload, "ucp_put_bw", s, "shm", r)
        b.mapped_peer(res, workload, sizes, r)
    if not b.ucx:
        res.skip(workload + "/ucx", "ucx_perftest not installed (package ucx-utils)")


def small_rows(b, res, smoke):
    """P12: 64-byte sends, 16 in flight, against ucp_am_bw's message rate at 64 B (shm).  P27: the
    8-byte ping-pong of P5 and ucp_am_lat while a third process keeps one CPU busy (both under
    the same load: the spinner runs through the whole row)."""
    rounds = b.pipeline_rounds
    for r in range(rounds):
        _rdma_ours(b, res, "rdma-send-64", ["rdma", "send", "-s", "64", "-t", "16"], r, None)
        if b.ucx:
            b.ucx_peer(res, "rdma-send-64", "ucp_am_bw", 64, "shm", r)
    spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        for r in range(rounds):
            _rdma_ours(b, res, "rdma-send-lat-loaded", ["rdma", "send", "--lat", "-s", "8"], r, None)
            if b.ucx:
                b.ucx_peer(res, "rdma-send-lat-loaded", "ucp_am_lat", 8, "shm", r, lat=("avg", "p50"))
    finally:
        spinner.kill()
        spinner.wait()
    if not b.ucx:
        res.skip("rdma-small/ucx", "ucx_perftest not installed (package ucx-utils)")


def cm_rows(b, res, smoke):
    """doca_perf rdma write connected through RDMA-CM beside the same run connected with
    descriptor files (doca_rdma_export/connect): the connection method must not matter."""
    if not b.rdma_ok:
        res.skip("rdma-write-cm", b.rdma_why)
        return
    size = 64 * KIB
    for r in range(b.rounds):
        for who, extra in ((OURS, ["-cm"]), ("doca_perf descriptor files", [])):
            try:
                row = b.perf_json(["rdma", "write", "-s", str(size), "-t", "16", "-D", str(b.slice)] + extra)[0]
                res.add("rdma-write-cm", size, who, round=r, **perf_vals(row))
            except (RuntimeError, subprocess.TimeoutExpired) as e:
                res.skip("rdma-write-cm" + ("" if who == OURS else "/oob"), "failed: " + last_line(e))


def netns_rows(b, res, smoke):
    """P6: doca_perf rdma write across two namespaces over TCP on the veth, against ucx_perftest
    (tcp) and iperf3 on the same veth; plus, labelled apart, the same-kernel path containers get."""
    if os.geteuid() != 0:
        res.skip("netns", "network namespaces need root (run make bench as root)")
        return
    if not shutil.which("ip"):
        res.skip("netns", "ip (iproute2) not installed")
        return
    try:
        nn = b.hosts()
    except Skip as e:
        res.skip("netns", str(e)[-200:])
        return
    # --buffers 1: one buffer a side, as ucx_perftest's put_bw/am_bw (same working set).
    argv = ["rdma", "write", "-s", str(MIB), "-t", "16", "--buffers", "1", "-D", str(b.slice)]
    try:
        # tcp over a veth moves with every scheduling hiccup: two more rounds than the default
        for r in range(b.rounds if smoke else b.rounds + 2):
            if b.rdma_ok:
                try:
                    rows, rx = b.perf_pair_over_tcp(nn, argv)
                    for row in rows:
                        res.add("rdma-write-netns", row["size"], OURS, round=r, **perf_vals(row), veth_rx_bytes=rx)
                except (RuntimeError, subprocess.TimeoutExpired, KeyError) as e:
                    res.skip("rdma-write-netns", "ours failed: " + str(e)[-200:])
                # Containers on one kernel: shm/cma allowed (the default), not a network number.
                try:
                    for row in b.perf_pair_netns(nn, argv):
                        res.add("rdma-write-netns-samekernel", row["size"], OURS, round=r, **perf_vals(row))
                except (RuntimeError, subprocess.TimeoutExpired) as e:
                    res.skip("rdma-write-netns-samekernel", "ours failed: " + str(e)[-200:])
            else:
                res.skip("rdma-write-netns", b.rdma_why)
            if b.ucx:
                b.ucx_over_veth(res, nn, "rdma-write-netns", r)
                try:
                    bps, rate, _, _ = b.ucx_perftest("ucp_put_bw", MIB, "shm", netns=nn.ns, server_addr=nn.addr(side=0))
                    res.add("rdma-write-netns-samekernel", MIB, "ucx_perftest ucp_put_bw (shm)", round=r,
                            bps=bps, rate=rate)
                except (RuntimeError, subprocess.TimeoutExpired) as e:
                    res.skip("rdma-write-netns-samekernel/ucx", str(e)[-200:])
            if shutil.which("iperf3"):
                try:
                    res.add("rdma-write-netns", MIB, "iperf3", round=r, bps=b.iperf3(nn))
                except (RuntimeError, subprocess.TimeoutExpired) as e:
                    res.skip("iperf3", str(e)[-200:])
            else:
                res.skip("iperf3", "iperf3 not installed")
    finally:
        nn.down()


def idle_cpu(b, res, smoke):
    """P8: CPU of a connected, idle doca_perf rdma server from /proc/<pid>/stat."""
    if not b.rdma_ok:
        res.skip("idle", b.rdma_why)
        return
    seconds = b.args.idle if b.args.idle is not None else (0.5 if smoke else 3.0)
    oob = tempfile.mkdtemp(prefix="sdbench-idle-")

    def side(role):
        return [b.perf, "rdma", "write", role, "--oob-dir", oob, "-s", "4096", "-n", "100", "--idle", str(seconds + 3),
                "--no-progress"]
    srv = subprocess.Popen(side("--server"), env=dict(os.environ, **b.env),
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        run(side("--client"), env=b.env, timeout=60 + seconds)
        hz = os.sysconf("SC_CLK_TCK")

        def ticks():
            with open("/proc/%d/stat" % srv.pid) as f:
                parts = f.read().rsplit(")", 1)[1].split()
            return int(parts[11]) + int(parts[12])
        time.sleep(0.5)
        t0, c0 = time.time(), ticks()
        time.sleep(seconds)
        t1, c1 = time.time(), ticks()
        res.add("idle-server", 0, OURS, cpu=100.0 * (c1 - c0) / hz / (t1 - t0), seconds=t1 - t0)
    except (RuntimeError, subprocess.TimeoutExpired) as e:
        res.skip("idle", "run failed: " + str(e)[-200:])
    except (OSError, IndexError, ValueError) as e:
        res.skip("idle", "cannot read /proc/%d/stat: %s" % (srv.pid, e))
    finally:
        srv.kill()
        srv.wait()
        shutil.rmtree(oob, ignore_errors=True)


STEPS = (("dma", dma_rows), ("rdma/ucx", ucx_rows), ("mapped", mapped_rows), ("rdma-small", small_rows),
         ("rdma-cm", cm_rows), ("netns", netns_rows),
         (verbs_rows.STEP, verbs_rows.run), ("idle", idle_cpu), ("scaling", scaling_rows),
         ("connections", conns_rows), ("comch", comch_rows),
         (multi_rail.STEP, multi_rail.run), (engine_rows.STEP, engine_rows.run))


# ---- targets ----------------------------------------------------------------------

def host_dpu_worst(res, t):
    """P3: the worst ours/peer ratio over the sizes >= t.size, each size listed, and the worst per CPU-second."""
    rs = [(sz, ratio(res.value(t.workload, sz, OURS, "bps"), res.value(t.workload, sz, t.peer, "bps")))
          for sz in res.sizes(t.workload) if sz >= t.size]
    rs = [(sz, x) for sz, x in rs if x is not None]
    worst = min((x for _, x in rs), default=None)
    cs = [c for c in (res.cpu_ratio(t.workload, sz, t.peer) for sz, _ in rs) if c is not None]
    shown = (fmt_ratio(worst) + ("" if not rs else " (" + ", ".join("%s %.2f" % (human_size(sz), x) for sz, x in rs) + ")")
             + ("" if not cs else "; per CPU-second worst %.3f" % min(cs)))
    return shown, t.judge(worst)


def dma_small(res, t):
    """P2: the task rate through doca_perf (>= 30 M/s) and its ratio to the bare loop (>= 0.9)."""
    o = res.value(t.workload, t.size, OURS, "rate")
    r = ratio(o, res.value(t.workload, t.size, "bare DOCA loop", "rate"))
    met = None if o is None or r is None else (o >= 30e6 and r >= 0.9)
    return "%s M/s; %s vs the bare loop" % ("-" if o is None else "%.1f" % (o / 1e6), fmt_ratio(r)), met


def netns_tcp(res, t):
    """P6: ours against the better ucx_perftest over tcp (t.peer, t.goal) and against iperf3 (>= 0.6)."""
    o = res.value(t.workload, t.size, OURS, "bps")
    r1 = ratio(o, res.best(t.workload, t.size, t.peer, "bps"))
    r2 = ratio(o, res.value(t.workload, t.size, "iperf3", "bps"))
    met = None if r1 is None or r2 is None else (t.judge(r1) and r2 >= 0.6)
    return "%s / %s" % (fmt_ratio(r1), fmt_ratio(r2)), met


# In the order of the Targets table; the plugins' targets are rows of the same kind.
TARGETS = (
    Target("P1", "DMA local 1 MiB, 32 in flight >= 0.95x memcpy", "dma-local", MIB, peer="memcpy", goal=0.95,
           show_cpu=True),
    Target("P2", "DMA 64 B through doca_perf >= 30 M tasks/s and >= 0.9x the same library in a bare loop",
           "dma-local-64", 64, metric="rate", measure=dma_small),
    Target("P3", "DMA host<->DPU >= 64 KiB >= 0.9x process_vm_readv (worst size)", "dma-host-dpu", 64 * KIB,
           peer="process_vm_readv", goal=0.9, measure=host_dpu_worst),
    Target("P4", P4_TITLE % "RDMA", "rdma-write-shm", MIB, measure=LARGE_WRITE),
    Target("P5", "RDMA 8 B send/recv latency <= 1.3x ucp_am_lat (shm, avg)", "rdma-send-lat-shm", 8,
           metric="lat_avg", peer="ucx_perftest ucp_am_lat", op="<=", goal=1.3, measure=paired),
    Target("P12", "RDMA send 64 B message rate, 16 in flight >= 0.8x ucp_am_bw at 64 B (shm)", "rdma-send-64", 64,
           metric="rate", peer="ucx_perftest ucp_am_bw", goal=0.8, show_values=True),
    Target("P27", "RDMA 8 B send/recv latency while another process keeps one CPU busy <= 1.5x ucp_am_lat under "
           "the same load (shm, avg)", "rdma-send-lat-loaded", 8, metric="lat_avg", peer="ucx_perftest ucp_am_lat",
           op="<=", goal=1.5, measure=paired),
    Target("P6", "RDMA write 1 MiB across namespaces >= 0.9x best ucx_perftest tcp, >= 0.6x iperf3",
           "rdma-write-netns", MIB, peer=UCX_VETH_PEERS, goal=0.9, measure=netns_tcp),
    Target("P9", P9_TITLE % ("RDMA write", "writev", "put"), "rdma-write-shm", 4 * KIB, measure=small_copy("write")),
    Target("P10", P9_TITLE % ("RDMA read", "readv", "get"), "rdma-read-shm", 4 * KIB, measure=small_copy("read")),
    Target("P36", "RDMA write 1 MiB into a registration that is already shareable (a sealed memfd) >= 0.9x "
           "ucp_put_bw", "rdma-write-mapped", MIB, peer=UCP_PUT_BW, goal=0.9, show_cpu=True),
    Target("P13", "RDMA write 1 MiB, 64 connections of one context >= 0.9x one connection (same 4 buffers)",
           "rdma-write-conns64", MIB, peer="1 connection", goal=0.9, show_cpu=True),
    Target("P14", "RDMA write 1 MiB, 1,024 connections of one context: works, >= 0.8x one connection",
           "rdma-write-conns1024", MIB, peer="1 connection", goal=0.8, show_cpu=True),
) + verbs_rows.TARGETS + (
    Target("P23", "Comch control path 64 B round trip <= 1.5x a Unix-socket ping-pong (same two processes)",
           "comch-ctrl-lat", 64, metric="lat_avg", peer="unix socket ping-pong", op="<=", goal=1.5),
    Target("P24", "Comch producer/consumer 64 KiB >= 0.8x a shared-memory ring", "comch-fastpath", 64 * KIB,
           peer="shared-memory ring", goal=0.8),
    Target("P24", "Comch producer/consumer 64 KiB, buffers in a sealed memfd (the mapped path) >= 0.8x a "
           "shared-memory ring", "comch-fastpath-mapped", 64 * KIB, peer="shared-memory ring", goal=0.8),
    Target("P25", "DMA Copy of a 1 GiB file (either direction) >= 0.8x cp, warm page cache", "dma-copy-file",
           LARGEST, peer="cp", goal=0.8),
) + multi_rail.TARGETS + engine_rows.TARGETS + (
    Target("P8", "idle connected process < 1% CPU", "idle-server", 0, metric="cpu", op="<", goal=1.0),
)


# ---- main -------------------------------------------------------------------------

def smoke_check(b, res, comp, tg):
    """--smoke: 0 when every pairing that was not skipped has both numbers and DMA is there."""
    missing = [(wl, sz, peer) for wl, sz, peer, o, t, r, _ in comp if r is None and not res.skipped(wl)]
    have_dma = any(wl == "dma-local" for wl, *_ in comp) and any(wl == "dma-host-dpu" for wl, *_ in comp)
    if missing or not have_dma:
        log("compare.py --smoke: numbers missing: %s%s" % (missing, "" if have_dma else " (no DMA rows)"))
        return 1
    for tid, text, val, met in tg:
        if met is None and tid in ("P1", "P2", "P3"):
            log("compare.py --smoke: %s not measured" % tid)
            return 1
    # RDMA works here (the probe passed): the RDMA-CM run must produce its number too.
    if b.rdma_ok and "rdma-write-cm" in res.skips:
        log("compare.py --smoke: doca_perf rdma -cm: " + res.skips["rdma-write-cm"])
        return 1
    return 0


def main():
    res = Results()
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", required=True, help="meson build directory")
    ap.add_argument("--out", help="directory for results.json and plots (default BUILD/bench/results)")
    ap.add_argument("--page", help="also write the results page (README.md + plots) into this directory")
    ap.add_argument("--smoke", action="store_true", help="tiny run: every number produced, speed not judged")
    ap.add_argument("--rounds", type=int, help="alternating rounds per row (default 3; smoke 1)")
    ap.add_argument("--pipeline-rounds", type=int,
                    help="alternating rounds of the two-process shm rows (RDMA and Verbs write/read/latency; "
                         "their runs are bimodal): default max(5, --rounds); smoke 1")
    ap.add_argument("--slice", type=float, help="seconds per slice (default 0.5; smoke 0.05)")
    ap.add_argument("--idle", type=float, default=None, help="seconds of idle CPU sampling for P8")
    ap.add_argument("--only", help="comma-separated steps (%s)" % ", ".join(name for name, _ in STEPS))
    args = ap.parse_args()
    args.rounds = args.rounds or (1 if args.smoke else 3)
    args.pipeline_rounds = args.pipeline_rounds or (1 if args.smoke else max(5, args.rounds))
    args.slice = args.slice or (0.05 if args.smoke else 0.5)
    out = args.out or os.path.join(args.build, "bench", "results")
    b = Bench(args)
    for tool in (b.perf, b.peer):
        if not os.access(tool, os.X_OK):
            print("compare.py: %s is not built (ninja -C %s)" % (tool, args.build), file=sys.stderr)
            return 1
    if not b.rdma_ok:
        log("compare.py: RDMA rows skipped: " + b.rdma_why)
    steps = [st for st in STEPS if not args.only or st[0] in args.only.split(",")]
    for name, fn in steps:
        log("compare.py: %s (%.0f s so far)" % (name, res.elapsed()))
        fn(b, res, args.smoke)
    comp, tg = report.write_outputs(b, res, TARGETS, PLUGINS, out, args.page)
    log("compare.py: done in %.0f s; raw numbers in %s" % (res.elapsed(), os.path.join(out, "results.json")))
    return smoke_check(b, res, comp, tg) if args.smoke else 0


if __name__ == "__main__":
    signal.signal(signal.SIGINT, signal.default_int_handler)
    sys.exit(main())
