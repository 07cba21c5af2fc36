#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Every sample of ours under valgrind memcheck: no definite leak, no error in
libdoca_* (or the fabric under them, libsoftdoca_fabric) or in the sample.  TAP on stdout, one case per program (or pair).

Usage: test_valgrind_samples.py dma LOCAL_COPY COPY_HOST COPY_DPU
       test_valgrind_samples.py pe PROGRAM...      (PE samples, Core tour, graph sample)
       test_valgrind_samples.py rdma DOCA_RDMA_SAMPLE...
       test_valgrind_samples.py clock CLOCK_CROSS_TIMESTAMP
       test_valgrind_samples.py comch SECURE_CHANNEL_HOST SECURE_CHANNEL_DPU TEST_COMCH_FREE_POSTED

Runs are short (one task, the smallest pairs).  Without valgrind every case is
skipped with the reason.  A case marked "[inside libdoca_*: a library (src/)
issue]" names a leak or error in the libraries, not in the sample.
"""
import os
import re
import subprocess
import sys
import tempfile
import time
import traceback

os.environ.setdefault("RDMA_PAIRS_WAIT", "120")   # before pairs is imported: its default timeouts
import vg_common  # noqa: E402  (beside this script)
from softdoca_testbed import pairs as rdma_pairs  # noqa: E402

TIMEOUT = 180


def judge(tap, name, xml_dir, tag, program, run_ok, run_detail):
    fatal, benign = vg_common.findings(xml_dir, tag, program)
    notes = ""
    if benign:
        notes = "%d valgrind error(s) outside libdoca_* and the sample (not judged):\n" % len(benign) + \
            "".join(benign[:3])
    if not run_ok:
        tap.not_ok(name, run_detail + "\n" + "".join(fatal) + notes)
    elif fatal:
        tap.not_ok(name, "valgrind: %d finding(s)\n" % len(fatal) + "\n".join(fatal) + notes)
    else:
        tap.ok(name, notes)


def last_line_ok(out):
    lines = [line for line in out.splitlines() if line.strip()]
    return bool(lines) and lines[-1].endswith("finished successfully")  # "Core tour finished ..." too


def run_one(tap, xml_dir, argv, name, stdin=b"", expect_success=True, env=None):
    """One program to its end under valgrind; exit 1 is fine when only valgrind made it."""
    program = os.path.basename(argv[0])
    tag = name
    cmd = vg_common.prefix(xml_dir, tag) + argv
    try:
        p = subprocess.run(cmd, input=stdin, capture_output=True, timeout=TIMEOUT, env=env)
    except subprocess.TimeoutExpired:
        tap.not_ok(name, "did not finish within %d s under valgrind" % TIMEOUT)
        return
    out, err = p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")
    ok = p.returncode in (0, 1) and (last_line_ok(out) if expect_success else True)
    detail = "command: %s\nexit code: %d\n--- stdout (end) ---\n%s\n--- stderr (end) ---\n%s" % (
        " ".join(argv), p.returncode, out[-1500:], err[-1500:])
    judge(tap, name, xml_dir, tag, program, ok, detail)


def dma(tap, xml_dir, local, host, dpu):
    run_one(tap, xml_dir, [local, "-ns", "2", "-nd", "3"], "dma_local_copy")
    run_one(tap, xml_dir, [local, "-nt", "4"], "dma_local_copy_4_tasks")
    # The pair: the host waits for Enter while the DPU copies its buffer.
    with tempfile.TemporaryDirectory(prefix="sd-vg-") as tmp:
        desc, buf = os.path.join(tmp, "desc.bin"), os.path.join(tmp, "buf.txt")
        h = subprocess.Popen(vg_common.prefix(xml_dir, "dma_copy_host") + [host, "-d", desc, "-b", buf,
                                                                           "-t", "valgrind pair"],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            t0 = time.monotonic()
            while not (os.path.exists(buf) and os.path.getsize(buf) > 0) and time.monotonic() - t0 < TIMEOUT:
                if h.poll() is not None:
                    break
                time.sleep(0.1)
            run_one(tap, xml_dir, [dpu, "-d", desc, "-b", buf], "dma_copy_dpu")
            out, err = h.communicate(b"\n", timeout=TIMEOUT)
            out, err = out.decode(errors="replace"), err.decode(errors="replace")
            ok = h.returncode in (0, 1) and last_line_ok(out)
            judge(tap, "dma_copy_host", xml_dir, "dma_copy_host", os.path.basename(host), ok,
                  "exit code %s\n%s\n%s" % (h.returncode, out[-1500:], err[-1500:]))
        finally:
            if h.poll() is None:
                h.kill()
                h.wait()
        # A failing DPU run must release everything too (a malformed descriptor).
        with open(desc, "wb") as f:
            f.write(b"not an export descriptor\n")
        run_one(tap, xml_dir, [dpu, "-d", desc, "-b", buf], "dma_copy_dpu_bad_descriptor", expect_success=False)


# A device whose DMA context holds 4 tasks: the PE samples (16 tasks) and the graph
# sample (10 per context) fail while setting up.
SMALL_DMA_TOPOLOGY = """{"devices": [{"functions": [
  {"side": "host", "pci_addr": "b1:00.0", "ibdev": "mlx5_0", "iface": "ens1f0np0",
   "caps": {"dma_max_num_tasks": 4}}]}]}
"""


def setup_fails(tap, xml_dir, programs, name):
    """An error path: the sample must still release what it made before the failure."""
    case = name + "_setup_fails"
    prog = [p for p in programs if os.path.basename(p) == name]
    if not prog:
        tap.skip(case, name + " is not built")
        return
    with tempfile.TemporaryDirectory(prefix="sd-vg-") as tmp:
        topo = os.path.join(tmp, "topology.json")
        with open(topo, "w") as f:
            f.write(SMALL_DMA_TOPOLOGY)
        env = dict(os.environ, SOFTDOCA_TOPOLOGY=topo)
        p = subprocess.run([prog[0]], capture_output=True, timeout=TIMEOUT, env=env)
        if p.returncode == 0:
            tap.not_ok(case, "the sample succeeded with 4 DMA tasks: the error path "
                       "is not exercised\n" + p.stdout.decode(errors="replace")[-1500:])
            return
        run_one(tap, xml_dir, [prog[0]], case, expect_success=False, env=env)


def pe(tap, xml_dir, programs):
    for prog in programs:
        run_one(tap, xml_dir, [prog], os.path.basename(prog))
    setup_fails(tap, xml_dir, programs, "doca_pe_polling")
    setup_fails(tap, xml_dir, programs, "doca_graph")


def clock(tap, xml_dir, prog):
    """One timestamp, a bracketed and an exact cross timestamp, and a refused DPA timer."""
    run_one(tap, xml_dir, [prog, "-p", "b1:00.0", "-c", "host_cycles"], "clock_timestamp_cycles")
    run_one(tap, xml_dir, [prog, "-p", "b1:00.0", "-c", "host_mon", "-n", "nic_fr"], "clock_cross_timestamp")
    run_one(tap, xml_dir, [prog, "-p", "b1:00.0", "-c", "host_rt", "-n", "nic_rt"], "clock_cross_timestamp_exact")
    run_one(tap, xml_dir, [prog, "-p", "b1:00.0", "-c", "nic_dpa"], "clock_dpa_refused", expect_success=False)


def rdma(tap, xml_dir, programs):
    rdma_pairs.load_samples(programs)
    vg_ok = {}

    def side(sample):
        return rdma_pairs.Side(prefix=vg_common.prefix(xml_dir, "rdma_" + sample))

    pairs = [
        ("send/receive", ["receive", "send"], lambda s: rdma_pairs.send_receive(s, "vg", a=side("receive"),
                                                                                  b=side("send"))),
        ("send/receive immediate", ["receive_immediate", "send_immediate"],
         lambda s: rdma_pairs.send_receive(s, "vg", imm=True, a=side("receive_immediate"),
                                           b=side("send_immediate"))),
        ("write", ["write_responder", "write_requester"],
         lambda s: rdma_pairs.write_pair(s, "vg", a=side("write_responder"), b=side("write_requester"))),
        ("write immediate", ["write_immediate_responder", "write_immediate_requester"],
         lambda s: rdma_pairs.write_pair(s, "vg", imm=True, a=side("write_immediate_responder"),
                                         b=side("write_immediate_requester"))),
        ("read", ["read_responder", "read_requester"],
         lambda s: rdma_pairs.read_pair(s, "vg", a=side("read_responder"), b=side("read_requester"))),
        ("sync event", ["sync_event_responder", "sync_event_requester"],
         lambda s: rdma_pairs.sync_event_pair(s, a=side("sync_event_responder"), b=side("sync_event_requester"))),
        ("multi connection (2)", ["multi_conn_receive", "multi_conn_send"],
         lambda s: rdma_pairs.multi_conn(s, 2, "vg", a=side("multi_conn_receive"), b=side("multi_conn_send"))),
    ]
    def cm_write(s):
        port = rdma_pairs.free_port()
        resp = rdma_pairs.cm_server(s, side("cm_write_responder"), "write_responder", port)
        req = rdma_pairs.cm_client(s, side("cm_write_requester"), "write_requester", port, "-w", "vg over CM")
        resp.wait_prompt()
        resp.enter()
        resp.wait_prompt(2)
        rq = req.finish()
        resp.enter()
        rr = resp.finish()
        rdma_pairs.expect_success(rq)
        rdma_pairs.expect_success(rr)
        rdma_pairs.expect_line(rr, r'Requester has written: "vg over CM"$')

    pairs.append(("RDMA-CM write", ["cm_write_responder", "cm_write_requester"], cm_write))
    for title, members, drive in pairs:
        detail, run_ok = "", True
        try:
            with rdma_pairs.Session() as s:
                drive(s)
        except Exception as e:  # noqa: BLE001 - reported as the case's failure
            run_ok = False
            detail = str(e) if isinstance(e, rdma_pairs.Failure) else traceback.format_exc()
        for m in members:
            program = "doca_rdma_" + (m[3:] if m.startswith("cm_") else m)
            judge(tap, "rdma_%s (%s pair)" % (m, title), xml_dir, "rdma_" + m, program, run_ok, detail[-4000:])
            vg_ok[m] = run_ok

    # Failing runs release everything too: an unusable peer descriptor, an -ld that exists.
    with tempfile.TemporaryDirectory(prefix="sd-vg-") as tmp:
        bad, taken = os.path.join(tmp, "bad"), os.path.join(tmp, "taken")
        for path in (bad, taken):
            with open(path, "wb") as f:
                f.write(b"not a descriptor\n")
        run_one(tap, xml_dir, [rdma_pairs.SAMPLES["receive"], "-d", "mlx5_0", "-ld", os.path.join(tmp, "ld"),
                               "-re", bad], "rdma_receive_bad_peer_descriptor", stdin=b"\n", expect_success=False)
        run_one(tap, xml_dir, [rdma_pairs.SAMPLES["sync_event_responder"], "-d", "mlx5_0", "-ld", taken, "-re",
                               bad, "-m", os.path.join(tmp, "m")], "rdma_sync_event_responder_ld_exists",
                stdin=b"\n", expect_success=False)


def verbs(tap, xml_dir, programs):
    """DOCA Verbs: the wait-CQ sample alone, and a server/client write pair, each side under memcheck."""
    exes = {os.path.basename(p): p for p in programs}
    wait, sc = exes.get("doca_verbs_wait_cq_wr"), exes.get("doca_verbs_server_client")
    if wait is None or sc is None:
        tap.skip("verbs", "the Verbs samples are not built")
        return
    run_one(tap, xml_dir, [wait, "-d", "mlx5_0"], "verbs_wait_cq_wr")
    srv = subprocess.Popen(vg_common.prefix(xml_dir, "verbs_server") + [sc, "-d", "mlx5_0", "-ro", "write", "-n", "4"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        time.sleep(3)  # valgrind starts slowly; the client retries its connect for 10 s anyway
        run_one(tap, xml_dir, [sc, "-d", "mlx5_0", "-c", "127.0.0.1", "-ro", "write", "-n", "4", "-b"],
                "verbs_client")
        out, err = srv.communicate(timeout=TIMEOUT)
        out, err = out.decode(errors="replace"), err.decode(errors="replace")
        ok = srv.returncode in (0, 1) and last_line_ok(out)
        judge(tap, "verbs_server", xml_dir, "verbs_server", os.path.basename(sc), ok,
              "exit code %s\n%s\n%s" % (srv.returncode, out[-1500:], err[-1500:]))
    finally:
        if srv.poll() is None:
            srv.kill()
            srv.wait()


def comch(tap, xml_dir, sc_host, sc_dpu, free_posted):
    """Secure Channel both ways (each side under memcheck), and the posted-receive frees of Comch's API test."""
    with tempfile.TemporaryDirectory(prefix="sd-vg-") as tmp:
        env = dict(os.environ, SOFTDOCA_RUNTIME_DIR=os.path.join(tmp, "rt"))
        args = ["-s", "4096", "-n", "200"]
        dpu = subprocess.Popen(vg_common.prefix(xml_dir, "secure_channel_dpu") +
                               [sc_dpu] + args + ["-p", "03:00.0", "-r", "b1:00.0"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        results = {}
        try:
            time.sleep(2)  # valgrind starts slowly; a host started first waits for the server anyway
            host = subprocess.run(vg_common.prefix(xml_dir, "secure_channel_host") +
                                  [sc_host] + args + ["-p", "b1:00.0"],
                                  capture_output=True, timeout=TIMEOUT, env=env)
            results["host"] = (host.returncode, host.stdout.decode(errors="replace"),
                               host.stderr.decode(errors="replace"))
            out, err = dpu.communicate(timeout=TIMEOUT)
            results["dpu"] = (dpu.returncode, out.decode(errors="replace"), err.decode(errors="replace"))
        except subprocess.TimeoutExpired:
            pass
        finally:
            if dpu.poll() is None:
                dpu.kill()
                dpu.wait()
        for side, program in (("host", sc_host), ("dpu", sc_dpu)):
            code, out, err = results.get(side, (None, "", "did not finish within %d s under valgrind" % TIMEOUT))
            ok = code == 0 and "Consumer received 200 messages" in out and "Producer sent 200 messages" in out
            judge(tap, "secure_channel_" + side, xml_dir, "secure_channel_" + side, os.path.basename(program), ok,
                  "exit code %s\n%s\n%s" % (code, out[-1500:], err[-1500:]))
    # Each case of the API test in its own run: the teardown of a consumer whose posted receives were freed.
    for case in ("free_posted_receives_then_stop", "data_for_a_freed_receive_is_discarded",
                 "other_in_flight_frees_are_refused"):
        tag = "comch_" + case
        p = subprocess.run(vg_common.prefix(xml_dir, tag) + [free_posted, case], capture_output=True,
                           timeout=TIMEOUT)
        out = p.stdout.decode(errors="replace")
        ok = p.returncode == 0 and ("ok " + case) in out.splitlines()
        judge(tap, tag, xml_dir, tag, os.path.basename(free_posted), ok,
              "exit code %d\n%s\n%s" % (p.returncode, out[-1500:], p.stderr.decode(errors="replace")[-1500:]))


def main():
    mode, programs = sys.argv[1], sys.argv[2:]
    tap = vg_common.Tap()
    if vg_common.VALGRIND is None:
        tap.skip("valgrind_" + mode, "valgrind is not installed (scripts/install-deps.sh installs it)")
        return tap.end()
    with tempfile.TemporaryDirectory(prefix="sd-vg-xml-") as xml_dir:
        if mode == "dma":
            dma(tap, xml_dir, *programs)
        elif mode == "pe":
            pe(tap, xml_dir, programs)
        elif mode == "rdma":
            rdma(tap, xml_dir, programs)
        elif mode == "clock":
            clock(tap, xml_dir, *programs)
        elif mode == "verbs":
            verbs(tap, xml_dir, programs)
        elif mode == "comch":
            comch(tap, xml_dir, *programs)
        else:
            tap.not_ok("usage", "unknown mode %s" % mode)
    return tap.end()


if __name__ == "__main__":
    os.environ.setdefault("SOFTDOCA_TOPOLOGY", "builtin")
    sys.exit(main())
