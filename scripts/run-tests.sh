#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Run meson's test suites in build dir $1 (further arguments go to meson test)
# and end with one line "N passed, N failed, N skipped" counting every test case
# (TAP sub-tests count one by one).  Exit status: 0 only when nothing failed.
set -u
build=$1
shift
meson test -C "$build" --print-errorlogs --num-processes 2 "$@"
rc=$?
python3 - "$build/meson-logs/testlog.json" <<'PY'
import json, re, sys
passed = failed = skipped = 0
for line in open(sys.argv[1]):
    t = json.loads(line)
    # "ok N name # SKIP reason" is a skip (TAP directives are case-insensitive).
    subs = re.findall(r'^(ok|not ok) \d+\b.*?(#\s*[Ss][Kk][Ii][Pp]\b.*)?$', t.get('stdout') or '', re.M)
    if subs:
        for verdict, skip in subs:
            if skip: skipped += 1
            elif verdict == 'ok': passed += 1
            else: failed += 1
        if t['result'] in ('FAIL', 'TIMEOUT', 'ERROR') and not any(v == 'not ok' for v, _ in subs):
            failed += 1
    elif t['result'] in ('OK', 'EXPECTEDFAIL'):
        passed += 1
    elif t['result'] == 'SKIP':
        skipped += 1
    else:
        failed += 1
print(f"{passed} passed, {failed} failed, {skipped} skipped")
PY
exit $rc
