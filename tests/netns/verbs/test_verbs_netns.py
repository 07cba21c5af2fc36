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
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import traceback

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "samples", "verbs"))
from verbs_pairs import Failure, Side, Skip, check, load_samples, verbs_pair  # noqa: E402

TAG = "%d" % (os.getpid() % 100000)
NS = ("sdvrbA" + TAG, "sdvrbB" + TAG)
VETH = ("sdvv%sa" % TAG, "sdvv%sb" % TAG)   # at most 15 characters
ADDR = ("192.0.2.1/24", "192.0.2.2/24")
SERVER_IP = ADDR[0].split("/")[0]
N, SIZE = 16, 4096                          # 64 KiB per pair


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
    if shutil.which("ip") is None:
        raise Skip("needs the ip command (iproute2)")
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
    tests = [(name, fn) for name, fn in globals().items() if name.startswith("test_") and callable(fn)]
    print("1..%d" % len(tests), flush=True)
    failed = 0
    with tempfile.TemporaryDirectory(prefix="sd-verbs-netns-") as tmp:
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


if __name__ == "__main__":
    # A timeout kill (SIGTERM) must still delete the namespaces: unwind through the finally.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    sys.exit(main())
