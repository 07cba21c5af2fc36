# SPDX-License-Identifier: BSD-3-Clause
"""Drive pairs of DOCA RDMA samples the way a person does on one machine.

Each program runs in the background with its stdin on a pipe; its output is read
as it comes.  The driver waits for the prompts a person would wait for, checks
that the files a prompt names exist, writes "\\n" to the right program in the
documented order, and collects exit codes and output.  Used by the sample tests
(tests/samples: RDMA and Verbs pairs; DMA and Comch through Proc and Run), the namespace
tests (tests/netns) and the valgrind suite.
"""
import os
import random
import re
import shutil
import socket
import subprocess
import tempfile
import threading
import time

from . import netns, tap
from .tap import Failure, Skip, check  # noqa: F401 - the drivers' callers use them from here

# seconds for one expected line or one exit (RDMA_PAIRS_WAIT: more for slow runs, e.g. under valgrind)
WAIT = int(os.environ.get("RDMA_PAIRS_WAIT", "20"))
PROMPT = "press enter"

SAMPLES = {}     # "send" -> path of doca_rdma_send, ...


def load_samples(paths):
    """Map each doca_rdma_<name> path given on the command line to <name>."""
    for p in paths:
        base = os.path.basename(p)
        if base.startswith("doca_rdma_"):
            SAMPLES[base[len("doca_rdma_"):]] = p
    return SAMPLES


class Run:
    """A finished program: exit code and both output streams."""

    def __init__(self, argv, code, out, err):
        self.argv, self.code, self.out, self.err = argv, code, out, err

    @property
    def both(self):
        return self.out + self.err

    def describe(self):
        return ("command: %s\nexit code: %s\n--- stdout ---\n%s--- stderr ---\n%s"
                % (" ".join(self.argv), self.code, self.out, self.err))


def expect_line(r, pattern, stream=None):
    text = r.both if stream is None else getattr(r, stream)
    check(re.search(pattern, text, re.M) is not None, "no line matching /%s/" % pattern, r)


def expect_in_order(r, patterns):
    """Each pattern matches a stdout line after the line the previous one matched."""
    pos = 0
    for pat in patterns:
        m = re.compile(pat, re.M).search(r.out, pos)
        check(m is not None, "no line matching /%s/ after the previous expected lines" % pat, r)
        pos = m.end()


def last_line(text):
    lines = [line for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else ""


def expect_success(r):
    """DOCA's pass criterion: exit 0 and the last line says so."""
    check(r.code == 0, "expected exit code 0, got %s" % r.code, r)
    check(last_line(r.out).endswith("Sample finished successfully"),
          "last stdout line is not 'Sample finished successfully'", r)


def expect_failure(r):
    check(r.code == 1, "expected exit code 1, got %s" % r.code, r)
    check(last_line(r.out).endswith("Sample finished with errors"),
          "last stdout line is not 'Sample finished with errors'", r)


class Side:
    """How to start one side: IB device, command prefix (ip netns exec ...), extra environment."""

    def __init__(self, dev="mlx5_0", prefix=(), env=None):
        self.dev, self.prefix, self.env = dev, list(prefix), dict(env or {})


class Proc:
    """One program running in the background (cwd: its working directory)."""

    def __init__(self, argv, env, cwd=None):
        self.argv = argv
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, env=env, cwd=cwd)
        self.out, self.err = [], []
        self.cond = threading.Condition()
        self.readers = [threading.Thread(target=self._drain, args=(s, acc), daemon=True)
                        for s, acc in ((self.p.stdout, self.out), (self.p.stderr, self.err))]
        for t in self.readers:
            t.start()

    def _drain(self, stream, acc):
        for line in iter(stream.readline, b""):
            with self.cond:
                acc.append(line.decode(errors="replace"))
                self.cond.notify_all()
        with self.cond:
            self.cond.notify_all()

    def snapshot(self):
        with self.cond:
            return Run(self.argv, self.p.poll(), "".join(self.out), "".join(self.err))

    def count(self, pattern):
        rx = re.compile(pattern)
        with self.cond:
            return sum(1 for line in self.out if rx.search(line))

    def wait_for(self, pattern, count=1, timeout=WAIT):
        """Wait until count stdout lines match; fail if the program exits first."""
        deadline = time.monotonic() + timeout
        while True:
            if self.count(pattern) >= count:
                return
            if self.p.poll() is not None and not any(t.is_alive() for t in self.readers):
                raise Failure("exited before printing /%s/ (x%d)\n%s" % (pattern, count, self.snapshot().describe()))
            if time.monotonic() > deadline:
                raise Failure("no /%s/ (x%d) within %d s\n%s" % (pattern, count, timeout, self.snapshot().describe()))
            with self.cond:
                self.cond.wait(0.05)

    def wait_any(self, patterns, timeout=WAIT):
        """Wait until one of patterns appears on stdout or stderr; return its index."""
        deadline = time.monotonic() + timeout
        rxs = [re.compile(p) for p in patterns]
        while True:
            snap = self.snapshot()
            for i, rx in enumerate(rxs):
                if rx.search(snap.both):
                    return i
            if snap.code is not None and not any(t.is_alive() for t in self.readers):
                raise Failure("exited before printing any of %s\n%s" % (patterns, snap.describe()))
            if time.monotonic() > deadline:
                raise Failure("none of %s within %d s\n%s" % (patterns, timeout, snap.describe()))
            with self.cond:
                self.cond.wait(0.05)

    def wait_prompt(self, n=1):
        """Wait for the n-th "... press enter" prompt."""
        self.wait_for(PROMPT, n)

    def enter(self):
        check(self.p.poll() is None, "cannot press Enter: the program has exited", self.snapshot())
        self.p.stdin.write(b"\n")
        self.p.stdin.flush()

    def running(self):
        return self.p.poll() is None

    def finish(self, timeout=WAIT):
        """Wait for the exit (stdin stays open: EOF would count as an Enter)."""
        try:
            code = self.p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise Failure("did not exit within %d s\n%s" % (timeout, self.snapshot().describe()))
        for t in self.readers:
            t.join(timeout=5)
        try:
            self.p.stdin.close()
        except OSError:
            pass
        return Run(self.argv, code, "".join(self.out), "".join(self.err))

    def kill(self):
        if self.p.poll() is None:
            self.p.kill()
            self.p.wait()


class Session:
    """The programs and private files of one test; everything is killed and removed at the end."""

    def __init__(self):
        self.tmp = tempfile.mkdtemp(prefix="sd-rdma-")
        self.procs = []

    def path(self, name):
        return os.path.join(self.tmp, name)

    def start(self, side, sample, *args):
        check(sample in SAMPLES, "doca_rdma_%s was not given to the test" % sample)
        env = dict(os.environ)
        env.setdefault("SOFTDOCA_TOPOLOGY", "builtin")
        env.update(side.env)
        argv = side.prefix + [SAMPLES[sample], "-d", side.dev] + [str(a) for a in args]
        p = Proc(argv, env)
        self.procs.append(p)
        return p

    def close(self):
        for p in self.procs:
            p.kill()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def run_once(side, sample, *args, stdin=b"", timeout=WAIT):
    """Run a sample to completion with the given stdin (bad-input cases)."""
    env = dict(os.environ)
    env.setdefault("SOFTDOCA_TOPOLOGY", "builtin")
    env.update(side.env)
    argv = side.prefix + [SAMPLES[sample]] + ([] if side.dev is None else ["-d", side.dev]) + [str(a) for a in args]
    p = subprocess.run(argv, input=stdin, capture_output=True, timeout=timeout, env=env)
    return Run(argv, p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace"))


def _ephemeral_low():
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def free_port():
    """A TCP port nobody uses right now (for -lp), below the ephemeral range.

    A port the kernel handed out with bind(0) is an ephemeral one: by the time
    the sample listens, any outgoing connection on the machine (UCX opens
    many) may have taken it as its source port ("Address already in use", seen
    with parallel runs).  Ports below the ephemeral range are never assigned
    that way; a random pick keeps parallel runs apart.
    """
    high = min(_ephemeral_low(), 65536) - 1
    low = 20000 if high > 21000 else 1024
    for _ in range(200):
        port = random.randint(low, high)
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            try:
                s.bind(("0.0.0.0", port))
            except OSError:
                continue
            return port
    raise Failure("no free TCP port below the ephemeral range")


def files_gone(*paths):
    left = [p for p in paths if os.path.exists(p)]
    check(not left, "descriptor files left behind: %s" % left)


def q(text):
    return re.escape(text)


# ------------------------------------------------------------------ OOB pairs

def send_receive(s, text, imm=False, a=None, b=None):
    """Receiver on side a, sender on side b.  Enter: receiver, then sender."""
    a, b = a or Side(), b or Side()
    A, B = s.path("receiver_conn.txt"), s.path("sender_conn.txt")
    recv = s.start(a, "receive_immediate" if imm else "receive", "-ld", A, "-re", B)
    send = s.start(b, "send_immediate" if imm else "send", "-ld", B, "-re", A, "-s", text)
    recv.wait_for(r"Please copy %s from the sender and then press enter" % q(B))
    send.wait_for(r"Please copy %s from the receiver and then press enter" % q(A))
    check(os.path.exists(A) and os.path.exists(B), "a prompt came before both descriptor files existed")
    recv.enter()
    recv.wait_for(r"Receive task was submitted")
    send.enter()
    rs, rr = send.finish(), recv.finish()
    expect_success(rs)
    expect_success(rr)
    if imm:
        expect_line(rs, r'Submitting RDMA send task that sends "%s" with immediate value 43981' % q(text))
        expect_line(rs, r"RDMA send with immediate task was done successfully")
        expect_line(rr, r'Got from sender: "%s" with immediate: 43981$' % q(text))
    else:
        expect_line(rs, r'Submitting RDMA send task that sends "%s" to receiver' % q(text))
        expect_line(rs, r"RDMA send task was done successfully")
        expect_line(rr, r'Got from sender: "%s"$' % q(text))
    files_gone(A, B)
    return rs, rr


def write_pair(s, text, imm=False, a=None, b=None):
    """Responder on side a, requester on side b."""
    a, b = a or Side(), b or Side()
    A, B, M = s.path("responder_conn.txt"), s.path("requester_conn.txt"), s.path("responder_mmap.txt")
    kind = "write_immediate" if imm else "write"
    resp = s.start(a, kind + "_responder", "-ld", A, "-re", B, "-m", M)
    req = s.start(b, kind + "_requester", "-ld", B, "-re", A, "-m", M, "-w", text)
    resp.wait_for(r"You can now copy %s and %s to the requester" % (q(A), q(M)))
    resp.wait_for(r"Please copy %s from the requester and then press enter" % q(B))
    req.wait_for(r"Please copy %s and %s from the responder and then press enter" % (q(A), q(M)))
    check(all(os.path.exists(p) for p in (A, B, M)), "a prompt came before the descriptor files existed")
    resp.enter()
    if imm:
        resp.wait_for(r"Waiting for the requester to write with immediate")
    else:
        resp.wait_prompt(2)
        expect_line(resp.snapshot(), r"Wait till the requester has finished writing and press enter")
    req.enter()
    rq = req.finish()
    expect_success(rq)
    if imm:
        expect_line(rq, r'Written to responder "%s" with immediate value 43981$' % q(text))
    else:
        expect_line(rq, r'Written to responder "%s"$' % q(text))
        # The responder sat in getchar() during the write and has not looked yet.
        check(resp.running(), "the responder exited before its second Enter", resp.snapshot())
        check(resp.count("Requester has written") == 0, "the responder printed before Enter", resp.snapshot())
        resp.enter()
    rr = resp.finish()
    expect_success(rr)
    if imm:
        expect_line(rr, r'Requester has written: "%s" with immediate data: 43981$' % q(text))
    else:
        expect_line(rr, r'Requester has written: "%s"$' % q(text))
    files_gone(A, B, M)
    return rq, rr


def read_pair(s, text, a=None, b=None):
    a, b = a or Side(), b or Side()
    A, B, M = s.path("responder_conn.txt"), s.path("requester_conn.txt"), s.path("responder_mmap.txt")
    resp = s.start(a, "read_responder", "-ld", A, "-re", B, "-m", M, "-r", text)
    req = s.start(b, "read_requester", "-ld", B, "-re", A, "-m", M)
    resp.wait_for(r"Please copy %s from the requester and then press enter" % q(B))
    req.wait_for(r"Please copy %s and %s from the responder and then press enter" % (q(A), q(M)))
    resp.enter()
    resp.wait_prompt(2)
    expect_line(resp.snapshot(), r"Wait till the requester has finished reading and press enter")
    req.enter()
    rq = req.finish()
    expect_success(rq)
    expect_line(rq, r'Read from responder: "%s"$' % q(text))
    check(resp.running(), "the responder exited before its second Enter", resp.snapshot())
    resp.enter()
    rr = resp.finish()
    expect_success(rr)
    files_gone(A, B, M)
    return rq, rr


SYNC_REQUESTER_LINES = [r"Received sync event value 0xd0cb$", r"Notifying remote sync event for completion$",
                        r"Remote sync event has been notified for completion successfully$"]
SYNC_RESPONDER_LINES = [r"Waiting for sync event to be signaled from remote$", r"Signaling sync event$",
                        r"Waiting for sync event to be notified for completion$"]


def sync_event_pair(s, a=None, b=None):
    a, b = a or Side(), b or Side()
    A, B, M = s.path("responder_conn.txt"), s.path("requester_conn.txt"), s.path("responder_event.txt")
    resp = s.start(a, "sync_event_responder", "-ld", A, "-re", B, "-m", M)
    req = s.start(b, "sync_event_requester", "-ld", B, "-re", A, "-m", M)
    resp.wait_for(r"You can now copy %s and %s to the requester" % (q(A), q(M)))
    resp.wait_prompt(1)
    req.wait_prompt(1)
    resp.enter()
    resp.wait_for(SYNC_RESPONDER_LINES[0])
    req.enter()
    rq, rr = req.finish(), resp.finish()
    expect_success(rq)
    expect_success(rr)
    expect_in_order(rq, SYNC_REQUESTER_LINES)
    expect_in_order(rr, SYNC_RESPONDER_LINES)
    files_gone(A, B, M)
    return rq, rr


def check_multi_receive(rr, text, n):
    """n messages, each on a different connection of the receiver."""
    got = re.findall(r'Got from sender: "%s", sender\'s rdma_connection address \[(0x[0-9a-f]+)\]$' % q(text),
                     rr.out, re.M)
    check(len(got) == n, "expected %d messages, got %d" % (n, len(got)), rr)
    check(len(set(got)) == n, "messages share connections: %s" % got, rr)


def multi_conn(s, n, text, a=None, b=None):
    """n connections, one file pair and one Enter on each side per connection."""
    a, b = a or Side(), b or Side()
    A, B = s.path("receiver_conn"), s.path("sender_conn")
    recv = s.start(a, "multi_conn_receive", "-nc", n, "-ld", A, "-re", B)
    send = s.start(b, "multi_conn_send", "-nc", n, "-ld", B, "-re", A, "-s", text)
    for i in range(n):
        recv.wait_for(r"Please copy %s-%04d from the sender and then press enter" % (q(B), i))
        send.wait_for(r"Please copy %s-%04d from the receiver and then press enter" % (q(A), i))
        check(os.path.exists("%s-%04d" % (A, i)) and os.path.exists("%s-%04d" % (B, i)),
              "connection %d: a prompt came before both files existed" % i)
        recv.enter()
        if i == n - 1:
            recv.wait_for(r"%d receive tasks were submitted" % n)
        send.enter()
    rs, rr = send.finish(), recv.finish()
    expect_success(rs)
    expect_success(rr)
    check(rs.out.count("was done successfully") == n, "expected %d send completions" % n, rs)
    check_multi_receive(rr, text, n)
    files_gone(*["%s-%04d" % (p, i) for p in (A, B) for i in range(n)])
    return rs, rr


# ------------------------------------------------------------------ RDMA-CM

CM_LISTEN = r"Server is listening on RDMA-CM port"


def cm_server(s, side, sample, port, *args):
    """Start an RDMA-CM server and wait until it listens (a failure to listen fails the case)."""
    p = s.start(side, sample, "-cm", "-lp", port, *args)
    p.wait_any([CM_LISTEN])
    return p


def cm_client(s, side, sample, port, *args, addr="127.0.0.1"):
    return s.start(side, sample, "-cm", "-sa", addr, "-lp", port, *args)


def run_tests(namespace, argv, filter_env, load=None):
    """The test_* functions of namespace (a module's globals()) as TAP, after loading the
    samples named in argv (with load, default load_samples); filter_env names a variable
    holding a regex to run a subset."""
    (load or load_samples)(argv)
    tests = tap.cases(namespace)
    only = os.environ.get(filter_env)
    if only:
        tests = [(n, f) for n, f in tests if re.search(only, n)]
    return tap.run(tests)


def run_across_namespaces(tests, name):
    """TAP over tests, fn(hosts, sides), in two "hosts" (netns.TwoHosts, one veth pair
    192.0.2.1/24 - 192.0.2.2/24, TEST-NET-1): sides[i] starts a sample in namespace i with
    a topology whose mlx5_0 carries its traffic on that veth end, and UCX_TLS=tcp.  Every
    case is skipped with the reason when the namespaces cannot be made; they are always
    deleted."""
    hosts = netns.TwoHosts(name, {"v": "192.0.2.%d/24"})
    try:
        try:
            hosts.up()
            # ip netns exec keeps the environment: the topology and UCX_TLS reach the sample.
            sides = [Side("mlx5_0", prefix=hosts.exec(i), env={"SOFTDOCA_TOPOLOGY": hosts.topology(i), "UCX_TLS": "tcp"})
                     for i in (0, 1)]
            skip = None
        except Skip as e:
            sides, skip = None, str(e)
        return tap.run(tests, args=(hosts, sides), skip=skip)
    finally:
        hosts.down()
