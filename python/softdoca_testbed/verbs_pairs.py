# SPDX-License-Identifier: BSD-3-Clause
"""Drive doca_verbs_server_client pairs the way a person does.

The server starts first; the client is started only once the server printed
that it listens on TCP port 5000 (the port is fixed, as in DOCA, so pairs run
one after the other).  Without -b the client asks for each burst size on stdin:
the driver waits for each prompt and types the next size.  Programs, output
capture and the checks come from pairs.py.  Used by
tests/samples/verbs/test_verbs_samples.py and tests/netns/verbs/test_verbs_netns.py.
"""
import os
import re
import socket

from .pairs import (WAIT, Failure, Proc, Run, Side, Skip, check, expect_failure,  # noqa: F401
                    expect_in_order, expect_line, expect_success)

SAMPLES = {}     # "server_client" -> path of doca_verbs_server_client, "wait_cq_wr" -> ...

OOB_PORT = 5000
LISTEN = r"Waiting for a client to connect on TCP port 5000$"
CONNECTED = r"QP has been successfully connected and ready to use$"
PROMPT = r"Enter the required burst size"
CLIENT_DONE = {"send": "Sent message #%d to server", "write": "Wrote message #%d to server",
               "read": "Read a valid message #%d from server"}
SERVER_GOT = "Received a valid message #%d from client"
IDENTICAL = r"Data in buffer3 is identical to the data in buffer1$"


def load_samples(paths):
    """Map each doca_verbs_<name> path given on the command line to <name>."""
    for p in paths:
        base = os.path.basename(p)
        if base.startswith("doca_verbs_"):
            SAMPLES[base[len("doca_verbs_"):]] = p
    return SAMPLES


def _env(side):
    env = dict(os.environ)
    env.setdefault("SOFTDOCA_TOPOLOGY", "builtin")
    env.update(side.env)
    return env


def argv_of(side, sample, args):
    check(sample in SAMPLES, "doca_verbs_%s was not given to the test" % sample)
    dev = [] if side.dev is None else ["-d", side.dev]
    return side.prefix + [SAMPLES[sample]] + dev + [str(a) for a in args]


def run_once(side, sample, *args, stdin=b"", timeout=WAIT):
    """Run a sample to completion with the given stdin; a hang fails the case."""
    import subprocess
    argv = argv_of(side, sample, args)
    try:
        p = subprocess.run(argv, input=stdin, capture_output=True, timeout=timeout, env=_env(side))
    except subprocess.TimeoutExpired as e:
        raise Failure("%s did not exit within %d s\n%s%s" % (" ".join(argv), timeout,
                      (e.stdout or b"").decode(errors="replace"), (e.stderr or b"").decode(errors="replace")))
    return Run(argv, p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace"))


def port_in_use(port=OOB_PORT):
    """True when something already listens on 127.0.0.1:port (a pair cannot run then)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.settimeout(1)
        return s.connect_ex(("127.0.0.1", port)) == 0


class Session:
    """The programs of one test; whatever still runs at the end is killed."""

    def __init__(self):
        self.procs = []

    def start(self, side, sample, *args):
        p = Proc(argv_of(side, sample, args), _env(side))
        self.procs.append(p)
        return p

    def close(self):
        for p in self.procs:
            p.kill()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def type_line(proc, text):
    """Type text and Enter into a running program's stdin."""
    check(proc.running(), "cannot type %r: the program has exited" % text, proc.snapshot())
    proc.p.stdin.write(text.encode() + b"\n")
    proc.p.stdin.flush()


def start_server(s, side, oper, *args):
    """Start the server and wait until it listens (it sets everything else up first).

    A server in another network namespace (side.prefix) has its own port 5000."""
    if not side.prefix and port_in_use():
        raise Skip("TCP port %d is already in use on this machine" % OOB_PORT)
    server = s.start(side, "server_client", "-ro", oper, *args)
    server.wait_for(LISTEN)
    return server


def start_client(s, side, oper, *args, addr="127.0.0.1"):
    return s.start(side, "server_client", "-c", addr, "-ro", oper, *args)


def feed_bursts(client, bursts):
    """Answer the n-th burst prompt with bursts[n-1]."""
    for i, b in enumerate(bursts, 1):
        client.wait_for(PROMPT, i)
        type_line(client, str(b))


def check_messages(rc, rs, oper, n):
    """The lines a successful pair prints for n messages, in order."""
    expect_success(rc)
    expect_success(rs)
    expect_line(rc, CONNECTED, "out")
    expect_line(rs, CONNECTED, "out")
    expect_in_order(rc, [CONNECTED] + [CLIENT_DONE[oper] % k + "$" for k in range(1, n + 1)])
    if oper == "read":
        check(SERVER_GOT % 1 not in rs.out, "the server of a read pair claims it received a message", rs)
    else:
        expect_in_order(rs, [CONNECTED] + [SERVER_GOT % k + "$" for k in range(1, n + 1)])
        check(SERVER_GOT % (n + 1) not in rs.out, "the server received more than %d messages" % n, rs)
    if oper == "write":
        expect_line(rs, r"All %d written message\(s\) match" % n, "out")


def verbs_pair(oper, n=1, size=None, bursts=None, server=None, client=None, addr="127.0.0.1", extra=()):
    """One pair end to end: -b when bursts is None, else the burst sizes typed on stdin."""
    server, client = server or Side("mlx5_0"), client or Side("mlx5_1")
    args = ["-n", n] + ([] if size is None else ["-s", size]) + list(extra)
    with Session() as s:
        sp = start_server(s, server, oper, *args)
        cp = start_client(s, client, oper, *args + ([] if bursts is not None else ["-b"]), addr=addr)
        if bursts is not None:
            feed_bursts(cp, bursts)
        rc = cp.finish()
        rs = sp.finish()
    check_messages(rc, rs, oper, n)
    if bursts is not None:
        check(len(re.findall(PROMPT, rc.out)) == len(bursts),
              "expected %d burst prompts" % len(bursts), rc)
    else:
        check(PROMPT not in rc.out, "the client asked for a burst size although -b was given", rc)
    return rc, rs
