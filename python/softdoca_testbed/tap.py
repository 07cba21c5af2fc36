# SPDX-License-Identifier: BSD-3-Clause
"""TAP for Python tests: each case one line, a failure's detail as comments, skips with a reason."""
import sys
import traceback


class Failure(Exception):
    """A check that failed: reported as its message, without a traceback."""


class Skip(Exception):
    """The case (or, raised by a fixture, the whole file) cannot run here; the message says why."""


def check(cond, what, *runs):
    """Fail with what, followed by the description of each run given (anything with describe())."""
    if not cond:
        raise Failure(what + "".join("\n" + r.describe() for r in runs if r is not None))


def run(tests, args=(), skip=None, timing=False):
    """TAP over tests, (name, fn) pairs, each called as fn(*args); the exit code.

    skip: a reason that skips every case (a fixture that could not be built).  timing: add
    the case's seconds to its ok line.
    """
    import time

    print("1..%d" % len(tests), flush=True)
    failed = 0
    for i, (name, fn) in enumerate(tests, 1):
        if skip is not None:
            print("ok %d %s # SKIP %s" % (i, name, skip), flush=True)
            continue
        t0 = time.time()
        try:
            fn(*args)
            print("ok %d %s%s" % (i, name, " # %.1f s" % (time.time() - t0) if timing else ""), flush=True)
        except Skip as e:
            print("ok %d %s # SKIP %s" % (i, name, e), flush=True)
        except Exception as e:  # noqa: BLE001 - every failure is reported as TAP
            failed += 1
            print("not ok %d %s" % (i, name))
            detail = str(e) if isinstance(e, Failure) else traceback.format_exc()
            for line in detail.splitlines():
                print("# " + line)
            sys.stdout.flush()
    return 1 if failed else 0


def cases(namespace):
    """The test_* functions of a module's globals(), in definition order."""
    return [(name, fn) for name, fn in namespace.items() if name.startswith("test_") and callable(fn)]


def exit_on_sigterm():
    """A timeout kill (SIGTERM) unwinds through finally blocks, which delete namespaces and files."""
    import signal

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
