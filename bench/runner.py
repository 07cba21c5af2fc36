# SPDX-License-Identifier: BSD-3-Clause
"""Bench: the programs compare.py's rows run (doca_perf, peer_copy, ucx_perftest, iperf3, doca_perf
pairs across two namespaces) and the alternation of ours and a peer in slices.

Bench holds the configuration of the run (build, slice, rounds, which tools work) and no
measurements: what it measures goes to the Results object the caller passes.
"""
import json
import os
import shutil
import socket
import subprocess
import tempfile
import time

from softdoca_testbed.netns import HOST_FUNCTION, TCP_ENV, TwoHosts

from results import CMA_LIMIT, MAPPED, MIB, OURS, UCP_PRIVATE, perf_vals

# The doca_perf function each side of a namespace pair opens, on its veth end.
NETNS_FUNCTION = dict(HOST_FUNCTION, vhca_id=0)


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


def last_line(e):
    """The last line of an exception's text, shortened: the reason a skip shows."""
    return str(e).splitlines()[-1][-200:]


def _reap(proc, timeout):
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


class Bench:
    def __init__(self, args):
        self.args = args
        self.build = os.path.abspath(args.build)
        self.perf = os.path.join(self.build, "tools", "doca_perf", "doca_perf")
        self.peer = os.path.join(self.build, "bench", "peer_copy")
        self.put = os.path.join(self.build, "bench", "peer_put")
        self.ucp = os.path.join(self.build, "bench", "peer_ucp")
        self.comch = os.path.join(self.build, "bench", "comch_bench")
        self.dma_bench = os.path.join(self.build, "bench", "dma_bench")
        self.dma_copy = {side: os.path.join(self.build, "applications", "dma_copy", side, "doca_dma_copy")
                         for side in ("host", "dpu")}
        self.mr_app = os.path.join(self.build, "applications", "verbs_multi_rail_server_client",
                                   "doca_verbs_multi_rail_server_client")
        self.env = {"SOFTDOCA_TOPOLOGY": os.environ.get("SOFTDOCA_TOPOLOGY", "builtin"),
                    "DOCA_LOG_LEVEL": os.environ.get("DOCA_LOG_LEVEL", "30")}
        self.slice = args.slice
        self.rounds = args.rounds
        # Two-process pipelines are bimodal from run to run: their rows take more rounds.
        self.pipeline_rounds = args.pipeline_rounds
        self.rdma_ok, self.rdma_why = self.probe_rdma()
        self.ucx = shutil.which("ucx_perftest")

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
        """peer_copy's run as (bytes/s, tasks/s, lat avg ns, cpu %), as alternate() takes a peer."""
        r = json.loads(run([self.peer, kind, str(size), str(depth), str(self.slice)]))["results"][0]
        return (r["bytes_per_sec"], r["tasks_per_sec"], r["lat_ns"]["avg"], r.get("cpu_percent"))

    def dma_loop(self, size):
        """The bare DOCA DMA loop (dma_bench loop: 64 B, 32 in flight, no bookkeeping) as a peer."""
        r = json.loads(run([self.dma_bench, str(self.slice), "loop"], env=self.env))["results"][0]
        return (r["bytes_per_sec"], r["tasks_per_sec"], None, r.get("cpu_percent"))

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
            _reap(srv, 10)

    def private_peers(self, res, workload, op, sizes, r, batch=16):
        """The same-host baselines of a two-process write/read row, one run each per size in round r:
        the batched process_vm_writev/readv loop (the kernel's limit for private memory), UCP
        put/get into a forked peer's private buffer (UCX_TLS=shm), and for writes the memcpy into a
        MAP_SHARED memfd mapping (memory that is shareable).  A failure skips workload/peer."""
        kind = "pvw" if op == "write" else "pvr"
        runs = [(CMA_LIMIT[op], [self.put, kind]), (UCP_PRIVATE[op], [self.ucp, "put" if op == "write" else "get"])]
        if op == "write":
            runs.append((MAPPED, [self.put, "memfd"]))
        self._peer_runs(res, workload, runs, sizes, r, batch)

    def mapped_peer(self, res, workload, sizes, r, batch=16):
        """The memcpy into a MAP_SHARED memfd both processes map, as a peer of workload in round r."""
        self._peer_runs(res, workload, [(MAPPED, [self.put, "memfd"])], sizes, r, batch)

    def _peer_runs(self, res, workload, runs, sizes, r, batch):
        for who, argv in runs:
            for s in sizes:
                if not os.access(argv[0], os.X_OK):
                    res.skip(workload + "/" + who, "%s is not built" % os.path.basename(argv[0]))
                    break
                try:
                    row = json.loads(run(argv + [str(s), str(self.slice), str(batch)], env={"UCX_TLS": "shm"},
                                         timeout=60 + 20 * self.slice))["results"][0]
                except (RuntimeError, subprocess.TimeoutExpired, ValueError, KeyError) as e:
                    res.skip(workload + "/" + who, "peer failed: " + last_line(e))
                    break
                res.add(workload, s, who, round=r, bps=row["bytes_per_sec"], rate=row["tasks_per_sec"],
                        lat_avg_ns=row["lat_ns"]["avg"], cpu=row.get("cpu_percent"))

    # ---- two network namespaces ---------------------------------------------------

    def hosts(self):
        """The two "hosts" of the netns rows (softdoca_testbed.netns): namespaces joined by one veth
        pair, TEST-NET-1 addresses (192.0.2.0/24), each side's mlx5_0 on its veth end; up."""
        return TwoHosts("bench", {"v": "192.0.2.%d/24"}).up()

    def iperf3(self, nn):
        port = str(free_port())
        srv = subprocess.Popen(["ip", "netns", "exec", nn.ns[0], "iperf3", "-s", "-1", "-p", port],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            for attempt in range(20):
                time.sleep(0.15)
                p = subprocess.run(["ip", "netns", "exec", nn.ns[1], "iperf3", "-c", nn.addr(side=0), "-p", port,
                                    "-t", str(max(1, round(self.slice * 2))), "-J"],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=60)
                if p.returncode == 0:
                    return json.loads(p.stdout)["end"]["sum_received"]["bits_per_second"] / 8
            raise RuntimeError("iperf3: " + p.stdout[-300:] + p.stderr[-300:])
        finally:
            _reap(srv, 5)

    def perf_pair_netns(self, nn, argv, env=None):
        """doca_perf server in namespace a, client in b, descriptors through a shared dir."""
        oob = tempfile.mkdtemp(prefix="oob-", dir=nn.tmp)
        senv, cenv = dict(os.environ), dict(os.environ)
        for e in (senv, cenv):
            e.update(self.env)
            e.update(env or {})
        senv["SOFTDOCA_TOPOLOGY"] = nn.topology(0, [NETNS_FUNCTION])
        cenv["SOFTDOCA_TOPOLOGY"] = nn.topology(1, [NETNS_FUNCTION])
        srv = subprocess.Popen(["ip", "netns", "exec", nn.ns[0], self.perf] + argv +
                               ["--server", "--oob-dir", oob, "--no-progress", "--json"], env=senv,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        try:
            p = subprocess.run(["ip", "netns", "exec", nn.ns[1], self.perf] + argv +
                               ["--client", "--oob-dir", oob, "--no-progress", "--json"], env=cenv,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=120)
            if p.returncode != 0:
                raise RuntimeError("doca_perf client: " + p.stderr[-300:])
            return json.loads(p.stdout)["results"]
        finally:
            _reap(srv, 20)

    def perf_pair_over_tcp(self, nn, argv):
        """perf_pair_netns() with every byte over TCP on the veth: (rows, bytes the veth received).

        Two hosts, honestly: both processes share this kernel (equal boot ids), so by default
        softdoca (like UCX) would reach the peer through shared memory / process_vm_writev and
        the veth would carry nothing.  UCX_TLS=tcp takes shm and cma away from UCX and from the
        fabric's same-host test (src/fabric/fabric_ucx.c shm_allowed), SOFTDOCA_FABRIC_CMA=0 from
        the direct-copy path.  RuntimeError when the veth carried less than doca_perf measured
        (warm-up and the drain add a little; less means a path that bypassed the veth).
        """
        rx0 = nn.veth_bytes(0, kinds=("rx_bytes",))
        rows = self.perf_pair_netns(nn, argv, env=TCP_ENV)
        rx = nn.veth_bytes(0, kinds=("rx_bytes",)) - rx0
        for row in rows:
            moved = row["bytes_per_sec"] * row["seconds"]
            if rx < moved:
                raise RuntimeError("the veth carried %d bytes, doca_perf measured %d: not over TCP" % (rx, moved))
        return rows, rx

    def ucx_peer(self, res, workload, test, size, tls, r, lat=(), group=None):
        """One ucx_perftest run on loopback as a peer of workload in round r; lat: the latencies
        recorded ("avg", "p50"); a failure skips group (default workload/ucx)."""
        try:
            bps, rate, l50, lavg = self.ucx_perftest(test, size, tls)
        except (RuntimeError, subprocess.TimeoutExpired) as e:
            res.skip(group or workload + "/ucx", str(e)[-200:])
            return
        lats = {"avg": lavg * 1e3, "p50": l50 * 1e3}
        res.add(workload, size, "ucx_perftest " + test, round=r, bps=bps, rate=rate,
                **{"lat_%s_ns" % k: lats[k] for k in lat})

    def ucx_over_veth(self, res, nn, workload, r):
        """ucx_perftest 1 MiB put_bw and am_bw (smoke: am_bw) over tcp on the veth, as peers of workload."""
        for test in (("ucp_put_bw", "ucp_am_bw") if not self.args.smoke else ("ucp_am_bw",)):
            try:
                bps, rate, _, _ = self.ucx_perftest(test, MIB, "tcp", netns=nn.ns, server_addr=nn.addr(side=0),
                                                    netdev=(nn.veth(side=0), nn.veth(side=1)))
                res.add(workload, MIB, "ucx_perftest " + test + " (tcp)", round=r, bps=bps, rate=rate)
            except (RuntimeError, subprocess.TimeoutExpired) as e:
                res.skip(workload + "/" + test, str(e)[-200:])

    # ---- measurement helpers ----------------------------------------------------

    def alternate(self, res, workload, sizes, ours, peer, peer_name, rounds=None):
        """ROUNDS x (ours on every size, then the peer on every size), into res."""
        for r in range(rounds or self.rounds):
            try:
                mine = ours(sizes)
            except RuntimeError as e:
                res.skip(workload, "ours failed: %s" % last_line(e))
                return
            for row in mine:
                res.add(workload, row["size"], OURS, round=r, **perf_vals(row, cpu=True))
            for s in sizes:
                try:
                    p = peer(s)
                except (RuntimeError, subprocess.TimeoutExpired) as e:
                    res.skip(workload + "/" + peer_name, "peer failed: %s" % last_line(e))
                    continue
                res.add(workload, s, peer_name, round=r, bps=p[0], rate=p[1], lat_avg_ns=p[2],
                        cpu=p[3] if len(p) > 3 else None)
