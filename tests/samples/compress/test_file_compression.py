#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Drive DOCA's File Compression application as a person would: the DPU server,
then the host client, as two processes; TAP.

Usage: test_file_compression.py HOST_BUILD DPU_BUILD   (the two doca_file_compression)

Each case has its own directory and Comch runtime directory (SOFTDOCA_RUNTIME_DIR).
The file the server writes must equal the client's input; the client uses zlib
when no device of its side can compress.
"""
import json
import os
import random
import shutil
import stat
import sys
import tempfile
import time

from softdoca_testbed import tap
from softdoca_testbed.pairs import Proc, expect_line
from softdoca_testbed.tap import check

HOST, DPU = [os.path.abspath(p) for p in sys.argv[1:3]]
TIMEOUT = 60
OPEN = []

HOST_FNS = [{"side": "host", "pci_addr": "b1:00.0", "ibdev": "mlx5_0", "iface": "ens1f0np0"},
            {"side": "host", "pci_addr": "b1:00.1", "ibdev": "mlx5_1", "iface": "ens1f1np1"}]
DPU_FNS = [{"side": "dpu", "pci_addr": "03:00.0", "ibdev": "mlx5_2", "iface": "p0"},
           {"side": "dpu", "pci_addr": "03:00.1", "ibdev": "mlx5_3", "iface": "p1"}]


class Case:
    def __init__(self, host_caps=None, dpu_caps=None):
        self.dir = tempfile.mkdtemp(prefix="sd-filecomp.")
        self.procs = []
        OPEN.append(self)
        self.env = dict(os.environ, SOFTDOCA_RUNTIME_DIR=os.path.join(self.dir, "rt"), SOFTDOCA_TOPOLOGY="builtin")
        if host_caps is not None or dpu_caps is not None:
            fns = [dict(f, caps=host_caps or {}) for f in HOST_FNS] + [dict(f, caps=dpu_caps or {}) for f in DPU_FNS]
            path = os.path.join(self.dir, "topology.json")
            with open(path, "w") as f:
                json.dump({"devices": [{"name": "bf0", "functions": fns}]}, f)
            self.env["SOFTDOCA_TOPOLOGY"] = path

    def path(self, name):
        return os.path.join(self.dir, name)

    def start(self, argv):
        p = Proc(argv, self.env, cwd=self.dir)
        self.procs.append(p)
        return p

    def close(self):
        for p in self.procs:
            p.kill()
        shutil.rmtree(self.dir, ignore_errors=True)


def content(n, seed):
    rnd = random.Random(seed)
    words = [b"compress", b"the", b"file", b"host", b"server", b"client", b"data"]
    out = bytearray()
    while len(out) < n:
        out += b" ".join(rnd.choice(words) for _ in range(100)) + b"\n"
        out += bytes(rnd.getrandbits(8) for _ in range(200))
    return bytes(out[:n])


def server_argv(out="received", *extra):
    return [DPU, "-p", "03:00.0", "-r", "b1:00.0", "-f", out, *extra]


def transfer(c, data):
    """Server first, then the client with data: both results."""
    with open(c.path("input"), "wb") as f:
        f.write(data)
    s = c.start(server_argv())
    time.sleep(0.3)
    h = c.start([HOST, "-p", "b1:00.0", "-f", "input"])
    return s.finish(TIMEOUT), h.finish(TIMEOUT)


def expect_transfer_ok(c, data, s, h):
    for r in (s, h):
        check(r.code == 0, "expected exit code 0", s, h)
    expect_line(s, r"SUCCESS: file was received and decompressed successfully$")
    expect_line(h, r"Received message: Server was done receiving messages$")
    with open(c.path("received"), "rb") as f:
        check(f.read() == data, "the written file differs from the input", s, h)
    mode = stat.S_IMODE(os.stat(c.path("received")).st_mode)
    check(mode == 0o440, "the written file's mode is %o, expected 440" % mode)


def test_a_file_goes_through_compressed():
    c = Case()
    data = content(1_500_000, 1)
    s, h = transfer(c, data)
    expect_transfer_ok(c, data, s, h)
    check("running SW compress" not in h.both, "the client fell back to zlib on a device that compresses", h)


def test_small_file_one_segment():
    c = Case()
    data = b"tiny file\n"
    s, h = transfer(c, data)
    expect_transfer_ok(c, data, s, h)


def test_client_without_a_compress_device_uses_zlib():
    c = Case(host_caps={"compress_deflate": False})
    data = content(400_000, 2)
    s, h = transfer(c, data)
    expect_line(h, r"Failed to find device for compress task, running SW compress with zlib$")
    expect_transfer_ok(c, data, s, h)


def test_server_needs_a_decompress_device():
    c = Case(dpu_caps={"decompress_deflate": False})
    r = c.start(server_argv()).finish(TIMEOUT)
    check(r.code != 0, "the server ran without a decompress device", r)
    expect_line(r, r"Failed to find device for decompress task")


def test_bad_command_lines():
    c = Case()
    cases = [
        ([DPU, "-p", "03:00.0", "-f", "x"], r"Missing representor PCI address for server"),
        ([HOST, "-p", "b1:00.0"], r"Missing mandatory flag -f/--file"),
        ([HOST, "-f", "x"], r"Missing mandatory flag -p/--pci-addr"),
        ([HOST, "-p", "b1:00.0", "-f", "does-not-exist"], r"does-not-exist"),
        ([HOST, "-p", "b1:00.0", "-f", "x", "-t", "0"], r"Timeout \(-t\) must be a positive number"),
    ]
    for argv, pattern in cases:
        r = c.start(argv).finish(TIMEOUT)
        check(r.code != 0, "a bad command line was accepted", r)
        expect_line(r, pattern)


def test_server_times_out_without_a_client():
    c = Case()
    t0 = time.monotonic()
    r = c.start(server_argv("received", "-t", "1")).finish(TIMEOUT)
    check(r.code != 0, "the server succeeded without a client", r)
    check(time.monotonic() - t0 < 20, "the server did not honour -t 1", r)
    check(not os.path.exists(c.path("received")), "a file was written without a client", r)


def test_help():
    c = Case()
    r = c.start([HOST, "-h"]).finish(TIMEOUT)
    check(r.code == 0, "-h should exit 0", r)
    for flag in ("--pci-addr", "--rep-pci", "--file", "--timeout"):
        check(flag in r.both, "usage does not mention " + flag, r)


def main():
    tap.exit_on_sigterm()
    tests = []
    for name, fn in tap.cases(globals()):
        def wrapped(fn=fn):
            try:
                fn()
            finally:
                while OPEN:
                    OPEN.pop().close()
        tests.append((name, wrapped))
    return tap.run(tests)


if __name__ == "__main__":
    sys.exit(main())
