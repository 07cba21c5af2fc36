# SPDX-License-Identifier: BSD-3-Clause
"""Run programs under valgrind memcheck and judge the result.

Every program runs as
    valgrind --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=1 --xml=yes ...
and its XML report is read back: a definite leak anywhere, or any other error
with a frame in a libdoca_* library, in the soft NIC under them
(libsoftdoca_fabric) or in the program itself, fails it.  Errors
entirely inside third-party code (UCX, glibc, json-c) are listed but do not
fail (they are not ours to fix).  Each finding is printed with its stack, so a
failure names the function to fix.
"""
import glob
import os
import shutil
import xml.etree.ElementTree as ET

VALGRIND = shutil.which("valgrind")
# softdoca's library code (src/): the DOCA libraries and the fabric they link.
LIBRARY_PREFIXES = ("libdoca_", "libsoftdoca_fabric")


def prefix(xml_dir, name):
    """The command prefix for one program; its reports go to xml_dir/<name>.<pid>.xml."""
    return [VALGRIND, "--leak-check=full", "--errors-for-leak-kinds=definite", "--error-exitcode=1",
            "--show-leak-kinds=definite", "--num-callers=30", "--xml=yes",
            "--xml-file=%s/%s.%%p.xml" % (xml_dir, name)]


def _frames(stack):
    out = []
    for f in stack.findall("frame"):
        fn = f.findtext("fn") or "?"
        obj = os.path.basename(f.findtext("obj") or "?")
        loc = ""
        if f.findtext("file"):
            loc = " (%s:%s)" % (f.findtext("file"), f.findtext("line"))
        out.append((fn, obj, "%s [%s]%s" % (fn, obj, loc)))
    return out


def _ours(frames, program):
    return any(obj.startswith(LIBRARY_PREFIXES) or obj == program for _, obj, _ in frames)


def findings(xml_dir, name, program):
    """(fatal, benign): lists of text blocks, one per valgrind error, from name's reports."""
    fatal, benign = [], []
    files = sorted(glob.glob(os.path.join(xml_dir, "%s.*.xml" % name)))
    if not files:
        fatal.append("no valgrind report for %s (did it run under valgrind?)" % name)
    for path in files:
        try:
            root = ET.parse(path).getroot()
        except ET.ParseError as e:
            fatal.append("%s: unreadable valgrind report (%s): the program was killed?" % (path, e))
            continue
        for err in root.findall("error"):
            kind = err.findtext("kind") or "?"
            what = err.findtext("what") or (err.find("xwhat").findtext("text") if err.find("xwhat") is not None
                                            else "?")
            stack = err.find("stack")
            frames = _frames(stack) if stack is not None else []
            text = "%s: %s\n" % (kind, what) + "".join("    at %s\n" % t for _, _, t in frames)
            in_libdoca = any(obj.startswith(LIBRARY_PREFIXES) for _, obj, _ in frames)
            if in_libdoca:
                text = "[inside libdoca_*: a library (src/) issue] " + text
            if kind == "Leak_DefinitelyLost" or _ours(frames, program):
                fatal.append(text)
            else:
                benign.append(text)
    return fatal, benign


class Tap:
    """Numbered TAP lines; plan at the end."""

    def __init__(self):
        self.n = 0
        self.failed = 0

    def ok(self, name, detail=""):
        self.n += 1
        print("ok %d %s" % (self.n, name), flush=True)
        for line in detail.splitlines():
            print("# " + line)

    def not_ok(self, name, detail):
        self.n += 1
        self.failed += 1
        print("not ok %d %s" % (self.n, name))
        for line in detail.splitlines():
            print("# " + line)

    def skip(self, name, why):
        self.n += 1
        print("ok %d %s # SKIP %s" % (self.n, name, why), flush=True)

    def end(self):
        print("1..%d" % self.n, flush=True)
        return 1 if self.failed else 0
