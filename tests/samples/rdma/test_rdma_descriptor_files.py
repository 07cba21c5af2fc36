#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Which descriptor files the RDMA samples delete, and paths that are not regular files.

Usage: test_rdma_descriptor_files.py DOCA_RDMA_SAMPLE...   (prints TAP)

A sample deletes exactly the files its run wrote, and the peer's files once it
read and used them (connected to them, imported them).  A file that was there
before, that it could not read or parse, or that it never got to, stays with
its bytes.  A FIFO given as a descriptor path fails at once with the reason.
"""
import os
import sys

from softdoca_testbed.pairs import (run_tests, Session, Side, check, expect_failure, expect_line,
                                    expect_success, q, run_once)

FAST = 10   # seconds: a refusal must come at once, never after a hang


def plant(path, data):
    with open(path, "wb") as f:
        f.write(data)


def expect_intact(r, files):
    """Every (path, bytes) is still there, byte for byte."""
    for path, data in files:
        check(os.path.exists(path), "%s was deleted although this run did not write or use it" % path, r)
        with open(path, "rb") as f:
            got = f.read()
        check(got == data, "%s was changed: %r" % (path, got[:64]), r)


def test_existing_local_descriptor_leaves_every_file():
    """-ld exists: the sample refuses and deletes nothing (not -ld, -re or -m)."""
    for sample, extra in (("receive", ()), ("write_requester", ("-w", "x")), ("write_responder", ()),
                          ("sync_event_requester", ())):
        with Session() as s:
            A, B, M = s.path("ld"), s.path("re"), s.path("m")
            files = [(A, b"left over\n"), (B, b"the peer's descriptor\n"), (M, b"an mmap descriptor\n")]
            for path, data in files:
                plant(path, data)
            r = run_once(Side(), sample, "-ld", A, "-re", B, "-m", M, stdin=b"\n\n\n", timeout=FAST)
            expect_failure(r)
            expect_line(r, r"File %s already exists" % q(A), "err")
            expect_intact(r, files)


def test_multi_conn_existing_second_file_kept_first_removed():
    """-nc 2 with <ld>-0001 already there: the run wrote <ld>-0000 (deleted), never touched -0001."""
    with Session() as s:
        A, B = s.path("ld"), s.path("re")
        plant(A + "-0001", b"someone else's\n")
        recv = s.start(Side(), "multi_conn_receive", "-nc", "2", "-ld", A, "-re", B)
        recv.wait_prompt()
        check(os.path.exists(A + "-0000"), "no descriptor written for connection 0", recv.snapshot())
        recv.enter()
        r = recv.finish(timeout=FAST)
        expect_failure(r)
        check(not os.path.exists(A + "-0000"), "the file this run wrote was left behind", r)
        expect_intact(r, [(A + "-0001", b"someone else's\n")])


def test_unparsable_peer_descriptor_is_kept():
    """A peer file that cannot be connected to was not used: it stays, ours goes."""
    with Session() as s:
        A, B = s.path("ld"), s.path("re")
        plant(B, b"this is no connection descriptor\n")
        recv = s.start(Side(), "receive", "-ld", A, "-re", B)
        recv.wait_prompt()
        recv.enter()
        r = recv.finish(timeout=FAST)
        expect_failure(r)
        expect_line(r, r"Failed to connect connection 0 to the sender", "err")
        check(not os.path.exists(A), "own descriptor file left behind", r)
        expect_intact(r, [(B, b"this is no connection descriptor\n")])


def test_oversized_peer_descriptor_is_kept():
    with Session() as s:
        A, B = s.path("ld"), s.path("re")
        plant(B, b"x" * 5000)
        recv = s.start(Side(), "receive", "-ld", A, "-re", B)
        recv.wait_prompt()
        recv.enter()
        r = recv.finish(timeout=FAST)
        expect_failure(r)
        expect_line(r, r"%s holds 5000 bytes; a descriptor has 1\.\.4096 bytes" % q(B), "err")
        expect_intact(r, [(B, b"x" * 5000)])


def test_bad_resource_descriptor_is_kept_used_connection_file_removed():
    """Requester: the responder's connection file was used (deleted), a bad -m was not (kept)."""
    with Session() as s:
        A, B, M, BAD = s.path("resp"), s.path("req"), s.path("mmap"), s.path("bad_mmap")
        plant(BAD, b"not an mmap export\n")
        resp = s.start(Side(), "write_responder", "-ld", A, "-re", B, "-m", M)
        req = s.start(Side(), "write_requester", "-ld", B, "-re", A, "-m", BAD, "-w", "never written")
        resp.wait_prompt()
        req.wait_prompt()
        resp.enter()
        resp.wait_prompt(2)
        req.enter()
        rq = req.finish(timeout=FAST)
        expect_failure(rq)
        expect_line(rq, r"Failed to create the remote mmap from the responder's export", "err")
        expect_intact(rq, [(BAD, b"not an mmap export\n")])
        check(not os.path.exists(A), "the responder's connection file was used but not deleted", rq)
        check(not os.path.exists(B), "the requester's own file was left behind", rq)
        # The responder's mmap file was never read by the requester: still there while it runs.
        check(os.path.exists(M), "the requester deleted an -m file it never read", rq)
        resp.enter()
        rr = resp.finish(timeout=FAST)
        check(not os.path.exists(M), "the responder left the -m file it wrote", rr)


def test_fifo_as_peer_descriptor_fails_at_once():
    with Session() as s:
        A, B = s.path("ld"), s.path("re_fifo")
        os.mkfifo(B)
        recv = s.start(Side(), "receive", "-ld", A, "-re", B)
        recv.wait_prompt()
        recv.enter()
        r = recv.finish(timeout=FAST)
        expect_failure(r)
        expect_line(r, r"%s is not a regular file" % q(B), "err")
        check(os.path.exists(B), "the FIFO was deleted", r)
        check(not os.path.exists(A), "own descriptor file left behind", r)


def test_fifo_as_resource_descriptor_fails_at_once():
    with Session() as s:
        A, B, M = s.path("resp"), s.path("req"), s.path("m_fifo")
        os.mkfifo(M)
        resp = s.start(Side(), "write_responder", "-ld", A, "-re", B, "-m", s.path("real_m"))
        req = s.start(Side(), "write_requester", "-ld", B, "-re", A, "-m", M)
        resp.wait_prompt()
        req.wait_prompt()
        resp.enter()
        resp.wait_prompt(2)
        req.enter()
        rq = req.finish(timeout=FAST)
        expect_failure(rq)
        expect_line(rq, r"%s is not a regular file" % q(M), "err")
        check(os.path.exists(M), "the FIFO was deleted", rq)
        resp.enter()
        resp.finish(timeout=FAST)


def test_fifo_as_local_descriptor_fails_at_once():
    with Session() as s:
        A = s.path("ld_fifo")
        os.mkfifo(A)
        r = run_once(Side(), "send", "-ld", A, "-re", s.path("re"), stdin=b"\n", timeout=FAST)
        expect_failure(r)
        expect_line(r, r"File %s already exists" % q(A), "err")
        check(os.path.exists(A), "the FIFO was deleted", r)


def test_successful_pair_removes_exactly_its_files():
    """Both sides delete what they wrote and used; an unrelated file in the directory stays."""
    with Session() as s:
        A, B, OTHER = s.path("r.txt"), s.path("s.txt"), s.path("unrelated.txt")
        plant(OTHER, b"unrelated\n")
        recv = s.start(Side(), "receive", "-ld", A, "-re", B)
        send = s.start(Side(), "send", "-ld", B, "-re", A, "-s", "files")
        recv.wait_prompt()
        send.wait_prompt()
        recv.enter()
        recv.wait_for("Receive task was submitted")
        send.enter()
        rs, rr = send.finish(), recv.finish()
        expect_success(rs)
        expect_success(rr)
        check(not os.path.exists(A) and not os.path.exists(B), "descriptor files left behind", rr)
        expect_intact(rr, [(OTHER, b"unrelated\n")])


def main():
    return run_tests(globals(), sys.argv[1:], "RDMA_TEST_FILTER")


if __name__ == "__main__":
    os.environ.setdefault("SOFTDOCA_TOPOLOGY", "builtin")
    sys.exit(main())
