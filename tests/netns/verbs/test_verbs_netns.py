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
import subprocess
import sys

from softdoca_testbed import tap
from softdoca_testbed.pairs import run_across_namespaces
from softdoca_testbed.verbs_pairs import check, load_samples, verbs_pair

N, SIZE = 16, 4096                          # 64 KiB per pair


def pair_across(hosts, sides, oper):
    before = hosts.veth_bytes(0)
    verbs_pair(oper, n=N, size=SIZE, server=sides[0], client=sides[1], addr=hosts.addr(side=0))
    moved = hosts.veth_bytes(0) - before
    check(moved >= N * SIZE, "%s pair: only %d bytes crossed the veth (the messages alone are %d)"
          % (oper, moved, N * SIZE))


def test_send_across_namespaces(hosts, sides):
    pair_across(hosts, sides, "send")


def test_write_across_namespaces(hosts, sides):
    pair_across(hosts, sides, "write")


def test_read_across_namespaces(hosts, sides):
    pair_across(hosts, sides, "read")


def test_server_unreachable_from_root(hosts, sides):
    """The server's address lives only in namespace A: from the root namespace it is not local."""
    server_ip = hosts.addr(side=0)
    r = subprocess.run(["ip", "-o", "addr", "show", "to", server_ip], capture_output=True, text=True, timeout=20)
    check(r.stdout.strip() == "", "the root namespace has %s: %s" % (server_ip, r.stdout))


def main():
    load_samples(sys.argv[1:])
    return run_across_namespaces(tap.cases(globals()), "verbs")


if __name__ == "__main__":
    tap.exit_on_sigterm()
    sys.exit(main())
