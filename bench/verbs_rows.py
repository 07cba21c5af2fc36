# SPDX-License-Identifier: BSD-3-Clause
"""DOCA Verbs rows of compare.py (issue 13): `doca_perf verbs` beside ucx_perftest and beside
`doca_perf rdma` (DOCA RDMA) on the same sizes, alternating in every round, and targets P19-P22.

  verbs-write-shm     4 KiB, 64 KiB, 1 MiB  write VWIN --buffers 1    vs ucp_put_bw (shm)   P19 (1 MiB), P20 (4 KiB)
  verbs-read-shm      1 MiB                 read VWIN --buffers 1     vs ucp_get (shm)      row only
  verbs-send-lat-shm  8 B                   send --lat                vs ucp_am_lat (shm)   P21 (average latency)
  verbs-write-netns   1 MiB, two namespaces over TCP (compare.py's bench_hosts(), UCX_TLS=tcp SOFTDOCA_FABRIC_CMA=0,
                      the veth must carry the bytes)  vs ucp_put_bw / ucp_am_bw over tcp on the veth   P22

VWIN = 64 work requests in flight in chains of 16, only the last of a chain signaled (--cq-mod 16).
`doca_perf rdma` with the same depth (-t 64; every task completes) is recorded as the peer "doca_perf rdma (DOCA RDMA)": a row, not a target.
compare.py passes itself as `cmp` (its Bench, SKIPS, summary(), bench_hosts() helpers), so nothing here is
duplicated and RAW stays one list.
"""
import os
import subprocess

KIB, MIB = 1 << 10, 1 << 20
RDMA_PEER = "doca_perf rdma (DOCA RDMA)"
DEPTH = ["-t", "64"]
VWIN = DEPTH + ["--cq-mod", "16"]


def _probe(b):
    try:
        b.perf_json(["verbs", "write", "-s", "64", "-n", "10"])
        return None
    except (RuntimeError, subprocess.TimeoutExpired, ValueError) as e:
        return "doca_perf verbs failed: " + str(e).splitlines()[-1][-200:]


def _ours(b, cmp, workload, argv, r, who="softdoca", env=None):
    """One doca_perf run (every size); its rows recorded under who.  False if it failed."""
    try:
        for row in b.perf_json(argv, env=env):
            b.record(workload, row["size"], who, round=r, bps=row["bytes_per_sec"], rate=row["tasks_per_sec"],
                     lat=row["lat_ns"], cpu=row.get("cpu_percent"))
        return True
    except (RuntimeError, subprocess.TimeoutExpired, ValueError, KeyError) as e:
        key = workload if who == "softdoca" else workload + "/" + who
        cmp.SKIPS[key] = "failed: " + str(e).splitlines()[-1][-200:]
        return False


def _ucx(b, cmp, workload, test, sizes, r, tls="shm"):
    if not b.ucx:
        cmp.SKIPS[workload + "/ucx"] = "ucx_perftest not installed (package ucx-utils)"
        return
    for s in sizes:
        try:
            bps, rate, l50, lavg = b.ucx_perftest(test, s, tls)
            b.record(workload, s, "ucx_perftest " + test, round=r, bps=bps, rate=rate, lat_avg_ns=lavg * 1e3,
                     lat_p50_ns=l50 * 1e3)
        except (RuntimeError, subprocess.TimeoutExpired) as e:
            cmp.SKIPS[workload + "/ucx"] = str(e)[-200:]


def shm_rows(b, cmp, smoke):
    """Two local processes (UCX picks shared memory): write, read, send --lat; ours, DOCA RDMA, UCX."""
    wsizes = [4 * KIB, MIB] if smoke else [4 * KIB, 64 * KIB, MIB]
    wlist = ",".join(map(str, wsizes))
    sl = str(b.slice)
    for r in range(b.rounds):
        # --buffers 1: one buffer a side, as ucx_perftest (same working set).
        _ours(b, cmp, "verbs-write-shm", ["verbs", "write", "-s", wlist, "--buffers", "1", "-D", sl] + VWIN, r)
        _ours(b, cmp, "verbs-write-shm", ["rdma", "write", "-s", wlist, "--buffers", "1", "-D", sl] + DEPTH, r,
              who=RDMA_PEER)
        _ucx(b, cmp, "verbs-write-shm", "ucp_put_bw", wsizes, r)
        if not smoke:
            _ours(b, cmp, "verbs-read-shm", ["verbs", "read", "-s", str(MIB), "--buffers", "1", "-D", sl] + VWIN, r)
            _ours(b, cmp, "verbs-read-shm", ["rdma", "read", "-s", str(MIB), "--buffers", "1", "-D", sl] + DEPTH, r,
                  who=RDMA_PEER)
            _ucx(b, cmp, "verbs-read-shm", "ucp_get", [MIB], r)
        # Ping-pong; smoke caps the run as compare.py caps ucp_am_lat (200 round trips).
        lat = ["-n", "200"] if smoke else ["-D", sl]
        _ours(b, cmp, "verbs-send-lat-shm", ["verbs", "send", "--lat", "-s", "8"] + lat, r)
        _ours(b, cmp, "verbs-send-lat-shm", ["rdma", "send", "--lat", "-s", "8"] + lat, r, who=RDMA_PEER)
        _ucx(b, cmp, "verbs-send-lat-shm", "ucp_am_lat", [8], r)


def _pair_netns(b, cmp, nn, argv, r, who):
    """doca_perf across the namespaces over TCP; the veth must carry what it reports."""
    try:
        rx0 = cmp.link_rx_bytes(nn)
        rows = cmp.perf_pair_netns(b, nn, argv, env=cmp.NETNS_TCP_ENV)
        rx = cmp.link_rx_bytes(nn) - rx0
        for row in rows:
            moved = row["bytes_per_sec"] * row["seconds"]
            if rx < moved:
                raise RuntimeError("the veth carried %d bytes, doca_perf measured %d: not over TCP" % (rx, moved))
            b.record("verbs-write-netns", row["size"], who, round=r, bps=row["bytes_per_sec"],
                     rate=row["tasks_per_sec"], lat=row["lat_ns"], veth_rx_bytes=rx)
    except (RuntimeError, subprocess.TimeoutExpired, KeyError, ValueError) as e:
        cmp.SKIPS["verbs-write-netns" + ("" if who == "softdoca" else "/rdma")] = "failed: " + str(e)[-200:]


def netns_rows(b, cmp, smoke):
    """P22: verbs write 1 MiB between two namespaces over TCP, beside DOCA RDMA and ucx_perftest tcp."""
    if os.geteuid() != 0:
        cmp.SKIPS["verbs-write-netns"] = "network namespaces need root (run make bench as root)"
        return
    try:
        nn = cmp.bench_hosts()
    except cmp.Skip as e:
        cmp.SKIPS["verbs-write-netns"] = str(e)[-200:]
        return
    tail = ["-s", str(MIB), "--buffers", "1", "-D", str(b.slice)]
    try:
        # tcp over a veth moves with every scheduling hiccup: two more rounds, as compare.py's P6
        for r in range(b.rounds if smoke else b.rounds + 2):
            _pair_netns(b, cmp, nn, ["verbs", "write"] + tail + VWIN, r, "softdoca")
            _pair_netns(b, cmp, nn, ["rdma", "write"] + tail + DEPTH, r, RDMA_PEER)
            if not b.ucx:
                cmp.SKIPS["verbs-write-netns/ucx"] = "ucx_perftest not installed (package ucx-utils)"
                continue
            for test in (("ucp_put_bw", "ucp_am_bw") if not smoke else ("ucp_am_bw",)):
                try:
                    bps, rate, _, _ = b.ucx_perftest(test, MIB, "tcp", netns=nn.ns, server_addr=nn.addr(side=0),
                                                     netdev=(nn.veth(side=0), nn.veth(side=1)))
                    b.record("verbs-write-netns", MIB, "ucx_perftest " + test + " (tcp)", round=r, bps=bps,
                             rate=rate)
                except (RuntimeError, subprocess.TimeoutExpired) as e:
                    cmp.SKIPS["verbs-write-netns/" + test] = str(e)[-200:]
    finally:
        nn.down()


def run(b, smoke, cmp):
    """The `verbs` step of compare.py."""
    if not b.rdma_ok:
        cmp.SKIPS["verbs"] = b.rdma_why
        return
    why = _probe(b)
    if why:
        cmp.SKIPS["verbs"] = why
        return
    shm_rows(b, cmp, smoke)
    if not cmp.shutil.which("ip"):
        cmp.SKIPS["verbs-write-netns"] = "ip (iproute2) not installed"
        return
    netns_rows(b, cmp, smoke)


def targets(cmp):
    """P19-P22 as compare.py's targets(): (id, text, value shown, met True/False/None)."""
    out = []

    def bw(wl, size, peer):
        o, t = cmp.summary(wl, size, "softdoca"), cmp.summary(wl, size, peer)
        return cmp.ratio(o and o["bps"], t and t["bps"])

    def detail(wl, size, peer):
        o, t = cmp.summary(wl, size, "softdoca"), cmp.summary(wl, size, peer)
        if not o or not t or not o.get("bps") or not t.get("bps"):
            return ""
        return " (%s vs %s)" % (cmp.fmt_bw(o["bps"]), cmp.fmt_bw(t["bps"]))

    for tid, size, goal in (("P19", MIB, 1.0), ("P20", 4 * KIB, 0.8)):
        x = bw("verbs-write-shm", size, "ucx_perftest ucp_put_bw")
        out.append((tid, "Verbs RDMA write %s, two local processes >= %.1fx ucp_put_bw (shm)" %
                    (cmp.human_size(size), goal),
                    cmp.fmt_ratio(x) + detail("verbs-write-shm", size, "ucx_perftest ucp_put_bw"),
                    None if x is None else x >= goal))
    o = cmp.summary("verbs-send-lat-shm", 8, "softdoca")
    t = cmp.summary("verbs-send-lat-shm", 8, "ucx_perftest ucp_am_lat")
    x = cmp.ratio(o and o.get("lat_avg"), t and t.get("lat_avg"))
    shown = cmp.fmt_ratio(x)
    if x is not None:
        shown += " (%s vs %s)" % (cmp.fmt_us(o["lat_avg"]), cmp.fmt_us(t["lat_avg"]))
    out.append(("P21", "Verbs 8 B send/recv ping-pong latency <= 1.2x ucp_am_lat (shm, avg)", shown,
                None if x is None else x <= 1.2))
    best = None
    for peer in ("ucx_perftest ucp_put_bw (tcp)", "ucx_perftest ucp_am_bw (tcp)"):
        s = cmp.summary("verbs-write-netns", MIB, peer)
        if s and s["bps"] and (best is None or s["bps"] > best):
            best = s["bps"]
    o = cmp.summary("verbs-write-netns", MIB, "softdoca")
    x = cmp.ratio(o and o["bps"], best)
    shown = cmp.fmt_ratio(x) + ("" if x is None else " (%s vs %s)" % (cmp.fmt_bw(o["bps"]), cmp.fmt_bw(best)))
    out.append(("P22", "Verbs RDMA write 1 MiB across namespaces over TCP >= 0.9x best ucx_perftest tcp", shown,
                None if x is None else x >= 0.9))
    return out
