#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The DOCA Verbs samples driven as a person would, printing TAP.

Usage: test_verbs_samples.py DOCA_VERBS_SAMPLE...   (the programs, in any order)

doca_verbs_server_client pairs (server first, client once the server listens
on TCP port 5000; burst sizes typed on stdin unless -b), their flag checks and
failure paths, and doca_verbs_wait_cq_wr.  The pairs share the fixed port, so
the cases run one after the other (meson: is_parallel false).
"""
import os
import re
import sys
import time

from softdoca_testbed.pairs import run_tests
from softdoca_testbed.verbs_pairs import (CONNECTED, IDENTICAL, PROMPT, SERVER_GOT, Session, Side, Skip,
                                          check, check_messages, expect_failure, expect_line, expect_success,
                                          feed_bursts, load_samples, port_in_use, run_once, start_client,
                                          start_server, type_line, verbs_pair)

# ------------------------------------------------------------------ pairs with -b


def test_send_one():
    verbs_pair("send", n=1)


def test_write_one():
    verbs_pair("write", n=1)


def test_read_one():
    verbs_pair("read", n=1)


def test_send_16_of_4096():
    verbs_pair("send", n=16, size=4096)


def test_write_16_of_4096():
    verbs_pair("write", n=16, size=4096)


def test_read_16_of_4096():
    verbs_pair("read", n=16, size=4096)


def test_defaults_are_send_of_64_bytes():
    """No -ro/-s/-n: one send of 64 bytes."""
    with Session() as s:
        sp = s.start(Side("mlx5_0"), "server_client")
        sp.wait_for(r"Waiting for a client to connect on TCP port 5000$")
        cp = s.start(Side("mlx5_1"), "server_client", "-c", "127.0.0.1", "-b")
        rc, rs = cp.finish(), sp.finish()
    check_messages(rc, rs, "send", 1)
    expect_line(rc, r"Running as the client: send of 1 message\(s\) of 64 bytes on mlx5_1$", "out")


def test_same_device_both_sides():
    verbs_pair("write", n=4, server=Side("mlx5_0"), client=Side("mlx5_0"))


def test_long_flags_and_any_case():
    """Long names, -ro in upper case, -qt rc in lower case, --gid-index 0."""
    args = ["--iters", "3", "--buffer-size", "128", "--qp-type", "rc", "--gid-index", "0"]
    with Session() as s:
        if port_in_use():
            raise Skip("TCP port 5000 is already in use on this machine")
        sp = s.start(Side("mlx5_0"), "server_client", "--rdma-oper-type", "READ", *args)
        sp.wait_for(r"Waiting for a client to connect on TCP port 5000$")
        cp = s.start(Side(None), "server_client", "--device", "mlx5_1", "--client", "127.0.0.1",
                     "--rdma-oper-type", "Read", "--send-burst", *args)
        rc, rs = cp.finish(), sp.finish()
    check_messages(rc, rs, "read", 3)


# ------------------------------------------------------------------ burst sizes on stdin


def test_send_bursts_on_stdin():
    rc, _ = verbs_pair("send", n=5, bursts=[2, 3])
    expect_line(rc, r"Starting a burst of 2 send operation\(s\)$", "out")
    expect_line(rc, r"Starting a burst of 3 send operation\(s\)$", "out")


def test_write_one_by_one_on_stdin():
    verbs_pair("write", n=3, bursts=[1, 1, 1])


def test_read_bursts_on_stdin():
    verbs_pair("read", n=4, size=256, bursts=[3, 1])


def test_burst_larger_than_left_sends_the_rest():
    rc, _ = verbs_pair("send", n=3, bursts=[100])
    expect_line(rc, r"Starting a burst of 3 send operation\(s\)$", "out")


def test_bad_burst_sizes_ask_again():
    rc, _ = verbs_pair("write", n=2, bursts=["abc", "0", "-1", "2"])
    for bad in ("abc", "0", "-1"):
        expect_line(rc, r'Burst size must be a positive number \(got "%s"\)' % re.escape(bad), "err")


def test_stdin_closed_at_the_prompt_fails_both():
    with Session() as s:
        sp = start_server(s, Side("mlx5_0"), "send", "-n", "2")
        cp = start_client(s, Side("mlx5_1"), "send", "-n", "2")
        cp.wait_for(PROMPT)
        cp.p.stdin.close()
        rc, rs = cp.finish(), sp.finish()
    expect_failure(rc)
    expect_line(rc, r"Standard input ended while waiting for the burst size", "err")
    expect_failure(rs)


def test_write_lands_while_server_busy_polls():
    """The client sits in fgets() at its second prompt; the server, which only reads
    its own memory, must already have seen the first two writes, and no more."""
    with Session() as s:
        sp = start_server(s, Side("mlx5_0"), "write", "-n", "4", "-s", "512")
        cp = start_client(s, Side("mlx5_1"), "write", "-n", "4", "-s", "512")
        feed_bursts(cp, [2])
        cp.wait_for(PROMPT, 2)
        sp.wait_for(SERVER_GOT % 2)
        time.sleep(0.3)
        check(sp.count(SERVER_GOT % 3) == 0, "the server saw message #3 before it was written", sp.snapshot())
        check(sp.running() and cp.running(), "a side exited early", sp.snapshot(), cp.snapshot())
        type_line(cp, "2")
        rc, rs = cp.finish(), sp.finish()
    check_messages(rc, rs, "write", 4)


# ------------------------------------------------------------------ failures


def test_client_without_server_fails_fast():
    if port_in_use():
        raise Skip("TCP port 5000 is already in use on this machine")
    start = time.monotonic()
    r = run_once(Side("mlx5_1"), "server_client", "-c", "127.0.0.1", "-b", timeout=30)
    expect_failure(r)
    expect_line(r, r"Failed to connect to the server at 127\.0\.0\.1:5000: Connection refused", "err")
    check(time.monotonic() - start < 20, "the client took %.1f s to give up" % (time.monotonic() - start), r)


def test_client_notices_dead_server():
    """The server is killed while the client waits at its prompt: the next burst fails, no hang."""
    with Session() as s:
        sp = start_server(s, Side("mlx5_0"), "write", "-n", "3")
        cp = start_client(s, Side("mlx5_1"), "write", "-n", "3")
        feed_bursts(cp, [1])
        cp.wait_for(PROMPT, 2)
        sp.kill()
        type_line(cp, "2")
        rc = cp.finish()
    expect_failure(rc)


def test_server_notices_dead_client():
    """The client is killed at its prompt while the server busy-polls for the next write."""
    with Session() as s:
        sp = start_server(s, Side("mlx5_0"), "write", "-n", "3")
        cp = start_client(s, Side("mlx5_1"), "write", "-n", "3")
        feed_bursts(cp, [1])
        cp.wait_for(PROMPT, 2)
        sp.wait_for(SERVER_GOT % 1)
        cp.kill()
        rs = sp.finish()
    expect_failure(rs)
    expect_line(rs, r"The peer closed the out-of-band connection", "err")


BAD_FLAGS = [
    (["-qt", "UC"], r'QP type \(-qt\) must be RC, the only type this sample supports \(got "UC"\)'),
    (["-n", "0"], r"Number of iterations \(-n\) must be 1\.\.10000 \(got 0\)"),
    (["-n", "10001"], r"Number of iterations \(-n\) must be 1\.\.10000 \(got 10001\)"),
    (["-ro", "foo"], r'RDMA operation type \(-ro\) must be send, write or read \(got "foo"\)'),
    (["-s", "2"], r"Buffer size \(-s\) must be at least 4 bytes"),
    (["-s", "-1"], r"Buffer size \(-s\) must be at least 4 bytes"),
    (["-gid", "-1"], r"GID index \(-gid\) cannot be negative \(got -1\)"),
    (["-c", "server.example"], r"Server address \(-c\) must be an IPv4 address in dotted form"),
    (["-c", "999.1.1.1"], r"Server address \(-c\) must be an IPv4 address in dotted form"),
    (["-s", "1048576", "-n", "10000"], r"Buffer size \(-s\) times iterations \(-n\) is 10485760000 bytes"),
]


def test_bad_flags():
    for args, message in BAD_FLAGS:
        r = run_once(Side("mlx5_0"), "server_client", *args)
        expect_failure(r)
        expect_line(r, message, "err")
        check(CONNECTED not in r.out and "Waiting for a client" not in r.out,
              "%s: the sample went on after a bad flag" % args, r)


def test_missing_device():
    r = run_once(Side(None), "server_client", "-ro", "send")
    expect_failure(r)
    expect_line(r, r"Missing mandatory flag -d/--device", "err")


def test_unknown_device():
    r = run_once(Side("mlx5_9"), "server_client")
    expect_failure(r)
    expect_line(r, r"No device with IB device name mlx5_9 \(-d\)", "err")


def test_help():
    r = run_once(Side(None), "server_client", "-h")
    check(r.code == 0, "-h exits %s" % r.code, r)
    for flag in ("--client", "--device", "--gid-index", "--rdma-oper-type", "--buffer-size", "--qp-type",
                 "--iters", "--send-burst"):
        check(flag in r.both, "-h does not list %s" % flag, r)


# ------------------------------------------------------------------ wait_cq_wr


def test_wait_cq_wr():
    r = run_once(Side("mlx5_0"), "wait_cq_wr")
    expect_success(r)
    expect_line(r, IDENTICAL, "out")


def test_wait_cq_wr_ipv6_and_gid_index():
    r = run_once(Side(None), "wait_cq_wr", "--device-name", "mlx5_1", "--ipv6", "-gi", "0")
    expect_success(r)
    expect_line(r, IDENTICAL, "out")


def test_wait_cq_wr_bad_input():
    for side, args, message in [
            (Side(None), [], r"Missing mandatory flag -d/--device-name"),
            (Side("mlx5_9"), [], r"Failed to open device mlx5_9 \(-d\): Resource not found"),
            (Side("x" * 200), [], r"Device name \(-d\) is too long: at most 127 characters"),
            (Side("mlx5_0"), ["-gi", "-1"], r"GID index \(-gi\) must be 0\.\.255 \(got -1\)")]:
        r = run_once(side, "wait_cq_wr", *args)
        expect_failure(r)
        expect_line(r, message, "err")
        check(IDENTICAL not in r.out, "%s: printed the success line" % args, r)


def main():
    return run_tests(globals(), sys.argv[1:], "VERBS_TEST_FILTER", load=load_samples)


if __name__ == "__main__":
    os.environ.setdefault("SOFTDOCA_TOPOLOGY", "builtin")
    sys.exit(main())
