#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Side-by-side comparison: softdoca's doca_perf against its peers, in one run.

Peers, on the same sizes: a plain memcpy loop and a raw process_vm_readv loop
(bench/peer_copy.c), ucx_perftest (ucp_put_bw, ucp_get, ucp_am_bw, ucp_am_lat over
shm and tcp), and iperf3 between two network namespaces.  Each (workload, size) is
measured in ROUNDS slices that alternate ours and the peer's, so both see the same
noise on a shared machine; the table shows medians and ours/peer ratios, the issue's
targets P1-P8 are marked met / missed, the raw numbers go to results.json, gnuplot
draws bw.png and lat.png, and --page writes the results page (docs/results/README.md).
The DOCA Verbs rows and targets P19-P22 are in verbs_rows.py (step `verbs`).

  compare.py --build BUILD [--out DIR] [--page DIR] [--smoke] [--rounds N] [--slice S]

--smoke: tiny slices, one round: checks that every number is produced (exit 1 if a
row that is not skipped has no number), never how fast.  Skips always say why.
"""
import argparse
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

try:
    from softdoca_testbed.netns import HOST_FUNCTION, TCP_ENV, TwoHosts
    from softdoca_testbed.tap import Skip
except ImportError:
    sys.exit("compare.py: the softdoca_testbed package is not on PYTHONPATH: run scripts/bench.sh BUILD, "
             "or PYTHONPATH=python python3 bench/compare.py ...")

import multi_rail  # noqa: E402  issue 14 rows: P7, P16-P18
import verbs_rows  # noqa: E402  issue 13 rows: P19-P22

KIB, MIB = 1 << 10, 1 << 20
SKIPS = {}          # row group -> reason
RAW = []            # every measurement: dict(workload, size, who, metric values)
T_START = time.time()


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def human_size(n):
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= (1 << shift) and n % (1 << shift) == 0:
            return "%d %s" % (n >> shift, unit)
    return "%d B" % n


def run(cmd, env=None, timeout=120, netns=None):
    """Run a command, return stdout (str) or raise RuntimeError with its stderr."""
    if netns:
        cmd = ["ip", "netns", "exec", netns] + cmd
    full_env = dict(os.environ)
    if env:
        full_env.update(env)
    p = subprocess.run(cmd, env=full_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, timeout=timeout)
    if p.returncode != 0:
        raise RuntimeError("%s: exit %d: %s" % (" ".join(cmd), p.returncode, p.stderr.strip()[-400:]))
    return p.stdout


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Bench:
    def __init__(self, args):
        self.args = args
        self.build = os.path.abspath(args.build)
        self.perf = os.path.join(self.build, "tools", "doca_perf", "doca_perf")
        self.peer = os.path.join(self.build, "bench", "peer_copy")
        self.comch = os.path.join(self.build, "bench", "comch_bench")
        self.dma_copy = {side: os.path.join(self.build, "applications", "dma_copy", side, "doca_dma_copy")
                         for side in ("host", "dpu")}
        self.env = {"SOFTDOCA_TOPOLOGY": os.environ.get("SOFTDOCA_TOPOLOGY", "builtin"),
                    "DOCA_LOG_LEVEL": os.environ.get("DOCA_LOG_LEVEL", "30")}
        self.slice = args.slice
        self.rounds = args.rounds
        self.rdma_ok, self.rdma_why = self.probe_rdma()
        self.ucx = shutil.which("ucx_perftest")
        self.mr_app = os.path.join(self.build, "applications", "verbs_multi_rail_server_client",
                                   "doca_verbs_multi_rail_server_client")
        self.skips = SKIPS

    # ---- tools ------------------------------------------------------------------

    def probe_rdma(self):
        try:
            run([self.perf, "rdma", "write", "-s", "64", "-n", "10", "--json", "--no-progress"],
                env=self.env, timeout=60)
            return True, ""
        except (RuntimeError, subprocess.TimeoutExpired) as e:
            msg = str(e)
            if "no DOCA RDMA library" in msg:
                return False, "doca_perf built without libdoca_rdma"
            return False, "doca_perf rdma failed: " + msg.splitlines()[-1][-200:]

    def perf_json(self, argv, netns=None, env=None):
        e = dict(self.env)
        if env:
            e.update(env)
        out = run([self.perf] + argv + ["--json", "--no-progress"], env=e, netns=netns,
                  timeout=60 + 30 * self.slice * 20)
        return json.loads(out)["results"]

    def peer_copy(self, kind, size, depth):
        out = run([self.peer, kind, str(size), str(depth), str(self.slice)])
        return json.loads(out)["results"][0]

    def ucx_perftest(self, test, size, tls, netns=None, server_addr="127.0.0.1", netdev=None):
        """One ucx_perftest server+client run; returns (bytes/s, msg/s, lat50 us, lat avg us)."""
        lat = test.endswith("_lat")
        # Iterations sized for about one slice (ucx_perftest has no duration flag); tcp gets
        # and small tcp messages are far slower than bandwidth suggests, hence the caps.
        if lat and self.args.smoke:
            # Two busy-polling processes on a loaded 2-core box take milliseconds per
            # round trip: 10000 of them outlast the smoke budget.
            iters = 200
        elif lat:
            iters = max(200, int(self.slice * (4000 if tls == "tcp" else 200000)))
        elif tls == "tcp":
            iters = int(max(50, min(800 * self.slice, 0.4e9 * self.slice / size)))
        else:
            iters = int(max(50, min(200000, 12e9 * self.slice / size)))
        warm = max(10, iters // 10)
        port = free_port()
        env = dict(os.environ)
        env["UCX_TLS"] = tls
        senv = dict(env)
        cenv = dict(env)
        if netdev:
            senv["UCX_NET_DEVICES"], cenv["UCX_NET_DEVICES"] = netdev
        spre = ["ip", "netns", "exec", netns[0]] if netns else []
        cpre = ["ip", "netns", "exec", netns[1]] if netns else []
        srv = subprocess.Popen(spre + [self.ucx, "-p", str(port)], env=senv,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            last = ""
            for attempt in range(20):
                time.sleep(0.15)
                p = subprocess.run(cpre + [self.ucx, server_addr, "-p", str(port), "-t", test,
                                           "-s", str(size), "-n", str(iters), "-w", str(warm), "-f"],
                                   env=cenv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   text=True, timeout=30 + 20 * self.slice)
                if p.returncode == 0:
                    f = p.stdout.strip().splitlines()[-1].split()
                    # iters, lat50, lat avg, lat overall, MB/s avg, MB/s overall, msg/s avg, overall
                    return (float(f[5]) * MIB, float(f[7]), float(f[1]), float(f[2]))
                last = p.stderr.strip()
                if "Connection refused" not in last and "connect" not in last.lower():
                    break
            raise RuntimeError("ucx_perftest %s %s: %s" % (test, tls, last[-300:]))
        finally:
            try:
                srv.wait(timeout=10)
            except subprocess.TimeoutExpired:
                srv.kill()
                srv.wait()

    # ---- measurement helpers ----------------------------------------------------

    def record(self, workload, size, who, **vals):
        RAW.append(dict(workload=workload, size=size, who=who, **vals))

    def alternate(self, workload, sizes, ours, peer, peer_name, rounds=None):
        """ROUNDS x (ours on every size, then the peer on every size); medians."""
        res = {}
        for r in range(rounds or self.rounds):
            try:
                mine = ours(sizes)
            except RuntimeError as e:
                SKIPS[workload] = "ours failed: %s" % str(e).splitlines()[-1][-200:]
                return res
            for row in mine:
                self.record(workload, row["size"], "softdoca", round=r, bps=row["bytes_per_sec"],
                            rate=row["tasks_per_sec"], lat=row["lat_ns"], cpu=row.get("cpu_percent"))
            for s in sizes:
                try:
                    p = peer(s)
                except (RuntimeError, subprocess.TimeoutExpired) as e:
                    SKIPS[workload + "/" + peer_name] = "peer failed: %s" % str(e).splitlines()[-1][-200:]
                    p = None
                if p is not None:
                    self.record(workload, s, peer_name, round=r, bps=p[0], rate=p[1], lat_avg_ns=p[2],
                                cpu=p[3] if len(p) > 3 else None)
        return res


def med(rows, key):
    vals = [r[key] for r in rows if r.get(key) is not None]
    return statistics.median(vals) if vals else None


def summary(workload, size, who):
    rows = [r for r in RAW if r["workload"] == workload and r["size"] == size and r["who"] == who]
    if not rows:
        return None
    out = {"bps": med(rows, "bps"), "rate": med(rows, "rate"), "n": len(rows)}
    lats = [r["lat"] for r in rows if isinstance(r.get("lat"), dict)]
    if lats:
        for k in ("p50", "p99", "p999", "avg"):
            out["lat_" + k] = statistics.median([l[k] for l in lats if k in l])
    la = [r.get("lat_avg_ns") for r in rows if r.get("lat_avg_ns") is not None]
    if la:
        out["lat_avg"] = statistics.median(la)
    cpu = [r.get("cpu") for r in rows if r.get("cpu") is not None]
    if cpu:
        out["cpu"] = statistics.median(cpu)
    # Bytes per CPU-second of the process: what a copy costs, whatever share of the
    # machine the process got (on a loaded box wall-clock bandwidth mostly says that).
    eff = [r["bps"] * 100.0 / r["cpu"] for r in rows if r.get("cpu") and r.get("bps")]
    if eff:
        out["bps_per_cpu"] = statistics.median(eff)
    return out


# ---- workloads -------------------------------------------------------------------

def comch_rows(b, smoke):
    """P23 control-path round trip, P24 fast path, P25 DMA Copy of a file vs cp."""
    if not os.access(b.comch, os.X_OK):
        SKIPS["comch"] = "bench/comch_bench is not built"
        return
    iters = 2000 if smoke else 50000
    secs = 0.2 if smoke else max(0.5, b.slice * 2)
    for r in range(b.rounds):
        try:
            lat = json.loads(run([b.comch, "lat", "64", str(iters)], timeout=120).strip().splitlines()[-1])
            b.record("comch-ctrl-lat", 64, "softdoca", round=r, lat_avg_ns=lat["comch_rtt_ns"])
            b.record("comch-ctrl-lat", 64, "unix socket ping-pong", round=r, lat_avg_ns=lat["unix_rtt_ns"])
        except (RuntimeError, ValueError, subprocess.TimeoutExpired) as e:
            SKIPS["comch-ctrl-lat"] = "comch_bench lat failed: %s" % str(e)[-200:]
        try:
            bw = json.loads(run([b.comch, "bw", str(64 * KIB), str(secs)], timeout=120).strip().splitlines()[-1])
            b.record("comch-fastpath", 64 * KIB, "softdoca", round=r, bps=bw["comch_bps"])
            b.record("comch-fastpath", 64 * KIB, "shared-memory ring", round=r, bps=bw["ring_bps"])
        except (RuntimeError, ValueError, subprocess.TimeoutExpired) as e:
            SKIPS["comch-fastpath"] = "comch_bench bw failed: %s" % str(e)[-200:]
    dma_copy_file_rows(b, MIB if smoke else 1 << 30)


def dma_copy_file_rows(b, size):
    """doca_dma_copy (DPU side started first, then the host side) against cp, warm page cache."""
    if not all(os.access(p, os.X_OK) for p in b.dma_copy.values()):
        SKIPS["dma-copy-file"] = "applications/dma_copy is not built"
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
        for r in range(b.rounds):
            to_dpu = r % 2 == 0
            src_side, dst_side = ("host", "dpu") if to_dpu else ("dpu", "host")
            src = os.path.join(tmp, src_side, "src")
            with open(src, "rb") as f:          # warm the page cache
                while f.read(16 * MIB):
                    pass
            dst = os.path.join(tmp, dst_side, "copy")
            t0 = time.time()
            run(["cp", src, dst], timeout=600)
            t_cp = time.time() - t0
            os.unlink(dst)
            name = "copy"
            if to_dpu:
                os.link(src, os.path.join(tmp, "host", name))
            else:
                os.link(src, os.path.join(tmp, "dpu", name))
            dpu = subprocess.Popen([b.dma_copy["dpu"], "-f", os.path.join(tmp, "dpu", name), "-p", "03:00.0",
                                    "-r", "b1:00.0"], env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                   text=True)
            while "Server waiting" not in (dpu.stdout.readline() or "Server waiting"):
                pass
            t0 = time.time()
            host = subprocess.run([b.dma_copy["host"], "-f", os.path.join(tmp, "host", name), "-p", "b1:00.0"],
                                  env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, timeout=600)
            dpu.communicate(timeout=600)
            t_ours = time.time() - t0
            if host.returncode != 0 or dpu.returncode != 0:
                SKIPS["dma-copy-file"] = "doca_dma_copy failed: %s" % host.stderr[-200:]
                return
            for d in ("host", "dpu"):
                os.unlink(os.path.join(tmp, d, name))
            b.record("dma-copy-file", size, "softdoca", round=r, bps=size / t_ours,
                     direction="host->dpu" if to_dpu else "dpu->host")
            b.record("dma-copy-file", size, "cp", round=r, bps=size / t_cp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def dma_rows(b, smoke):
    sizes = [64, 4 * KIB, 64 * KIB, MIB, 16 * MIB] if not smoke else [64, 64 * KIB, MIB]

    def ours(sz):
        return b.perf_json(["dma", "-s", ",".join(map(str, sz)), "-t", "32", "-D", str(b.slice)])

    def peer(s):
        r = b.peer_copy("memcpy", s, 32)
        return (r["bytes_per_sec"], r["tasks_per_sec"], r["lat_ns"]["avg"], r.get("cpu_percent"))
    # Memory-bound copies (1 MiB x 32 buffers is a 64 MiB working set) drift by +-10 % between
    # rounds on this VM: more rounds, as for the host<->DPU rows below.
    steady = None if smoke else max(b.rounds, 3) * 2 + 1
    b.alternate("dma-local", sizes, ours, peer, "memcpy", rounds=steady)

    # The same copies by an application that sleeps on the PE's notification handle.
    esizes = [64 * KIB, MIB] if not smoke else [MIB]

    def ours_e(sz):
        return b.perf_json(["dma", "--event", "-s", ",".join(map(str, sz)), "-t", "32", "-D", str(b.slice)])
    b.alternate("dma-local-event", esizes, ours_e, peer, "memcpy", rounds=steady)

    rsizes = [64 * KIB, 256 * KIB, MIB, 4 * MIB] if not smoke else [64 * KIB, MIB]

    def ours_r(sz):
        return b.perf_json(["dma", "--remote", "-s", ",".join(map(str, sz)), "-t", "32", "-D", str(b.slice)])

    def peer_r(s):
        r = b.peer_copy("pvr", s, 32)
        return (r["bytes_per_sec"], r["tasks_per_sec"], r["lat_ns"]["avg"], r.get("cpu_percent"))
    # Kernel copies of a 128 MiB working set between two processes swing by +-20 % from one
    # run to the next even on a quiet machine.
    b.alternate("dma-host-dpu", rsizes, ours_r, peer_r, "process_vm_readv", rounds=steady)


def scaling_rows(b, smoke):
    depths = [1, 4, 16, 64, 256] if not smoke else [1, 256]
    for size in ([64 * KIB, MIB] if not smoke else [64 * KIB]):
        for d in depths:
            for r in range(b.rounds):
                try:
                    row = b.perf_json(["dma", "-s", str(size), "-t", str(d), "-D", str(b.slice)])[0]
                except RuntimeError as e:
                    SKIPS["scaling-dma"] = str(e).splitlines()[-1][-200:]
                    return
                b.record("scale-dma-depth-%s" % human_size(size), d, "softdoca", round=r,
                         bps=row["bytes_per_sec"], rate=row["tasks_per_sec"], lat=row["lat_ns"])
    if not b.rdma_ok:
        SKIPS["scaling-rdma"] = b.rdma_why
        return
    for d in depths:
        for r in range(b.rounds):
            try:
                row = b.perf_json(["rdma", "write", "-s", str(64 * KIB), "-t", str(d), "-D", str(b.slice)])[0]
            except RuntimeError as e:
                SKIPS["scaling-rdma"] = str(e).splitlines()[-1][-200:]
                return
            b.record("scale-rdma-write-depth", d, "softdoca", round=r, bps=row["bytes_per_sec"],
                     rate=row["tasks_per_sec"], lat=row["lat_ns"])
    for c in ([1, 4, 16, 64] if not smoke else [1, 4]):
        for r in range(b.rounds):
            try:
                row = b.perf_json(["rdma", "write", "-s", str(64 * KIB), "-t", "16", "-c", str(c),
                                   "-D", str(b.slice)])[0]
            except RuntimeError as e:
                SKIPS["scaling-rdma-conns"] = str(e).splitlines()[-1][-200:]
                return
            b.record("scale-rdma-write-conns", c, "softdoca", round=r, bps=row["bytes_per_sec"],
                     rate=row["tasks_per_sec"], lat=row["lat_ns"])


def ucx_rows(b, smoke, rdma_sizes):
    """ucx_perftest on loopback (shm and tcp) beside doca_perf rdma on the same sizes."""
    if not b.ucx:
        SKIPS["ucx"] = "ucx_perftest not installed (package ucx-utils)"
    ops = [("write", "ucp_put_bw"), ("read", "ucp_get")]
    for tls in (["shm", "tcp"] if not smoke else ["shm"]):
        for op, test in ops:
            workload = "rdma-%s-%s" % (op, tls)
            for r in range(b.rounds):
                if b.rdma_ok:
                    try:
                        env = {"UCX_TLS": "tcp"} if tls == "tcp" else None
                        # --buffers 1: one buffer a side, as ucx_perftest (same working set).
                        for row in b.perf_json(["rdma", op, "-s", ",".join(map(str, rdma_sizes)),
                                                "-t", "16", "--buffers", "1", "-D", str(b.slice)],
                                               env=env):
                            b.record(workload, row["size"], "softdoca", round=r, bps=row["bytes_per_sec"],
                                     rate=row["tasks_per_sec"], lat=row["lat_ns"])
                    except RuntimeError as e:
                        SKIPS[workload] = "ours failed: " + str(e).splitlines()[-1][-200:]
                else:
                    SKIPS[workload] = b.rdma_why
                if b.ucx:
                    for s in rdma_sizes:
                        try:
                            bps, rate, l50, lavg = b.ucx_perftest(test, s, tls)
                            b.record(workload, s, "ucx_perftest " + test, round=r, bps=bps, rate=rate,
                                     lat_avg_ns=lavg * 1e3)
                        except (RuntimeError, subprocess.TimeoutExpired) as e:
                            SKIPS[workload + "/ucx"] = str(e)[-200:]
            if tls == "tcp" and b.ucx:
                for r in range(b.rounds):
                    try:
                        bps, rate, _, lavg = b.ucx_perftest("ucp_am_bw", MIB, tls)
                        b.record("rdma-write-tcp", MIB, "ucx_perftest ucp_am_bw", round=r, bps=bps, rate=rate)
                    except (RuntimeError, subprocess.TimeoutExpired) as e:
                        SKIPS["rdma-write-tcp/am_bw"] = str(e)[-200:]
        # Latency: 8-byte send/recv ping-pong against ucp_am_lat.
        workload = "rdma-send-lat-%s" % tls
        for r in range(b.rounds):
            if b.rdma_ok:
                try:
                    env = {"UCX_TLS": "tcp"} if tls == "tcp" else None
                    row = b.perf_json(["rdma", "send", "--lat", "-s", "8", "-D", str(b.slice)], env=env)[0]
                    b.record(workload, 8, "softdoca", round=r, bps=row["bytes_per_sec"],
                             rate=row["tasks_per_sec"], lat=row["lat_ns"])
                except RuntimeError as e:
                    SKIPS[workload] = "ours failed: " + str(e).splitlines()[-1][-200:]
            else:
                SKIPS[workload] = b.rdma_why
            if b.ucx:
                try:
                    bps, rate, l50, lavg = b.ucx_perftest("ucp_am_lat", 8, tls)
                    b.record(workload, 8, "ucx_perftest ucp_am_lat", round=r, bps=bps, rate=rate,
                             lat_avg_ns=lavg * 1e3, lat_p50_ns=l50 * 1e3)
                except (RuntimeError, subprocess.TimeoutExpired) as e:
                    SKIPS[workload + "/ucx"] = str(e)[-200:]


def cm_rows(b, smoke):
    """doca_perf rdma write connected through RDMA-CM beside the same run connected with
    descriptor files (doca_rdma_export/connect): the connection method must not matter."""
    if not b.rdma_ok:
        SKIPS["rdma-write-cm"] = b.rdma_why
        return
    size = 64 * KIB
    for r in range(b.rounds):
        for who, extra in (("softdoca", ["-cm"]), ("doca_perf descriptor files", [])):
            try:
                row = b.perf_json(["rdma", "write", "-s", str(size), "-t", "16", "-D", str(b.slice)] + extra)[0]
                b.record("rdma-write-cm", size, who, round=r, bps=row["bytes_per_sec"],
                         rate=row["tasks_per_sec"], lat=row["lat_ns"])
            except (RuntimeError, subprocess.TimeoutExpired) as e:
                SKIPS["rdma-write-cm" + ("" if who == "softdoca" else "/oob")] = \
                    "failed: " + str(e).splitlines()[-1][-200:]


# ---- two network namespaces -------------------------------------------------------

def bench_hosts():
    """The two "hosts" of the netns rows (softdoca_testbed.netns): namespaces joined by one veth
    pair, TEST-NET-1 addresses (192.0.2.0/24), each side's mlx5_0 on its veth end; up."""
    return TwoHosts("bench", {"v": "192.0.2.%d/24"}).up()


def iperf3(b, nn):
    port = str(free_port())
    srv = subprocess.Popen(["ip", "netns", "exec", nn.ns[0], "iperf3", "-s", "-1", "-p", port],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for attempt in range(20):
            time.sleep(0.15)
            p = subprocess.run(["ip", "netns", "exec", nn.ns[1], "iperf3", "-c", nn.addr(side=0), "-p", port,
                                "-t", str(max(1, round(b.slice * 2))), "-J"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=60)
            if p.returncode == 0:
                return json.loads(p.stdout)["end"]["sum_received"]["bits_per_second"] / 8
        raise RuntimeError("iperf3: " + p.stdout[-300:] + p.stderr[-300:])
    finally:
        try:
            srv.wait(timeout=5)
        except subprocess.TimeoutExpired:
            srv.kill()
            srv.wait()


def perf_pair_netns(b, nn, argv, env=None):
    """doca_perf rdma server in namespace a, client in b, descriptors through a shared dir."""
    oob = tempfile.mkdtemp(prefix="oob-", dir=nn.tmp)
    senv, cenv = dict(os.environ), dict(os.environ)
    for e in (senv, cenv):
        e.update(b.env)
        e.update(env or {})
    senv["SOFTDOCA_TOPOLOGY"] = nn.topology(0, [NETNS_FUNCTION])
    cenv["SOFTDOCA_TOPOLOGY"] = nn.topology(1, [NETNS_FUNCTION])
    srv = subprocess.Popen(["ip", "netns", "exec", nn.ns[0], b.perf] + argv +
                           ["--server", "--oob-dir", oob, "--no-progress", "--json"], env=senv,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        p = subprocess.run(["ip", "netns", "exec", nn.ns[1], b.perf] + argv +
                           ["--client", "--oob-dir", oob, "--no-progress", "--json"], env=cenv,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=120)
        if p.returncode != 0:
            raise RuntimeError("doca_perf client: " + p.stderr[-300:])
        return json.loads(p.stdout)["results"]
    finally:
        try:
            srv.wait(timeout=20)
        except subprocess.TimeoutExpired:
            srv.kill()
            srv.wait()


# Two hosts, honestly: both processes share this kernel (equal boot ids), so by default
# softdoca (like UCX) would reach the peer through shared memory / process_vm_writev and
# the veth would carry nothing.  UCX_TLS=tcp takes shm and cma away from UCX and from the
# fabric's same-host test (src/fabric/fabric_ucx.c shm_allowed), SOFTDOCA_FABRIC_CMA=0 from the
# direct-copy path: every byte then crosses the veth over TCP, as between two machines.
NETNS_TCP_ENV = TCP_ENV
NETNS_FUNCTION = dict(HOST_FUNCTION, vhca_id=0)


def link_rx_bytes(nn):
    """Bytes received by namespace a's veth end (proof that a row went over the veth)."""
    return nn.veth_bytes(0, kinds=("rx_bytes",))


def netns_rows(b, smoke):
    """P6: doca_perf rdma write across two namespaces over TCP on the veth, against ucx_perftest
    (tcp) and iperf3 on the same veth; plus, labelled apart, the same-kernel path containers get."""
    if os.geteuid() != 0:
        SKIPS["netns"] = "network namespaces need root (run make bench as root)"
        return
    if not shutil.which("ip"):
        SKIPS["netns"] = "ip (iproute2) not installed"
        return
    try:
        nn = bench_hosts()
    except Skip as e:
        SKIPS["netns"] = str(e)[-200:]
        return
    # --buffers 1: one buffer a side, as ucx_perftest's put_bw/am_bw (same working set).
    argv = ["rdma", "write", "-s", str(MIB), "-t", "16", "--buffers", "1", "-D", str(b.slice)]
    try:
        # tcp over a veth moves with every scheduling hiccup: two more rounds than the default
        for r in range(b.rounds if smoke else b.rounds + 2):
            if b.rdma_ok:
                try:
                    rx0 = link_rx_bytes(nn)
                    rows = perf_pair_netns(b, nn, argv, env=NETNS_TCP_ENV)
                    rx = link_rx_bytes(nn) - rx0
                    for row in rows:
                        moved = row["bytes_per_sec"] * row["seconds"]
                        # Warm-up and the drain add a little; less than what was measured
                        # means a path that bypassed the veth.
                        if rx < moved:
                            raise RuntimeError("the veth carried %d bytes, doca_perf measured %d: not over TCP"
                                               % (rx, moved))
                        b.record("rdma-write-netns", row["size"], "softdoca", round=r, bps=row["bytes_per_sec"],
                                 rate=row["tasks_per_sec"], lat=row["lat_ns"], veth_rx_bytes=rx)
                except (RuntimeError, subprocess.TimeoutExpired, KeyError) as e:
                    SKIPS["rdma-write-netns"] = "ours failed: " + str(e)[-200:]
                # Containers on one kernel: shm/cma allowed (the default), not a network number.
                try:
                    for row in perf_pair_netns(b, nn, argv):
                        b.record("rdma-write-netns-samekernel", row["size"], "softdoca", round=r,
                                 bps=row["bytes_per_sec"], rate=row["tasks_per_sec"], lat=row["lat_ns"])
                except (RuntimeError, subprocess.TimeoutExpired) as e:
                    SKIPS["rdma-write-netns-samekernel"] = "ours failed: " + str(e)[-200:]
            else:
                SKIPS["rdma-write-netns"] = b.rdma_why
            if b.ucx:
                for test in (("ucp_put_bw", "ucp_am_bw") if not smoke else ("ucp_am_bw",)):
                    try:
                        bps, rate, _, _ = b.ucx_perftest(test, MIB, "tcp", netns=nn.ns, server_addr=nn.addr(side=0),
                                                         netdev=(nn.veth(side=0), nn.veth(side=1)))
                        b.record("rdma-write-netns", MIB, "ucx_perftest " + test + " (tcp)", round=r,
                                 bps=bps, rate=rate)
                    except (RuntimeError, subprocess.TimeoutExpired) as e:
                        SKIPS["rdma-write-netns/" + test] = str(e)[-200:]
                try:
                    bps, rate, _, _ = b.ucx_perftest("ucp_put_bw", MIB, "shm", netns=nn.ns, server_addr=nn.addr(side=0))
                    b.record("rdma-write-netns-samekernel", MIB, "ucx_perftest ucp_put_bw (shm)", round=r,
                             bps=bps, rate=rate)
                except (RuntimeError, subprocess.TimeoutExpired) as e:
                    SKIPS["rdma-write-netns-samekernel/ucx"] = str(e)[-200:]
            if shutil.which("iperf3"):
                try:
                    b.record("rdma-write-netns", MIB, "iperf3", round=r, bps=iperf3(b, nn))
                except (RuntimeError, subprocess.TimeoutExpired) as e:
                    SKIPS["iperf3"] = str(e)[-200:]
            else:
                SKIPS["iperf3"] = "iperf3 not installed"
    finally:
        nn.down()


def idle_cpu(b, seconds):
    """P8: CPU of a connected, idle doca_perf rdma server from /proc/<pid>/stat."""
    if not b.rdma_ok:
        SKIPS["idle"] = b.rdma_why
        return
    oob = tempfile.mkdtemp(prefix="sdbench-idle-")
    env = dict(os.environ)
    env.update(b.env)
    srv = subprocess.Popen([b.perf, "rdma", "write", "--server", "--oob-dir", oob, "-s", "4096", "-n", "100",
                            "--idle", str(seconds + 3), "--no-progress"], env=env,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        run([b.perf, "rdma", "write", "--client", "--oob-dir", oob, "-s", "4096", "-n", "100",
             "--idle", str(seconds + 3), "--no-progress"], env=b.env, timeout=60 + seconds)
    except (RuntimeError, subprocess.TimeoutExpired) as e:
        SKIPS["idle"] = "run failed: " + str(e)[-200:]
        srv.kill()
        srv.wait()
        return
    finally:
        pass
    try:
        hz = os.sysconf("SC_CLK_TCK")

        def ticks():
            with open("/proc/%d/stat" % srv.pid) as f:
                parts = f.read().rsplit(")", 1)[1].split()
            return int(parts[11]) + int(parts[12])
        time.sleep(0.5)
        t0, c0 = time.time(), ticks()
        time.sleep(seconds)
        t1, c1 = time.time(), ticks()
        pct = 100.0 * (c1 - c0) / hz / (t1 - t0)
        b.record("idle-server", 0, "softdoca", cpu=pct, seconds=t1 - t0)
    except (OSError, IndexError, ValueError) as e:
        SKIPS["idle"] = "cannot read /proc/%d/stat: %s" % (srv.pid, e)
    finally:
        srv.kill()
        srv.wait()
        shutil.rmtree(oob, ignore_errors=True)


# ---- report -----------------------------------------------------------------------

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


def comparison_table():
    """Rows (workload, size, ours, peer, ratio, metric) for every pairing measured."""
    rows = []
    seen = []
    for r in RAW:
        key = (r["workload"], r["size"], r["who"])
        if r["who"] != "softdoca" and key not in seen:
            seen.append(key)
    for workload, size, peer in seen:
        ours = summary(workload, size, "softdoca")
        theirs = summary(workload, size, peer)
        if "lat" in workload:
            o = ours.get("lat_avg") if ours else None
            t = theirs.get("lat_avg") if theirs else None
            rows.append((workload, size, peer, fmt_us(o), fmt_us(t), ratio(o, t), "latency avg (lower is better)"))
        else:
            o = ours.get("bps") if ours else None
            t = theirs.get("bps") if theirs else None
            rows.append((workload, size, peer, fmt_bw(o), fmt_bw(t), ratio(o, t), "bandwidth"))
    return rows


def cpu_ratio(workload, size, peer):
    """ours/peer in bytes per CPU-second (None unless both sides reported their CPU)."""
    o, t = summary(workload, size, "softdoca"), summary(workload, size, peer)
    return ratio(o and o.get("bps_per_cpu"), t and t.get("bps_per_cpu"))


def targets():
    """P1..P8, P19..P22 (verbs_rows.py) and P23..P25 from the medians: (id, text, value shown, met True/False/None)."""
    out = []

    def bw_ratio(workload, size, peer):
        o, t = summary(workload, size, "softdoca"), summary(workload, size, peer)
        return ratio(o and o["bps"], t and t["bps"])
    r = bw_ratio("dma-local", MIB, "memcpy")
    c = cpu_ratio("dma-local", MIB, "memcpy")
    out.append(("P1", "DMA local 1 MiB, 32 in flight >= 0.95x memcpy",
                fmt_ratio(r) + ("" if c is None else " (per CPU-second %.3f)" % c), None if r is None else r >= 0.95))
    s = summary("dma-local", 64, "softdoca")
    rate = s and s["rate"]
    out.append(("P2", "DMA 64 B >= 20 M tasks/s", fmt_rate(rate), None if rate is None else rate >= 20e6))
    rs = [(sz, bw_ratio("dma-host-dpu", sz, "process_vm_readv"))
          for sz in sorted({x["size"] for x in RAW if x["workload"] == "dma-host-dpu"}) if sz >= 64 * KIB]
    rs = [(sz, x) for sz, x in rs if x is not None]
    worst = min((x for _, x in rs), default=None)
    cs = [cpu_ratio("dma-host-dpu", sz, "process_vm_readv") for sz, _ in rs]
    cs = [x for x in cs if x is not None]
    out.append(("P3", "DMA host<->DPU >= 64 KiB >= 0.9x process_vm_readv (worst size)",
                fmt_ratio(worst) + ("" if not rs else " (" + ", ".join("%s %.2f" % (human_size(sz), x) for sz, x in rs) + ")") +
                ("" if not cs else "; per CPU-second worst %.3f" % min(cs)),
                None if worst is None else worst >= 0.9))
    r = bw_ratio("rdma-write-shm", MIB, "ucx_perftest ucp_put_bw")
    out.append(("P4", "RDMA write 1 MiB, two local processes >= 1.0x ucp_put_bw (shm)", fmt_ratio(r),
                None if r is None else r >= 1.0))
    o, t = summary("rdma-send-lat-shm", 8, "softdoca"), summary("rdma-send-lat-shm", 8, "ucx_perftest ucp_am_lat")
    r = ratio(o and o.get("lat_avg"), t and t.get("lat_avg"))
    out.append(("P5", "RDMA 8 B send/recv latency <= 1.3x ucp_am_lat (shm, avg)", fmt_ratio(r),
                None if r is None else r <= 1.3))
    ucx_best = None
    for peer in ("ucx_perftest ucp_put_bw (tcp)", "ucx_perftest ucp_am_bw (tcp)"):
        x = summary("rdma-write-netns", MIB, peer)
        if x and x["bps"] and (ucx_best is None or x["bps"] > ucx_best):
            ucx_best = x["bps"]
    o = summary("rdma-write-netns", MIB, "softdoca")
    ip = summary("rdma-write-netns", MIB, "iperf3")
    r1 = ratio(o and o["bps"], ucx_best)
    r2 = ratio(o and o["bps"], ip and ip["bps"])
    met = None if r1 is None or r2 is None else (r1 >= 0.9 and r2 >= 0.6)
    out.append(("P6", "RDMA write 1 MiB across namespaces >= 0.9x best ucx_perftest tcp, >= 0.6x iperf3",
                "%s / %s" % (fmt_ratio(r1), fmt_ratio(r2)), met))
    out += verbs_rows.targets(sys.modules[__name__])
    o, t = summary("comch-ctrl-lat", 64, "softdoca"), summary("comch-ctrl-lat", 64, "unix socket ping-pong")
    r = ratio(o and o.get("lat_avg"), t and t.get("lat_avg"))
    out.append(("P23", "Comch control path 64 B round trip <= 1.5x a Unix-socket ping-pong (same two processes)",
                fmt_ratio(r), None if r is None else r <= 1.5))
    r = bw_ratio("comch-fastpath", 64 * KIB, "shared-memory ring")
    out.append(("P24", "Comch producer/consumer 64 KiB >= 0.8x a shared-memory ring", fmt_ratio(r),
                None if r is None else r >= 0.8))
    sizes = sorted({x["size"] for x in RAW if x["workload"] == "dma-copy-file"})
    r = bw_ratio("dma-copy-file", sizes[-1], "cp") if sizes else None
    out.append(("P25", "DMA Copy of a 1 GiB file (either direction) >= 0.8x cp, warm page cache",
                fmt_ratio(r) + ("" if not sizes else " (%s)" % human_size(sizes[-1])), None if r is None else r >= 0.8))
    out += multi_rail.multi_rail_targets(RAW)
    idle = [x["cpu"] for x in RAW if x["workload"] == "idle-server"]
    c = statistics.median(idle) if idle else None
    out.append(("P8", "idle connected process < 1% CPU", "-" if c is None else "%.2f %%" % c,
                None if c is None else c < 1.0))
    return out


def scaling_table():
    rows = []
    for wl in sorted({x["workload"] for x in RAW if x["workload"].startswith("scale-")}):
        for k in sorted({x["size"] for x in RAW if x["workload"] == wl}):
            s = summary(wl, k, "softdoca")
            rows.append((wl, k, fmt_bw(s["bps"]), fmt_rate(s["rate"]), fmt_us(s.get("lat_p50")),
                         fmt_us(s.get("lat_p99"))))
    return rows


def hardware():
    model = "unknown"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    mem = subprocess.run(["free", "-h"], stdout=subprocess.PIPE, text=True).stdout.splitlines()
    mem = [l for l in mem if l.startswith("Mem:")]
    try:
        load = open("/proc/loadavg").read().split()[:3]
    except OSError:
        load = ["?"]
    return {"cpu": model, "nproc": os.cpu_count(), "memory": mem[0].split()[1] if mem else "?",
            "kernel": os.uname().release, "loadavg_at_end": " ".join(load),
            "date": time.strftime("%Y-%m-%d %H:%M:%S %Z")}


def plots(outdir):
    if not shutil.which("gnuplot"):
        SKIPS["plots"] = "gnuplot not installed (package gnuplot-nox)"
        return []
    series = {}
    for wl, who in sorted({(x["workload"], x["who"]) for x in RAW}):
        if wl.startswith("scale-") or wl.startswith("mr-") or wl == "idle-server":
            continue
        pts = []
        for size in sorted({x["size"] for x in RAW if x["workload"] == wl and x["who"] == who}):
            s = summary(wl, size, who)
            pts.append((size, s))
        series[(wl, who)] = pts
    made = []
    # Bandwidth vs size.
    bw_data = os.path.join(outdir, "bw.dat")
    blocks = []
    with open(bw_data, "w") as f:
        for (wl, who), pts in series.items():
            pts = [(sz, s["bps"]) for sz, s in pts if s.get("bps") and "lat" not in wl]
            if len(pts) < 1:
                continue
            f.write("# %s %s\n" % (wl, who))
            for sz, v in pts:
                f.write("%d %.6f\n" % (sz, v / 1e9))
            f.write("\n\n")
            blocks.append("%s: %s" % (wl, who))
    lat_data = os.path.join(outdir, "lat.dat")
    lblocks = []
    with open(lat_data, "w") as f:
        for (wl, who), pts in series.items():
            pts = [(sz, s.get("lat_p50") or s.get("lat_avg"), s.get("lat_p99")) for sz, s in pts]
            pts = [p for p in pts if p[1]]
            if not pts:
                continue
            f.write("# %s %s\n" % (wl, who))
            for sz, p50, p99 in pts:
                f.write("%d %.3f %.3f\n" % (sz, p50 / 1e3, (p99 or p50) / 1e3))
            f.write("\n\n")
            lblocks.append("%s: %s" % (wl, who))
    for name, data, titles, ylabel, using in (
            ("bw.png", bw_data, blocks, "bandwidth [GB/s]", "1:2"),
            ("lat.png", lat_data, lblocks, "latency p50 (bars to p99) [us]", "1:2:2:3")):
        if not titles:
            continue
        plot = ", ".join("'%s' index %d using %s with %s title '%s'" %
                         (data, i, using, "yerrorlines" if using.count(":") == 3 else "linespoints",
                          t.replace("'", "")) for i, t in enumerate(titles))
        script = ("set terminal pngcairo size 1400,800 noenhanced\n" if _has_cairo() else
                  "set terminal png size 1400,800 noenhanced\n")
        script += ("set output '%s'\nset logscale xy\nset xlabel 'message size [bytes]'\nset ylabel '%s'\n"
                   "set key outside right\nset grid\nplot %s\n" % (os.path.join(outdir, name), ylabel, plot))
        p = subprocess.run(["gnuplot"], input=script, text=True, stderr=subprocess.PIPE)
        if p.returncode != 0:
            SKIPS["plots"] = "gnuplot failed: " + p.stderr[-200:]
            return made
        made.append(name)
    return made


def _has_cairo():
    p = subprocess.run(["gnuplot", "-e", "set terminal"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return "pngcairo" in p.stdout


def write_outputs(b, outdir, page_dir, smoke):
    os.makedirs(outdir, exist_ok=True)
    comp = comparison_table()
    tg = targets()
    sc = scaling_table()
    hw = hardware()
    lines = []
    lines.append("| workload | size | peer | softdoca | peer | ratio (ours/peer) | per CPU-second | metric |")
    lines.append("|---|---|---|---|---|---|---|---|")
    for wl, size, peer, o, t, r, metric in comp:
        lines.append("| %s | %s | %s | %s | %s | %s | %s | %s |" % (wl, human_size(size), peer, o, t, fmt_ratio(r),
                                                             fmt_ratio(cpu_ratio(wl, size, peer)), metric))
    tlines = ["| id | target | measured | status |", "|---|---|---|---|"]
    for tid, text, val, met in tg:
        tlines.append("| %s | %s | %s | %s |" % (tid, text, val, {True: "met", False: "**missed**", None: "not measured"}[met]))
    slines = ["| series | x (depth / connections) | bandwidth | rate | lat p50 | lat p99 |", "|---|---|---|---|---|---|"]
    for wl, k, bw, rate, p50, p99 in sc:
        slines.append("| %s | %d | %s | %s | %s | %s |" % (wl, k, bw, rate, p50, p99))
    klines = ["| what | why skipped |", "|---|---|"] + ["| %s | %s |" % kv for kv in sorted(SKIPS.items())]

    text = "\n".join(["## Ratios (medians of %d alternating rounds, %.2f s slices)" % (b.rounds, b.slice), ""] + lines +
                     ["", "## Targets", ""] + tlines + ["", "## Scaling", ""] + slines +
                     ["", "## Skipped", ""] + (klines if SKIPS else ["nothing"]))
    print(text)
    with open(os.path.join(outdir, "results.json"), "w") as f:
        json.dump({"hardware": hw, "rounds": b.rounds, "slice": b.slice, "skips": SKIPS,
                   "targets": [dict(id=a, target=t, measured=v, met=m) for a, t, v, m in tg],
                   "raw": RAW}, f, indent=1)
    made = plots(outdir)
    made += multi_rail.multi_rail_plot(outdir, _has_cairo())
    if page_dir:
        os.makedirs(page_dir, exist_ok=True)
        for name in made + ["results.json"]:
            shutil.copy(os.path.join(outdir, name), os.path.join(page_dir, name))
        notes = os.path.join(page_dir, "notes.md")
        page = ["# softdoca benchmark results", "",
                "Generated by `make bench` (`bench/compare.py`, see [../benchmarks.md](../benchmarks.md)) "
                "on %s in %.0f s." % (hw["date"], time.time() - T_START), "",
                "**Machine:** %s, %s CPUs (nproc), %s RAM, Linux %s; load average at the end %s. "
                "The machine may be shared with other jobs, which is why ours and each peer alternate in "
                "short slices and the tables show medians; compare ratios, not absolute numbers." %
                (hw["cpu"], hw["nproc"], hw["memory"], hw["kernel"], hw["loadavg_at_end"]), "",
                "Raw numbers: [results.json](results.json)."]
        if any(x["workload"] == "rdma-write-netns" for x in RAW):
            page += ["", "**Across namespaces = over TCP.** Both namespaces share this kernel, so "
                     "`rdma-write-netns` runs doca_perf with `UCX_TLS=tcp SOFTDOCA_FABRIC_CMA=0` on both sides "
                     "(no shared memory, no process_vm_writev: every byte crosses the veth over TCP, as "
                     "between two hosts; each round checks that the veth received at least the bytes "
                     "doca_perf reports). `rdma-write-netns-samekernel` is the default shared-memory path "
                     "containers on one kernel get, not a network number. Wherever doca_perf meets "
                     "ucx_perftest it uses `--buffers 1` (one buffer a side, as ucx_perftest). "
                     "See [../benchmarks.md](../benchmarks.md)."]
        if made:
            page += ["", "![bandwidth vs size](bw.png)", "", "![latency vs size](lat.png)" if "lat.png" in made else ""]
        if "multi_rail_cut.png" in made:
            page += ["", "![Multi-Rail vs MPTCP: throughput across a rail cut and its recovery](multi_rail_cut.png)"]
        page += ["", text]
        if os.path.exists(notes):
            page += ["", open(notes).read().strip()]
        with open(os.path.join(page_dir, "README.md"), "w") as f:
            f.write("\n".join(page) + "\n")
    return comp, tg


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", required=True, help="meson build directory")
    ap.add_argument("--out", help="directory for results.json and plots (default BUILD/bench/results)")
    ap.add_argument("--page", help="also write the results page (README.md + plots) into this directory")
    ap.add_argument("--smoke", action="store_true", help="tiny run: every number produced, speed not judged")
    ap.add_argument("--rounds", type=int, help="alternating rounds per row (default 3; smoke 1)")
    ap.add_argument("--slice", type=float, help="seconds per slice (default 0.5; smoke 0.05)")
    ap.add_argument("--idle", type=float, default=None, help="seconds of idle CPU sampling for P8")
    ap.add_argument("--only", help="comma-separated steps (dma, rdma/ucx, rdma-cm, netns, verbs, idle, scaling, comch, "
                    "multi-rail)")
    args = ap.parse_args()
    args.rounds = args.rounds or (1 if args.smoke else 3)
    args.slice = args.slice or (0.05 if args.smoke else 0.5)
    out = args.out or os.path.join(args.build, "bench", "results")
    b = Bench(args)
    for tool in (b.perf, b.peer):
        if not os.access(tool, os.X_OK):
            print("compare.py: %s is not built (ninja -C %s)" % (tool, args.build), file=sys.stderr)
            return 1
    if not b.rdma_ok:
        log("compare.py: RDMA rows skipped: " + b.rdma_why)
    steps = [("dma", lambda: dma_rows(b, args.smoke)),
             ("rdma/ucx", lambda: ucx_rows(b, args.smoke, [4 * KIB, 64 * KIB, MIB] if not args.smoke else [MIB])),
             ("rdma-cm", lambda: cm_rows(b, args.smoke)),
             ("netns", lambda: netns_rows(b, args.smoke)),
             ("verbs", lambda: verbs_rows.run(b, args.smoke, sys.modules[__name__])),
             ("idle", lambda: idle_cpu(b, args.idle if args.idle is not None else (0.5 if args.smoke else 3.0))),
             ("scaling", lambda: scaling_rows(b, args.smoke)),
             ("comch", lambda: comch_rows(b, args.smoke)),
             ("multi-rail", lambda: multi_rail.multi_rail_rows(b, args.smoke))]
    if args.only:
        steps = [st for st in steps if st[0] in args.only.split(",")]
    for name, fn in steps:
        log("compare.py: %s (%.0f s so far)" % (name, time.time() - T_START))
        fn()
    comp, tg = write_outputs(b, out, args.page, args.smoke)
    log("compare.py: done in %.0f s; raw numbers in %s" % (time.time() - T_START, os.path.join(out, "results.json")))
    if args.smoke:
        # Every pairing that was not skipped must have both numbers, and DMA must be there.
        def skipped(wl):
            return any(k == wl or k.startswith(wl + "/") for k in SKIPS)
        missing = [(wl, sz, peer) for wl, sz, peer, o, t, r, _ in comp if r is None and not skipped(wl)]
        have_dma = any(wl == "dma-local" for wl, *_ in comp) and any(wl == "dma-host-dpu" for wl, *_ in comp)
        if missing or not have_dma:
            log("compare.py --smoke: numbers missing: %s%s" % (missing, "" if have_dma else " (no DMA rows)"))
            return 1
        for tid, text, val, met in tg:
            if met is None and tid in ("P1", "P2", "P3"):
                log("compare.py --smoke: %s not measured" % tid)
                return 1
        # RDMA works here (the probe passed): the RDMA-CM run must produce its number too.
        if b.rdma_ok and "rdma-write-cm" in SKIPS:
            log("compare.py --smoke: doca_perf rdma -cm: " + SKIPS["rdma-write-cm"])
            return 1
    return 0


if __name__ == "__main__":
    signal.signal(signal.SIGINT, signal.default_int_handler)
    sys.exit(main())
