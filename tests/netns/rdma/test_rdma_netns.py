#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""RDMA sample pairs between two "hosts": two network namespaces joined by a veth pair.

Usage: test_rdma_netns.py DOCA_RDMA_SAMPLE...

Each namespace has one veth end (192.0.2.1/24 and 192.0.2.2/24, TEST-NET-1) and its
own topology file whose device carries its traffic on that end, so the two
processes can only reach each other across the veth.  Each sample is started with
`ip netns exec` and UCX_TLS=tcp.  The veth byte counters must grow by at least the
traffic the pair needs.  Needs root; skipped with the reason otherwise.  The
namespaces are always deleted.
"""
import json
import os
import signal
import subprocess
import sys
import tempfile
import traceback

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "samples", "rdma"))
from rdma_pairs import (Failure, Session, Side, Skip, check, cm_client, cm_server, expect_line,  # noqa: E402
                        expect_success, free_port, load_samples, send_receive, write_pair)

TAG = "%d" % (os.getpid() % 100000)
NS = ("sdrdmaA" + TAG, "sdrdmaB" + TAG)
VETH = ("sdrv%sa" % TAG, "sdrv%sb" % TAG)   # at most 15 characters
ADDR = ("192.0.2.1/24", "192.0.2.2/24")


def ip(*args):
    p = subprocess.run(["ip", *args], capture_output=True, text=True, timeout=20)
    if p.returncode != 0:
        raise OSError("ip %s: %s" % (" ".join(args), p.stderr.strip()))
    return p.stdout


def teardown():
    for ns in NS:
        subprocess.run(["ip", "netns", "del", ns], capture_output=True, timeout=20)
    # A veth left in the root namespace (setup failed half way) goes with its peer.
    subprocess.run(["ip", "link", "del", VETH[0]], capture_output=True, timeout=20)


def setup(tmp):
    """Create the namespaces, the veth pair and one topology file per namespace."""
    if os.geteuid() != 0:
        raise Skip("needs root to create network namespaces (ip netns)")
    try:
        for ns in NS:
            ip("netns", "add", ns)
        ip("link", "add", VETH[0], "type", "veth", "peer", "name", VETH[1])
        for ns, veth, addr in zip(NS, VETH, ADDR):
            ip("link", "set", veth, "netns", ns)
            ip("-n", ns, "addr", "add", addr, "dev", veth)
            ip("-n", ns, "link", "set", veth, "up")
            ip("-n", ns, "link", "set", "lo", "up")
    except (OSError, subprocess.TimeoutExpired) as e:
        raise Skip("cannot set up network namespaces: %s" % e)

    sides = []
    for i, (ns, veth) in enumerate(zip(NS, VETH)):
        topo = {"version": 1, "devices": [{"name": "bf%d" % i, "netdev": veth, "functions": [
            {"side": "host", "pci_addr": "0000:b1:00.0", "ibdev": "mlx5_0", "iface": "ens1f0np0"}]}]}
        path = os.path.join(tmp, "topology-%d.json" % i)
        with open(path, "w") as f:
            json.dump(topo, f)
        # ip netns exec keeps the environment: the topology and UCX_TLS reach the sample.
        sides.append(Side("mlx5_0", prefix=["ip", "netns", "exec", ns],
                          env={"SOFTDOCA_TOPOLOGY": path, "UCX_TLS": "tcp"}))
    return sides


def veth_bytes(i):
    total = 0
    for kind in ("rx_bytes", "tx_bytes"):
        out = subprocess.run(["ip", "netns", "exec", NS[i], "cat", "/sys/class/net/%s/statistics/%s" % (VETH[i], kind)],
                             capture_output=True, text=True, timeout=20).stdout
        total += int(out.strip() or 0)
    return total


def crossed_veth(before, what):
    after = veth_bytes(0)
    # Connection set-up plus a 256-byte message: far more than ARP/ND noise alone.
    check(after - before >= 256, "%s: only %d bytes crossed the veth" % (what, after - before))


def test_write_pair_across_namespaces(sides):
    before = veth_bytes(0)
    with Session() as s:
        write_pair(s, "written across two namespaces", a=sides[0], b=sides[1])
    crossed_veth(before, "write pair")


def test_send_receive_across_namespaces(sides):
    before = veth_bytes(0)
    with Session() as s:
        send_receive(s, "sent across two namespaces", a=sides[1], b=sides[0])
    crossed_veth(before, "send/receive pair")


def test_cm_send_receive_across_namespaces(sides):
    """RDMA-CM mode: the receiver listens in namespace A, the sender connects to A's veth address."""
    before = veth_bytes(0)
    port = free_port()
    with Session() as s:
        recv = cm_server(s, sides[0], "receive", port)
        send = cm_client(s, sides[1], "send", port, "-s", "over RDMA-CM across namespaces",
                         addr=ADDR[0].split("/")[0])
        rs, rr = send.finish(), recv.finish()
        expect_success(rs)
        expect_success(rr)
        expect_line(rr, r'Got from sender: "over RDMA-CM across namespaces"$')
    crossed_veth(before, "RDMA-CM send/receive pair")


def test_peer_namespace_unreachable_from_root(sides):
    """The topology of namespace A names its veth, which the root namespace does not have."""
    r = subprocess.run(["ip", "link", "show", VETH[0]], capture_output=True, timeout=20)
    check(r.returncode != 0, "veth %s is visible in the root namespace" % VETH[0])


def run_tests(tests, prefix):
    """TAP over tests, (name, fn(sides)) pairs, in the two namespaces; the exit code."""
    print("1..%d" % len(tests), flush=True)
    failed = 0
    with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
        try:
            sides = setup(tmp)
            skip = None
        except Skip as e:
            sides, skip = None, str(e)
        try:
            for i, (name, fn) in enumerate(tests, 1):
                if skip is not None:
                    print("ok %d %s # SKIP %s" % (i, name, skip), flush=True)
                    continue
                try:
                    fn(sides)
                    print("ok %d %s" % (i, name), flush=True)
                except Skip as e:
                    print("ok %d %s # SKIP %s" % (i, name, e), flush=True)
                except Exception as e:  # noqa: BLE001 - every failure is reported as TAP
                    failed += 1
                    print("not ok %d %s" % (i, name))
                    detail = str(e) if isinstance(e, Failure) else traceback.format_exc()
                    for line in detail.splitlines():
                        print("# " + line)
                    sys.stdout.flush()
        finally:
            teardown()
    return 1 if failed else 0


def main():
    load_samples(sys.argv[1:])
    return run_tests([(name, fn) for name, fn in globals().items() if name.startswith("test_") and callable(fn)],
                     "sd-rdma-netns-")


if __name__ == "__main__":
    # A timeout kill (SIGTERM) must still delete the namespaces: unwind through the finally.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    sys.exit(main())
