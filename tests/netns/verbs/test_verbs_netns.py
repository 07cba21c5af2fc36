#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""doca_verbs_server_client between two "hosts": two network namespaces joined by a veth pair.

Usage: test_verbs_netns.py DOCA_VERBS_SAMPLE...

Namespace A holds 192.0.2.1/24, namespace B 192.0.2.2/24 (TEST-NET-1), each on
its veth end, each with its own topology file whose mlx5_0 carries its traffic
on that end.  The server runs in A, the client in B with -c 192.0.2.1, both
through `ip netns exec` with UCX_TLS=tcp; the out-of-band exchange (TCP port
5000) and the RDMA traffic can only cross the veth.  Each pair moves 64 KiB, and
the veth byte counters must grow by at least that much.  Needs root; skipped
with the reason otherwise.  The namespaces are always deleted.
"""
import os
import signal
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "samples", "verbs"))
sys.path.insert(0, os.path.join(HERE, "..", "rdma"))
from verbs_pairs import check, load_samples, verbs_pair  # noqa: E402
# The namespaces, the veth pair, the topology files and the byte counters are the RDMA netns test's.
from test_rdma_netns import ADDR, run_tests, veth_bytes  # noqa: E402

SERVER_IP = ADDR[0].split("/")[0]
N, SIZE = 16, 4096                          # 64 KiB per pair


def pair_across(sides, oper):
    before = veth_bytes(0)
    verbs_pair(oper, n=N, size=SIZE, server=sides[0], client=sides[1], addr=SERVER_IP)
    moved = veth_bytes(0) - before
    check(moved >= N * SIZE, "%s pair: only %d bytes crossed the veth (the messages alone are %d)"
          % (oper, moved, N * SIZE))


def test_send_across_namespaces(sides):
    pair_across(sides, "send")


def test_write_across_namespaces(sides):
    pair_across(sides, "write")


def test_read_across_namespaces(sides):
    pair_across(sides, "read")


def test_server_unreachable_from_root(sides):
    """The server's address lives only in namespace A: from the root namespace it is not local."""
    r = subprocess.run(["ip", "-o", "addr", "show", "to", SERVER_IP], capture_output=True, text=True, timeout=20)
    check(r.stdout.strip() == "", "the root namespace has %s: %s" % (SERVER_IP, r.stdout))


def main():
    load_samples(sys.argv[1:])
    return run_tests([(name, fn) for name, fn in globals().items() if name.startswith("test_") and callable(fn)],
                     "sd-verbs-netns-")


if __name__ == "__main__":
    # A timeout kill (SIGTERM) must still delete the namespaces: unwind through the finally.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    sys.exit(main())
