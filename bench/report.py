# SPDX-License-Identifier: BSD-3-Clause
"""compare.py's outputs from a Results object: the tables it prints, results.json, bw.png and
lat.png (gnuplot), a plugin's plots, and with --page the results page (docs/results/README.md)."""
import json
import os
import shutil
import subprocess
import time

from results import OURS, evaluate, fmt_bw, fmt_rate, fmt_ratio, fmt_us, human_size, loadavg, ratio

STATUS = {True: "met", False: "**missed**", None: "not measured"}


def comparison_table(res):
    """Rows (workload, size, peer, ours, theirs, ratio, metric) for every pairing measured."""
    rows = []
    for workload, size, peer in res.pairings():
        ours = res.summary(workload, size, OURS)
        theirs = res.summary(workload, size, peer)
        if "-lat" in workload:  # rdma-send-lat-shm, comch-ctrl-lat ("deflate" holds "lat" too)
            o = ours.get("lat_avg") if ours else None
            t = theirs.get("lat_avg") if theirs else None
            rows.append((workload, size, peer, fmt_us(o), fmt_us(t), ratio(o, t), "latency avg (lower is better)"))
        else:
            o = ours.get("bps") if ours else None
            t = theirs.get("bps") if theirs else None
            rows.append((workload, size, peer, fmt_bw(o), fmt_bw(t), ratio(o, t), "bandwidth"))
    return rows


def scaling_table(res):
    rows = []
    for wl in [w for w in res.workloads() if w.startswith("scale-")]:
        for k in res.sizes(wl):
            s = res.summary(wl, k, OURS)
            rows.append((wl, k, fmt_bw(s["bps"]), fmt_rate(s["rate"]), fmt_us(s.get("lat_p50")),
                         fmt_us(s.get("lat_p99"))))
    return rows


def cpu_model():
    """The first CPU's "model name" from /proc/cpuinfo with its vendor, family, model and stepping
    (a guest may say only "AMD EPYC": the numbers tell one generation from another)."""
    info = {}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if not line.strip():
                    break
                k, _, v = line.partition(":")
                info[k.strip()] = v.strip()
    except OSError:
        pass
    if "model name" not in info:
        return "unknown"
    return "%s (%s family %s model %s stepping %s)" % (info["model name"], info.get("vendor_id", "?"),
                                                         info.get("cpu family", "?"), info.get("model", "?"),
                                                         info.get("stepping", "?"))


def hardware(res):
    """The machine: CPU model (/proc/cpuinfo), CPUs, memory, kernel, load averages at start and end."""
    model = cpu_model()
    mem = subprocess.run(["free", "-h"], stdout=subprocess.PIPE, text=True).stdout.splitlines()
    mem = [l for l in mem if l.startswith("Mem:")]
    return {"cpu": model, "nproc": os.cpu_count(), "memory": mem[0].split()[1] if mem else "?",
            "kernel": os.uname().release, "loadavg_at_start": res.load_at_start, "loadavg_at_end": loadavg(),
            "date": time.strftime("%Y-%m-%d %H:%M:%S %Z")}


def has_cairo():
    p = subprocess.run(["gnuplot", "-e", "set terminal"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return "pngcairo" in p.stdout


def plots(res, outdir):
    """bw.png and lat.png: every series but the scaling, multi-rail and idle ones; the names made."""
    if not shutil.which("gnuplot"):
        res.skip("plots", "gnuplot not installed (package gnuplot-nox)")
        return []
    series = {}
    for wl, who in res.series():
        if wl.startswith("scale-") or wl.startswith("mr-") or wl == "idle-server":
            continue
        series[(wl, who)] = [(size, res.summary(wl, size, who)) for size in res.sizes(wl, who)]
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
        script = ("set terminal pngcairo size 1400,800 noenhanced\n" if has_cairo() else
                  "set terminal png size 1400,800 noenhanced\n")
        script += ("set output '%s'\nset logscale xy\nset xlabel 'message size [bytes]'\nset ylabel '%s'\n"
                   "set key outside right\nset grid\nplot %s\n" % (os.path.join(outdir, name), ylabel, plot))
        p = subprocess.run(["gnuplot"], input=script, text=True, stderr=subprocess.PIPE)
        if p.returncode != 0:
            res.skip("plots", "gnuplot failed: " + p.stderr[-200:])
            return made
        made.append(name)
    return made


NETNS_NOTE = (
    "**Across namespaces = over TCP.** Both namespaces share this kernel, so "
    "`rdma-write-netns` runs doca_perf with `UCX_TLS=tcp SOFTDOCA_FABRIC_CMA=0` on both sides "
    "(no shared memory, no process_vm_writev: every byte crosses the veth over TCP, as "
    "between two hosts; each round checks that the veth received at least the bytes "
    "doca_perf reports). `rdma-write-netns-samekernel` is the default shared-memory path "
    "containers on one kernel get, not a network number. Wherever doca_perf meets "
    "ucx_perftest it uses `--buffers 1` (one buffer a side, as ucx_perftest). "
    "See [../benchmarks.md](../benchmarks.md).")


def _page(res, page_dir, hw, made, text):
    page = ["# softdoca benchmark results", "",
            "Generated by `make bench` (`bench/compare.py`, see [../benchmarks.md](../benchmarks.md)) "
            "on %s in %.0f s." % (hw["date"], res.elapsed()), "",
            "**Machine:** %s, %s CPUs (nproc), %s RAM, Linux %s; load average (1, 5, 15 min) %s at the "
            "start, %s at the end; each row's median 1-minute load is in the table. "
            "The machine may be shared with other jobs, which is why ours and each peer alternate in "
            "short slices and the tables show medians; compare ratios, not absolute numbers." %
            (hw["cpu"], hw["nproc"], hw["memory"], hw["kernel"], hw["loadavg_at_start"], hw["loadavg_at_end"]), "",
            "Raw numbers: [results.json](results.json)."]
    if res.rows("rdma-write-netns"):
        page += ["", NETNS_NOTE]
    if made:
        page += ["", "![bandwidth vs size](bw.png)", "", "![latency vs size](lat.png)" if "lat.png" in made else ""]
    if "multi_rail_cut.png" in made:
        page += ["", "![Multi-Rail vs MPTCP: throughput across a rail cut and its recovery](multi_rail_cut.png)"]
    page += ["", text]
    # The hand-written notes stay their own files (linked, not pasted: the page stays short).
    notes = [n for n in ("notes.md", "notes-issue22.md", "notes-issue22-b.md") if os.path.exists(os.path.join(page_dir, n))]
    if notes:
        page += ["", "Profiles, what was changed and before/after numbers (hand-written): " +
                 ", ".join("[%s](%s)" % (n, n) for n in notes) + "."]
    with open(os.path.join(page_dir, "README.md"), "w") as f:
        f.write("\n".join(page) + "\n")


def write_outputs(b, res, targets, plugins, outdir, page_dir):
    """Print the tables, write results.json and the plots (and the page); (comparison rows, targets)."""
    os.makedirs(outdir, exist_ok=True)
    comp = comparison_table(res)
    tg = evaluate(res, targets)
    sc = scaling_table(res)
    hw = hardware(res)
    lines = []
    lines.append("| workload | size | peer | softdoca | peer | ratio (ours/peer) | per CPU-second | rounds "
                 "| load (1-min, median) | metric |")
    lines.append("|---|---|---|---|---|---|---|---|---|---|")
    for wl, size, peer, o, t, r, metric in comp:
        ours = res.summary(wl, size, OURS)
        load = res.load(wl, size)
        lines.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            wl, human_size(size), peer, o, t, fmt_ratio(r), fmt_ratio(res.cpu_ratio(wl, size, peer)),
            ours["n"] if ours else 0, "-" if load is None else "%.2f" % load, metric))
    tlines = ["| id | target | measured | status |", "|---|---|---|---|"]
    for tid, text, val, met in tg:
        tlines.append("| %s | %s | %s | %s |" % (tid, text, val, STATUS[met]))
    slines = ["| series | x (depth / connections) | bandwidth | rate | lat p50 | lat p99 |", "|---|---|---|---|---|---|"]
    for wl, k, bw, rate, p50, p99 in sc:
        slines.append("| %s | %d | %s | %s | %s | %s |" % (wl, k, bw, rate, p50, p99))
    klines = ["| what | why skipped |", "|---|---|"] + ["| %s | %s |" % kv for kv in sorted(res.skips.items())]

    text = "\n".join(["## Ratios (medians of %d alternating rounds, %d for the two-process shm rows, %.2f s slices)" %
                      (b.rounds, b.pipeline_rounds, b.slice), ""] + lines +
                     ["", "## Targets", ""] + tlines + ["", "## Scaling", ""] + slines +
                     ["", "## Skipped", ""] + (klines if res.skips else ["nothing"]))
    print(text)
    with open(os.path.join(outdir, "results.json"), "w") as f:
        json.dump({"hardware": hw, "rounds": b.rounds, "pipeline_rounds": b.pipeline_rounds, "slice": b.slice, "skips": res.skips,
                   "targets": [dict(id=a, target=t, measured=v, met=m) for a, t, v, m in tg],
                   "raw": res.raw}, f, indent=1)
    made = plots(res, outdir)
    cairo = bool(shutil.which("gnuplot")) and has_cairo()
    for plugin in plugins:
        if hasattr(plugin, "plot"):
            made += plugin.plot(res, outdir, cairo)
    if page_dir:
        os.makedirs(page_dir, exist_ok=True)
        for name in made + ["results.json"]:
            shutil.copy(os.path.join(outdir, name), os.path.join(page_dir, name))
        _page(res, page_dir, hw, made, text)
    return comp, tg
