#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""RDMA sample pairs between two "hosts": two network namespaces joined by a veth pair.

Usage: test_rdma_netns.py DOCA_RDMA_SAMPLE...

Each namespace has one veth end (192.0.2.1/24 and 192.0.2.2/24, TEST-NET-1) and its
own topology file whose device carries its traffic on that end, so the two
processes can only reach each other across the veth; each sample is started with
`ip netns exec` and UCX_TLS=tcp (softdoca_testbed.pairs.run_across_namespaces).  The veth byte counters must grow by at least the
traffic the pair needs.  Needs root; skipped with the reason otherwise.  The
namespaces are always deleted.
"""
import subprocess
import sys

from softdoca_testbed import tap
from softdoca_testbed.pairs import (Session, check, cm_client, cm_server, expect_line, expect_success, free_port,
                                    load_samples, run_across_namespaces, send_receive, write_pair)


def crossed_veth(hosts, before, what):
    after = hosts.veth_bytes(0)
    # Connection set-up plus a 256-byte message: far more than ARP/ND noise alone.
    check(after - before >= 256, "%s: only %d bytes crossed the veth" % (what, after - before))


def test_write_pair_across_namespaces(hosts, sides):
    before = hosts.veth_bytes(0)
    with Session() as s:
        write_pair(s, "written across two namespaces", a=sides[0], b=sides[1])
    crossed_veth(hosts, before, "write pair")


def test_send_receive_across_namespaces(hosts, sides):
    before = hosts.veth_bytes(0)
    with Session() as s:
        send_receive(s, "sent across two namespaces", a=sides[1], b=sides[0])
    crossed_veth(hosts, before, "send/receive pair")


def test_cm_send_receive_across_namespaces(hosts, sides):
    """RDMA-CM mode: the receiver listens in namespace A, the sender connects to A's veth address."""
    before = hosts.veth_bytes(0)
    port = free_port()
    with Session() as s:
        recv = cm_server(s, sides[0], "receive", port)
        send = cm_client(s, sides[1], "send", port, "-s", "over RDMA-CM across namespaces",
                         addr=hosts.addr(side=0))
        rs, rr = send.finish(), recv.finish()
        expect_success(rs)
        expect_success(rr)
        expect_line(rr, r'Got from sender: "over RDMA-CM across namespaces"$')
    crossed_veth(hosts, before, "RDMA-CM send/receive pair")


def test_peer_namespace_unreachable_from_root(hosts, sides):
    """The topology of namespace A names its veth, which the root namespace does not have."""
    r = subprocess.run(["ip", "link", "show", hosts.veth(side=0)], capture_output=True, timeout=20)
    check(r.returncode != 0, "veth %s is visible in the root namespace" % hosts.veth(side=0))


def main():
    load_samples(sys.argv[1:])
    return run_across_namespaces(tap.cases(globals()), "rdma")


if __name__ == "__main__":
    tap.exit_on_sigterm()
    sys.exit(main())
