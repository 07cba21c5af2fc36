# SPDX-License-Identifier: BSD-3-Clause
"""Multi-Rail rows of bench/compare.py (issue 14): doca_verbs_multi_rail_server_client on two
tbf-shaped rails between two namespaces (softdoca_testbed.multi_rail) against one rail
and against Multipath TCP (`mptcpize run iperf3`) on the same rails, both directions; a rail cut
loudly (link down) and silently (tbf at 8 kbit/s) during a transfer; targets P7, P16, P17, P18
and a plot of throughput over time across the cut and the recovery.
"""
import json
import os
import shutil
import subprocess
import tempfile
import time

from softdoca_testbed import multi_rail as m

RATE = "300mbit"
TIMELINES = {}   # (who, cut) -> [(t, MB/s)]


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


def multi_rail_rows(b, smoke):
    if os.geteuid() != 0:
        b.skips["multi-rail"] = "network namespaces need root (run make bench as root)"
        return
    if not os.access(b.mr_app, os.X_OK):
        b.skips["multi-rail"] = "doca_verbs_multi_rail_server_client not built"
        return
    d = 1.5 if smoke else 5
    tmp = tempfile.mkdtemp(prefix="sdbench-mr-")
    try:
        envs = m.setup((RATE, RATE))
    except m.Skip as e:
        b.skips["multi-rail"] = str(e)
        return
    try:
        have_mptcp = shutil.which("mptcpize") is not None
        if have_mptcp:
            try:
                _mptcp_setup()
            except (subprocess.CalledProcessError, OSError) as e:
                have_mptcp = False
                b.skips["multi-rail/mptcp"] = "MPTCP set-up failed: %s" % getattr(e, "stderr", e)
        else:
            b.skips["multi-rail/mptcp"] = "mptcpize not installed (Debian package mptcpd)"
        for side, direction in ((0, "b->a"), (1, "a->b")):
            try:
                one, _ = _app(b, envs, tmp, d, multi=False, server_side=side)
                two, _ = _app(b, envs, tmp, d, server_side=side)
                b.record("mr-one-rail", 0, "softdoca", direction=direction, bps=one["bps"])
                b.record("mr-two-rails", 0, "softdoca", direction=direction, bps=two["bps"])
            except RuntimeError as e:
                b.skips["multi-rail/" + direction] = str(e)[-200:]
            if have_mptcp:
                try:
                    bps, _ = _iperf3(d, server_side=side)
                    b.record("mr-two-rails", 0, "mptcp iperf3", direction=direction, bps=bps)
                except (RuntimeError, subprocess.TimeoutExpired, KeyError, ValueError) as e:
                    b.skips["multi-rail/mptcp " + direction] = str(e)[-200:]
        # Unequal rails, 1:3.
        try:
            m.set_rate("r0", "100mbit")
            a, _ = _app(b, envs, tmp, d, multi=False, devs=["mlx5_0"])
            c, _ = _app(b, envs, tmp, d, multi=False, devs=["mlx5_1"])
            two, _ = _app(b, envs, tmp, d)
            b.record("mr-unequal", 0, "softdoca", bps=two["bps"], sum_single=a["bps"] + c["bps"])
        except RuntimeError as e:
            b.skips["multi-rail/unequal"] = str(e)[-200:]
        finally:
            m.set_rate("r0", RATE)
        # Cuts.
        for kind in ("loud", "silent"):
            try:
                one, _ = _app(b, envs, tmp, d, multi=False)
                res, tl = _app(b, envs, tmp, 6, during=_cut(kind))
                after = [row[2] for row in tl if 2.3 <= row[0] <= 3.9]
                TIMELINES[("softdoca", kind)] = [(row[0], row[2]) for row in tl]
                b.record("mr-cut-" + kind, 0, "softdoca", bps=res["bps"], stall_s=res["longest_stall_ms"] / 1e3,
                         after_bps=(sum(after) / len(after) * 1e6) if after else None, surviving_bps=one["bps"],
                         lost=0 if res["status"] == "DOCA_SUCCESS" else None)
            except RuntimeError as e:
                b.skips["multi-rail/cut " + kind] = str(e)[-200:]
            if have_mptcp:
                try:
                    bps, tl = _iperf3(6, during=_cut(kind))
                    TIMELINES[("mptcp", kind)] = tl
                    mean = sum(x[1] for x in tl) / max(1, len(tl))
                    b.record("mr-cut-" + kind, 0, "mptcp iperf3", bps=bps, stall_s=_stall(tl, mean))
                except (RuntimeError, subprocess.TimeoutExpired, KeyError, ValueError) as e:
                    b.skips["multi-rail/mptcp cut " + kind] = str(e)[-200:]
    finally:
        m.teardown()
        shutil.rmtree(tmp, ignore_errors=True)


def _med(raw, wl, who, key="bps"):
    vals = sorted(x[key] for x in raw if x["workload"] == wl and x["who"] == who and x.get(key) is not None)
    return vals[len(vals) // 2] if vals else None


def multi_rail_targets(raw):
    out = []
    one, two, mp = _med(raw, "mr-one-rail", "softdoca"), _med(raw, "mr-two-rails", "softdoca"), \
        _med(raw, "mr-two-rails", "mptcp iperf3")
    r = two / one if one and two else None
    out.append(("P7", "Multi-Rail: two equal rails >= 1.9x one rail", "-" if r is None else "%.3f" % r,
                None if r is None else r >= 1.9))
    r = two / mp if mp and two else None
    out.append(("P16", "Multi-Rail aggregate >= 1.0x MPTCP (iperf3) on the same two rails",
                "-" if r is None else "%.3f" % r, None if r is None else r >= 1.0))
    u = [x for x in raw if x["workload"] == "mr-unequal"]
    r = u[0]["bps"] / u[0]["sum_single"] if u else None
    out.append(("P17", "Multi-Rail unequal rails (1:3) >= 0.9x the sum of each alone",
                "-" if r is None else "%.3f" % r, None if r is None else r >= 0.9))
    parts, met = [], None
    for kind in ("loud", "silent"):
        x = [y for y in raw if y["workload"] == "mr-cut-" + kind and y["who"] == "softdoca"]
        mp = [y for y in raw if y["workload"] == "mr-cut-" + kind and y["who"] == "mptcp iperf3"]
        if not x or not x[0].get("after_bps"):
            continue
        x = x[0]
        ok = x["stall_s"] <= 0.2 and x["after_bps"] >= 0.95 * x["surviving_bps"] and x["lost"] == 0
        met = ok if met is None else (met and ok)
        parts.append("%s: stall %.3f s, after %.2fx surviving, lost 0%s" % (
            kind, x["stall_s"], x["after_bps"] / x["surviving_bps"],
            "" if not mp else "; MPTCP stall %.2f s" % mp[0]["stall_s"]))
    out.append(("P18", "Rail cut (loud, silent): stall <= 0.2 s, after >= 0.95x surviving rail, 0 lost",
                "; ".join(parts) or "-", met))
    return out


def multi_rail_plot(outdir, has_cairo):
    if not TIMELINES or not shutil.which("gnuplot"):
        return []
    data = os.path.join(outdir, "multi_rail_cut.dat")
    titles = []
    with open(data, "w") as f:
        for (who, kind), tl in sorted(TIMELINES.items()):
            f.write("# %s %s\n" % (who, kind))
            for t, v in tl:
                f.write("%.3f %.3f\n" % (t, v))
            f.write("\n\n")
            titles.append("%s, %s cut" % (who, kind))
    plot = ", ".join("'%s' index %d using 1:2 with lines title '%s'" % (data, i, t) for i, t in enumerate(titles))
    script = ("set terminal %s size 1200,600 noenhanced\nset output '%s'\nset xlabel 'time [s] (rail 1 cut at 2 s, "
              "restored at 4 s)'\nset ylabel 'throughput [MB/s]'\nset grid\nset key outside right\nplot %s\n" %
              ("pngcairo" if has_cairo else "png", os.path.join(outdir, "multi_rail_cut.png"), plot))
    p = subprocess.run(["gnuplot"], input=script, text=True, stderr=subprocess.PIPE)
    return ["multi_rail_cut.png"] if p.returncode == 0 else []
