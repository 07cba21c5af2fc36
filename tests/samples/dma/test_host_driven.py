#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The host-driven copy as a person runs it: start the DPU program (it exports 256 MiB and
waits), then the host program (it imports, copies both ways with 1 and then 4 tasks in flight
and checks every byte); then the exporter killed while the host copies in a loop: the host
must report the failure within 2 s and exit, nothing hangs.

Usage: test_host_driven.py HOST_DRIVEN_DPU HOST_DRIVEN_HOST.  TAP on stdout."""
import os
import signal
import subprocess
import sys
import tempfile
import time

DPU, HOST = sys.argv[1], sys.argv[2]
results = []


def case(fn):
    try:
        fn()
        results.append((fn.__name__, None))
    except AssertionError as e:
        results.append((fn.__name__, str(e) or "assertion failed"))
    return fn


def start_dpu(desc):
    p = subprocess.Popen([DPU, desc], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    line = p.stdout.readline()
    assert line.strip() == "exported", "the DPU program said %r: %r" % (line, p.stderr.read()[-300:])
    return p


@case
def host_copies_both_ways_and_every_byte_matches():
    with tempfile.TemporaryDirectory(prefix="sd-hd-") as tmp:
        dpu = start_dpu(os.path.join(tmp, "desc"))
        try:
            h = subprocess.run([HOST, os.path.join(tmp, "desc"), "copy"], capture_output=True, text=True, timeout=120)
            assert h.returncode == 0, "host exit %d: %s" % (h.returncode, h.stderr[-300:])
            want = ["depth 1: DPU -> host ok", "depth 1: host -> DPU ok", "depth 4: DPU -> host ok",
                    "depth 4: host -> DPU ok", "done"]
            assert h.stdout.split("\n")[:5] == want, h.stdout
            dpu.stdin.write("check 2\n")
            dpu.stdin.flush()
            assert dpu.stdout.readline().strip() == "ok", "the DPU's region is not the host's last round"
            dpu.stdin.close()
            assert dpu.wait(timeout=30) == 0
        finally:
            if dpu.poll() is None:
                dpu.kill()
                dpu.wait()


@case
def exporter_killed_mid_copy_fails_the_host_within_2_s():
    with tempfile.TemporaryDirectory(prefix="sd-hd-") as tmp:
        dpu = start_dpu(os.path.join(tmp, "desc"))
        host = subprocess.Popen([HOST, os.path.join(tmp, "desc"), "loop"], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        try:
            assert host.stdout.readline().strip() == "looping", host.stderr.read()[-300:]
            time.sleep(0.5)
            dpu.send_signal(signal.SIGKILL)
            dpu.wait()
            t0 = time.monotonic()
            try:
                out, err = host.communicate(timeout=10)
            except subprocess.TimeoutExpired:
                raise AssertionError("the host still copies 10 s after its exporter died")
            took = time.monotonic() - t0
            assert host.returncode == 1, "host exit %d: %s" % (host.returncode, err[-300:])
            assert out.startswith("failed "), out
            assert took < 2.0, "the host needed %.2f s to see the dead exporter" % took
        finally:
            for p in (host, dpu):
                if p.poll() is None:
                    p.kill()
                    p.wait()


for i, (name, why) in enumerate(results, 1):
    print(("ok %d %s" % (i, name)) if why is None else ("not ok %d %s\n# %s" % (i, name, why)))
print("1..%d" % len(results))
sys.exit(0 if all(w is None for _, w in results) else 1)
