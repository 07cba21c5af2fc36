#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Drive DOCA's three compress samples as a person would; TAP.

Usage: test_compress_samples.py COMPRESS_DEFLATE DECOMPRESS_DEFLATE DECOMPRESS_LZ4_STREAM

Each case runs the programs in its own temporary directory on the built-in
topology (-p 03:00.0 is their default: the DPU function) and checks the exit
code, DOCA's pass line, the sample's lines in order and the bytes written
against independent tools: Python's zlib for DEFLATE and the zlib format, the
`lz4` tool for LZ4 frames.  Cases about cards write their own topology.
"""
import json
import os
import random
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

from softdoca_testbed import pairs, tap
from softdoca_testbed.pairs import Run, expect_failure, expect_in_order, expect_line
from softdoca_testbed.tap import Skip, check

COMPRESS, DECOMPRESS, LZ4 = [os.path.abspath(p) for p in sys.argv[1:4]]
TIMEOUT = 60
DIRS = []


def workdir():
    d = tempfile.mkdtemp(prefix="sd-compress-samples-")
    DIRS.append(d)
    return d


def run(argv, cwd, env=None):
    p = subprocess.run(argv, capture_output=True, timeout=TIMEOUT, cwd=cwd, env=env)
    return Run(argv, p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace"))


def expect_success(r):
    pairs.expect_success(r)
    expect_line(r, r"Starting the sample", "out")


def corpus(n, seed=1):
    """Text and binary runs, like a real mixed file."""
    rnd = random.Random(seed)
    words = [b"engine", b"buffer", b"the", b"stream", b"of", b"data", b"block", b"host", b"queue"]
    out = bytearray()
    while len(out) < n:
        if rnd.random() < 0.6:
            out += b" ".join(rnd.choice(words) for _ in range(300)) + b"\n"
        else:
            out += bytes(rnd.getrandbits(8) if i % 4 == 0 else i % 7 for i in range(2000))
    return bytes(out[:n])


def write(d, name, data):
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)
    return name


def read(d, name):
    with open(os.path.join(d, name), "rb") as f:
        return f.read()


def card_env(d, model):
    """One card of this model whose DPU function is 03:00.0."""
    path = os.path.join(d, "topology.json")
    with open(path, "w") as f:
        json.dump({"devices": [{"model": model, "functions": [
            {"side": "host", "pci_addr": "b1:00.0", "ibdev": "mlx5_0", "iface": "ens1f0np0"},
            {"side": "dpu", "pci_addr": "03:00.0", "ibdev": "mlx5_2", "iface": "p0"}]}]}, f)
    return dict(os.environ, SOFTDOCA_TOPOLOGY=path)


COMPRESS_LINES = [r"Starting the sample", r"Compress context is running", r"Compress task was done successfully",
                  r"Compress context has been stopped"]
DECOMPRESS_LINES = [r"Starting the sample", r"Compress context is running",
                    r"Decompress task was done successfully", r"Compress context has been stopped"]


def compress(d, data, *flags, name="out.bin"):
    write(d, "in.bin", data)
    r = run([COMPRESS, "-f", "in.bin", "-o", name, *flags], d)
    expect_success(r)
    expect_in_order(r, COMPRESS_LINES + [r"File was compressed successfully and saved in: %s$" % name])
    check("[ERR]" not in r.both, "an error line on success", r)
    return read(d, name), r


def decompress(d, prog, src, *flags):
    r = run([prog, "-f", src, "-o", "back.bin", *flags], d)
    expect_success(r)
    expect_in_order(r, DECOMPRESS_LINES + [r"File was decompressed successfully and saved in: back.bin$"])
    return read(d, "back.bin"), r


# ---------------------------------------------------------------- deflate

def test_compress_output_is_raw_deflate():
    d = workdir()
    for n in (1, 1000, 300000):
        data = corpus(n, n)
        out, _ = compress(d, data)
        check(zlib.decompress(out, -15) == data, "raw inflate of the output is not the input (%d bytes)" % n)


def test_round_trip_restores_the_file():
    d = workdir()
    data = corpus(500000, 3)
    compress(d, data, name="packed")
    back, _ = decompress(d, DECOMPRESS, "packed")
    check(back == data, "compress -> decompress did not restore the file")


def test_with_frame_is_the_zlib_format():
    d = workdir()
    data = corpus(200000, 4)
    out, _ = compress(d, data, "-wf", name="z")
    check(out[:2] == b"\x78\x9c", "header %r, expected 78 9c" % out[:2])
    check(zlib.decompress(out) == data, "zlib.decompress of the -wf output is not the input")
    check(struct.unpack(">I", out[-4:])[0] == zlib.adler32(data), "trailer is not the input's Adler-32")
    back, _ = decompress(d, DECOMPRESS, "z", "-wf")
    check(back == data, "-wf round trip did not restore the file")
    # a zlib stream made by zlib itself decompresses too
    write(d, "zz", zlib.compress(data, 9))
    back, _ = decompress(d, DECOMPRESS, "zz", "-wf")
    check(back == data, "zlib's own zlib stream did not decompress")


def test_checksum_lines():
    d = workdir()
    data = corpus(100000, 5)
    want = zlib.adler32(data) << 32 | zlib.crc32(data)
    _, r = compress(d, data, "-c", name="c")
    expect_line(r, r"Checksum is %d$" % want, "out")
    co = zlib.compressobj(6, zlib.DEFLATED, -15)
    write(d, "raw", co.compress(data) + co.flush())
    _, r = decompress(d, DECOMPRESS, "raw", "--output-checksum")
    expect_line(r, r"Checksum is %d$" % want, "out")


def test_decompress_refuses_bad_input():
    d = workdir()
    data = corpus(50000, 6)
    z = zlib.compress(data)
    write(d, "noheader", b"\x00\x00" + z[2:])
    r = run([DECOMPRESS, "-f", "noheader", "-o", "x", "-wf"], d)
    expect_failure(r)
    expect_line(r, r"Failed to verify Zlib header")
    write(d, "badadler", z[:-4] + struct.pack(">I", zlib.adler32(data) ^ 1))
    r = run([DECOMPRESS, "-f", "badadler", "-o", "x", "-wf"], d)
    expect_failure(r)
    expect_line(r, r"The given Adler checksum=%d doesn't match the calculated checksum=%d"
                % (zlib.adler32(data) ^ 1, zlib.adler32(data)))
    write(d, "junk", bytes(range(7, 250)))
    r = run([DECOMPRESS, "-f", "junk", "-o", "x"], d)
    expect_failure(r)
    expect_line(r, r"Decompress task failed: Input/output operation failed")
    expect_line(r, r"is not a raw DEFLATE stream", "err")
    check("Decompress task was done successfully" not in r.out, "reported a success", r)


def test_missing_and_empty_files():
    d = workdir()
    r = run([COMPRESS, "-f", "nothere", "-o", "x"], d)
    expect_failure(r)
    expect_line(r, r"Failed to read file")
    write(d, "empty", b"")
    r = run([COMPRESS, "-f", "empty", "-o", "x"], d)
    expect_failure(r)
    expect_line(r, r"is empty")


def test_defaults():
    """No flags: data_to_compress.txt -> out.txt, then data_to_decompress.txt -> out.txt."""
    d = workdir()
    data = corpus(20000, 7)
    write(d, "data_to_compress.txt", data)
    expect_success(run([COMPRESS], d))
    check(zlib.decompress(read(d, "out.txt"), -15) == data, "default output is not the input's stream")
    os.rename(os.path.join(d, "out.txt"), os.path.join(d, "data_to_decompress.txt"))
    expect_success(run([DECOMPRESS], d))
    check(read(d, "out.txt") == data, "default decompress did not restore the file")


# ---------------------------------------------------------------- LZ4

def lz4_tool(d, data, *opts):
    if shutil.which("lz4") is None:
        raise Skip("the lz4 tool is not installed")
    write(d, "plain", data)
    subprocess.run(["lz4", "-q", "-f", *opts, "plain", "plain.lz4"], cwd=d, check=True, timeout=TIMEOUT)
    return "plain.lz4"


def frame_blocks(frame):
    """The blocks of an LZ4 frame (with their end mark) and its two block flags."""
    flg = frame[4]
    pos = 7 + (8 if flg & 0x08 else 0)
    return frame[pos:len(frame) - (4 if flg & 0x04 else 0)], bool(flg & 0x10), bool(flg & 0x20)


LZ4_OPTS = [[], ["-B4", "-BD"], ["-B4", "-BX"], ["-B4", "-BD", "-BX"], ["-B5", "--content-size"],
            ["--no-frame-crc"], ["-9", "-B4", "-BD"]]


def test_lz4_frames_decompress_like_the_lz4_tool():
    d = workdir()
    data = corpus(700000, 8)
    for opts in LZ4_OPTS:
        name = lz4_tool(d, data, *opts)
        ref = subprocess.run(["lz4", "-d", "-c", name], cwd=d, capture_output=True, check=True).stdout
        back, r = decompress(d, LZ4, name, "-wf", "-c")
        check(back == ref == data, "output differs from `lz4 -d` for %s" % opts, r)
        expect_line(r, r"The CRC Checksum is %d$" % zlib.crc32(data), "out")
        frame = read(d, name)
        if frame[4] & 0x04:
            # DOCA's value: the frame's little-endian content checksum read big-endian
            expect_line(r, r"The xxHash Checksum is %d$" % struct.unpack(">I", frame[-4:])[0], "out")


def test_lz4_blocks_without_their_frame():
    """Without -wf the file is the blocks; -bc and -bi say how they were written."""
    d = workdir()
    data = corpus(300000, 9)
    for opts in LZ4_OPTS[:4]:
        blocks, bc, bi = frame_blocks(read(d, lz4_tool(d, data, *opts)))
        write(d, "blocks", blocks)
        flags = (["-bc"] if bc else []) + (["-bi"] if bi else [])
        back, r = decompress(d, LZ4, "blocks", *flags)
        check(back == data, "blocks of %s with %s did not decompress" % (opts, flags), r)


def test_lz4_refusals():
    d = workdir()
    data = corpus(100000, 10)
    frame = bytearray(read(d, lz4_tool(d, data)))
    frame[-1] ^= 0xff
    write(d, "badsum", bytes(frame))
    r = run([LZ4, "-f", "badsum", "-o", "x", "-wf"], d)
    expect_failure(r)
    expect_line(r, r"Decompress task failed: output checksum [0-9a-f]+, doesn't match expected=[0-9a-f]+")
    frame = bytearray(read(d, "plain.lz4"))
    frame[4] |= 0x01  # a dictionary ID
    write(d, "dict", bytes(frame))
    r = run([LZ4, "-f", "dict", "-o", "x", "-wf"], d)
    expect_failure(r)
    expect_line(r, r"not supported")
    write(d, "notlz4", b"hello, world")
    r = run([LZ4, "-f", "notlz4", "-o", "x", "-wf"], d)
    expect_failure(r)
    expect_line(r, r"Invalid LZ4 frame")
    # the whole frame given as blocks: its magic reads as a huge block size
    r = run([LZ4, "-f", "plain.lz4", "-o", "x"], d)
    expect_failure(r)
    expect_line(r, r"Decompress task failed")


# ---------------------------------------------------------------- cards and usage

def test_bluefield3_decompresses_but_does_not_compress():
    d = workdir()
    data = corpus(30000, 11)
    env = card_env(d, "bluefield-3")
    write(d, "in.bin", data)
    r = run([COMPRESS, "-f", "in.bin", "-o", "x"], d, env)
    expect_failure(r)
    expect_line(r, r"Failed to open DOCA device for DOCA Compress")
    co = zlib.compressobj(6, zlib.DEFLATED, -15)
    write(d, "raw", co.compress(data) + co.flush())
    r = run([DECOMPRESS, "-f", "raw", "-o", "back.bin"], d, env)
    expect_success(r)
    check(read(d, "back.bin") == data, "BlueField-3 decompress did not restore the file", r)


def test_bluefield2_has_no_lz4():
    d = workdir()
    env = card_env(d, "bluefield-2")
    name = lz4_tool(d, corpus(1000, 12))
    r = run([LZ4, "-f", name, "-o", "x", "-wf"], d, env)
    expect_failure(r)
    expect_line(r, r"Failed to open DOCA device for DOCA Compress")
    write(d, "in.bin", b"abc" * 1000)
    expect_success(run([COMPRESS, "-f", "in.bin", "-o", "y"], d, env))


def test_help_lists_the_flags():
    d = workdir()
    for prog, flags in ((COMPRESS, ["--pci-addr", "--file", "--output", "--output-checksum", "--with-frame"]),
                        (LZ4, ["--has-block-checksum", "--are-blocks-independent", "--with-frame"])):
        r = run([prog, "-h"], d)
        check(r.code == 0, "-h should exit 0", r)
        for f in flags:
            check(f in r.both, "usage of %s does not mention %s" % (os.path.basename(prog), f), r)
    r = run([COMPRESS, "-h"], d)
    check("--has-block-checksum" not in r.both, "the deflate sample offers the LZ4 flags", r)


def test_wrong_pci_address():
    d = workdir()
    write(d, "in.bin", b"x" * 100)
    r = run([COMPRESS, "-f", "in.bin", "-o", "x", "-p", "ff:00.0"], d)
    expect_failure(r)
    expect_line(r, r"Failed to open DOCA device for DOCA Compress")


def main():
    tap.exit_on_sigterm()
    try:
        return tap.run(tap.cases(globals()))
    finally:
        for d in DIRS:
            shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
