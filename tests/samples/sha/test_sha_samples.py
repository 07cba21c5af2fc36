#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Drive doca_sha_create and doca_sha_partial_create as a person would; TAP.

Usage: test_sha_samples.py SHA_CREATE SHA_PARTIAL_CREATE

Each run checks the exit code, DOCA's pass line, the sample's lines in order and
the printed digest against Python's hashlib.  Cases that need another card write
a topology of that model in a temporary directory; the engine's two modes
(inline, two workers) must print the same digests; under valgrind the samples
leak nothing and free their destination (the mmap's free callback) once.
"""
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile

from softdoca_testbed import pairs, tap
from softdoca_testbed.pairs import Run, expect_failure, expect_in_order, expect_line
from softdoca_testbed.tap import Skip, check

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "valgrind"))
import vg_common  # noqa: E402  (the valgrind suite's judge of a run)

CREATE, PARTIAL = [os.path.abspath(a) for a in sys.argv[1:3]]
TIMEOUT = 60
DEFAULT_CREATE = "1234567890abcdef"
DEFAULT_PARTIAL = "".join(str(d) * 8 for d in [1, 2, 3, 4, 5, 6, 7, 8, 9, 0])
DIGEST = re.compile(r"SHA256 output is: ([0-9a-f]*)$", re.M)


def run(argv, env=None, prefix=()):
    p = subprocess.run(list(prefix) + argv, capture_output=True, timeout=TIMEOUT * (4 if prefix else 1), env=env)
    return Run(argv, p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace"))


def with_model(model, caps=None):
    """A one-BlueField topology of this model (and capability overrides), as an environment."""
    tmp = tempfile.mkdtemp(prefix="sd-sha-samples-")
    path = os.path.join(tmp, "topology.json")
    fns = [{"side": "host", "pci_addr": "b1:00.0", "ibdev": "mlx5_0", "iface": "ens1f0np0"}]
    with open(path, "w") as f:
        json.dump({"devices": [{"name": "bf0", "model": model, "caps": caps or {}, "functions": fns}]}, f)
    return dict(os.environ, SOFTDOCA_TOPOLOGY=path)


def digest_ok(r, data, completions):
    """Success, DOCA's lines in order (one completion per segment), and hashlib's digest."""
    pairs.expect_success(r)
    expect_line(r, r"Starting the sample", "out")
    expect_in_order(r, [r"SHA context is running$"] + [r"SHA hash task has completed successfully$"] * completions +
                    [r"SHA context has been stopped$", r"SHA256 output is: [0-9a-f]{64}$"])
    n = len(re.findall(r"SHA hash task has completed successfully", r.out))
    check(n == completions, "%d completion lines, expected %d" % (n, completions), r)
    want = hashlib.sha256(data.encode()).hexdigest()
    got = DIGEST.search(r.out).group(1)
    check(got == want, "digest %s, hashlib says %s" % (got, want), r)
    check("Unexpected transition" not in r.both, "the context went through STARTING", r)
    return got


def segments(data):
    return (len(data) + 63) // 64


# ------------------------------------------------------------ doca_sha_create

def test_create_default_data():
    digest_ok(run([CREATE]), DEFAULT_CREATE, 1)


def test_create_block_boundaries():
    for n in (1, 55, 56, 63, 64, 65, 127, 128, 129, 1000, 1024):
        data = "".join(chr(ord("a") + i % 26) for i in range(n))
        digest_ok(run([CREATE, "-d", data]), data, 1)
        digest_ok(run([CREATE, "--data", data]), data, 1)


def test_create_data_length_limits():
    for data in ("", "x" * 1025):
        r = run([CREATE, "-d", data])
        expect_failure(r)
        expect_line(r, r"Invalid data length, should be between 1 and 1024", "err")
        check("SHA256 output is" not in r.out, "printed a digest", r)


# ------------------------------------------------------------ doca_sha_partial_create

def test_partial_default_data():
    """80 characters: a 64-byte block, then a 16-byte final segment."""
    digest_ok(run([PARTIAL]), DEFAULT_PARTIAL, 2)


def test_partial_segment_counts():
    for n in (65, 100, 128, 129, 191, 192, 193, 500, 1024):
        data = "".join(chr(ord("A") + i % 26) for i in range(n))
        digest_ok(run([PARTIAL, "-d", data]), data, segments(data))


def test_partial_data_not_longer_than_a_block():
    for n in (1, 63, 64):
        r = run([PARTIAL, "-d", "z" * n])
        expect_failure(r)
        expect_line(r, r"User data length %d should be bigger than one partial hash block size 64" % n, "err")


# ------------------------------------------------------------ cards, modes, memory

def test_bluefield3_has_no_sha_engine():
    """The card has no SHA engine: neither sample finds a device (DOCA's NOT_FOUND)."""
    env = with_model("bluefield-3")
    for exe, what in ((CREATE, "hash"), (PARTIAL, "partial hash")):
        r = run([exe], env)
        expect_failure(r)
        expect_line(r, r"Unable to open DOCA device for SHA %s task" % what, "err")


def test_bluefield2_hashes():
    env = with_model("bluefield-2")
    digest_ok(run([CREATE], env), DEFAULT_CREATE, 1)
    digest_ok(run([PARTIAL], env), DEFAULT_PARTIAL, 2)


def test_a_card_without_partial_hash():
    """A topology override: hash works, the partial sample finds no device."""
    env = with_model("bluefield-2", {"sha_partial_hash": False})
    digest_ok(run([CREATE], env), DEFAULT_CREATE, 1)
    r = run([PARTIAL], env)
    expect_failure(r)
    expect_line(r, r"Unable to open DOCA device for SHA partial hash task", "err")


def test_inline_and_workers_print_the_same():
    data = "q" * 1000
    seen = set()
    for workers in ("0", "2"):
        env = dict(os.environ, SOFTDOCA_ENGINE_WORKERS=workers, SOFTDOCA_ENGINE_INLINE_MAX="0")
        seen.add(digest_ok(run([CREATE, "-d", data], env), data, 1))
        seen.add(digest_ok(run([PARTIAL, "-d", data], env), data, segments(data)))
    check(len(seen) == 1, "digests differ between modes: %s" % seen)


def test_under_valgrind():
    """No definite leak (the destination freed by its mmap's callback), no invalid free (freed once)."""
    if vg_common.VALGRIND is None:
        raise Skip("valgrind is not installed")
    xml_dir = tempfile.mkdtemp(prefix="sd-sha-vg-")
    for exe, data, n in ((CREATE, DEFAULT_CREATE, 1), (PARTIAL, DEFAULT_PARTIAL, 2)):
        name = os.path.basename(exe)
        r = run([exe], prefix=vg_common.prefix(xml_dir, name))
        digest_ok(r, data, n)
        fatal, _ = vg_common.findings(xml_dir, name, name)
        check(not fatal, "valgrind found:\n" + "\n".join(fatal), r)


def main():
    return tap.run(tap.cases(globals()))


if __name__ == "__main__":
    os.environ.setdefault("SOFTDOCA_TOPOLOGY", "builtin")
    sys.exit(main())
