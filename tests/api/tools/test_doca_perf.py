#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""doca_perf run as a program: usage errors (exit 2, one line naming the flag),
--json output and its config, --buffers and the verified bytes.  Speed is never
judged here (that is bench/compare.py's job); TAP on stdout."""
import json
import subprocess
import sys

PERF = sys.argv[1]
results = []


def run(args, timeout=120):
    return subprocess.run([PERF] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          timeout=timeout)


def case(name):
    def wrap(fn):
        try:
            fn()
            results.append((name, None))
        except AssertionError as e:
            results.append((name, str(e) or "assertion failed"))
        except Exception as e:  # a crash of the harness is a failure too, with its reason
            results.append((name, "%s: %s" % (type(e).__name__, e)))
        return fn
    return wrap


@case("usage_errors_exit_2_and_name_the_flag")
def _():
    for args, flag in ((["dma", "--buffers", "0"], "--buffers"), (["dma", "-t", "0"], "-t"),
                       (["dma", "-s", "12Q"], "-s"), (["rdma", "bogus"], "bogus"), (["nope"], "nope"),
                       (["dma", "--sge", "2000"], "--sge"), (["dma", "-D", "-1"], "-D")):
        p = run(args)
        assert p.returncode == 2, "%s: exit %d, expected 2" % (args, p.returncode)
        assert flag in p.stderr, "%s: stderr does not name %s: %r" % (args, flag, p.stderr[-200:])
        assert p.stdout == "", "%s: printed on stdout: %r" % (args, p.stdout[:100])


@case("help_lists_buffers")
def _():
    p = run(["--help"])
    assert p.returncode == 0, "exit %d" % p.returncode
    assert "--buffers N" in p.stdout and "--report_gbits" in p.stdout


@case("dma_json_rows_per_size_with_buffers")
def _():
    # 64 B x 8 buffers: an area that is not a whole page (aligned_alloc's rule, checked by ASan)
    p = run(["dma", "-s", "64,4K,64K", "-n", "200", "-t", "8", "--buffers", "2", "--json", "--no-progress"])
    assert p.returncode == 0, "exit %d: %s" % (p.returncode, p.stderr[-300:])
    d = json.loads(p.stdout)
    rows = d["results"]
    assert [r["size"] for r in rows] == [64, 4096, 65536], rows
    for r in rows:
        assert r["tasks"] == 200, r
        assert r["bytes_per_sec"] > 0 and r["tasks_per_sec"] > 0, r
        assert r["lat_ns"]["p50"] <= r["lat_ns"]["p99"] <= r["lat_ns"]["p999"], r["lat_ns"]


@case("rdma_write_one_buffer_both_sides_forked")
def _():
    p = run(["rdma", "write", "-s", "1M", "-n", "64", "-t", "4", "--buffers", "1", "--json", "--no-progress"])
    assert p.returncode == 0, "exit %d: %s" % (p.returncode, p.stderr[-300:])
    rows = json.loads(p.stdout)["results"]
    assert len(rows) == 1 and rows[0]["size"] == 1 << 20 and rows[0]["tasks"] == 64, rows


for i, (name, why) in enumerate(results, 1):
    print(("ok %d %s" % (i, name)) if why is None else ("not ok %d %s\n# %s" % (i, name, why)))
print("1..%d" % len(results))
sys.exit(0 if all(w is None for _, w in results) else 1)
