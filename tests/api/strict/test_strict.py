#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""SOFTDOCA_STRICT (docs/diagnostics.md "Strict mode"); prints TAP.

Usage: test_strict.py STRICT_RULES

Every scenario of strict_rules runs twice.  Default: it finishes (the program
checks the bytes and return codes of the default behaviour) and no line says
[softdoca-strict].  SOFTDOCA_STRICT=1: it finishes the same way, logs exactly the
expected [ERR] lines - rule, object, the scenario function as the call site
(dladdr) - and the count per rule at exit.
"""
import os
import re
import subprocess
import sys

from softdoca_testbed import tap
from softdoca_testbed.pairs import Run
from softdoca_testbed.tap import check

EXE = sys.argv[1]
P = r"0x[0-9a-f]+"
LINE = re.compile(r"^.*\[ERR\].*\[softdoca-strict\] ([a-z-]+): (.*); called from (\S+)$", re.M)
EXIT = re.compile(r"\[softdoca-strict\] (\d+) violations: (.*)$", re.M)

# scenario: (the line its default logs as before, or None), [(object, call site function)] in strict mode
SCENARIOS = {
    "task-freed-in-flight": (
        "is in flight; free it in its completion or error callback",
        [(r"dma memcpy task %s freed while in flight .*: refused, it stays in flight" % P, "scenario_task_freed_in_flight")],
    ),
    "buf-released-in-flight": (
        None,
        [(r"buf %s of mmap %s released \(refcount 0\) while 1 submitted task\(s\) use it" % (P, P),
          "scenario_buf_released_in_flight")],
    ),
    # strict mode only: the default frees the bufs under the task (docs/diagnostics.md)
    "inventory-destroyed-under-task": (
        "strict-only",
        [(r"buf %s of mmap %s released \(refcount 0\) while 1 submitted task\(s\) use it" % (P, P),
          "scenario_inventory_destroyed_under_task")] * 2
        + [(r"doca_buf_inventory_destroy of inventory %s while its buf %s, released, is used by 1 submitted "
            r"task\(s\) \(refused in strict mode\)" % (P, P), "scenario_inventory_destroyed_under_task")],
    ),
    "mmap-destroyed-under-bufs": (
        "doca_buf(s) still point into the mmap",
        [(r"doca_mmap_stop of mmap %s while 1 buf\(s\) from it are alive \(refused\)" % P, "scenario_mmap_destroyed_under_bufs"),
         (r"doca_mmap_destroy of mmap %s while 1 buf\(s\) from it are alive \(refused\)" % P,
          "scenario_mmap_destroyed_under_bufs")],
    ),
    "buf-cross-device": (
        None,
        [(r"buf %s of mmap %s \(destination of dma memcpy task %s\): the mmap does not include the context's "
          r"device %s" % (P, P, P, P), "scenario_buf_cross_device")],
    ),
    "copy-overlap": (
        None,
        [(r"dma memcpy task %s: source buf %s of mmap %s overlaps the range it writes in destination buf %s"
          % (P, P, P, P), "scenario_copy_overlap")],
    ),
    "progress-reentry": (
        "called from a callback of the same PE",
        [(r"doca_pe_progress\(pe %s\) inside a callback of the same PE \(ignored\)" % P,
          "scenario_progress_reentry_cb")],
    ),
    "pe-concurrent-use": (
        None,
        [(r"doca_task_submit on pe %s while thread \d+ is inside doca_pe_progress of the same PE" % P,
          "scenario_pe_concurrent_use_thread")],
    ),
    "pe-serialised-use": (None, []),
}


def run(scenario, strict):
    env = dict(os.environ)
    env.pop("SOFTDOCA_STRICT", None)
    if strict:
        env["SOFTDOCA_STRICT"] = "1"
    argv = [EXE, scenario]
    p = subprocess.run(argv, capture_output=True, timeout=60, env=env)
    r = Run(argv, p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace"))
    check(r.code == 0 and scenario + ": done" in r.out, "the scenario did not finish", r)
    return r


def case(scenario):
    default_line, want = SCENARIOS[scenario]
    strict_only = default_line == "strict-only"
    rule = "buf-released-in-flight" if strict_only else scenario
    default_line = None if strict_only else default_line

    def test():
        if not strict_only:
            r = run(scenario, False)
            check("[softdoca-strict]" not in r.out + r.err, "the default printed a strict line", r)
            check(default_line is None or default_line in r.err, "the default's own line is missing", r)
        r = run(scenario, True)
        got = LINE.findall(r.err)
        check(len(got) == len(want), "%d strict lines, expected %d" % (len(got), len(want)), r)
        for (got_rule, what, site), (obj, fn) in zip(got, want):
            check(got_rule == rule, "rule %s, expected %s" % (got_rule, rule), r)
            check(re.fullmatch(obj + ";.*", what) is not None, "object: %r does not match %r" % (what, obj), r)
            check(re.fullmatch(r"strict_rules\(%s\+0x[0-9a-f]+\)" % fn, site) is not None,
                  "call site %s does not name %s" % (site, fn), r)
        m = EXIT.search(r.err)
        if want:
            check(m is not None, "no count at exit", r)
            check(m.group(1) == str(len(want)) and m.group(2) == "%s=%d" % (rule, len(want)),
                  "exit line: %s" % m.group(0), r)
        else:
            check(m is None and "[softdoca-strict] 0 violations" in r.err, "legal use was counted", r)
        if default_line is not None:
            check(default_line in r.err, "strict mode lost the default's line", r)

    return ("test_" + scenario.replace("-", "_"), test)


if __name__ == "__main__":
    tap.exit_on_sigterm()
    sys.exit(tap.run([case(s) for s in SCENARIOS]))
