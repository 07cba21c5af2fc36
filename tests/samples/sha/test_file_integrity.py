#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Drive DOCA's File Integrity application as a person would (the DPU server and the
host client as two processes) and print TAP.

Usage: test_file_integrity.py FI_HOST FI_DPU TAMPER_SO

Each case runs in its own temporary directory with its own Comch runtime directory
(SOFTDOCA_RUNTIME_DIR).  A transfer must end with the server's SUCCESS line, both
sides printing hashlib's SHA-256 of the file, the written file equal to the input,
and exit 0 on both sides.  The compromised case loads TAMPER_SO into the client
(LD_PRELOAD): one Comch message leaves with a flipped bit, as a corrupted link
would deliver it; the server must say ERROR, delete its file, and still exit 0.
"""
import hashlib
import json
import os
import re
import shutil
import sys
import tempfile
import time

from softdoca_testbed import tap
from softdoca_testbed.pairs import Proc, expect_line
from softdoca_testbed.tap import check

FI_HOST, FI_DPU, TAMPER = [os.path.abspath(a) for a in sys.argv[1:4]]
TIMEOUT = 60
CHUNK = 4032     # the largest multiple of 64 a soft Comch message (4080 bytes) holds
OPEN = []
DIGEST = re.compile(r"SHA256 output is: ([0-9a-f]{64})$", re.M)


class Case:
    """One test's directory (host/, dpu/, the runtime directory) and the programs it started."""

    def __init__(self, env=None, topology=None):
        self.dir = tempfile.mkdtemp(prefix="sdfi.")
        self.procs = []
        OPEN.append(self)
        self.env = dict(os.environ, SOFTDOCA_RUNTIME_DIR=os.path.join(self.dir, "rt"), **(env or {}))
        self.env.setdefault("SOFTDOCA_TOPOLOGY", "builtin")
        if topology is not None:
            path = os.path.join(self.dir, "topology.json")
            with open(path, "w") as f:
                json.dump(topology, f)
            self.env["SOFTDOCA_TOPOLOGY"] = path
        for side in ("host", "dpu"):
            os.makedirs(os.path.join(self.dir, side))

    def path(self, *parts):
        return os.path.join(self.dir, *parts)

    def start(self, argv, extra_env=None):
        p = Proc(argv, dict(self.env, **(extra_env or {})), cwd=self.dir)
        self.procs.append(p)
        return p

    def server(self, *extra):
        return self.start([FI_DPU, "-p", "03:00.0", "-r", "b1:00.0", "-f", self.path("dpu", "out.bin"), *extra])

    def client(self, *extra, env=None):
        return self.start([FI_HOST, "-p", "b1:00.0", "-f", self.path("host", "in.bin"), *extra], env)

    def close(self):
        for p in self.procs:
            p.kill()
        shutil.rmtree(self.dir, ignore_errors=True)


def make_input(c, size, seed=1):
    data = bytes((i * 131 + seed + (i >> 9)) & 0xff for i in range(size))
    with open(c.path("host", "in.bin"), "wb") as f:
        f.write(data)
    return data


def transfer(c, server_first=True, client_env=None):
    if server_first:
        d = c.server()
        d.wait_for(r"Server waiting on a client to connect")
        h = c.client(env=client_env)
    else:
        h = c.client(env=client_env)
        time.sleep(0.5)
        d = c.server()
    return d.finish(TIMEOUT), h.finish(TIMEOUT)


def transfer_ok(size, server_first=True, env=None):
    c = Case(env)
    data = make_input(c, size)
    d, h = transfer(c, server_first)
    want = hashlib.sha256(data).hexdigest()
    for r in (d, h):
        check(r.code == 0, "expected exit code 0", d, h)
        m = DIGEST.search(r.out)
        check(m is not None and m.group(1) == want, "no SHA256 line with hashlib's %s" % want, r)
    expect_line(d, r"SUCCESS: file SHA is identical to received SHA$", "out")
    expect_line(h, r"Received message: Server was done receiving messages$", "out")
    check("compromised" not in d.both, "the server saw a compromised file", d)
    with open(c.path("dpu", "out.bin"), "rb") as f:
        check(f.read() == data, "the written file differs from the input", d, h)


def test_file_of_several_chunks():
    transfer_ok(25 * CHUNK + 1000)


def test_one_chunk_files():
    """The hash task path on the server: 1 byte, a few, exactly one full chunk."""
    for size in (1, 100, CHUNK):
        transfer_ok(size)


def test_chunk_boundaries():
    for size in (CHUNK + 1, 2 * CHUNK, 2 * CHUNK + 63):
        transfer_ok(size)


def test_a_megabyte_on_two_engine_workers():
    transfer_ok(1 << 20, env={"SOFTDOCA_ENGINE_WORKERS": "2", "SOFTDOCA_ENGINE_INLINE_MAX": "0"})


def test_inline_engine():
    transfer_ok(10 * CHUNK + 7, env={"SOFTDOCA_ENGINE_WORKERS": "0"})


def test_client_started_first():
    transfer_ok(3 * CHUNK, server_first=False)


def compromised(size, message, byte, data_tampered=True):
    c = Case()
    data = make_input(c, size)
    d, h = transfer(c, client_env={"LD_PRELOAD": TAMPER, "SD_TAMPER_MSG": str(message),
                                   "SD_TAMPER_BYTE": str(byte)})
    for r in (d, h):
        check(r.code == 0, "expected exit code 0 (DOCA's server exits 0 on a mismatch too)", d, h)
    want = hashlib.sha256(data).hexdigest()
    m = DIGEST.search(h.out)
    check(m is not None and m.group(1) == want, "the client did not print hashlib's digest", h)
    m = DIGEST.search(d.out)
    check(m is not None and (m.group(1) != want) == data_tampered,
          "the server's digest %s the file's" % ("is" if data_tampered else "is not"), d)
    expect_line(d, r"ERROR: SHA is not identical, file was compromised$", "err")
    check("SUCCESS" not in d.both, "the server also said SUCCESS", d)
    check(not os.path.exists(c.path("dpu", "out.bin")), "the compromised file was not deleted", d)
    expect_line(h, r"Received message: Server was done receiving messages$", "out")


def test_compromised_chunk_of_a_long_file():
    """The 2nd message is the first chunk: a partial session over a corrupted segment."""
    compromised(4 * CHUNK + 10, 2, 17)


def test_compromised_one_chunk_file():
    compromised(500, 2, 0)


def test_compromised_digest_in_the_metadata():
    """Byte 4 of the metadata message is the digest's first byte."""
    compromised(2 * CHUNK, 1, 4, data_tampered=False)


def test_client_file_missing_or_empty():
    c = Case()
    h = c.client().finish(TIMEOUT)
    check(h.code == 1, "expected exit code 1", h)
    expect_line(h, r"File was not found .*in\.bin", "err")
    open(c.path("host", "in.bin"), "wb").close()
    h = c.client().finish(TIMEOUT)
    check(h.code == 1, "expected exit code 1", h)
    expect_line(h, r"Invalid file size\. Should be greater then zero", "err")


def test_dpu_needs_the_representor():
    c = Case()
    r = c.start([FI_DPU, "-p", "03:00.0", "-f", c.path("dpu", "out.bin")]).finish(TIMEOUT)
    check(r.code == 1, "expected exit code 1", r)
    expect_line(r, r"-r/--rep-pci", "err")


def test_bluefield3_has_no_sha_engine():
    fns = [{"side": "host", "pci_addr": "b1:00.0", "ibdev": "mlx5_0", "iface": "ens1f0np0"},
           {"side": "dpu", "pci_addr": "03:00.0", "ibdev": "mlx5_2", "iface": "p0",
            "representors": [{"vuid": "bf0-pf0hpf", "pci_addr": "b1:00.0", "iface": "pf0hpf"}]}]
    c = Case(topology={"devices": [{"name": "bf0", "model": "bluefield-3", "functions": fns}]})
    make_input(c, 1000)
    for r in (c.server().finish(TIMEOUT), c.client().finish(TIMEOUT)):
        check(r.code == 1, "expected exit code 1", r)
        expect_line(r, r"Failed to init DOCA device with SHA capabilities", "err")


def closing(fn):
    def case():
        try:
            fn()
        finally:
            while OPEN:
                OPEN.pop().close()
    return case


def main():
    return tap.run([(name, closing(fn)) for name, fn in tap.cases(globals())])


if __name__ == "__main__":
    sys.exit(main())
