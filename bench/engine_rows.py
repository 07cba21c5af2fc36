# SPDX-License-Identifier: BSD-3-Clause
"""The acceleration engines' rows of compare.py (issue 20): bench/engine_bench runs a DOCA engine
context and the library it uses called directly, alternately in one process on the same buffers,
for every round; targets P28-P35.

  engine-deflate-1w   deflate compress 1 MiB, 1 worker, 2 in flight   vs libdeflate on one thread   P28
  engine-deflate-all  deflate compress 1 MiB, every worker, 4 in flight vs the same one thread      P29
  engine-inflate      deflate decompress 1 MiB, 1 worker               vs libdeflate                 P30
  engine-lz4          LZ4 stream decompress 1 MiB (64 KiB blocks), 1 worker vs liblz4                P31
  engine-sha256       SHA-256 of 1 MiB, 1 worker                       vs OpenSSL EVP                P32
  engine-aesgcm       AES-256-GCM encrypt 1 MiB, 1 worker              vs OpenSSL EVP                P33
  engine-ec           EC create k=4 m=2, 1 MiB blocks, 1 worker        vs ISA-L ec_encode_data       P34
  engine-*-4k         the same six at 4 KiB (inline), 16 in flight                                   P35 (worst)

Payload bytes per second (uncompressed bytes; the k data blocks for EC).  The corpus (mixed
text and binary) is bench/engine_peers.c's eb_corpus; docs/benchmarks.md.
"""
import json
import os
import subprocess

from results import KIB, MIB, OURS, Target, fmt_ratio, ratio

STEP = "engines"
ROWS = ("deflate", "inflate", "lz4", "sha256", "aesgcm", "ec")
PEERS = {"deflate": "libdeflate", "inflate": "libdeflate", "lz4": "liblz4", "sha256": "OpenSSL EVP",
         "aesgcm": "OpenSSL EVP", "ec": "ISA-L ec_encode_data"}


def _one(b, res, workload, row, size, secs, workers, inflight, r):
    exe = os.path.join(b.build, "bench", "engine_bench")
    try:
        out = subprocess.run([exe, row, str(size), str(secs), str(workers), str(inflight)], capture_output=True,
                             timeout=120, check=True, text=True).stdout
        v = json.loads(out.strip().splitlines()[-1])
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired, ValueError, IndexError) as e:
        res.skip(workload, "engine_bench %s failed: %s" % (row, str(e)[-200:]))
        return
    for who, key in ((OURS, "ours"), (PEERS[row], "peer")):
        bps, eff = v[key + "_bps"], v[key + "_bps_per_cpu"]
        res.add(workload, size, who, round=r, bps=bps, cpu=100.0 * bps / eff if eff else None)


def run(b, res, smoke):
    """The `engines` step of compare.py."""
    if not os.access(os.path.join(b.build, "bench", "engine_bench"), os.X_OK):
        res.skip("engines", "bench/engine_bench is not built")
        return
    secs = 0.05 if smoke else max(0.3, b.slice)
    cpus = len(os.sched_getaffinity(0))
    for r in range(b.rounds):
        _one(b, res, "engine-deflate-1w", "deflate", MIB, secs, 1, 2, r)
        _one(b, res, "engine-deflate-all", "deflate", MIB, secs, cpus, 2 * cpus, r)
        for row in ROWS[1:]:
            _one(b, res, "engine-" + row, row, MIB, secs, 1, 2, r)
        for row in ROWS:
            _one(b, res, "engine-%s-4k" % row, row, 4 * KIB, secs, cpus, 16, r)


def worst_4k(res, t):
    """P35: the worst ours/peer ratio of the six 4 KiB rows, each listed."""
    rs = []
    for row in ROWS:
        wl = "engine-%s-4k" % row
        rs.append((row, ratio(res.value(wl, 4 * KIB, OURS, "bps"), res.value(wl, 4 * KIB, PEERS[row], "bps"))))
    got = [x for _, x in rs if x is not None]
    worst = min(got) if len(got) == len(rs) else None
    return (fmt_ratio(worst) + " (" + ", ".join("%s %s" % (n, fmt_ratio(x)) for n, x in rs) + ")",
            t.judge(worst))


TARGETS = (
    Target("P28", "deflate compress 1 MiB, 1 worker >= 0.95x libdeflate called directly (same level)",
           "engine-deflate-1w", MIB, peer="libdeflate", goal=0.95, show_values=True),
    Target("P29", "deflate compress 1 MiB, every worker >= 1.8x libdeflate on one thread", "engine-deflate-all",
           MIB, peer="libdeflate", goal=1.8, show_values=True),
    Target("P30", "deflate decompress 1 MiB >= 0.95x libdeflate", "engine-inflate", MIB, peer="libdeflate",
           goal=0.95, show_values=True),
    Target("P31", "LZ4 stream decompress 1 MiB >= 0.95x liblz4", "engine-lz4", MIB, peer="liblz4", goal=0.95,
           show_values=True),
    Target("P32", "SHA-256 of 1 MiB tasks >= 0.95x OpenSSL EVP", "engine-sha256", MIB, peer="OpenSSL EVP",
           goal=0.95, show_values=True),
    Target("P33", "AES-256-GCM encrypt 1 MiB >= 0.95x OpenSSL EVP", "engine-aesgcm", MIB, peer="OpenSSL EVP",
           goal=0.95, show_values=True),
    Target("P34", "EC create k=4 m=2, 1 MiB blocks >= 0.95x ISA-L ec_encode_data", "engine-ec", MIB,
           peer="ISA-L ec_encode_data", goal=0.95, show_values=True),
    Target("P35", "4 KiB tasks of each engine >= 0.8x the library called directly (worst)", "", 4 * KIB,
           goal=0.8, measure=worst_4k),
)
