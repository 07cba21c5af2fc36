# SPDX-License-Identifier: BSD-3-Clause
"""Two "hosts" on one machine: network namespaces A and B joined by veth pairs.

Every test and benchmark that needs two hosts builds them here (docs/architecture.md §7):

    with TwoHosts("rdma", {"v": "192.0.2.%d/24"}) as hosts:    # raises Skip without root
        topo = hosts.topology(0)         # a topology file whose device carries traffic on A's end
        subprocess.run(hosts.exec(0) + [program], env=...)

A link is one veth pair, its ends created directly in the two namespaces, each with the
address of its pattern (%d is 1 for A, 2 for B) and up; up() returns once both ends have
carrier (UCX lists only running interfaces).  Names carry the pid, so parallel runs (several
build directories on one machine) never share or delete each other's namespaces; deleting the
namespaces deletes the veths.  Two namespaces on one kernel are not two hosts by themselves:
UCX_TLS=tcp and SOFTDOCA_FABRIC_CMA=0 (TCP_ENV) make every byte cross the veth.

C tests use it through the command line, which builds the namespaces around a command and
tells it the names in the environment (SD_NETNS_A / _B, SD_NETNS_VETH_A / _B and
SD_NETNS_ADDR_A / _B for the first link, or SD_NETNS_SKIP with the reason they could not be made):

    python3 -m softdoca_testbed.netns --name cm --link v=10.77.0.%d/24 -- ./test_cm_link_loss
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

from .tap import Skip, exit_on_sigterm

# What makes two namespaces on one kernel behave as two hosts (docs/benchmarks.md).
TCP_ENV = {"UCX_TLS": "tcp", "SOFTDOCA_FABRIC_CMA": "0"}

# The one host function each side's default topology holds.
HOST_FUNCTION = {"side": "host", "pci_addr": "0000:b1:00.0", "ibdev": "mlx5_0", "iface": "ens1f0np0"}


class TwoHosts:
    """Namespaces A (side 0) and B (side 1) joined by links; a context manager."""

    def __init__(self, name, links):
        """name: up to 5 letters naming the user (in the namespace and veth names);
        links: {link name (1-2 characters): address pattern}, the first one the data link."""
        self.tag = "%d" % (os.getpid() % 100000)
        self.name = name
        self.links = dict(links)
        self.ns = tuple("sd%s%s%s" % (name, "AB"[side], self.tag) for side in (0, 1))
        self.tmp = None

    # ---- names ----

    def veth(self, link=None, side=0):
        """The interface name of link's end in side (at most 15 characters)."""
        return "sd%s%s%s%s" % (self.name[:3], self.tag, link or self.first, "ab"[side])

    @property
    def first(self):
        return next(iter(self.links))

    def cidr(self, link=None, side=0):
        return self.links[link or self.first] % (side + 1)

    def addr(self, link=None, side=0):
        """The address of link's end in side, without the prefix length."""
        return self.cidr(link, side).split("/")[0]

    def exec(self, side):
        """The command prefix that runs a program in side's namespace (environment kept)."""
        return ["ip", "netns", "exec", self.ns[side]]

    # ---- life cycle ----

    def up(self):
        if os.geteuid() != 0:
            raise Skip("needs root to create network namespaces (ip netns)")
        if shutil.which("ip") is None:
            raise Skip("ip (iproute2) not installed")
        self.down()
        try:
            for ns in self.ns:
                ip("netns", "add", ns)
            for link in self.links:
                ip("link", "add", self.veth(link, 0), "netns", self.ns[0], "type", "veth",
                   "peer", "name", self.veth(link, 1), "netns", self.ns[1])
                for side in (0, 1):
                    self.ip(side, "addr", "add", self.cidr(link, side), "dev", self.veth(link, side))
                    self.ip(side, "link", "set", self.veth(link, side), "up")
            for side in (0, 1):
                self.ip(side, "link", "set", "lo", "up")
            self.wait_carrier()
        except (OSError, subprocess.TimeoutExpired) as e:
            self.down()
            raise Skip("cannot set up network namespaces: %s" % e)
        self.tmp = tempfile.mkdtemp(prefix="sd-netns-%s-" % self.name)
        return self

    def down(self):
        for ns in self.ns:
            subprocess.run(["ip", "netns", "del", ns], capture_output=True, timeout=20)
        if self.tmp is not None:
            shutil.rmtree(self.tmp, ignore_errors=True)
            self.tmp = None

    def __enter__(self):
        return self.up()

    def __exit__(self, *exc):
        self.down()

    def wait_carrier(self, timeout=5.0):
        end = time.time() + timeout
        for link in self.links:
            for side in (0, 1):
                while self.read_sys(side, "/sys/class/net/%s/operstate" % self.veth(link, side)) != "up":
                    if time.time() > end:
                        raise OSError("%s has no carrier after %.0f s" % (self.veth(link, side), timeout))
                    time.sleep(0.05)

    # ---- inside a namespace ----

    def ip(self, side, *args):
        return ip("-n", self.ns[side], *args)

    def read_sys(self, side, path):
        """A /sys file as side's namespace sees it (ip netns exec mounts its own /sys)."""
        p = subprocess.run(self.exec(side) + ["cat", path], capture_output=True, text=True, timeout=20)
        return p.stdout.strip()

    def veth_bytes(self, side=0, link=None, kinds=("rx_bytes", "tx_bytes")):
        """Bytes counted on link's end in side (received plus sent by default)."""
        return sum(int(self.read_sys(side, "/sys/class/net/%s/statistics/%s" % (self.veth(link, side), k)) or 0)
                   for k in kinds)

    def set_link(self, link, up):
        """Both ends of link up or down (a loud cut: the kernel reports it)."""
        for side in (0, 1):
            self.ip(side, "link", "set", self.veth(link, side), "up" if up else "down")

    def set_rate(self, link, rate):
        """tbf shaping on both ends of link: rate like '300mbit', or a few kbit/s for a silent cut."""
        for side in (0, 1):
            run_checked(self.exec(side) + ["tc", "qdisc", "replace", "dev", self.veth(link, side), "root", "tbf",
                                           "rate", rate, "burst", "256kb", "latency", "100ms"])

    def topology(self, side, functions=None, device_netdev=True):
        """Write side's topology file and return its path: one device, bf<side>, with functions
        (default: HOST_FUNCTION), carrying its traffic on side's end of the first link unless
        device_netdev is False (then each function names its own netdev)."""
        dev = {"name": "bf%d" % side, "functions": list(functions or [HOST_FUNCTION])}
        if device_netdev:
            dev["netdev"] = self.veth(None, side)
        path = os.path.join(self.tmp, "topology-%d.json" % side)
        with open(path, "w") as f:
            json.dump({"version": 1, "devices": [dev]}, f)
        return path


def run_checked(argv):
    p = subprocess.run(argv, capture_output=True, text=True, timeout=20)
    if p.returncode != 0:
        raise OSError("%s: %s" % (" ".join(argv), p.stderr.strip()))
    return p.stdout


def ip(*args):
    return run_checked(["ip", *args])


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python3 -m softdoca_testbed.netns",
                                 description="Build two namespaces around a command (a C test).")
    ap.add_argument("--name", required=True, help="up to 5 letters naming the user")
    ap.add_argument("--link", action="append", required=True, metavar="NAME=PATTERN",
                    help="a veth pair and its address pattern, e.g. v=10.77.0.%%d/24 (repeatable)")
    ap.add_argument("cmd", nargs=argparse.REMAINDER, help="-- the command and its arguments")
    args = ap.parse_args(argv)
    cmd = args.cmd[1:] if args.cmd[:1] == ["--"] else args.cmd
    if not cmd:
        ap.error("no command after --")
    hosts = TwoHosts(args.name, dict(link.split("=", 1) for link in args.link))
    env = dict(os.environ)
    exit_on_sigterm()
    try:
        try:
            hosts.up()
            for side in (0, 1):
                env["SD_NETNS_" + "AB"[side]] = hosts.ns[side]
                env["SD_NETNS_VETH_" + "AB"[side]] = hosts.veth(None, side)
                env["SD_NETNS_ADDR_" + "AB"[side]] = hosts.addr(None, side)
        except Skip as e:
            env["SD_NETNS_SKIP"] = str(e)
        return subprocess.run(cmd, env=env).returncode
    finally:
        hosts.down()


if __name__ == "__main__":
    sys.exit(main())
