# SPDX-License-Identifier: BSD-3-Clause
"""Two "hosts" joined by two rails, for doca_verbs_multi_rail_server_client (test and bench).

Built on netns.TwoHosts.

Namespaces A and B; veth pairs rail0 (10.71.0.1/2), rail1 (10.72.0.1/2), each end shaped with
`tc qdisc ... tbf`, and an unshaped control pair (10.70.0.1/2) that carries the TCP channel,
as a management network would.  Each namespace has a topology file whose mlx5_0 / mlx5_1 carry
their RDMA traffic on its rail0 / rail1 end.  Cuts: loud = `ip link set ... down` on both ends,
silent = tbf rate set to a few kbit/s on both ends (this kernel has no netem).
"""
import json
import os
import subprocess
import time

from .netns import TCP_ENV, TwoHosts
from .tap import Skip  # noqa: F401 - setup() raises it

NET = {"r0": "10.71.0.%d/24", "r1": "10.72.0.%d/24", "c": "10.70.0.%d/24"}
ENV = dict(TCP_ENV, DOCA_LOG_LEVEL="30")
HOSTS = TwoHosts("mr", NET)
NS = HOSTS.ns
CTRL_IP = tuple(HOSTS.addr("c", side) for side in (0, 1))


def veth(link, side):
    return HOSTS.veth(link, side)


def teardown():
    HOSTS.down()


def set_rate(link, rate):
    """tbf on both ends of a rail: rate like '300mbit' or '8kbit'."""
    HOSTS.set_rate(link, rate)


def set_link(link, up):
    HOSTS.set_link(link, up)


def setup(rates=("300mbit", "300mbit")):
    """Namespaces, three veth pairs, shaping and the topology files; returns the two env dicts."""
    HOSTS.up()
    try:
        for link, rate in zip(("r0", "r1"), rates):
            set_rate(link, rate)
    except (OSError, subprocess.TimeoutExpired) as e:
        teardown()
        raise Skip("cannot set up the namespaces and tbf shaping: %s" % e)
    envs = []
    for side in (0, 1):
        path = HOSTS.topology(side, device_netdev=False, functions=[
            {"side": "host", "pci_addr": "0000:b1:00.0", "ibdev": "mlx5_0", "iface": "ens1f0np0",
             "netdev": veth("r0", side)},
            {"side": "host", "pci_addr": "0000:b1:00.1", "ibdev": "mlx5_1", "iface": "ens1f1np1",
             "netdev": veth("r1", side)}])
        env = dict(os.environ)
        env.update(ENV)
        env["SOFTDOCA_TOPOLOGY"] = path
        envs.append(env)
    return envs


class Pair:
    """Server in namespace `server_side`, client in the other; both started at once."""

    def __init__(self, exe, envs, args, server_args=None, client_args=None, server_side=0, port=5000):
        self.t0 = time.time()
        common = list(args) + ["--tcp-port", str(port)]
        cs = 1 - server_side
        self.server = subprocess.Popen(["ip", "netns", "exec", NS[server_side], exe, "--server"] + common +
                                       list(server_args or []), env=envs[server_side],
                                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.client = subprocess.Popen(["ip", "netns", "exec", NS[cs], exe, "--server-ip", CTRL_IP[server_side]] +
                                       common + list(client_args or []), env=envs[cs],
                                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def wait(self, timeout):
        out = {}
        for name, p in (("client", self.client), ("server", self.server)):
            try:
                o, e = p.communicate(timeout=max(1, timeout - (time.time() - self.t0)))
            except subprocess.TimeoutExpired:
                p.kill()
                o, e = p.communicate()
                e += "\n(killed after %d s)" % timeout
            out[name] = (p.returncode, o, e)
        return out


def result_line(stdout):
    for line in stdout.splitlines():
        if line.startswith("MR_RESULT "):
            return json.loads(line[len("MR_RESULT "):])
    return None


def progress_lines(stdout):
    """[(t, [rail MB/s...], total MB/s)] from the client's progress lines."""
    rows = []
    for line in stdout.splitlines():
        if not line.startswith("progress "):
            continue
        f = dict(x.split("=", 1) for x in line.split()[1:])
        rails = [float(f[k].split("MB/s")[0]) for k in sorted(f) if k.startswith("rail")]
        rows.append((float(f["t"]), rails, float(f["total"].split("MB/s")[0])))
    return rows
