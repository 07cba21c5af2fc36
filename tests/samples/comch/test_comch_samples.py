#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Drive the Comch samples and DMA Copy as a person would (DPU side and host
side as two processes) and print TAP.

Usage: test_comch_samples.py CTRL_SERVER CTRL_CLIENT DMA_COPY_HOST DMA_COPY_DPU DATA_SERVER DATA_CLIENT
                             SE_HOST_LOCAL SE_HOST_REMOTE SE_DPU_LOCAL SE_DPU_REMOTE
The Secure Channel application's two builds come in SECURE_CHANNEL_HOST and SECURE_CHANNEL_DPU
(its cases skip without them).

Each case runs in its own temporary directory with its own Comch runtime
directory (SOFTDOCA_RUNTIME_DIR), so parallel runs never meet; the directory goes
when the case ends.  TAP and the process driver are softdoca_testbed's (tap, pairs.Proc).
"""
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from softdoca_testbed import tap
from softdoca_testbed.pairs import Proc, expect_line, last_line
from softdoca_testbed.tap import Failure, Skip, check

TIMEOUT = 60

ARGS = [os.path.abspath(a) for a in sys.argv[1:]]
CTRL_SERVER, CTRL_CLIENT, COPY_HOST, COPY_DPU = ARGS[0:4]
DATA_SERVER, DATA_CLIENT = (ARGS[4:6] + [None, None])[:2]
SE_HOST_LOCAL, SE_HOST_REMOTE, SE_DPU_LOCAL, SE_DPU_REMOTE = (ARGS[6:10] + [None] * 4)[:4]
SC_HOST, SC_DPU = os.environ.get("SECURE_CHANNEL_HOST"), os.environ.get("SECURE_CHANNEL_DPU")

OPEN = []       # the Cases of the running test, closed after it


class Case:
    """One test's directory (host/, dpu/, the Comch runtime directory) and the programs it started."""

    def __init__(self, topology=None):
        self.dir = tempfile.mkdtemp(prefix="sdcomch.")
        self.procs = []
        OPEN.append(self)
        self.env = dict(os.environ, SOFTDOCA_RUNTIME_DIR=os.path.join(self.dir, "rt"))
        self.env.setdefault("SOFTDOCA_TOPOLOGY", "builtin")
        if topology is not None:
            path = os.path.join(self.dir, "topology.json")
            with open(path, "w") as f:
                json.dump(topology, f)
            self.env["SOFTDOCA_TOPOLOGY"] = path
        os.makedirs(os.path.join(self.dir, "host"))
        os.makedirs(os.path.join(self.dir, "dpu"))

    def start(self, argv):
        p = Proc(argv, self.env, cwd=self.dir)
        self.procs.append(p)
        return p

    def path(self, *parts):
        return os.path.join(self.dir, *parts)

    def close(self):
        for p in self.procs:
            p.kill()
        shutil.rmtree(self.dir, ignore_errors=True)


def expect_sample_success(r):
    check(r.code == 0, "expected exit code 0", r)
    expect_line(r, r"Starting the sample")
    check(last_line(r.out).endswith("Sample finished successfully"), "last line is not 'Sample finished successfully'", r)


def expect_sample_failure(r):
    check(r.code == 1, "expected exit code 1", r)
    check(last_line(r.out).endswith("Sample finished with errors"), "last line is not 'Sample finished with errors'", r)


def order(r, *patterns):
    """The patterns appear in this order in r's output."""
    pos = 0
    for p in patterns:
        m = re.compile(p, re.M).search(r.both, pos)
        check(m is not None, "line /%s/ missing or out of order" % p, r)
        pos = m.end()


# ------------------------------------------------------------ control path

def ctrl_pair(server_first, client_text="hi from the host", server_text="hi from the DPU"):
    c = Case()
    if server_first:
        s = c.start([CTRL_SERVER, "-p", "03:00.0", "-r", "b1:00.0", "-t", server_text])
        time.sleep(0.3)
        h = c.start([CTRL_CLIENT, "-p", "b1:00.0", "-t", client_text])
    else:
        h = c.start([CTRL_CLIENT, "-p", "b1:00.0", "-t", client_text])
        time.sleep(0.5)
        s = c.start([CTRL_SERVER, "-p", "03:00.0", "-r", "b1:00.0", "-t", server_text])
    s, h = s.finish(TIMEOUT), h.finish(TIMEOUT)
    expect_sample_success(s)
    expect_sample_success(h)
    order(s, r"CC server context is running\. Waiting for clients to connect", r"New client connected to server",
          r"Message received: '%s'" % re.escape(client_text), r"Task sent successfully",
          r"CC server context entered into stopping state", r"CC server context has been stopped")
    order(h, r"CC client context entered into starting state\. Waiting for connection establishment",
          r"CC client context is running\. Sending message", r"Task sent successfully",
          r"Message received: '%s'" % re.escape(server_text),
          r"CC client context entered into stopping state\. Waiting for connection termination",
          r"CC client context has been stopped")


def test_ctrl_path_server_first():
    ctrl_pair(True)


def test_ctrl_path_client_first():
    ctrl_pair(False)


def test_ctrl_path_defaults_and_long_text():
    ctrl_pair(True, client_text="x" * 4080, server_text="Message from the client")


def test_ctrl_path_text_over_max_message_size():
    c = Case()
    for prog in ([CTRL_SERVER, "-r", "b1:00.0"], [CTRL_CLIENT]):
        r = c.start(prog + ["-t", "y" * 4080 + "z"]).finish(TIMEOUT)
        expect_sample_failure(r)
        expect_line(r, r"Failed to run sample, text size is larger than supported message size\. "
                       r"text_len = 4081, supported message size = 4080")


def test_ctrl_path_wrong_side_device():
    c = Case()
    r = c.start([CTRL_CLIENT, "-p", "03:00.0"]).finish(10)
    expect_sample_failure(r)
    r = c.start([CTRL_SERVER, "-p", "b1:00.0", "-r", "b1:00.0"]).finish(10)
    expect_sample_failure(r)


# ------------------------------------------------------------ data path (producer / consumer)

def data_pair(server_first):
    if DATA_SERVER is None:
        raise Skip("the data-path samples are not built")
    c = Case()
    cargs = [DATA_CLIENT, "-p", "b1:00.0", "-t", "fast path from the host"]
    sargs = [DATA_SERVER, "-p", "03:00.0", "-r", "b1:00.0", "-t", "fast path from the DPU"]
    first, second = (sargs, cargs) if server_first else (cargs, sargs)
    a = c.start(first)
    time.sleep(0.3)
    b = c.start(second)
    a, b = a.finish(TIMEOUT), b.finish(TIMEOUT)
    s, h = (a, b) if server_first else (b, a)
    expect_sample_success(s)
    expect_sample_success(h)
    order(h, r"CC client context is running\. Get a connection from server", r"Client task sent successfully",
          r"Message received: 'start_data_path_test'", r"Got a new remote consumer with ID = \[[1-9]\d*\]",
          r"CC producer context is running\. Posting message to consumer, waiting finish",
          r"Producer task sent successfully", r"CC producer context has been stopped",
          r"CC consumer context entered into starting state\. Waiting consumer producer negotiation finish",
          r"CC consumer context is running\. Receiving message from producer, waiting finish",
          r"Message received: 'fast path from the DPU'", r"CC consumer context has been stopped",
          r"Message received: 'stop_data_path_test'", r"CC client context has been stopped")
    order(s, r"Message received: 'start_data_path_test'", r"Server task sent successfully",
          r"CC consumer context is running", r"Message received: 'fast path from the host'",
          r"CC consumer context has been stopped", r"Got a new remote consumer with ID = \[[1-9]\d*\]",
          r"Producer task sent successfully", r"Message received: 'stop_data_path_test'",
          r"CC server context has been stopped")


def test_data_path_server_first():
    data_pair(True)


def test_data_path_client_first():
    data_pair(False)


# ------------------------------------------------------------ PCI sync events

def se_pair(local_on_dpu, extra=()):
    if SE_HOST_LOCAL is None:
        raise Skip("the PCI sync-event samples are not built")
    c = Case()
    dpu_prog = SE_DPU_LOCAL if local_on_dpu else SE_DPU_REMOTE
    host_prog = SE_HOST_REMOTE if local_on_dpu else SE_HOST_LOCAL
    d = c.start([dpu_prog, "-d", "03:00.0", "-r", "b1:00.0", *extra])
    time.sleep(0.3)
    h = c.start([host_prog, "-d", "b1:00.0", *extra])
    h, d = h.finish(TIMEOUT), d.finish(TIMEOUT)
    expect_sample_success(d)
    expect_sample_success(h)
    local, remote = (d, h) if local_on_dpu else (h, d)
    order(local, r"Sending exported DOCA Sync Event to remote side",
          r"Exported DOCA Sync Event has been sent to remote side successfully",
          r"Signaling sync event for remote side", r"Waiting for sync event to be signaled from remote side",
          r"Done")
    order(remote, r"Listening", r"Received blob from remote side",
          r"Waiting for sync event to be signaled from remote side", r"Signaling sync event for remote side",
          r"Done")
    order(d, r"Server received a new connection", r"Received connection from host",
          r"Client has disconnected from server")
    expect_line(h, r"Connection to DPU has been established")


def test_sync_event_local_on_host_remote_on_dpu():
    se_pair(False)


def test_sync_event_local_on_dpu_remote_on_host():
    se_pair(True)


def test_sync_event_atomic():
    se_pair(False, ("--atomic",))


def test_sync_event_async_tasks():
    se_pair(True, ("--async", "--async-num-tasks", "4", "--atomic"))


def test_sync_event_async_needs_tasks():
    if SE_HOST_LOCAL is None:
        raise Skip("the PCI sync-event samples are not built")
    r = Case().start([SE_HOST_LOCAL, "-d", "b1:00.0", "--async"]).finish(10)
    expect_sample_failure(r)
    expect_line(r, r"--async needs --async-num-tasks of at least 1")


# ------------------------------------------------------------ DMA Copy

def sha(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def make_file(path, size):
    with open(path, "wb") as f:
        left = size
        while left:
            n = min(left, 1 << 20)
            f.write(os.urandom(n))
            left -= n


def dma_copy(size, to_dpu, topology=None):
    c = Case(topology)
    src = c.path("host" if to_dpu else "dpu", "file.bin")
    dst = c.path("dpu" if to_dpu else "host", "file.bin")
    make_file(src, size)
    d = c.start([COPY_DPU, "-f", c.path("dpu", "file.bin"), "-p", "03:00.0", "-r", "b1:00.0"])
    time.sleep(0.2)
    h = c.start([COPY_HOST, "-f", c.path("host", "file.bin"), "-p", "b1:00.0"])
    h, d = h.finish(TIMEOUT), d.finish(TIMEOUT)
    return c, src, dst, h, d


def copy_ok(size, to_dpu):
    c, src, dst, h, d = dma_copy(size, to_dpu)
    check(h.code == 0 and d.code == 0, "DMA Copy failed", h, d)
    check(os.path.getsize(dst) == size, "destination has %d bytes, not %d" % (os.path.getsize(dst), size), h, d)
    check(sha(src) == sha(dst), "checksums differ", h, d)
    expect_line(d, r"Server waiting on a client to connect")
    expect_line(d, r"Server connection established")
    holder = h if to_dpu else d
    expect_line(holder, r"The file size is %d" % size)
    if to_dpu:
        expect_line(h, r"File was found locally, it will be DMA copied to the DPU")
        expect_line(d, r"File was not found locally, it will be DMA copied from the Host")
        expect_line(d, r"Writing DMA buffer into a file on .*file\.bin")
    else:
        expect_line(h, r"File was not found locally, it will be DMA copied from the DPU")
        expect_line(d, r"File was found locally, it will be DMA copied to the Host")
        expect_line(h, r"Writing DMA buffer into a file on .*file\.bin")
    expect_line(d, r"DMA copy was done Successfully")
    expect_line(h, r"Final status message was successfully received")


def test_dma_copy_0_bytes_to_dpu():
    copy_ok(0, True)


def test_dma_copy_0_bytes_to_host():
    copy_ok(0, False)


def test_dma_copy_1_byte_to_dpu():
    copy_ok(1, True)


def test_dma_copy_1_byte_to_host():
    copy_ok(1, False)


def test_dma_copy_4k_to_dpu():
    copy_ok(4096, True)


def test_dma_copy_4k_to_host():
    copy_ok(4096, False)


def test_dma_copy_64m_to_dpu():
    copy_ok(64 << 20, True)


def test_dma_copy_64m_to_host():
    copy_ok(64 << 20, False)


SMALL_MAX = 8 << 20


def small_max_topology():
    """The built-in topology with an 8 MiB DMA limit, so 'the maximum size' is quick to test."""
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "docs", "examples",
                           "default.json")) as f:
        topo = json.load(f)
    topo["devices"][0]["caps"] = {"dma_max_buf_size": SMALL_MAX}
    return topo


def test_dma_copy_maximum_size_both_directions():
    for to_dpu in (True, False):
        c, src, dst, h, d = dma_copy(SMALL_MAX, to_dpu, small_max_topology())
        check(h.code == 0 and d.code == 0, "copy of exactly the maximum size failed", h, d)
        check(sha(src) == sha(dst), "checksums differ", h, d)


def test_dma_copy_over_maximum_size_refused():
    for to_dpu in (True, False):
        c, src, dst, h, d = dma_copy(SMALL_MAX + 1, to_dpu, small_max_topology())
        check(h.code != 0 and d.code != 0, "a file over the DMA maximum was copied", h, d)
        holder = h if to_dpu else d
        expect_line(holder, r"larger than the maximum DMA buffer size %d" % SMALL_MAX)
        check(not os.path.exists(dst), "a destination file was created", h, d)


def test_dma_copy_file_on_both_sides():
    c = Case()
    make_file(c.path("host", "f"), 10)
    make_file(c.path("dpu", "f"), 10)
    d = c.start([COPY_DPU, "-f", c.path("dpu", "f"), "-p", "03:00.0", "-r", "b1:00.0"])
    time.sleep(0.2)
    h = c.start([COPY_HOST, "-f", c.path("host", "f"), "-p", "b1:00.0"]).finish(TIMEOUT)
    d = d.finish(TIMEOUT)
    check(h.code != 0 and d.code != 0, "both sides must fail", h, d)
    expect_line(d, r"Error - File was found on both Host and DPU")
    expect_line(h, r"Failure was detected in dma copy")


def test_dma_copy_file_on_neither_side():
    c = Case()
    d = c.start([COPY_DPU, "-f", c.path("dpu", "f"), "-p", "03:00.0", "-r", "b1:00.0"])
    time.sleep(0.2)
    h = c.start([COPY_HOST, "-f", c.path("host", "f"), "-p", "b1:00.0"]).finish(TIMEOUT)
    d = d.finish(TIMEOUT)
    check(h.code != 0 and d.code != 0, "both sides must fail", h, d)
    expect_line(d, r"Error - File was not found on both Host and DPU")
    check(not os.path.exists(c.path("host", "f")) and not os.path.exists(c.path("dpu", "f")), "a file appeared", h, d)


def test_dma_copy_dpu_killed_mid_copy():
    """The DPU process dies after agreeing on the direction: the host fails cleanly, creates nothing."""
    for sig in (signal.SIGKILL, signal.SIGTERM):
        c = Case()
        make_file(c.path("dpu", "big"), 64 << 20)
        d = c.start([COPY_DPU, "-f", c.path("dpu", "big"), "-p", "03:00.0", "-r", "b1:00.0"])
        time.sleep(0.2)
        h = c.start([COPY_HOST, "-f", c.path("host", "big"), "-p", "b1:00.0"])
        # stop the DPU side as soon as it has answered the direction: the copy is next
        try:
            d.wait_for(r"it will be DMA copied to the Host", timeout=20)
        except Failure:
            pass        # it exited or stayed silent: the host must fail all the same
        d.p.send_signal(sig)
        d, h = d.finish(TIMEOUT), h.finish(TIMEOUT)
        check(h.code != 0, "host claimed success or hung after the DPU died (%s)" % sig.name, h, d)
        expect_line(h, r"Failure was detected in dma copy")
        check(not os.path.exists(c.path("host", "big")), "a partial file was left on the host", h, d)
        check(not [f for f in os.listdir(c.path("host")) if f.startswith("big")], "a temporary file was left", h, d)


def test_dma_copy_disk_full_leaves_nothing():
    """The destination's file system has no room for the file: the side that receives it fails naming
    the reason, the other side fails too, and no file or temporary file is left (both directions)."""
    if os.geteuid() != 0 or shutil.which("mount") is None:
        raise Skip("needs root and mount(8) for a 1 MiB tmpfs as the destination directory")
    for to_dpu in (True, False):
        c = Case()
        full = c.path("dpu" if to_dpu else "host")
        p = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", full], capture_output=True, text=True)
        if p.returncode != 0:
            raise Skip("cannot mount a tmpfs here: %s" % p.stderr.strip()[-200:])
        try:
            make_file(c.path("host" if to_dpu else "dpu", "big"), 4 << 20)
            d = c.start([COPY_DPU, "-f", c.path("dpu", "big"), "-p", "03:00.0", "-r", "b1:00.0"])
            time.sleep(0.2)
            h = c.start([COPY_HOST, "-f", c.path("host", "big"), "-p", "b1:00.0"])
            h, d = h.finish(TIMEOUT), d.finish(TIMEOUT)
            receiver = d if to_dpu else h
            check(h.code != 0 and d.code != 0, "a copy into a full file system must fail on both sides", h, d)
            expect_line(receiver, r"Failed to allocate 4194304 bytes for .*big: No space left on device")
            check(os.listdir(full) == [], "left in the full directory: %s" % os.listdir(full), h, d)
        finally:
            subprocess.run(["umount", full], capture_output=True)


# ------------------------------------------------------------ Secure Channel

def sc_argv(dpu, size, num):
    if SC_HOST is None or SC_DPU is None:
        raise Skip("the Secure Channel application is not built")
    if dpu:
        return [SC_DPU, "-s", str(size), "-n", str(num), "-p", "03:00.0", "-r", "b1:00.0"]
    return [SC_HOST, "-s", str(size), "-n", str(num), "-p", "b1:00.0"]


def sc_pair(size, num, dpu_first=True, host_size=None, strict=False):
    c = Case()
    if strict:
        c.env["SOFTDOCA_STRICT"] = "1"
    first = c.start(sc_argv(dpu_first, size, num))
    first.wait_for(r"Server waiting on a client to connect" if dpu_first else r"Connecting to the DPU's server")
    second = c.start(sc_argv(not dpu_first, size if host_size is None or not dpu_first else host_size, num))
    d, h = (first, second) if dpu_first else (second, first)
    return d.finish(TIMEOUT), h.finish(TIMEOUT)


def sc_ok(size, num, dpu_first=True):
    d, h = sc_pair(size, num, dpu_first)
    for r in (d, h):
        check(r.code == 0, "expected exit code 0", d, h)
        check("[ERR]" not in r.both and "[WRN]" not in r.both, "an error or a warning was printed", r)
        order(r, r"Connection established; %d messages of %d bytes each way" % (num, size),
              r"Producer sent %d messages in approximately [0-9.]+ milliseconds" % num,
              r"Consumer received %d messages in approximately [0-9.]+ milliseconds" % num)


def test_secure_channel_both_ways():
    sc_ok(256, 1000)


def test_secure_channel_host_started_first():
    sc_ok(64, 100, dpu_first=False)


def test_secure_channel_one_byte_one_message():
    sc_ok(1, 1)


def test_secure_channel_more_messages_than_buffers():
    """4 KiB x 5000 (64 buffers reposted) and 1 MiB x 40 (16 buffers: the 16 MiB budget)."""
    sc_ok(4096, 5000)
    sc_ok(1 << 20, 40)


def test_secure_channel_strict():
    """SOFTDOCA_STRICT=1 (docs/diagnostics.md "Strict mode") finds nothing in this Secure Channel: it posts
    no more receives than messages, so none is freed posted (NVIDIA's teardown, which frees them, is
    test_comch_free_posted's strict case); both sides run as without it."""
    d, h = sc_pair(256, 100, strict=True)
    for r in (d, h):
        check(r.code == 0, "expected exit code 0", d, h)
        check("[softdoca-strict]" not in r.both and "[ERR]" not in r.both, "strict mode reported something", r)


def test_secure_channel_bad_flags():
    c = Case()
    cases = [
        (sc_argv(False, 0, 1), r"Message size \(-s\) must be between 1 and 67108864 bytes, got 0"),
        (sc_argv(False, (64 << 20) + 1, 1), r"Message size \(-s\) must be between 1 and 67108864 bytes"),
        (sc_argv(False, 16, 0), r"Number of messages \(-n\) must be at least 1, got 0"),
        (sc_argv(False, "x", 1), r'Invalid value "x" for flag -s/--msg-size'),
        ([SC_HOST, "-n", "1", "-p", "b1:00.0"], r"Missing mandatory flag -s/--msg-size"),
        ([SC_HOST, "-s", "1", "-p", "b1:00.0"], r"Missing mandatory flag -n/--num-msgs"),
        ([SC_HOST, "-s", "1", "-n", "1"], r"Missing mandatory flag -p/--pci-addr"),
        ([SC_DPU, "-s", "1", "-n", "1", "-p", "03:00.0"], r"needs the representor of the host function: pass -r"),
        ([SC_HOST, "-s", "1", "-n", "1", "-p", "03:00.0"], r"Failed to open Comch device 03:00.0"),
    ]
    for argv, pattern in cases:
        r = c.start(argv).finish(TIMEOUT)
        check(r.code != 0, "a bad command line was accepted", r)
        expect_line(r, pattern)


def test_secure_channel_sides_disagree():
    d, h = sc_pair(100, 5, host_size=200)
    for r, theirs, ours in ((d, 200, 100), (h, 100, 200)):
        check(r.code == 1, "expected exit code 1", d, h)
        expect_line(r, r"The other side sends 5 messages of %d bytes, this side 5 of %d: start both sides with "
                    r"the same -s and -n" % (theirs, ours))


def test_secure_channel_dpu_killed():
    """The DPU dies in the middle of the exchange: the host fails, it does not hang."""
    c = Case()
    d = c.start(sc_argv(True, 1 << 20, 1 << 20))
    d.wait_for(r"Server waiting on a client to connect")
    h = c.start(sc_argv(False, 1 << 20, 1 << 20))
    d.wait_for(r"Connection established")
    time.sleep(0.3)
    d.p.send_signal(signal.SIGKILL)
    h = h.finish(TIMEOUT)
    check(h.code == 1, "the host did not fail after the DPU died", h)
    # which side of the host sees it first depends on timing: any of the app's reasons, and only one
    expect_line(h, r"The other side left before|Consumer failed to receive|Producer failed to send")
    check(len(re.findall(r"Producer failed to send|Consumer failed to receive", h.both)) <= 1,
          "the host logged the failure more than once", h)


# ------------------------------------------------------------ runner

def closing(fn):
    """fn, then every Case it made closed: its programs killed, its files (64 MiB ones) removed."""
    def case():
        try:
            fn()
        finally:
            while OPEN:
                OPEN.pop().close()
    return case


def main():
    return tap.run([(name, closing(fn)) for name, fn in tap.cases(globals())])


if __name__ == "__main__":
    sys.exit(main())
