#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Drive doca_clock_cross_timestamp and doca_cache_invalidate as a person would; TAP.

Usage: test_core_samples.py CLOCK_CROSS_TIMESTAMP CACHE_INVALIDATE

Each run checks the exit code, DOCA's pass line and the sample's own lines; the
clock readings are checked against this machine's clocks.  Cases that need a
device without a capability write their own topology in a temporary directory.
"""
import os
import re
import subprocess
import sys
import tempfile
import time

from softdoca_testbed import pairs, tap
from softdoca_testbed.pairs import Run, expect_failure, expect_in_order, expect_line
from softdoca_testbed.tap import check

CLOCK, CACHE = sys.argv[1:3]
TIMEOUT = 30
PCI = "b1:00.0"   # the built-in topology's first host function

SINGLE = re.compile(r"Timestamp - (DOCA_CLOCK_\w+): (?:(\d+)\.(\d{9}) seconds|(\d+) cycles)$", re.M)
CROSS = re.compile(r"Cross-timestamp - (DOCA_CLOCK_\w+): (?:(\d+)\.(\d{9}) seconds|(\d+) cycles), "
                   r"(DOCA_CLOCK_NIC_\w+): (\d+)\.(\d{9}) seconds, accuracy: (\d+) (nanoseconds|cycles)$", re.M)

NAMES = {"nic_fr": "DOCA_CLOCK_NIC_FREE_RUNNING", "nic_rt": "DOCA_CLOCK_NIC_REAL_TIME",
         "host_cycles": "DOCA_CLOCK_HOST_COUNTER_CYCLES", "host_rt": "DOCA_CLOCK_HOST_REAL_TIME",
         "host_mon": "DOCA_CLOCK_HOST_MONOTONIC", "host_mon_raw": "DOCA_CLOCK_HOST_MONOTONIC_RAW"}
LINUX = {"nic_fr": time.CLOCK_MONOTONIC_RAW, "nic_rt": time.CLOCK_REALTIME, "host_rt": time.CLOCK_REALTIME,
         "host_mon": time.CLOCK_MONOTONIC, "host_mon_raw": time.CLOCK_MONOTONIC_RAW}


def run(argv, env=None):
    p = subprocess.run(argv, capture_output=True, timeout=TIMEOUT, env=env)
    return Run(argv, p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace"))


def expect_success(r):
    pairs.expect_success(r)
    expect_line(r, r"Starting the sample", "out")


def with_topology(caps):
    """A one-function topology (b1:00.0) with these capability overrides, as an environment."""
    tmp = tempfile.mkdtemp(prefix="sd-core-samples-")
    path = os.path.join(tmp, "topology.json")
    with open(path, "w") as f:
        f.write('{"devices": [{"functions": [{"side": "host", "pci_addr": "b1:00.0", "ibdev": "mlx5_0", '
                '"iface": "ens1f0np0", "caps": {%s}}]}]}' % ", ".join('"%s": %s' % kv for kv in caps.items()))
    return dict(os.environ, SOFTDOCA_TOPOLOGY=path)


def clock(*args, env=None):
    return run([CLOCK, *args], env)


def read_clock(flag):
    """One timestamp of flag's clock, checked against the Linux clock it maps to."""
    before = time.clock_gettime_ns(LINUX[flag]) if flag in LINUX else None
    r = clock("-p", PCI, "-c", flag)
    after = time.clock_gettime_ns(LINUX[flag]) if flag in LINUX else None
    expect_success(r)
    m = SINGLE.search(r.out)
    check(m is not None and m.group(1) == NAMES[flag], "no timestamp line of %s" % NAMES[flag], r)
    if before is not None:
        ns = int(m.group(2)) * 10**9 + int(m.group(3))
        check(before <= ns <= after, "reading %d outside this machine's [%d, %d]" % (ns, before, after), r)
    else:
        check(m.group(4) is not None and int(m.group(4)) > 0, "the cycle counter printed no cycles", r)
    return r


def test_each_clock_alone():
    for flag in NAMES:
        read_clock(flag)


def test_doca_spelling_of_the_cycle_counter():
    """DOCA's sample spells it host_cyles; programs and scripts written for it keep working."""
    r = clock("-p", PCI, "-c", "host_cyles")
    expect_success(r)
    expect_line(r, r"Timestamp - DOCA_CLOCK_HOST_COUNTER_CYCLES: \d+ cycles$")


def test_cross_timestamps():
    for prim in NAMES:
        for nic in ("nic_fr", "nic_rt"):
            r = clock("-p", PCI, "-c", prim, "-n", nic)
            expect_success(r)
            m = CROSS.search(r.out)
            check(m is not None, "no cross-timestamp line for %s/%s" % (prim, nic), r)
            check(m.group(1) == NAMES[prim] and m.group(5) == NAMES[nic], "clock names", r)
            unit = "cycles" if prim == "host_cycles" else "nanoseconds"
            check(m.group(9) == unit, "accuracy should be in %s" % unit, r)
            if (prim, nic) in (("host_rt", "nic_rt"), ("host_mon_raw", "nic_fr"), ("nic_fr", "nic_fr"),
                               ("nic_rt", "nic_rt")):
                # One Linux clock behind both: an exact pair.
                check(int(m.group(8)) == 0, "same clock but accuracy %s" % m.group(8), r)
                check(m.group(2, 3) == m.group(6, 7), "same clock but different readings", r)


def test_long_flags():
    r = clock("--pci-addr", PCI, "--primary-clock", "host_mon", "--nic-clock", "nic_fr")
    expect_success(r)
    expect_line(r, r"Cross-timestamp - DOCA_CLOCK_HOST_MONOTONIC: \d+\.\d{9} seconds, "
                   r"DOCA_CLOCK_NIC_FREE_RUNNING: \d+\.\d{9} seconds, accuracy: \d+ nanoseconds$")


def test_dpa_timer_not_supported():
    for args in (["-c", "nic_dpa"], ["-c", "host_rt", "-n", "nic_dpa"]):
        r = clock("-p", PCI, *args)
        expect_failure(r)
        expect_line(r, r"NIC DPA timer clock not supported\. Error=DOCA_ERROR_NOT_SUPPORTED$")


def test_device_without_a_real_time_clock():
    env = with_topology({"clock_nic_real_time": "false"})
    r = clock("-p", PCI, "-c", "nic_rt", env=env)
    expect_failure(r)
    expect_line(r, r"NIC real time clock not supported\. Error=DOCA_ERROR_NOT_SUPPORTED$")
    # Its other clocks still read.
    expect_success(clock("-p", PCI, "-c", "host_rt", "-n", "nic_fr", env=env))


def test_device_without_nic_clocks():
    env = with_topology({"clock_nic_real_time": "false", "clock_nic_free_running": "false"})
    r = clock("-p", PCI, "-c", "host_rt", env=env)
    expect_failure(r)
    expect_line(r, r"Failed to create doca clock\. Error=DOCA_ERROR_NOT_SUPPORTED$")
    expect_line(r, r"has no NIC clock", "err")


def test_second_clock_must_be_a_nic_clock():
    r = clock("-p", PCI, "-c", "nic_fr", "-n", "host_mon")
    expect_failure(r)
    expect_line(r, r"Input clock \(host_mon\) is not a NIC clock$")


def test_bad_input():
    r = clock("-p", PCI, "-c", "sundial")
    expect_failure(r)
    expect_line(r, r"Unrecognised clock type: sundial$")
    r = clock("-c", "nic_fr")
    expect_failure(r)
    expect_line(r, r"PCI address must be provided$")
    r = clock("-p", PCI)
    expect_failure(r)
    expect_line(r, r"primary-clock", "err")
    r = clock("-p", "ff:1f.7", "-c", "nic_fr")
    expect_failure(r)
    expect_line(r, r"Failed to open device\. error=DOCA_ERROR_NOT_FOUND$")
    r = clock("-p", "0" * 40, "-c", "nic_fr")
    expect_failure(r)


def test_clock_help():
    r = clock("-h")
    check(r.code == 0, "-h should exit 0", r)
    for flag in ("--pci-addr", "--primary-clock", "--nic-clock", "host_mon_raw"):
        check(flag in r.both, "usage does not mention " + flag, r)


CACHE_LINES = ["Allocating buffer", "Opening device", "Creating MMAP", "Creating buf inventory", "Creating PE",
               "Creating DMA", "Creating MMAP advise", "Allocating DMA task", "Allocating cache invalidate task",
               "Submitting DMA task", "Polling until all tasks are completed",
               "DMA completed, Submitting cache invalidate task", "Cache invalidate completed",
               "All tasks are completed", "Sample finished successfully"]


def test_cache_invalidate():
    r = run([CACHE])
    expect_success(r)
    expect_in_order(r, [r"Starting the sample"] + [re.escape(line) + "$" for line in CACHE_LINES])
    check(r.err.strip() == "", "the library complained on stderr", r)


def test_cache_invalidate_needs_a_capable_device():
    r = run([CACHE], with_topology({"cache_invalidate": "false"}))
    expect_failure(r)
    expect_in_order(r, [r"Opening device$"])
    check("Creating MMAP" not in r.out, "went on without a device", r)


def test_cache_invalidate_task_failure():
    """A device that invalidates at most 512 bytes: the 1 KiB task fails through its error callback."""
    r = run([CACHE], with_topology({"cache_invalidate_max_buf_size": "512"}))
    expect_failure(r)
    expect_in_order(r, [r"DMA completed, Submitting cache invalidate task$"])
    expect_line(r, r"Cache invalidate Task failed with status")
    expect_line(r, r"more than max_buf_size 512", "err")
    check("Cache invalidate completed" not in r.out, "reported a completion", r)


def main():
    return tap.run(tap.cases(globals()))


if __name__ == "__main__":
    os.environ.setdefault("SOFTDOCA_TOPOLOGY", "builtin")
    sys.exit(main())
