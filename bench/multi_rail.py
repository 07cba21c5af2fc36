# SPDX-License-Identifier: BSD-3-Clause
"""Multi-Rail rows of bench/compare.py (issue 14): doca_verbs_multi_rail_server_client on two
tbf-shaped rails between two namespaces (softdoca_testbed.multi_rail) against one rail
and against Multipath TCP (`mptcpize run iperf3`) on the same rails, both directions; a rail cut
loudly (link down) and silently (tbf at 8 kbit/s) during a transfer; targets P7, P16, P17, P18
and a plot of throughput over time across the cut and the recovery.

A compare.py plugin: run(bench, results, smoke) is the step STEP, TARGETS are rows of compare.py's
target table, plot(results, outdir, cairo) draws the cut timelines the step kept in results.
"""
import json
import os
import shutil
import subprocess
import tempfile
import time

from softdoca_testbed import multi_rail as m

from results import OURS, Target, fmt_ratio

STEP = "multi-rail"
RATE = "300mbit"
MPTCP = "mptcp iperf3"


def _mr_json(tmp):
    path = os.path.join(tmp, "mr.json")
    with open(path, "w") as f:
        json.dump({"chunk_size": 65536}, f)
    return path


def _app(b, envs, tmp, duration, multi=True, devs=None, server_side=0, during=None):
    args = ["--num-qps", "4", "--chunks-total", "4194304", "--multi-rail-json", _mr_json(tmp), "--progress-ms", "100"]
    if multi:
        args.append("--use-multi-rail")
    if devs:
        path = os.path.join(tmp, "devs.json")
        with open(path, "w") as f:
            json.dump({"devices": [{"ibdev": d} for d in devs]}, f)
        args += ["--dev-json", path]
    p = m.Pair(b.mr_app, envs, args, client_args=["--duration", str(duration)], server_side=server_side)
    if during:
        during()
    out = p.wait(duration + 60)
    rc, o, e = out["client"]
    src, so, _ = out["server"]
    res = m.result_line(o)
    if rc != 0 or src != 0 or not res or "every byte verified" not in so:
        raise RuntimeError("multi-rail app: exit %s/%s %s" % (rc, src, e[-300:]))
    return res, m.progress_lines(o)


def _mptcp_setup():
    for side in (0, 1):
        for cmd in (["sysctl", "-qw", "net.mptcp.enabled=1"],
                    ["ip", "mptcp", "limits", "set", "subflow", "2", "add_addr_accepted", "2"],
                    ["ip", "mptcp", "endpoint", "add", m.NET["r1"].split("/")[0] % (side + 1), "dev",
                     m.veth("r1", side), "subflow"]):
            subprocess.run(["ip", "netns", "exec", m.NS[side]] + cmd, check=True, capture_output=True, timeout=20)


def _iperf3(duration, server_side=0, during=None):
    """MPTCP iperf3 client -> server over rail0's address (subflow on rail1); bytes/s and 0.1 s intervals."""
    port = "5201"
    srv = subprocess.Popen(["ip", "netns", "exec", m.NS[server_side], "mptcpize", "run", "iperf3", "-s", "-1",
                            "-p", port], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(0.5)
        cli = subprocess.Popen(["ip", "netns", "exec", m.NS[1 - server_side], "mptcpize", "run", "iperf3", "-c",
                                m.NET["r0"].split("/")[0] % (server_side + 1), "-p", port, "-t", str(duration),
                                "-i", "0.1", "-J"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if during:
            during()
        o, e = cli.communicate(timeout=duration + 60)
        if cli.returncode != 0:
            raise RuntimeError("mptcpize iperf3: " + (o + e)[-300:])
        j = json.loads(o)
        tl = [(iv["sum"]["end"], iv["sum"]["bits_per_second"] / 8e6) for iv in j["intervals"]]
        return j["end"]["sum_received"]["bits_per_second"] / 8, tl
    finally:
        try:
            srv.wait(timeout=10)
        except subprocess.TimeoutExpired:
            srv.kill()
            srv.wait()


def _stall(tl, mean_mbps):
    """Longest run of progress samples with (almost) nothing moved, in seconds."""
    longest = run = 0.0
    prev = 0.0
    for t, mbps in tl:
        run = run + (t - prev) if mbps < 0.02 * mean_mbps else 0.0
        longest = max(longest, run)
        prev = t
    return longest


def _cut(kind, at=2.0, length=2.0):
    def during():
        time.sleep(at)
        if kind == "loud":
            m.set_link("r1", False)
        else:
            m.set_rate("r1", "8kbit")
        time.sleep(length)
        if kind == "loud":
            m.set_link("r1", True)
        else:
            m.set_rate("r1", RATE)
    return during


def run(b, res, smoke):
    if os.geteuid() != 0:
        res.skip("multi-rail", "network namespaces need root (run make bench as root)")
        return
    if not os.access(b.mr_app, os.X_OK):
        res.skip("multi-rail", "doca_verbs_multi_rail_server_client not built")
        return
    d = 1.5 if smoke else 5
    tmp = tempfile.mkdtemp(prefix="sdbench-mr-")
    try:
        envs = m.setup((RATE, RATE))
    except m.Skip as e:
        res.skip("multi-rail", str(e))
        return
    try:
        have_mptcp = shutil.which("mptcpize") is not None
        if have_mptcp:
            try:
                _mptcp_setup()
            except (subprocess.CalledProcessError, OSError) as e:
                have_mptcp = False
                res.skip("multi-rail/mptcp", "MPTCP set-up failed: %s" % getattr(e, "stderr", e))
        else:
            res.skip("multi-rail/mptcp", "mptcpize not installed (Debian package mptcpd)")
        for side, direction in ((0, "b->a"), (1, "a->b")):
            try:
                one, _ = _app(b, envs, tmp, d, multi=False, server_side=side)
                two, _ = _app(b, envs, tmp, d, server_side=side)
                res.add("mr-one-rail", 0, OURS, direction=direction, bps=one["bps"])
                res.add("mr-two-rails", 0, OURS, direction=direction, bps=two["bps"])
            except RuntimeError as e:
                res.skip("multi-rail/" + direction, str(e)[-200:])
            if have_mptcp:
                try:
                    bps, _ = _iperf3(d, server_side=side)
                    res.add("mr-two-rails", 0, MPTCP, direction=direction, bps=bps)
                except (RuntimeError, subprocess.TimeoutExpired, KeyError, ValueError) as e:
                    res.skip("multi-rail/mptcp " + direction, str(e)[-200:])
        # Unequal rails, 1:3.
        try:
            m.set_rate("r0", "100mbit")
            a, _ = _app(b, envs, tmp, d, multi=False, devs=["mlx5_0"])
            c, _ = _app(b, envs, tmp, d, multi=False, devs=["mlx5_1"])
            two, _ = _app(b, envs, tmp, d)
            res.add("mr-unequal", 0, OURS, bps=two["bps"], sum_single=a["bps"] + c["bps"])
        except RuntimeError as e:
            res.skip("multi-rail/unequal", str(e)[-200:])
        finally:
            m.set_rate("r0", RATE)
        # Cuts.
        for kind in ("loud", "silent"):
            try:
                one, _ = _app(b, envs, tmp, d, multi=False)
                got, tl = _app(b, envs, tmp, 6, during=_cut(kind))
                after = [row[2] for row in tl if 2.3 <= row[0] <= 3.9]
                res.timelines[(OURS, kind)] = [(row[0], row[2]) for row in tl]
                res.add("mr-cut-" + kind, 0, OURS, bps=got["bps"], stall_s=got["longest_stall_ms"] / 1e3,
                        after_bps=(sum(after) / len(after) * 1e6) if after else None, surviving_bps=one["bps"],
                        lost=0 if got["status"] == "DOCA_SUCCESS" else None)
            except RuntimeError as e:
                res.skip("multi-rail/cut " + kind, str(e)[-200:])
            if have_mptcp:
                try:
                    bps, tl = _iperf3(6, during=_cut(kind))
                    res.timelines[("mptcp", kind)] = tl
                    mean = sum(x[1] for x in tl) / max(1, len(tl))
                    res.add("mr-cut-" + kind, 0, MPTCP, bps=bps, stall_s=_stall(tl, mean))
                except (RuntimeError, subprocess.TimeoutExpired, KeyError, ValueError) as e:
                    res.skip("multi-rail/mptcp cut " + kind, str(e)[-200:])
    finally:
        m.teardown()
        shutil.rmtree(tmp, ignore_errors=True)


def _upper_median(res, wl, who, key="bps"):
    """The median, the upper one of an even count (one run per direction: the better direction)."""
    vals = sorted(x[key] for x in res.rows(wl, who) if x.get(key) is not None)
    return vals[len(vals) // 2] if vals else None


def _rails(res, t):
    """P7 / P16: two rails (ours) against t.peer, (workload, who)."""
    two, other = _upper_median(res, "mr-two-rails", OURS), _upper_median(res, *t.peer)
    r = two / other if other and two else None
    return fmt_ratio(r), t.judge(r)


def _unequal(res, t):
    u = res.rows("mr-unequal")
    r = u[0]["bps"] / u[0]["sum_single"] if u else None
    return fmt_ratio(r), t.judge(r)


def _cuts(res, t):
    """P18: every cut measured (loud, silent) within its stall, throughput after and loss bounds."""
    parts, met = [], None
    for kind in ("loud", "silent"):
        x = res.rows("mr-cut-" + kind, OURS)
        mp = res.rows("mr-cut-" + kind, MPTCP)
        if not x or not x[0].get("after_bps"):
            continue
        x = x[0]
        ok = x["stall_s"] <= 0.2 and x["after_bps"] >= 0.95 * x["surviving_bps"] and x["lost"] == 0
        met = ok if met is None else (met and ok)
        parts.append("%s: stall %.3f s, after %.2fx surviving, lost 0%s" % (
            kind, x["stall_s"], x["after_bps"] / x["surviving_bps"],
            "" if not mp else "; MPTCP stall %.2f s" % mp[0]["stall_s"]))
    return "; ".join(parts) or "-", met


TARGETS = (
    Target("P7", "Multi-Rail: two equal rails >= 1.9x one rail", peer=("mr-one-rail", OURS), goal=1.9,
           measure=_rails),
    Target("P16", "Multi-Rail aggregate >= 1.0x MPTCP (iperf3) on the same two rails", peer=("mr-two-rails", MPTCP),
           goal=1.0, measure=_rails),
    Target("P17", "Multi-Rail unequal rails (1:3) >= 0.9x the sum of each alone", goal=0.9, measure=_unequal),
    Target("P18", "Rail cut (loud, silent): stall <= 0.2 s, after >= 0.95x surviving rail, 0 lost", measure=_cuts),
)


def plot(res, outdir, has_cairo):
    if not res.timelines or not shutil.which("gnuplot"):
        return []
    data = os.path.join(outdir, "multi_rail_cut.dat")
    titles = []
    with open(data, "w") as f:
        for (who, kind), tl in sorted(res.timelines.items()):
            f.write("# %s %s\n" % (who, kind))
            for t, v in tl:
                f.write("%.3f %.3f\n" % (t, v))
            f.write("\n\n")
            titles.append("%s, %s cut" % (who, kind))
    curves = ", ".join("'%s' index %d using 1:2 with lines title '%s'" % (data, i, t) for i, t in enumerate(titles))
    script = ("set terminal %s size 1200,600 noenhanced\nset output '%s'\nset xlabel 'time [s] (rail 1 cut at 2 s, "
              "restored at 4 s)'\nset ylabel 'throughput [MB/s]'\nset grid\nset key outside right\nplot %s\n" %
              ("pngcairo" if has_cairo else "png", os.path.join(outdir, "multi_rail_cut.png"), curves))
    p = subprocess.run(["gnuplot"], input=script, text=True, stderr=subprocess.PIPE)
    return ["multi_rail_cut.png"] if p.returncode == 0 else []
