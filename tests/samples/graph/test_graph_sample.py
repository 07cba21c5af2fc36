#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Run doca_graph as a person would and print TAP.

Usage: test_graph_sample.py DOCA_GRAPH

The sample takes no flags of its own: it builds a graph of two DMA copies and a
user node, runs ten instances of it at once and prints one line per instance.
"""
import os
import re
import subprocess
import sys
import tempfile

from softdoca_testbed import pairs, tap
from softdoca_testbed.pairs import Run, expect_failure, expect_in_order, expect_line
from softdoca_testbed.tap import check

TIMEOUT = 30
GRAPH = sys.argv[1]

STEPS = ["Starting the sample", "Allocating buffer", "Opening device", "Creating MMAP", "Creating buf inventory",
         "Creating progress engine", "Creating DMA 0", "Creating DMA 1", "Starting contexts", "Creating graph$",
         "Creating graph instances", "Submitting all graph instances", "Waiting until all instances are complete"]

# A device whose DMA contexts hold 4 tasks: the sample needs 10 per context.
SMALL_DMA_TOPOLOGY = """{"devices": [{"functions": [
  {"side": "host", "pci_addr": "b1:00.0", "ibdev": "mlx5_0", "iface": "ens1f0np0",
   "caps": {"dma_max_num_tasks": 4}}]}]}
"""


def run(argv, env=None):
    p = subprocess.run(argv, capture_output=True, timeout=TIMEOUT, env=env)
    return Run(argv, p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace"))


def test_runs_ten_instances():
    r = run([GRAPH])
    pairs.expect_success(r)
    expect_in_order(r, STEPS)
    seen = [int(n) for n in re.findall(r"Instance (\d+) user callback$", r.out, re.M)]
    check(sorted(seen) == list(range(10)), "expected one user callback per instance 0..9, got %s" % seen, r)
    # Every callback comes after the wait began and before the end line.
    expect_in_order(r, ["Waiting until all instances are complete"] + ["Instance \\d+ user callback"] * 10 +
                    ["All instances completed", "Sample finished successfully"])
    check("ERR" not in r.out + r.err, "an error was logged", r)


def test_help():
    r = run([GRAPH, "-h"])
    check(r.code == 0, "expected exit code 0 for -h, got %s" % r.code, r)
    check("--sdk-log-level" in r.both, "usage does not list the DOCA flags", r)
    check("Creating graph" not in r.out, "the sample ran after -h", r)


def test_unknown_flag_refused():
    r = run([GRAPH, "--num-instances", "3"])
    expect_failure(r)
    expect_line(r, r"Unknown flag --num-instances", "err")
    check("Creating graph" not in r.out, "the sample ran with a bad flag", r)


def test_too_few_dma_tasks_fails_cleanly():
    with tempfile.TemporaryDirectory(prefix="sd-graph-") as tmp:
        topo = os.path.join(tmp, "topology.json")
        with open(topo, "w") as f:
            f.write(SMALL_DMA_TOPOLOGY)
        r = run([GRAPH], env=dict(os.environ, SOFTDOCA_TOPOLOGY=topo))
    expect_failure(r)
    expect_line(r, r"num_tasks 10 out of range \[1, 4\]", "err")
    check("Creating graph" not in r.out, "went on after the refused configuration", r)


def main():
    return tap.run(tap.cases(globals()))


if __name__ == "__main__":
    os.environ.setdefault("SOFTDOCA_TOPOLOGY", "builtin")
    sys.exit(main())
