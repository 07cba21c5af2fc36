#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""doca_verbs_multi_rail_server_client between two namespaces joined by two tbf-shaped rails.

Usage: test_multi_rail_netns.py EXE

See softdoca_testbed/multi_rail.py for the bed.  Needs root and `ip netns`; skipped with the reason otherwise.
Every run must end with the server's "every byte verified" and, on the client, a result whose
bytes are whole iterations of checked chunks.
"""
import os
import sys
import tempfile
import time

from softdoca_testbed import multi_rail as m
from softdoca_testbed import tap
from softdoca_testbed.tap import check

EXE = None
TMP = None
BASE = ["--num-qps", "4", "--chunks-total", "4194304"]


def mr_json(**kv):
    path = os.path.join(TMP, "mr-%d.json" % len(os.listdir(TMP)))
    with open(path, "w") as f:
        import json
        json.dump(dict(chunk_size=65536, **kv), f)
    return path


def run_ok(envs, args, client_args=(), during=None, timeout=60):
    p = m.Pair(EXE, envs, args, client_args=client_args)
    if during:
        during()
    out = p.wait(timeout)
    crc, co, ce = out["client"]
    src, so, se = out["server"]
    check(crc == 0 and src == 0, "exit client %s server %s\n%s\n%s\n%s\n%s" % (crc, src, co[-2000:], ce[-2000:],
                                                                              so[-1000:], se[-1000:]))
    check("every byte verified" in so, "server did not verify: " + so[-500:])
    res = m.result_line(co)
    check(res and res["status"] == "DOCA_SUCCESS" and res["bytes"] > 0 and res["bytes"] % 4194304 == 0,
          "client result: %s" % res)
    return res, co, so


def test_mismatch_each_field(envs):
    for field, extra in (("num_qps", ["--num-qps", "2", "--chunks-total", "4194304"]),
                         ("chunks_total", ["--num-qps", "4", "--chunks-total", "2097152"]),
                         ("traffic", BASE + ["--traffic", "send"]), ("use_multi_rail", BASE + ["--use-multi-rail"])):
        p = m.Pair(EXE, envs, [], server_args=BASE, client_args=extra)
        out = p.wait(30)
        for side in ("client", "server"):
            rc, o, e = out[side]
            check(rc != 0 and "DOCA_ERROR_BAD_CONFIG" in e and field in e,
                  "%s mismatch, %s: exit %d, stderr %s" % (field, side, rc, e[-600:]))


def test_bad_json(envs):
    bad = os.path.join(TMP, "bad.json")
    for text, args, want in (('{"sq_depth": "x"}', "--qp-json", "sq_depth"),
                             ('{"devices": [{"ibdev": "mlx5_0", "speed": 1}]}', "--dev-json", "speed"),
                             ('{"chunk_size": 65536, "stall_ms": 3}', "--multi-rail-json", "stall_ms"),
                             ('{"lb_mode": "fastest"}', "--multi-rail-json", "lb_mode"),
                             ('{"bw_decay_factor": 1.5}', "--multi-rail-json", "bw_decay_factor"),
                             ('{"chunk_size": ', "--multi-rail-json", "not valid JSON")):
        with open(bad, "w") as f:
            f.write(text)
        p = m.Pair(EXE, envs, BASE + [args, bad])
        out = p.wait(20)
        for side in ("client", "server"):
            rc, o, e = out[side]
            check(rc != 0 and bad in e and want in e, "%s: exit %d, stderr %s" % (text, rc, e[-400:]))


def test_plain_rc(envs):
    res, co, so = run_ok(envs, BASE + ["--multi-rail-json", mr_json()], client_args=["--iterations", "4"])
    check(len(res["rails"]) == 1 and res["rails"][0]["ibdev"] == "mlx5_0", str(res))


def test_multi_rail_send(envs):
    res, co, so = run_ok(envs, BASE + ["--use-multi-rail", "--traffic", "send", "--multi-rail-json", mr_json()],
                         client_args=["--iterations", "4"])
    check(all(r["bytes"] > 0 for r in res["rails"]), "a rail carried nothing: %s" % res)


def test_multi_rail_round_robin(envs):
    res, co, so = run_ok(envs, BASE + ["--use-multi-rail", "--multi-rail-json", mr_json(lb_mode="round_robin")],
                         client_args=["--iterations", "4"])
    check(all(r["bytes"] > 0 for r in res["rails"]), "a rail carried nothing: %s" % res)


def cut_and_restore(envs, loud):
    def during():
        time.sleep(2.0)
        if loud:
            m.set_link("r1", False)
        else:
            m.set_rate("r1", "8kbit")
        time.sleep(1.5)
        if loud:
            m.set_link("r1", True)
        else:
            m.set_rate("r1", "300mbit")
    res, co, so = run_ok(envs, BASE + ["--use-multi-rail", "--multi-rail-json", mr_json(), "--progress-ms", "250"],
                         client_args=["--duration", "6"], during=during)
    check(res["rails_lost"] >= 1 and res["rails_recovered"] >= 1, "no loss / recovery: %s" % res)
    check(res["longest_stall_ms"] < 500, "stall %.1f ms" % res["longest_stall_ms"])
    # After the recovery rail 1 carries traffic again.
    late = [row for row in m.progress_lines(co) if row[0] > 5.0]
    check(late and max(row[1][1] for row in late) > 5.0, "rail 1 idle after recovery: %s" % late)


def test_cut_loud_and_restore(envs):
    cut_and_restore(envs, True)


def test_cut_silent_and_restore(envs):
    cut_and_restore(envs, False)


def test_both_rails_cut(envs):
    def during():
        time.sleep(1.5)
        m.set_link("r0", False)
        m.set_link("r1", False)
    p = m.Pair(EXE, envs, BASE + ["--use-multi-rail", "--multi-rail-json", mr_json(all_down_timeout_ms=2000)],
               client_args=["--duration", "30"])
    try:
        during()
        out = p.wait(40)
    finally:
        m.set_link("r0", True)
        m.set_link("r1", True)
    crc, co, ce = out["client"]
    src, so, se = out["server"]
    check(crc != 0 and "killed" not in ce and "all_down_timeout_ms" in ce, "client: %d %s" % (crc, ce[-600:]))
    check(src != 0 and "killed" not in se, "server: %d %s" % (src, se[-600:]))
    check(time.time() - p.t0 < 20, "took %.1f s" % (time.time() - p.t0))


def main():
    global EXE, TMP
    EXE = sys.argv[1]
    with tempfile.TemporaryDirectory(prefix="sd-mr-netns-") as tmp:
        TMP = tmp
        try:
            envs, skip = m.setup(), None
        except tap.Skip as e:
            envs, skip = None, str(e)
        try:
            return tap.run(tap.cases(globals()), args=(envs,), skip=skip, timing=True)
        finally:
            m.teardown()


if __name__ == "__main__":
    tap.exit_on_sigterm()
    sys.exit(main())
