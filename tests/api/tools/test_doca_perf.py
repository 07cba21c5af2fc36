#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""doca_perf run as a program: usage errors (exit 2, one line naming the flag),
--json output and its config, --buffers and the verified bytes, and failures
that must end the run at once with the reason (unusable --oob-dir, a forked
server that dies, a peer killed in the middle of a run).  Speed is never judged
here (that is bench/compare.py's job); TAP on stdout."""
import json
import os
import random
import resource
import signal
import socket
import subprocess
import sys
import tempfile
import time

PERF = sys.argv[1]
results = []


class Skip(Exception):
    pass


def run(args, timeout=120, preexec_fn=None):
    return subprocess.run([PERF] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          timeout=timeout, preexec_fn=preexec_fn)


def start(args, stdout=subprocess.PIPE):
    return subprocess.Popen([PERF] + args, stdout=stdout, stderr=subprocess.PIPE, text=True)


def free_port():
    """A TCP port below the ephemeral range that nobody listens on now."""
    for _ in range(200):
        port = random.randint(20000, 30000)
        with socket.socket() as sk:
            try:
                sk.bind(("0.0.0.0", port))
            except OSError:
                continue
            return port
    raise AssertionError("no free TCP port")


def wait_listening(port, seconds, srv):
    """Until a socket listens on TCP port (the server's RDMA-CM listener), read from /proc/net/tcp*."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < seconds:
        for table in ("/proc/net/tcp", "/proc/net/tcp6"):
            try:
                rows = open(table).read().splitlines()[1:]
            except OSError:
                continue
            for row in rows:
                f = row.split()
                if f[1].rsplit(":", 1)[1] == "%04X" % port and f[3] == "0A":
                    return
        assert srv.poll() is None, "the server exited before listening: %r" % srv.stderr.read()[-300:]
        time.sleep(0.05)
    raise AssertionError("nothing listens on port %d %d s after the server started" % (port, seconds))


def wait_exit(p, seconds, what):
    """p's exit code within seconds (p is killed and the case fails past that)."""
    try:
        p.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
        raise AssertionError("%s: still running after %d s; stderr: %r" % (what, seconds, err[-300:]))
    return p.returncode


def case(name):
    def wrap(fn):
        try:
            fn()
            results.append((name, None))
        except Skip as e:
            results.append((name, "SKIP %s" % e))
        except AssertionError as e:
            results.append((name, str(e) or "assertion failed"))
        except Exception as e:  # a crash of the harness is a failure too, with its reason
            results.append((name, "%s: %s" % (type(e).__name__, e)))
        return fn
    return wrap


@case("usage_errors_exit_2_and_name_the_flag")
def _():
    for args, flag in ((["dma", "--buffers", "0"], "--buffers"), (["dma", "-t", "0"], "-t"),
                       (["dma", "-s", "12Q"], "-s"), (["rdma", "bogus"], "bogus"), (["nope"], "nope"),
                       (["dma", "--sge", "2000"], "--sge"), (["dma", "-D", "-1"], "-D"),
                       (["dma", "--lat-every", "0"], "--lat-every"),
                       (["rdma", "write", "--lat-every", "4"], "--lat-every")):
        p = run(args)
        assert p.returncode == 2, "%s: exit %d, expected 2" % (args, p.returncode)
        assert flag in p.stderr, "%s: stderr does not name %s: %r" % (args, flag, p.stderr[-200:])
        assert p.stdout == "", "%s: printed on stdout: %r" % (args, p.stdout[:100])


@case("help_lists_buffers")
def _():
    p = run(["--help"])
    assert p.returncode == 0, "exit %d" % p.returncode
    assert "--buffers N" in p.stdout and "--report_gbits" in p.stdout


@case("dma_json_rows_per_size_with_buffers")
def _():
    # 64 B x 8 buffers: an area that is not a whole page (aligned_alloc's rule, checked by ASan)
    p = run(["dma", "-s", "64,4K,64K", "-n", "200", "-t", "8", "--buffers", "2", "--json", "--no-progress"])
    assert p.returncode == 0, "exit %d: %s" % (p.returncode, p.stderr[-300:])
    d = json.loads(p.stdout)
    rows = d["results"]
    assert [r["size"] for r in rows] == [64, 4096, 65536], rows
    for r in rows:
        assert r["tasks"] == 200, r
        assert r["bytes_per_sec"] > 0 and r["tasks_per_sec"] > 0, r
        assert r["lat_ns"]["p50"] <= r["lat_ns"]["p99"] <= r["lat_ns"]["p999"], r["lat_ns"]


@case("dma_times_one_small_task_in_64_and_every_large_one")
def _():
    def samples(args):
        p = run(["dma", "-n", "3200", "-t", "8", "--warmup", "0", "--json", "--no-progress"] + args)
        assert p.returncode == 0, "%s: exit %d: %s" % (args, p.returncode, p.stderr[-300:])
        return {r["size"]: (r["tasks"], r["lat_ns"]["samples"]) for r in json.loads(p.stdout)["results"]}
    got = samples(["-s", "64,4K"])
    # the first depth submits are timed, then one resubmit in 64 (the last completions of a few are not seen)
    assert got[4096] == (3200, 3200), got
    assert got[64][0] == 3200 and 3200 // 64 <= got[64][1] <= 3200 // 64 + 8, got
    got = samples(["-s", "64", "--lat-every", "1"])
    assert got[64] == (3200, 3200), got
    got = samples(["-s", "4K", "--lat-every", "100"])
    assert got[4096][0] == 3200 and 32 <= got[4096][1] <= 40, got


@case("rdma_write_one_buffer_both_sides_forked")
def _():
    p = run(["rdma", "write", "-s", "1M", "-n", "64", "-t", "4", "--buffers", "1", "--json", "--no-progress"])
    assert p.returncode == 0, "exit %d: %s" % (p.returncode, p.stderr[-300:])
    rows = json.loads(p.stdout)["results"]
    assert len(rows) == 1 and rows[0]["size"] == 1 << 20 and rows[0]["tasks"] == 64, rows


@case("memory_kinds_for_rdma_and_verbs_only")
def _():
    """--memory memfd|shm: both forked sides register a shared object and the run completes;
    an unknown kind, or --memory with dma, is a usage error naming the flag."""
    for kind in ("memfd", "shm"):
        for fam in (["rdma", "write"], ["verbs", "write"]):
            p = run(fam + ["-s", "64K", "-n", "200", "-t", "4", "--buffers", "1", "--memory", kind, "--json",
                           "--no-progress"])
            assert p.returncode == 0, "%s --memory %s: exit %d: %s" % (fam, kind, p.returncode, p.stderr[-300:])
            rows = json.loads(p.stdout)["results"]
            assert len(rows) == 1 and rows[0]["tasks"] == 200, rows
    p = run(["rdma", "write", "--memory", "cxl"])
    assert p.returncode == 2 and "--memory: 'cxl' is not private, memfd, shm or hugetlb" in p.stderr, p.stderr
    p = run(["dma", "--memory", "memfd"])
    assert p.returncode == 2 and "--memory is an rdma and verbs option" in p.stderr, p.stderr


@case("oob_dir_unusable_fails_at_once_with_the_reason")
def _():
    with tempfile.TemporaryDirectory(prefix="sd-perf-") as tmp:
        afile = os.path.join(tmp, "a_file")
        open(afile, "w").close()
        for d, why in ((os.path.join(tmp, "missing"), "No such file or directory"), (afile, "not a directory"),
                       ("/proc", "cannot create files there")):
            for role in ("--client", "--server"):
                t0 = time.monotonic()
                p = run(["rdma", "write", role, "--oob-dir", d, "-n", "10", "--no-progress"], timeout=30)
                took = time.monotonic() - t0
                assert p.returncode == 1, "%s %s: exit %d, expected 1" % (role, d, p.returncode)
                assert "--oob-dir %s: " % d in p.stderr and why in p.stderr, \
                    "%s %s: reason not given: %r" % (role, d, p.stderr[-300:])
                assert took < 10, "%s %s: took %.1f s to fail" % (role, d, took)


@case("forked_server_failing_to_listen_is_named_at_once")
def _():
    with socket.socket() as busy:
        busy.bind(("0.0.0.0", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        t0 = time.monotonic()
        p = run(["rdma", "write", "-cm", "-p", str(port), "-n", "10", "--no-progress"], timeout=60)
    assert p.returncode == 1, "exit %d, expected 1: %s" % (p.returncode, p.stderr[-300:])
    assert "the server process (pid" in p.stderr and "exited with status 1 while the client was waiting for " \
        "the server to start listening" in p.stderr, p.stderr[-400:]
    assert time.monotonic() - t0 < 15, "took %.1f s" % (time.monotonic() - t0)


@case("low_address_space_limit_never_hangs_the_parent")
def _():
    """Under ulimit -v either side may fail anywhere: the run must end, with a reason, and leave no server."""
    def probe(n=250 << 20):
        resource.setrlimit(resource.RLIMIT_AS, (n, n))
    if run(["--help"], timeout=30, preexec_fn=probe).returncode != 0:
        raise Skip("doca_perf cannot start at all under a 250 MiB address-space limit (a sanitizer build "
                   "reserves terabytes of shadow memory)")
    for limit_mb in (250, 280, 285, 290, 295, 300, 325):
        def limit(n=limit_mb << 20):
            resource.setrlimit(resource.RLIMIT_AS, (n, n))
        t0 = time.monotonic()
        try:
            p = run(["rdma", "write", "-s", "16M", "-t", "16", "-n", "100", "--no-progress"], timeout=60,
                    preexec_fn=limit)
        except subprocess.TimeoutExpired:
            raise AssertionError("ulimit -v %d MiB: doca_perf still running after 60 s" % limit_mb)
        assert p.returncode in (0, 1), "ulimit -v %d MiB: exit %d: %s" % (limit_mb, p.returncode, p.stderr[-300:])
        if p.returncode == 1:
            assert "doca_perf: " in p.stderr, "ulimit -v %d MiB: failed without a reason" % limit_mb
        assert time.monotonic() - t0 < 30, "ulimit -v %d MiB: took %.0f s" % (limit_mb, time.monotonic() - t0)


def kill_client_mid_run(op, cm):
    """A --server whose --client is killed while connected must exit 1 naming the lost client."""
    with tempfile.TemporaryDirectory(prefix="sd-perf-") as tmp:
        if cm:
            port = str(free_port())
            srv_args, cli_args = ["-cm", "-p", port], ["-cm", "--server-addr", "127.0.0.1", "-p", port]
        else:
            srv_args = cli_args = ["--oob-dir", tmp]
        srv = start(["rdma", op, "--server", "-s", "4K", "--no-progress"] + srv_args)
        cli = None
        try:
            if cm:
                wait_listening(int(port), 30, srv)
            cli = start(["rdma", op, "--client", "-s", "4K", "-n", "1000", "--idle", "60", "--no-progress"] +
                        cli_args)
            # The client prints its row after the run, then idles connected.
            line, t0 = "", time.monotonic()
            while "4096" not in line:
                assert time.monotonic() - t0 < 30, "the client printed no result row"
                line = cli.stdout.readline()
                assert line or cli.poll() is None, "the client exited: %r" % cli.stderr.read()[-300:]
            cli.send_signal(signal.SIGKILL)
            cli.wait()
            code = wait_exit(srv, 15, "the server after its client was killed")
            err = srv.stderr.read()
            assert code == 1, "server exit %d after its client was killed, expected 1: %r" % (code, err[-300:])
            assert "server: lost the client" in err, "the server does not name the lost client: %r" % err[-300:]
        finally:
            for p in (cli, srv):
                if p is not None and p.poll() is None:
                    p.kill()
                    p.wait()


@case("server_cm_write_reports_killed_client")
def _():
    kill_client_mid_run("write", True)


@case("server_cm_read_reports_killed_client")
def _():
    kill_client_mid_run("read", True)


@case("server_oob_write_reports_killed_client")
def _():
    try:
        kill_client_mid_run("write", False)
    except AssertionError as e:
        raise AssertionError("needs the libdoca_rdma fix (posted receives complete with an error when the peer "
                             "of their connection dies): %s" % e)


@case("server_oob_read_reports_killed_client")
def _():
    try:
        kill_client_mid_run("read", False)
    except AssertionError as e:
        raise AssertionError("needs the libdoca_rdma fix (posted receives complete with an error when the peer "
                             "of their connection dies): %s" % e)


@case("client_reports_killed_server")
def _():
    with tempfile.TemporaryDirectory(prefix="sd-perf-") as tmp:
        srv = start(["rdma", "write", "--server", "--oob-dir", tmp, "-s", "4K", "--no-progress"])
        cli = start(["rdma", "write", "--client", "--oob-dir", tmp, "-s", "4K", "-D", "30", "--no-progress"])
        try:
            time.sleep(2)
            assert cli.poll() is None, "the client ended early: %r" % cli.stderr.read()[-300:]
            srv.kill()
            srv.wait()
            code = wait_exit(cli, 15, "the client after its server was killed")
            err = cli.stderr.read()
            assert code == 1, "client exit %d, expected 1: %r" % (code, err[-300:])
            assert "client: lost the server" in err, "the client does not name the lost server: %r" % err[-300:]
        finally:
            for p in (cli, srv):
                if p.poll() is None:
                    p.kill()
                    p.wait()


for i, (name, why) in enumerate(results, 1):
    if why is None:
        print("ok %d %s" % (i, name))
    elif why.startswith("SKIP "):
        print("ok %d %s # %s" % (i, name, why))
    else:
        print("not ok %d %s\n# %s" % (i, name, why))
print("1..%d" % len(results))
sys.exit(0 if all(w is None or w.startswith("SKIP ") for _, w in results) else 1)
