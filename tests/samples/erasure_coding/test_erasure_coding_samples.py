#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Drive doca_erasure_coding_recover as a person would; TAP.

Usage: test_erasure_coding_samples.py DOCA_ERASURE_CODING_RECOVER

Encode a file, look at the block files (data blocks: the file cut and padded;
redundancy blocks: checked with this script's own GF(2^8), polynomial 0x11D,
and DOCA's matrix formulas), delete blocks, decode, and `cmp` the recovered file
with the original; then the error lines (too many blocks deleted, nothing to
decode, a bad matrix name, a device without the engine, limits of the card).
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

from softdoca_testbed import pairs, tap
from softdoca_testbed.pairs import Run, expect_failure, expect_in_order, expect_line
from softdoca_testbed.tap import check

SAMPLE = sys.argv[1]
TIMEOUT = 60


# --- GF(2^8) with 0x11D, the test's own (no ISA-L) ------------------------------------------

def gf_mul(a, b):
    p = 0
    while b:
        if b & 1:
            p ^= a
        a <<= 1
        if a & 0x100:
            a ^= 0x11D
        b >>= 1
    return p


def gf_inv(a):
    return next(b for b in range(1, 256) if gf_mul(a, b) == 1)


def coef(matrix, k, i, j):
    """DOCA's a[i][j]: data block i in redundancy block j."""
    if matrix == "cauchy":
        return gf_inv(i ^ (j + k))
    p = 1
    for _ in range(j):
        p = gf_mul(p, i + 1)
    return p


def parity(blocks, matrix, m):
    k = len(blocks)
    out = []
    for j in range(m):
        acc = bytearray(len(blocks[0]))
        for i, b in enumerate(blocks):
            table = bytes(gf_mul(coef(matrix, k, i, j), x) for x in range(256))
            t = b.translate(table)
            acc = bytearray(x ^ y for x, y in zip(acc, t))
        out.append(bytes(acc))
    return out


# --- running the sample ------------------------------------------------------------------------

def run(*args, env=None, cwd=None):
    argv = [SAMPLE, *args]
    p = subprocess.run(argv, capture_output=True, timeout=TIMEOUT, env=env, cwd=cwd)
    return Run(argv, p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace"))


def expect_success(r):
    pairs.expect_success(r)
    expect_in_order(r, [r"Starting the sample"])
    check("Unexpected transition" not in r.both, "the context went through STARTING", r)


class Workdir:
    def __enter__(self):
        self.path = tempfile.mkdtemp(prefix="sd-ec-sample-")
        return self.path

    def __exit__(self, *exc):
        shutil.rmtree(self.path, ignore_errors=True)


def make_input(d, size, seed=1, name="input.bin"):
    path = os.path.join(d, name)
    data = bytes((i * 131 + seed * 7 + (i >> 9)) & 0xFF for i in range(size))
    with open(path, "wb") as f:
        f.write(data)
    return path, data


def read(path):
    with open(path, "rb") as f:
        return f.read()


def cmp(a, b, r):
    p = subprocess.run(["cmp", a, b], capture_output=True)
    check(p.returncode == 0, "cmp %s %s: %s" % (a, b, p.stdout.decode() + p.stderr.decode()), r)


def check_blocks(blocks_dir, data, src_path, k, m, matrix, r):
    """The files an encode leaves: k padded data blocks, m redundancy blocks, data_info."""
    block = -(-len(data) // k)
    block = -(-block // 64) * 64
    padded = data + bytes(block * k - len(data))
    want = [padded[i * block:(i + 1) * block] for i in range(k)]
    for i in range(k):
        check(read(os.path.join(blocks_dir, "data_block_%d" % i)) == want[i], "data_block_%d differs" % i, r)
    rdnc = parity(want, matrix, m)
    for j in range(m):
        check(read(os.path.join(blocks_dir, "rdnc_block_%d" % j)) == rdnc[j],
              "rdnc_block_%d is not the %s parity" % (j, matrix), r)
    info = read(os.path.join(blocks_dir, "data_info")).decode()
    check(info == "%d %s" % (len(data), src_path), "data_info is %r" % info, r)


def with_topology(model="soft", caps=""):
    tmp = tempfile.mkdtemp(prefix="sd-ec-topo-")
    path = os.path.join(tmp, "topology.json")
    with open(path, "w") as f:
        f.write('{"devices": [{"model": "%s"%s, "functions": [{"side": "dpu", "pci_addr": "03:00.0", '
                '"ibdev": "mlx5_2", "iface": "p0"}]}]}' % (model, caps))
    return dict(os.environ, SOFTDOCA_TOPOLOGY=path)


# --- cases ---------------------------------------------------------------------------------------

def test_encode_delete_decode():
    """Encode (default k 2, m 2, Cauchy), delete a block with rm, decode the directory into -o, cmp."""
    with Workdir() as d:
        src, data = make_input(d, 100000)
        blocks = os.path.join(d, "blocks")
        os.mkdir(blocks)
        r = run("-i", src, "-o", blocks)
        expect_success(r)
        expect_in_order(r, [r"Erasure Coding context is running$",
                            r"File was encoded successfully and saved in: %s$" % re.escape(blocks),
                            r"Success, redundancy blocks were created$"])
        check_blocks(blocks, data, src, 2, 2, "cauchy", r)
        os.remove(os.path.join(blocks, "data_block_1"))
        out = os.path.join(d, "recovered.bin")
        r = run("-i", blocks, "-o", out)
        expect_success(r)
        expect_in_order(r, [r"Copy: %s/data_block_0$" % re.escape(blocks),
                            r"Copy: %s/rdnc_block_0$" % re.escape(blocks),
                            r"File was decoded successfully and saved in: %s$" % re.escape(out),
                            r"Success, data was recovered$"])
        cmp(src, out, r)
        padded = data + bytes(2 * 50048 - len(data))
        check(read(os.path.join(blocks, "data_block_1")) == padded[50048:], "data_block_1 was not rewritten", r)


def test_both_modes_vandermonde():
    """-b: encode, delete -d, decode; the recovered file is <input>_recovered."""
    with Workdir() as d:
        src, data = make_input(d, 77777, seed=3)
        blocks = os.path.join(d, "blocks")
        os.mkdir(blocks)
        r = run("-i", src, "-o", blocks, "-b", "-x", "VanderMonde", "-t", "3", "-r", "2", "-d", "0,2")
        expect_success(r)
        expect_in_order(r, [r"Success, redundancy blocks were created$",
                            r"Deleted successfully: %s/data_block_0$" % re.escape(blocks),
                            r"Deleted successfully: %s/data_block_2$" % re.escape(blocks),
                            r"Copy: %s/data_block_1$" % re.escape(blocks),
                            r"Copy: %s/rdnc_block_0$" % re.escape(blocks),
                            r"Copy: %s/rdnc_block_1$" % re.escape(blocks),
                            r"File was decoded successfully and saved in: %s_recovered$" % re.escape(src),
                            r"Success, data was recovered$"])
        check_blocks(blocks, data, src, 3, 2, "vandermonde", r)
        cmp(src, src + "_recovered", r)


def test_chained_buffers_and_many_blocks():
    """-ns/-nd split the buffers into lists; k 10, m 4 with four blocks lost."""
    with Workdir() as d:
        src, data = make_input(d, 123457, seed=5)
        blocks = os.path.join(d, "blocks")
        os.mkdir(blocks)
        r = run("-i", src, "-o", blocks, "-b", "-t", "10", "-r", "4", "-d", "1,4,7,9", "-ns", "3", "-nd", "2")
        expect_success(r)
        check_blocks(blocks, data, src, 10, 4, "cauchy", r)
        cmp(src, src + "_recovered", r)


def test_default_input_is_the_sample_itself():
    with Workdir() as d:
        r = run("-o", d)
        expect_success(r)
        info = read(os.path.join(d, "data_info")).decode()
        check(info == "%d %s" % (os.path.getsize(SAMPLE), SAMPLE), "data_info is %r" % info, r)
        r = run("-i", d, "-o", os.path.join(d, "self"))
        expect_failure(r)
        expect_line(r, r"Nothing to decode, all original data block are in place$")
        os.remove(os.path.join(d, "data_block_0"))
        r = run("-i", d, "-o", os.path.join(d, "self"))
        expect_success(r)
        cmp(SAMPLE, os.path.join(d, "self"), r)


def test_too_many_blocks_deleted():
    with Workdir() as d:
        src, _ = make_input(d, 5000)
        r = run("-i", src, "-o", d, "-b", "-t", "3", "-r", "2", "-d", "0,1,2")
        expect_failure(r)
        expect_in_order(r, [r"Success, redundancy blocks were created$",
                            r"Deleted successfully: .*data_block_2$"])
        expect_line(r, r"Not enough data for recover$")
        check(not os.path.exists(src + "_recovered"), "a recovered file appeared", r)


def test_redundancy_lost_too():
    """A lost redundancy block is skipped: d0 and r0 gone, d1 and r1 recover (k 2, m 2)."""
    with Workdir() as d:
        src, _ = make_input(d, 4096 + 17)
        r = run("-i", src, "-o", d)
        expect_success(r)
        os.remove(os.path.join(d, "data_block_0"))
        os.remove(os.path.join(d, "rdnc_block_0"))
        out = os.path.join(d, "out")
        r = run("-i", d, "-o", out)
        expect_success(r)
        expect_in_order(r, [r"Copy: .*data_block_1$", r"Copy: .*rdnc_block_1$"])
        cmp(src, out, r)


def test_bad_flags():
    for args, line in ((["-x", "reed-solomon"], r"Illegal mode = \[reed-solomon\]$"),
                       (["-t", "0"], r"Data block size should be bigger than 0$"),
                       (["-d", "1,-2"], r"Delete block indices are negative$"),
                       (["-i", "/nonexistent/input"], r"Input file/folder not found /nonexistent/input$"),
                       (["-ns", "0"], r"Entered number of source doca_buf: 0, valid value must be >= 1$")):
        r = run(*args)
        expect_failure(r)
        expect_line(r, line)
    r = run("-h")
    check(r.code == 0, "-h should exit 0", r)
    for flag in ("--pci-addr", "--input", "--output", "--both", "--matrix", "--data", "--rdnc",
                 "--delete-index", "--num-src-buf", "--num-dst-buf"):
        check(flag in r.both, "usage does not mention " + flag, r)


def test_a_card_without_erasure_coding():
    with Workdir() as d:
        src, _ = make_input(d, 1000)
        r = run("-i", src, "-o", d, env=with_topology("bluefield-2"))
        expect_failure(r)
        expect_line(r, r"Unable to open the pci device: ")
        r = run("-i", src, "-o", d, env=with_topology("bluefield-3"))
        expect_success(r)


def test_card_limits():
    caps = ', "caps": {"ec_max_block_size": 4096, "ec_max_buf_list_len": 4}'
    with Workdir() as d:
        src, _ = make_input(d, 20000)
        r = run("-i", src, "-o", d, env=with_topology(caps=caps))
        expect_failure(r)
        expect_line(r, r"Block size \(10048\) exceeds the maximum size supported \(4096\)\. Try to increase the "
                       r"number of blocks or use a smaller file as input$")
        r = run("-i", src, "-o", d, "-t", "5", "-r", "1", env=with_topology(caps=caps))
        expect_success(r)
        r = run("-i", src, "-o", d, "-t", "5", "-r", "1", "-ns", "3", "-nd", "2", env=with_topology(caps=caps))
        expect_failure(r)
        expect_line(r, r"Number of doca_buf \[5\] exceed the limitation \[4\]")


def test_pci_filter():
    with Workdir() as d:
        src, _ = make_input(d, 1000)
        r = run("-p", "03:00.1", "-i", src, "-o", d)
        expect_success(r)
        r = run("-p", "0f:00.0", "-i", src, "-o", d)
        expect_failure(r)
        expect_line(r, r"Unable to open the pci device: ")


def main():
    return tap.run(tap.cases(globals()))


if __name__ == "__main__":
    os.environ.setdefault("SOFTDOCA_TOPOLOGY", "builtin")
    sys.exit(main())
