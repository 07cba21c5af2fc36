# SPDX-License-Identifier: BSD-3-Clause
"""DOCA Verbs rows of compare.py (issue 13): `doca_perf verbs` beside ucx_perftest and beside
`doca_perf rdma` (DOCA RDMA) on the same sizes, alternating in every round, and targets P19-P22.

  verbs-write-shm     4 KiB, 64 KiB, 1 MiB  write VWIN --buffers 1    vs UCP put / process_vm_writev into private
                      memory, memcpy into a memfd mapping, ucp_put_bw (shm)   P19 (1 MiB), P20 (4 KiB)
  verbs-read-shm      1 MiB                 read VWIN --buffers 1     vs ucp_get (shm)      row only
  verbs-send-lat-shm  8 B                   send --lat                vs ucp_am_lat (shm)   P21 (average latency)
  verbs-write-netns   1 MiB, two namespaces over TCP (Bench.hosts(), UCX_TLS=tcp SOFTDOCA_FABRIC_CMA=0,
                      the veth must carry the bytes)  vs ucp_put_bw / ucp_am_bw over tcp on the veth   P22

VWIN = 64 work requests in flight in chains of 16, only the last of a chain signaled (--cq-mod 16).
`doca_perf rdma` with the same depth (-t 64; every task completes) is recorded as the peer "doca_perf rdma (DOCA RDMA)": a row, not a target.
A compare.py plugin: run(bench, results, smoke) is the step STEP, TARGETS are rows of compare.py's
target table; it reaches the programs through the Bench and records into the Results it is given.
"""
import os
import shutil
import subprocess

from softdoca_testbed.tap import Skip

from results import (KIB, LARGE_WRITE, MIB, OURS, P4_TITLE, P9_TITLE, UCX_VETH_PEERS, Target, paired, perf_vals,
                     small_copy)

STEP = "verbs"
RDMA_PEER = "doca_perf rdma (DOCA RDMA)"
DEPTH = ["-t", "64"]
VWIN = DEPTH + ["--cq-mod", "16"]


def _probe(b):
    try:
        b.perf_json(["verbs", "write", "-s", "64", "-n", "10"])
        return None
    except (RuntimeError, subprocess.TimeoutExpired, ValueError) as e:
        return "doca_perf verbs failed: " + str(e).splitlines()[-1][-200:]


def _ours(b, res, workload, argv, r, who=OURS, env=None):
    """One doca_perf run (every size); its rows recorded under who.  False if it failed."""
    try:
        for row in b.perf_json(argv, env=env):
            res.add(workload, row["size"], who, round=r, **perf_vals(row, cpu=True))
        return True
    except (RuntimeError, subprocess.TimeoutExpired, ValueError, KeyError) as e:
        res.skip(workload if who == OURS else workload + "/" + who, "failed: " + str(e).splitlines()[-1][-200:])
        return False


def _ucx(b, res, workload, test, sizes, r, tls="shm"):
    if not b.ucx:
        res.skip(workload + "/ucx", "ucx_perftest not installed (package ucx-utils)")
        return
    for s in sizes:
        b.ucx_peer(res, workload, test, s, tls, r, lat=("avg", "p50"))


def shm_rows(b, res, smoke):
    """Two local processes (UCX picks shared memory): write, read, send --lat; ours, DOCA RDMA, UCX."""
    wsizes = [4 * KIB, MIB] if smoke else [4 * KIB, 64 * KIB, MIB]
    wlist = ",".join(map(str, wsizes))
    sl = str(b.slice)
    for r in range(b.pipeline_rounds):
        # --buffers 1: one buffer a side, as ucx_perftest (same working set).
        _ours(b, res, "verbs-write-shm", ["verbs", "write", "-s", wlist, "--buffers", "1", "-D", sl] + VWIN, r)
        _ours(b, res, "verbs-write-shm", ["rdma", "write", "-s", wlist, "--buffers", "1", "-D", sl] + DEPTH, r,
              who=RDMA_PEER)
        _ucx(b, res, "verbs-write-shm", "ucp_put_bw", wsizes, r)
        b.private_peers(res, "verbs-write-shm", "write", wsizes, r)  # P19, P20
        if not smoke:
            _ours(b, res, "verbs-read-shm", ["verbs", "read", "-s", str(MIB), "--buffers", "1", "-D", sl] + VWIN, r)
            _ours(b, res, "verbs-read-shm", ["rdma", "read", "-s", str(MIB), "--buffers", "1", "-D", sl] + DEPTH, r,
                  who=RDMA_PEER)
            _ucx(b, res, "verbs-read-shm", "ucp_get", [MIB], r)
        # Ping-pong; smoke caps the run as compare.py caps ucp_am_lat (200 round trips).
        lat = ["-n", "200"] if smoke else ["-D", sl]
        _ours(b, res, "verbs-send-lat-shm", ["verbs", "send", "--lat", "-s", "8"] + lat, r)
        _ours(b, res, "verbs-send-lat-shm", ["rdma", "send", "--lat", "-s", "8"] + lat, r, who=RDMA_PEER)
        _ucx(b, res, "verbs-send-lat-shm", "ucp_am_lat", [8], r)


def _pair_netns(b, res, nn, argv, r, who):
    """doca_perf across the namespaces over TCP; the veth must carry what it reports."""
    try:
        rows, rx = b.perf_pair_over_tcp(nn, argv)
        for row in rows:
            res.add("verbs-write-netns", row["size"], who, round=r, **perf_vals(row), veth_rx_bytes=rx)
    except (RuntimeError, subprocess.TimeoutExpired, KeyError, ValueError) as e:
        res.skip("verbs-write-netns" + ("" if who == OURS else "/rdma"), "failed: " + str(e)[-200:])


def netns_rows(b, res, smoke):
    """P22: verbs write 1 MiB between two namespaces over TCP, beside DOCA RDMA and ucx_perftest tcp."""
    if os.geteuid() != 0:
        res.skip("verbs-write-netns", "network namespaces need root (run make bench as root)")
        return
    try:
        nn = b.hosts()
    except Skip as e:
        res.skip("verbs-write-netns", str(e)[-200:])
        return
    tail = ["-s", str(MIB), "--buffers", "1", "-D", str(b.slice)]
    try:
        # tcp over a veth moves with every scheduling hiccup: two more rounds, as compare.py's P6
        for r in range(b.rounds if smoke else b.rounds + 2):
            _pair_netns(b, res, nn, ["verbs", "write"] + tail + VWIN, r, OURS)
            _pair_netns(b, res, nn, ["rdma", "write"] + tail + DEPTH, r, RDMA_PEER)
            if not b.ucx:
                res.skip("verbs-write-netns/ucx", "ucx_perftest not installed (package ucx-utils)")
                continue
            b.ucx_over_veth(res, nn, "verbs-write-netns", r)
    finally:
        nn.down()


def run(b, res, smoke):
    """The `verbs` step of compare.py."""
    if not b.rdma_ok:
        res.skip("verbs", b.rdma_why)
        return
    why = _probe(b)
    if why:
        res.skip("verbs", why)
        return
    shm_rows(b, res, smoke)
    if not shutil.which("ip"):
        res.skip("verbs-write-netns", "ip (iproute2) not installed")
        return
    netns_rows(b, res, smoke)


TARGETS = (
    Target("P19", P4_TITLE % "Verbs RDMA", "verbs-write-shm", MIB, measure=LARGE_WRITE),
    Target("P20", P9_TITLE % ("Verbs RDMA write", "writev", "put"), "verbs-write-shm", 4 * KIB,
           measure=small_copy("write")),
    Target("P21", "Verbs 8 B send/recv ping-pong latency <= 1.2x ucp_am_lat (shm, avg)", "verbs-send-lat-shm", 8,
           metric="lat_avg", peer="ucx_perftest ucp_am_lat", op="<=", goal=1.2, show_values=True,
           measure=paired),
    Target("P22", "Verbs RDMA write 1 MiB across namespaces over TCP >= 0.9x best ucx_perftest tcp",
           "verbs-write-netns", MIB, peer=UCX_VETH_PEERS, goal=0.9, show_values=True),
)
