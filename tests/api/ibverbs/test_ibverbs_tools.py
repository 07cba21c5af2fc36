#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""rdma-core's own tools (Debian's ibverbs-utils: ibv_devices, ibv_devinfo) run
the documented way, with libsoftdoca_ibverbs in LD_PRELOAD (docs/verbs.md,
"rdma-core interoperability"), list softdoca's devices: the host-side
functions doca_caps lists, with their GUIDs, port and GID; rdma-core's own
devices (if any) before them; a topology file's names and sides; nothing of
softdoca without the shim.  TAP on stdout.
Usage: test_ibverbs_tools.py <libsoftdoca_ibverbs.so> <doca_caps>"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

from softdoca_testbed import tap
from softdoca_testbed.pairs import Run
from softdoca_testbed.tap import Skip, check

SHIM, DOCA_CAPS = sys.argv[1], sys.argv[2]


def sanitizer_runtimes(lib):
    """The ASan / UBSan runtimes a sanitized build's shim needs loaded before it (none otherwise):
    the tools are not sanitized, and ASan must come first in a process's library list."""
    out = subprocess.run(["ldd", lib], stdout=subprocess.PIPE, text=True).stdout
    found = dict(re.findall(r"^\s*(lib(?:asan|ubsan)\.so\S*) => (\S+)", out, re.M))
    return [found[k] for k in sorted(found, key=lambda k: not k.startswith("libasan"))]


PRELOAD = " ".join(sanitizer_runtimes(SHIM) + [SHIM])


def run(argv, shim=True, topology="builtin"):
    env = dict(os.environ, SOFTDOCA_TOPOLOGY=topology)
    env.pop("LD_PRELOAD", None)
    if shim:
        env["LD_PRELOAD"] = PRELOAD
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, timeout=60)
    return Run(argv, p.returncode, p.stdout, p.stderr)


def tool(name):
    path = shutil.which(name)
    if path is None:
        raise Skip("%s is not installed (Debian package ibverbs-utils; scripts/install-deps.sh installs it)" % name)
    return path


def soft_devices():
    """The host side's functions as doca_caps (a host program, as the tools are) lists them."""
    r = run([DOCA_CAPS, "--list-devs", "--json"], shim=False)
    check(r.code == 0, "doca_caps --list-devs --json failed", r)
    return json.loads(r.out)["devices"]


def real_devices():
    """rdma-core's own devices: ibv_devices without the shim (none, or it fails, on a machine without RDMA)."""
    r = run([tool("ibv_devices")], shim=False)
    return re.findall(r"^\s+(\S+)\s+[0-9a-f]{16}$", r.out, re.M) if r.code == 0 else []


def devices_table(r):
    """(name, GUID) rows of ibv_devices' output."""
    return re.findall(r"^\s+(\S+)\s+([0-9a-f]{16})$", r.out, re.M)


def test_ibv_devices_lists_rdma_core_then_soft_devices():
    r = run([tool("ibv_devices")])
    check(r.code == 0, "ibv_devices failed", r)
    rows = devices_table(r)
    want = real_devices() + [d["ibdev_name"] for d in soft_devices()]
    check([name for name, _ in rows] == want, "devices listed are not %s" % want, r)
    guids = [g for _, g in rows]
    check(len(set(guids)) == len(guids) and "0" * 16 not in guids, "GUIDs are not distinct and non-zero", r)


def test_ibv_devinfo_one_device():
    for dev in soft_devices():
        r = run([tool("ibv_devinfo"), "-d", dev["ibdev_name"]])
        check(r.code == 0, "ibv_devinfo -d %s failed" % dev["ibdev_name"], r)
        for pat in [r"^hca_id:\s+%s$" % re.escape(dev["ibdev_name"]), r"^\s+transport:\s+InfiniBand \(0\)$",
                    r"^\s+fw_ver:\s+softdoca ", r"^\s+vendor_id:\s+0x02c9$", r"^\s+vendor_part_id:\s+41692$",
                    r"^\s+phys_port_cnt:\s+1$", r"^\s+port:\s+1$", r"^\s+state:\s+PORT_ACTIVE \(4\)$",
                    r"^\s+active_mtu:\s+1024 \(3\)$", r"^\s+link_layer:\s+Ethernet$"]:
            check(re.search(pat, r.out, re.M) is not None, "no line matching /%s/" % pat, r)
        check(len(re.findall(r"^hca_id:", r.out, re.M)) == 1, "more than the one device asked for", r)


def test_ibv_devinfo_verbose_shows_the_gid():
    for dev in soft_devices():
        r = run([tool("ibv_devinfo"), "-v", "-d", dev["ibdev_name"]])
        check(r.code == 0, "ibv_devinfo -v failed", r)
        gids = re.findall(r"^\s+GID\[\s*(\d+)\]:\s+(\S+), (.+)$", r.out, re.M)
        check(gids == [("0", dev["gid"], "RoCE v2")], "GID table is not [0: %s, RoCE v2]" % dev["gid"], r)
        check(re.search(r"^\s+gid_tbl_len:\s+1$", r.out, re.M) is not None, "gid_tbl_len is not 1", r)


def test_ibv_devinfo_list_and_unknown_device():
    r = run([tool("ibv_devinfo"), "-l"])
    want = real_devices() + [d["ibdev_name"] for d in soft_devices()]
    check(r.code == 0 and re.search(r"^%d HCAs? found:$" % len(want), r.out, re.M) is not None,
          "ibv_devinfo -l does not count %d devices" % len(want), r)
    check(re.findall(r"^\t(\S+)$", r.out, re.M) == want, "ibv_devinfo -l does not name %s" % want, r)
    r = run([tool("ibv_devinfo"), "-d", "softdoca_no_such_dev"])
    check(r.code != 0 and "wasn't found" in r.err, "an unknown device is not refused", r)


def test_topology_file_names_and_side():
    """A topology file's names; the DPU side's functions and functions without RDMA stay out."""
    topo = {"version": 1, "devices": [{"name": "bf0", "netdev": "lo", "functions": [
        {"side": "host", "pci_addr": "0000:b1:00.0", "ibdev": "mlx5_6", "iface": "ens1f0np0"},
        {"side": "host", "pci_addr": "0000:b1:00.1", "ibdev": "mlx5_8", "iface": "ens1f1np1",
         "caps": {"rdma": False}},
        {"side": "dpu", "pci_addr": "0000:03:00.0", "ibdev": "mlx5_7", "iface": "p0"}]}]}
    with tempfile.NamedTemporaryFile("w", suffix=".json") as f:
        json.dump(topo, f)
        f.flush()
        r = run([tool("ibv_devices")], topology=f.name)
    check(r.code == 0, "ibv_devices failed", r)
    names = [name for name, _ in devices_table(r)]
    check(names == real_devices() + ["mlx5_6"], "expected only mlx5_6 after rdma-core's devices", r)


def test_without_the_shim_no_soft_device():
    """The control: the same tool without LD_PRELOAD knows nothing of softdoca."""
    for dev in soft_devices():
        r = run([tool("ibv_devinfo"), "-d", dev["ibdev_name"]], shim=False)
        check(re.search(r"^\s+fw_ver:\s+softdoca ", r.out, re.M) is None, "a soft device without the shim", r)


if __name__ == "__main__":
    sys.exit(tap.run(tap.cases(globals())))
