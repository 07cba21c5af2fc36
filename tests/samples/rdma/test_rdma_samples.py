#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The 14 DOCA RDMA samples driven in pairs as a person would, printing TAP.

Usage: test_rdma_samples.py DOCA_RDMA_SAMPLE...   (the programs, in any order)

Every pair runs with private descriptor paths in its own temporary directory:
descriptor files + Enter presses (out of band) and RDMA-CM on a free port.
"""
import os
import sys

from softdoca_testbed.pairs import (run_tests, Session, Side, check, check_multi_receive, cm_client,
                                    cm_server, expect_failure, expect_in_order, expect_line, expect_success,
                                    free_port, multi_conn, q, read_pair, run_once, send_receive,
                                    sync_event_pair, write_pair, SYNC_REQUESTER_LINES, SYNC_RESPONDER_LINES)

TCP = {"UCX_TLS": "tcp"}
LONG_TEXT = ("softdoca-" * 32)[:256]     # the longest string the samples accept


# ------------------------------------------------------------------ out of band

def test_send_receive_default_string():
    with Session() as s:
        A, B = s.path("r.txt"), s.path("s.txt")
        recv = s.start(Side(), "receive", "-ld", A, "-re", B)
        send = s.start(Side(), "send", "-ld", B, "-re", A)
        recv.wait_prompt()
        send.wait_prompt()
        recv.enter()
        recv.wait_for("Receive task was submitted")
        send.enter()
        rs, rr = send.finish(), recv.finish()
        expect_success(rs)
        expect_success(rr)
        expect_line(rr, r'Got from sender: "Hi DOCA RDMA!"$')
        expect_in_order(rs, [r"RDMA context entered starting state", r"RDMA context is running",
                             r"Submitting RDMA send task", r"RDMA send task was done successfully",
                             r"RDMA context has been stopped", r"Sample finished successfully"])


def test_send_receive():
    with Session() as s:
        send_receive(s, "hello from the sender")


def test_send_receive_two_devices():
    with Session() as s:
        send_receive(s, "from mlx5_1 to mlx5_0", a=Side("mlx5_0"), b=Side("mlx5_1"))


def test_send_receive_256_characters():
    with Session() as s:
        send_receive(s, LONG_TEXT)


def test_send_receive_ucx_tcp():
    with Session() as s:
        send_receive(s, "over tcp", a=Side(env=TCP), b=Side(env=TCP))


def test_send_receive_gid_index_0():
    with Session() as s:
        A, B = s.path("r.txt"), s.path("s.txt")
        recv = s.start(Side(), "receive", "-g", "0", "-ld", A, "-re", B)
        send = s.start(Side(), "send", "--gid-index", "0", "-ld", B, "-re", A, "-s", "gid 0")
        recv.wait_prompt()
        send.wait_prompt()
        recv.enter()
        recv.wait_for("Receive task was submitted")
        send.enter()
        expect_success(send.finish())
        rr = recv.finish()
        expect_success(rr)
        expect_line(rr, r'Got from sender: "gid 0"$')


def test_send_receive_immediate():
    with Session() as s:
        send_receive(s, "with an immediate", imm=True)


def test_write_pair():
    with Session() as s:
        write_pair(s, "written by the requester")


def test_write_pair_ucx_tcp():
    with Session() as s:
        write_pair(s, "written over tcp", a=Side("mlx5_1", env=TCP), b=Side(env=TCP))


def test_write_pair_256_characters():
    with Session() as s:
        write_pair(s, LONG_TEXT)


def test_write_immediate_pair():
    with Session() as s:
        write_pair(s, "written with an immediate", imm=True)


def test_read_pair():
    with Session() as s:
        read_pair(s, "read me from the responder")


def test_read_pair_default_string():
    with Session() as s:
        A, B, M = s.path("a"), s.path("b"), s.path("m")
        resp = s.start(Side(), "read_responder", "-ld", A, "-re", B, "-m", M)
        req = s.start(Side(), "read_requester", "-ld", B, "-re", A, "-m", M)
        resp.wait_prompt()
        req.wait_prompt()
        resp.enter()
        resp.wait_prompt(2)
        req.enter()
        rq = req.finish()
        resp.enter()
        rr = resp.finish()
        expect_success(rq)
        expect_success(rr)
        expect_line(rq, r'Read from responder: "Hi DOCA RDMA!"$')


def test_sync_event_pair():
    with Session() as s:
        sync_event_pair(s)


def test_sync_event_pair_ucx_tcp():
    with Session() as s:
        sync_event_pair(s, a=Side(env=TCP), b=Side(env=TCP))


def test_multi_conn_1():
    with Session() as s:
        multi_conn(s, 1, "one connection")


def test_multi_conn_4():
    with Session() as s:
        multi_conn(s, 4, "four connections")


def test_multi_conn_8():
    with Session() as s:
        multi_conn(s, 8, "eight connections")


def test_dc_send_receive():
    """DC: the receiver only exports (no Enter, no connect); the sender connects to it."""
    with Session() as s:
        A, B = s.path("r.txt"), s.path("s.txt")
        recv = s.start(Side(), "receive", "-tt", "DC", "-ld", A, "-re", B)
        recv.wait_for(r"DC transport: the sender connects to this side; nothing to read")
        recv.wait_for(r"Receive task was submitted")
        send = s.start(Side(), "send", "-tt", "dc", "-ld", B, "-re", A, "-s", "over DC")
        send.wait_prompt()
        send.enter()
        rs, rr = send.finish(), recv.finish()
        expect_success(rs)
        expect_success(rr)
        check(recv.count("press enter") == 0, "the passive DC side asked for Enter", rr)
        expect_line(rr, r'Got from sender: "over DC"$')


def test_dc_write_pair():
    with Session() as s:
        A, B, M = s.path("a"), s.path("b"), s.path("m")
        resp = s.start(Side(), "write_responder", "-tt", "DC", "-ld", A, "-re", B, "-m", M)
        req = s.start(Side(), "write_requester", "-tt", "DC", "-ld", B, "-re", A, "-m", M, "-w", "written over DC")
        resp.wait_for(r"Wait till the requester has finished writing and press enter")
        check(resp.count("press enter") == 1, "the passive DC responder asked for a connect Enter", resp.snapshot())
        req.wait_prompt()
        req.enter()
        rq = req.finish()
        expect_success(rq)
        resp.enter()
        rr = resp.finish()
        expect_success(rr)
        expect_line(rr, r'Requester has written: "written over DC"$')


# ------------------------------------------------------------------ bad input

def test_missing_device_flag():
    r = run_once(Side(dev=None), "send")
    expect_failure(r)
    expect_line(r, r"device", "err")


def test_unknown_device():
    with Session() as s:
        r = run_once(Side("mlx5_9"), "receive", "-ld", s.path("a"), "-re", s.path("b"))
        expect_failure(r)
        expect_line(r, r"mlx5_9", "err")
        check(not os.path.exists(s.path("a")), "wrote a descriptor without a device", r)


def test_host_sample_does_not_see_dpu_functions():
    # The RDMA samples are host programs: mlx5_2 is a DPU function (docs/personalities.md).
    with Session() as s:
        r = run_once(Side("mlx5_2"), "receive", "-ld", s.path("a"), "-re", s.path("b"))
        expect_failure(r)
        expect_line(r, r"mlx5_2", "err")
        check(not os.path.exists(s.path("a")), "wrote a descriptor without a device", r)


def test_dc_with_two_connections():
    with Session() as s:
        r = run_once(Side(), "multi_conn_send", "-tt", "DC", "-nc", "2", "-ld", s.path("a"), "-re", s.path("b"))
        expect_failure(r)
        expect_line(r, r"DC transport type supports only a single out-of-band connection \(got -nc 2\)", "err")
        expect_line(r, r"DOCA_ERROR_INVALID_VALUE", "err")


def test_dc_with_rdma_cm():
    r = run_once(Side(), "send", "-tt", "dc", "-cm", "-lp", str(free_port()))
    expect_failure(r)
    expect_line(r, r"DC transport type supports only a single out-of-band connection .*with -cm", "err")
    expect_line(r, r"DOCA_ERROR_INVALID_VALUE", "err")


def test_num_connections_9_refused():
    r = run_once(Side(), "multi_conn_receive", "-nc", "9")
    expect_failure(r)
    expect_line(r, r"Number of connections \(-nc\) must be 1\.\.8 \(got 9\)", "err")


def test_num_connections_0_refused():
    r = run_once(Side(), "multi_conn_send", "-nc", "0")
    expect_failure(r)
    expect_line(r, r"must be 1\.\.8 \(got 0\)", "err")


def test_num_connections_only_on_multi_conn():
    r = run_once(Side(), "send", "-nc", "2")
    expect_failure(r)


def test_gid_index_outside_table():
    """The built-in devices have one GID: index 1 is refused by doca_rdma_set_gid_index."""
    r = run_once(Side(), "receive", "-g", "1")
    expect_failure(r)
    expect_line(r, r"Failed to set GID index 1", "err")


def test_negative_gid_index():
    r = run_once(Side(), "receive", "-g", "-1")
    expect_failure(r)
    expect_line(r, r"GID index \(-g\) cannot be negative", "err")


def test_bad_transport_type():
    r = run_once(Side(), "receive", "-tt", "UD")
    expect_failure(r)
    expect_line(r, r"Transport type \(-tt\) must be RC or DC", "err")


def test_bad_server_address_type():
    r = run_once(Side(), "receive", "-cm", "-sat", "ipx")
    expect_failure(r)
    expect_line(r, r"-sat\) must be ip4, ipv4, ip6, ipv6 or gid", "err")


def test_listen_port_out_of_range():
    r = run_once(Side(), "receive", "-cm", "-lp", "65536")
    expect_failure(r)
    expect_line(r, r"Listen port \(-lp\) must be 0\.\.65535", "err")


def test_string_too_long():
    r = run_once(Side(), "send", "-s", LONG_TEXT + "x")
    expect_failure(r)
    expect_line(r, r"Send string \(-s\) is too long: at most 256 characters", "err")


def test_existing_descriptor_file_is_not_overwritten():
    with Session() as s:
        A = s.path("a")
        with open(A, "w") as f:
            f.write("left over\n")
        r = run_once(Side(), "receive", "-ld", A, "-re", s.path("b"), stdin=b"\n")
        expect_failure(r)
        expect_line(r, r"File %s already exists" % q(A), "err")
        check("press enter" not in r.out, "prompted despite the failed write", r)


def test_missing_peer_descriptor():
    with Session() as s:
        A, B = s.path("a"), s.path("b")
        recv = s.start(Side(), "receive", "-ld", A, "-re", B)
        recv.wait_prompt()
        recv.enter()
        r = recv.finish()
        expect_failure(r)
        expect_line(r, r"Failed to open %s" % q(B), "err")
        check(not os.path.exists(A), "own descriptor file left behind", r)


def test_help_lists_flags():
    common = ["--device", "--local-descriptor-path", "--remote-descriptor-path",
              "--remote-resource-descriptor-path", "--gid-index", "--transport-type", "--use-rdma-cm",
              "--listen-port", "--server-addr", "--server-addr-type"]
    specific = {"send": ["--send-string"], "send_immediate": ["--send-string"], "read_responder": ["--read-string"],
                "write_requester": ["--write-string"], "write_immediate_requester": ["--write-string"],
                "multi_conn_send": ["--send-string", "--num-connections"],
                "multi_conn_receive": ["--num-connections"]}
    every = {"--send-string", "--read-string", "--write-string", "--num-connections"}
    for name in ["send", "receive", "send_immediate", "receive_immediate", "read_requester", "read_responder",
                 "write_requester", "write_responder", "write_immediate_requester", "write_immediate_responder",
                 "sync_event_requester", "sync_event_responder", "multi_conn_send", "multi_conn_receive"]:
        r = run_once(Side(dev=None), name, "-h")
        check(r.code == 0, "doca_rdma_%s -h exit code %s" % (name, r.code), r)
        for flag in common + specific.get(name, []):
            check(flag in r.both, "doca_rdma_%s -h does not mention %s" % (name, flag), r)
        for flag in every - set(specific.get(name, [])):
            check(flag not in r.both, "doca_rdma_%s -h mentions %s" % (name, flag), r)


# ------------------------------------------------------------------ RDMA-CM

def test_cm_send_receive():
    port = free_port()
    with Session() as s:
        recv = cm_server(s, Side(), "receive", port)
        send = cm_client(s, Side(), "send", port, "-s", "over RDMA-CM")
        rs, rr = send.finish(), recv.finish()
        expect_success(rs)
        expect_success(rr)
        expect_line(rs, r"RDMA send task was done successfully")
        expect_line(rr, r'Got from sender: "over RDMA-CM"$')


def test_cm_send_receive_immediate_sender_serves():
    port = free_port()
    with Session() as s:
        send = cm_server(s, Side(), "send_immediate", port, "-s", "imm over RDMA-CM")
        recv = cm_client(s, Side(), "receive_immediate", port)
        rs, rr = send.finish(), recv.finish()
        expect_success(rs)
        expect_success(rr)
        expect_line(rr, r'Got from sender: "imm over RDMA-CM" with immediate: 43981$')


def cm_write(responder_serves, text, imm=False, env=None):
    port = free_port()
    side = Side(env=env)
    kind = "write_immediate" if imm else "write"
    with Session() as s:
        if responder_serves:
            resp = cm_server(s, side, kind + "_responder", port)
            req = cm_client(s, side, kind + "_requester", port, "-w", text)
        else:
            req = cm_server(s, side, kind + "_requester", port, "-w", text)
            resp = cm_client(s, side, kind + "_responder", port)
        resp.wait_prompt(1)     # established: Enter sends the mmap descriptor
        resp.enter()
        rq = req.finish()
        expect_success(rq)
        expect_line(rq, r'Written to responder "%s"' % q(text))
        if not imm:
            resp.wait_prompt(2)
            resp.enter()
        rr = resp.finish()
        expect_success(rr)
        expect_line(rr, r'Requester has written: "%s"' % q(text))


def test_cm_write_responder_serves():
    cm_write(True, "written over RDMA-CM")


def test_cm_write_ucx_tcp():
    cm_write(True, "written over RDMA-CM and tcp", env=TCP)


def test_cm_write_immediate_requester_serves():
    cm_write(False, "written with imm over RDMA-CM", imm=True)


def test_cm_read_responder_serves():
    port = free_port()
    with Session() as s:
        resp = cm_server(s, Side(), "read_responder", port, "-r", "read over RDMA-CM")
        req = cm_client(s, Side(), "read_requester", port)
        resp.wait_prompt(1)
        resp.enter()
        rq = req.finish()
        expect_success(rq)
        expect_line(rq, r'Read from responder: "read over RDMA-CM"$')
        resp.wait_prompt(2)
        resp.enter()
        expect_success(resp.finish())


def test_cm_sync_event_requester_serves():
    port = free_port()
    with Session() as s:
        req = cm_server(s, Side(), "sync_event_requester", port)
        resp = cm_client(s, Side(), "sync_event_responder", port)
        resp.wait_prompt(1)
        resp.enter()
        rq, rr = req.finish(), resp.finish()
        expect_success(rq)
        expect_success(rr)
        expect_in_order(rq, SYNC_REQUESTER_LINES)
        expect_in_order(rr, SYNC_RESPONDER_LINES)


def test_cm_multi_conn_two_clients():
    port = free_port()
    with Session() as s:
        recv = cm_server(s, Side(), "multi_conn_receive", port, "-nc", "2")
        senders = [cm_client(s, Side(), "multi_conn_send", port, "-s", "one of two clients") for _ in range(2)]
        runs = [p.finish() for p in senders]
        rr = recv.finish()
        for r in runs:
            expect_success(r)
        expect_success(rr)
        check_multi_receive(rr, "one of two clients", 2)


def test_cm_client_takes_one_connection():
    r = run_once(Side(), "multi_conn_send", "-cm", "-sa", "127.0.0.1", "-lp", str(free_port()), "-nc", "2")
    expect_failure(r)
    expect_line(r, r"An RDMA-CM client makes one connection \(got -nc 2\)", "err")


def main():
    return run_tests(globals(), sys.argv[1:], "RDMA_TEST_FILTER")


if __name__ == "__main__":
    os.environ.setdefault("SOFTDOCA_TOPOLOGY", "builtin")
    sys.exit(main())
