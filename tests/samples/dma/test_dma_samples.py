#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Drive the three DMA samples as a person would and print TAP.

Usage: test_dma_samples.py LOCAL_COPY COPY_HOST COPY_DPU [HOST_AS_DPU DPU_AS_HOST]

The last two are the same programs built for the wrong personality; they must
refuse to run.  Every case uses private descriptor/buffer paths in its own
temporary directory, so parallel runs never collide.
"""
import os
import re
import resource
import secrets
import shutil
import subprocess
import sys
import tempfile

from softdoca_testbed import pairs, tap
from softdoca_testbed.pairs import PROMPT, Proc, Run, expect_failure, expect_line
from softdoca_testbed.tap import Skip, check

TIMEOUT = 20          # seconds for one sample run
FILE_WAIT = 10        # seconds for the host sample to write its files

LOCAL, HOST, DPU = sys.argv[1:4]
WRONG_ARCH = sys.argv[4:6]


def run(argv, stdin=b"", timeout=TIMEOUT, preexec_fn=None):
    p = subprocess.run(argv, input=stdin, capture_output=True, timeout=timeout, preexec_fn=preexec_fn)
    return Run(argv, p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace"))


def expect_exit(r, code):
    check(r.code == code, "expected exit code %d, got %s" % (code, r.code), r)


def expect_success(r):
    """The pass criterion of every DOCA sample, and the sample's first line."""
    pairs.expect_success(r)
    expect_line(r, r"Starting the sample", "out")


def random_text(min_len=0):
    text = "softdoca says hi " + secrets.token_hex(8)
    while len(text) < min_len:
        text += " " + secrets.token_hex(8)
    return text


# ---------------------------------------------------------------- local copy

def local_copy(ns, nd, extra=()):
    text = random_text()
    r = run([LOCAL, "-t", text, "-ns", str(ns), "-nd", str(nd), *extra])
    expect_success(r)
    expect_line(r, r"DMA task was completed successfully")
    expect_line(r, r"Compared the destination with the source byte by byte: %d byte" % (len(text) + 1))
    expect_line(r, r"Success, memory copied and verified as correct$")
    return r


def test_local_copy_default():
    r = run([LOCAL])
    expect_success(r)
    expect_line(r, r"DMA context is running")
    expect_line(r, r"DMA context has been stopped")
    expect_line(r, r"Compared the destination with the source byte by byte: 31 byte")
    expect_line(r, r"Success, memory copied and verified as correct$")


def test_local_copy_1_1():
    local_copy(1, 1)


def test_local_copy_2_3():
    local_copy(2, 3)


def test_local_copy_4_1():
    local_copy(4, 1)


def test_local_copy_long_flags_and_tasks():
    text = random_text()
    r = run([LOCAL, "--text", text, "--num-src-buf", "3", "--num-dst-buf", "2", "-nt", "4", "-mnr", "7"])
    expect_success(r)
    check(r.out.count("DMA task was completed successfully") == 4, "expected 4 task completions", r)
    expect_line(r, r"byte\(s\) in 4 copy")


def test_local_copy_exceeds_max_buf_list_len():
    r = run([LOCAL, "-ns", "1000000", "-nd", "1"])
    expect_failure(r)
    expect_line(r, r"at most \d+ buffers .*max_buf_list_len.* 1000001 were requested", "err")
    check("Success" not in r.out, "printed a success line", r)


def test_local_copy_max_buf_list_len_boundary():
    """max_buf_list_len is read from the device: ns + nd == max works, max + 1 does not."""
    probe = run([LOCAL, "-ns", "1000000", "-nd", "1"])
    m = re.search(r"at most (\d+) buffers", probe.err)
    check(m is not None, "no limit in the refusal", probe)
    limit = int(m.group(1))
    if limit > 4000:
        raise Skip("max_buf_list_len %d is larger than the longest -t text" % limit)
    text = random_text(limit)
    expect_success(run([LOCAL, "-t", text, "-ns", str(limit - 1), "-nd", "1"]))
    r = run([LOCAL, "-t", text, "-ns", str(limit), "-nd", "1"])
    expect_failure(r)
    expect_line(r, r"%d were requested" % (limit + 1), "err")


def test_local_copy_text_length_limit():
    """-t takes up to 4096 characters, not one more."""
    text = ("0123456789abcdef" * 256)[:4096]
    r = run([LOCAL, "-t", text, "-ns", "3", "-nd", "5"])
    expect_success(r)
    expect_line(r, r"byte by byte: 4097 byte")
    r = run([LOCAL, "-t", text + "x"])
    expect_failure(r)
    expect_line(r, r"Text \(-t\) is too long: at most 4096 characters", "err")


def test_local_copy_more_segments_than_bytes():
    r = run([LOCAL, "-t", "abc", "-ns", "8", "-nd", "1"])
    expect_failure(r)
    expect_line(r, r"Cannot split 4 bytes into 8 non-empty buffers")


def test_local_copy_zero_buffers_refused():
    r = run([LOCAL, "-ns", "0"])
    expect_failure(r)
    expect_line(r, r"at least 1 \(got 0\)", "err")


def test_local_copy_help():
    r = run([LOCAL, "-h"])
    expect_exit(r, 0)
    for flag in ("--pci-addr", "--text", "--num-src-buf", "--num-dst-buf", "--num-tasks",
                 "--max-num-range-profiling-displayed", "--help"):
        check(flag in r.both, "usage does not mention " + flag, r)
    check("--descriptor-path" not in r.both, "local copy must not take -d", r)


def test_local_copy_unknown_flag():
    r = run([LOCAL, "--bogus-flag"])
    expect_failure(r)
    expect_line(r, r"bogus-flag", "err")


def test_local_copy_unknown_device():
    r = run([LOCAL, "-p", "ff:1f.7"])
    expect_failure(r)
    expect_line(r, r"ff:1f\.7", "err")


def test_local_copy_pci_too_long():
    r = run([LOCAL, "-p", "0000:03:00.0.0"])
    expect_failure(r)
    expect_line(r, r"too long", "err")


# Each side sees its own devices (docs/personalities.md): the DPU samples list the
# DPU's functions (03:00.x), the host sample the host's (b1:00.x).
def test_local_copy_cannot_open_a_host_function():
    r = run([LOCAL, "-p", "b1:00.0"])
    expect_failure(r)
    expect_line(r, r"No DOCA device matches PCI address b1:00\.0", "err")
    expect_line(r, r"DOCA_ERROR_NOT_FOUND", "err")


def test_local_copy_on_the_second_dpu_function():
    text = random_text()
    r = run([LOCAL, "-p", "03:00.1", "-t", text])
    expect_success(r)


# ---------------------------------------------------------------- host / DPU

class Host(Proc):
    """doca_dma_copy_host running in the background, its output read as it comes."""

    def __init__(self, tmp, text, extra=()):
        self.desc = os.path.join(tmp, "export_desc.txt")
        self.buf = os.path.join(tmp, "buffer_info.txt")
        self.text = text
        super().__init__([HOST, "-t", text, "-d", self.desc, "-b", self.buf, *extra], dict(os.environ))

    def wait_ready(self):
        """As a person would: wait for the prompt, then the files are there."""
        self.wait_for(PROMPT, timeout=FILE_WAIT)
        check(os.path.exists(self.desc) and os.path.exists(self.buf), "prompt shown before both files exist",
              self.snapshot())

    def press_enter(self):
        self.enter()
        return self.finish(TIMEOUT)


def with_host(text, body, extra=()):
    with tempfile.TemporaryDirectory(prefix="sd-dma-") as tmp:
        host = Host(tmp, text, extra)
        try:
            host.wait_ready()
            return body(host, tmp)
        finally:
            host.kill()


def check_host_files(host):
    with open(host.buf) as f:
        info = f.read()
    check(re.fullmatch(r"\d+\n\d+\n?", info) is not None, "buffer info is not two decimal lines: %r" % info)
    addr, length = (int(x) for x in info.split())
    check(addr != 0, "buffer address is 0")
    check(length == len(host.text) + 1, "buffer length %d, expected %d" % (length, len(host.text) + 1))
    size = os.path.getsize(host.desc)
    check(0 < size <= 512, "descriptor is %d bytes; it must fit the DPU's 512-byte read" % size)


def dpu_pair(ns=1, nd=1):
    text = random_text()

    def body(host, tmp):
        check_host_files(host)
        r = run([DPU, "-d", host.desc, "-b", host.buf, "-ns", str(ns), "-nd", str(nd)])
        expect_success(r)
        expect_line(r, r"Remote DMA copy was done Successfully$")
        expect_line(r, r"Memory content: %s$" % re.escape(text))
        expect_line(r, r"Host sample can be closed, DMA copy ended$")
        check(host.running(), "host exited before Enter", host.snapshot())
        h = host.press_enter()
        expect_success(h)
        expect_line(h, r"Wait till the DPU has finished and press enter")
    with_host(text, body)


def test_host_dpu_pair():
    dpu_pair()


def test_host_sample_cannot_open_a_dpu_function():
    with tempfile.TemporaryDirectory(prefix="sd-dma-") as tmp:
        r = run([HOST, "-p", "03:00.0", "-d", os.path.join(tmp, "d"), "-b", os.path.join(tmp, "b")], stdin=b"\n")
        expect_failure(r)
        expect_line(r, r"No DOCA device matches PCI address 03:00\.0", "err")
        expect_line(r, r"DOCA_ERROR_NOT_FOUND", "err")
        check(not os.path.exists(os.path.join(tmp, "d")), "wrote a descriptor without a device", r)


def test_dpu_sample_cannot_open_the_host_function():
    text = random_text()

    def body(host, tmp):
        r = run([DPU, "-p", "b1:00.0", "-d", host.desc, "-b", host.buf])
        expect_failure(r)
        expect_line(r, r"No DOCA device matches PCI address b1:00\.0", "err")
        expect_line(r, r"DOCA_ERROR_NOT_FOUND", "err")
        host.press_enter()
    with_host(text, body)


def test_host_dpu_pair_chained_2_3():
    dpu_pair(2, 3)


def test_host_dpu_twice_same_export():
    """The export stays valid while the host waits: a second DPU run copies it again."""
    text = random_text()

    def body(host, tmp):
        for _ in range(2):
            r = run([DPU, "-d", host.desc, "-b", host.buf])
            expect_success(r)
            expect_line(r, r"Memory content: %s$" % re.escape(text))
        expect_success(host.press_enter())
    with_host(text, body)


def test_dpu_stale_descriptor():
    """Host gone: the DPU fails cleanly (no crash) and says why."""
    text = random_text()
    with tempfile.TemporaryDirectory(prefix="sd-dma-") as tmp:
        host = Host(tmp, text)
        try:
            host.wait_ready()
            expect_success(host.press_enter())
        finally:
            host.kill()
        r = run([DPU, "-d", host.desc, "-b", host.buf])
        check(r.code >= 0, "DPU sample crashed", r)
        expect_failure(r)
        expect_line(r, r"DRIVER|NOT_FOUND|[Dd]river|not found|no longer", "err")
        check("Memory content" not in r.out, "printed memory content from a dead host", r)


def test_dpu_missing_descriptor_file():
    with tempfile.TemporaryDirectory(prefix="sd-dma-") as tmp:
        buf = os.path.join(tmp, "buffer_info.txt")
        with open(buf, "w") as f:
            f.write("4096\n31\n")
        r = run([DPU, "-d", os.path.join(tmp, "nope.txt"), "-b", buf])
        expect_failure(r)
        expect_line(r, r"nope\.txt does not exist", "err")


def test_dpu_missing_buffer_file():
    with tempfile.TemporaryDirectory(prefix="sd-dma-") as tmp:
        desc = os.path.join(tmp, "export_desc.txt")
        open(desc, "wb").close()
        r = run([DPU, "-d", desc, "-b", os.path.join(tmp, "nope.txt")])
        expect_failure(r)
        expect_line(r, r"nope\.txt does not exist", "err")


def dpu_with_buffer_info(info):
    """Run the DPU sample against a real host's descriptor but a forged buffer file."""
    result = {}

    def body(host, tmp):
        forged = os.path.join(tmp, "forged.txt")
        with open(forged, "w") as f:
            f.write(info)
        result["r"] = run([DPU, "-d", host.desc, "-b", forged])
        expect_success(host.press_enter())
    with_host(random_text(), body)
    return result["r"]


def test_dpu_empty_remote_buffer():
    r = dpu_with_buffer_info("4096\n0\n")
    expect_failure(r)
    expect_line(r, r"remote buffer is empty", "err")


def test_dpu_remote_buffer_too_big():
    r = dpu_with_buffer_info("4096\n18446744073709551615\n")
    expect_failure(r)
    expect_line(r, r"exceeds the device's maximum DMA buffer size", "err")


def test_dpu_malformed_buffer_info():
    r = dpu_with_buffer_info("not a number\n")
    expect_failure(r)
    expect_line(r, r"two decimal lines", "err")


def test_dpu_range_outside_export():
    """A buffer file pointing outside the exported range must be refused, not copied."""
    r = dpu_with_buffer_info("4096\n31\n")
    check(r.code >= 0, "DPU sample crashed", r)
    expect_failure(r)
    expect_line(r, r"Failed to build the remote source buffer list", "err")
    check("Memory content" not in r.out, "copied memory outside the export", r)


def limit_address_space(nbytes):
    def apply():
        resource.setrlimit(resource.RLIMIT_AS, (nbytes, nbytes))
    return apply


def test_local_copy_num_tasks_above_cap_refused_before_allocating():
    """-nt 100000000 asked for ~22 GB before the cap was read; 1 GiB of address space is plenty now."""
    r = run([LOCAL, "-nt", "100000000"], timeout=10, preexec_fn=limit_address_space(1 << 30))
    expect_failure(r)
    expect_line(r, r"The DMA context accepts at most \d+ tasks \(doca_dma_cap_get_max_num_tasks\) but 100000000 "
                r"were requested; lower -nt", "err")
    expect_line(r, r"encountered an error: .*\(DOCA_ERROR_INVALID_VALUE\)", "err")
    check("Failed to allocate" not in r.both, "allocated before checking the cap", r)
    check("DMA context is running" not in r.out, "started a context despite the cap", r)


def test_local_copy_num_tasks_cap_boundary():
    """The cap itself is accepted and every copy verified; one more is refused."""
    r = run([LOCAL, "-nt", "100000000"])
    m = re.search(r"accepts at most (\d+) tasks", r.err)
    check(m is not None, "the refusal does not name the cap", r)
    cap = int(m.group(1))
    r = run([LOCAL, "-nt", str(cap + 1)])
    expect_failure(r)
    expect_line(r, r"but %d were requested" % (cap + 1), "err")
    if cap <= 16384:
        r = run([LOCAL, "-nt", str(cap)], timeout=60)
        expect_success(r)
        expect_line(r, r"31 byte\(s\) in %d copy\(ies\) match" % cap)


def test_dpu_fifo_descriptor_refused_at_once():
    """A FIFO named by -d or -b (or sitting at the default path) fails at once with the reason."""
    with tempfile.TemporaryDirectory(prefix="sd-dma-") as tmp:
        fifo, buf = os.path.join(tmp, "fifo"), os.path.join(tmp, "buffer_info.txt")
        os.mkfifo(fifo)
        with open(buf, "w") as f:
            f.write("4096\n31\n")
        r = run([DPU, "-d", fifo, "-b", buf], timeout=10)
        expect_failure(r)
        expect_line(r, r"Descriptor path \(-d\): %s is not a regular file" % re.escape(fifo), "err")
        r = run([DPU, "-d", buf, "-b", fifo], timeout=10)
        expect_failure(r)
        expect_line(r, r"Buffer path \(-b\): %s is not a regular file" % re.escape(fifo), "err")
        check(os.path.exists(fifo), "the FIFO was removed")


def test_host_fifo_output_refused_at_once():
    """The host writes its files: a FIFO there must not wait for a reader."""
    with tempfile.TemporaryDirectory(prefix="sd-dma-") as tmp:
        fifo, buf = os.path.join(tmp, "fifo"), os.path.join(tmp, "buffer_info.txt")
        os.mkfifo(fifo)
        r = run([HOST, "-d", fifo, "-b", buf], stdin=b"\n", timeout=10)
        expect_failure(r)
        expect_line(r, r"The output file %s is not a regular file" % re.escape(fifo), "err")
        check("press enter" not in r.out, "prompted despite the failed write", r)
        r = run([HOST, "-d", buf, "-b", fifo], stdin=b"\n", timeout=10)
        expect_failure(r)
        expect_line(r, r"The output file %s is not a regular file" % re.escape(fifo), "err")


VALGRIND = ["valgrind", "--leak-check=full", "--errors-for-leak-kinds=definite", "--error-exitcode=99",
            "--show-leak-kinds=definite"]


def test_dpu_bad_descriptor_exits_clean_under_valgrind():
    """Every bad-descriptor exit of the DPU sample releases what it created (no definite leak)."""
    if shutil.which("valgrind") is None:
        raise Skip("valgrind is not installed (scripts/install-deps.sh installs it)")
    with tempfile.TemporaryDirectory(prefix="sd-dma-") as tmp:
        good_buf, bad = os.path.join(tmp, "buf.txt"), os.path.join(tmp, "bad")
        with open(good_buf, "w") as f:
            f.write("4096\n31\n")
        with open(bad, "wb") as f:
            f.write(b"this is not an export descriptor\n")
        cases = [("malformed descriptor", [bad, good_buf], r"Failed to create an mmap from the host's export"),
                 ("malformed buffer file", [bad, bad], r"two decimal lines"),
                 ("empty remote buffer", [bad, None], r"remote buffer is empty")]
        for what, (desc, info), line in cases:
            if info is None:
                info = os.path.join(tmp, "empty.txt")
                with open(info, "w") as f:
                    f.write("4096\n0\n")
            r = run(VALGRIND + [DPU, "-d", desc, "-b", info], timeout=120)
            check(r.code != 99, "%s: valgrind found errors or definite leaks" % what, r)
            expect_failure(r)
            expect_line(r, line, "err")


def test_host_help_has_no_dpu_flags():
    r = run([HOST, "-h"])
    expect_exit(r, 0)
    for flag in ("--pci-addr", "--text", "--descriptor-path", "--buffer-path"):
        check(flag in r.both, "usage does not mention " + flag, r)
    check("--num-src-buf" not in r.both, "-ns is DPU-only", r)


def test_host_rejects_dpu_only_flag():
    with tempfile.TemporaryDirectory(prefix="sd-dma-") as tmp:
        r = run([HOST, "-d", os.path.join(tmp, "d"), "-b", os.path.join(tmp, "b"), "-ns", "2"])
        expect_failure(r)
        check(not os.path.exists(os.path.join(tmp, "d")), "host exported despite the bad flag", r)


def test_host_unknown_device():
    with tempfile.TemporaryDirectory(prefix="sd-dma-") as tmp:
        r = run([HOST, "-p", "ff:1f.7", "-d", os.path.join(tmp, "d"), "-b", os.path.join(tmp, "b")])
        expect_failure(r)


def test_dpu_help():
    r = run([DPU, "--help"])
    expect_exit(r, 0)
    for flag in ("--descriptor-path", "--buffer-path", "--num-src-buf", "--num-dst-buf"):
        check(flag in r.both, "usage does not mention " + flag, r)


def test_wrong_personality_refused():
    if len(WRONG_ARCH) < 2:
        raise Skip("wrong-personality builds not given")
    host_as_dpu, dpu_as_host = WRONG_ARCH
    r = run([host_as_dpu, "-h"])
    expect_failure(r)
    expect_line(r, r"runs only on the host", "err")
    r = run([dpu_as_host])
    expect_failure(r)
    expect_line(r, r"runs only on the DPU", "err")


def main():
    return tap.run(tap.cases(globals()))


if __name__ == "__main__":
    os.environ.setdefault("SOFTDOCA_TOPOLOGY", "builtin")
    sys.exit(main())
