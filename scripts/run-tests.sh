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
why = []  # one line per failure, printed last so a log cut to its tail still names them
for line in open(sys.argv[1]):
    t = json.loads(line)
    out = t.get('stdout') or ''
    # "ok N name # SKIP reason" is a skip (TAP directives are case-insensitive).
    subs = re.findall(r'^(ok|not ok) \d+\b.*?(#\s*[Ss][Kk][Ii][Pp]\b.*)?$', out, re.M)
    if subs:
        for verdict, skip in subs:
            if skip: skipped += 1
            elif verdict == 'ok': passed += 1
            else: failed += 1
        # each "not ok" with the first diagnostic line after it
        for m in re.finditer(r'^not ok .*$(\n#.*$)?', out, re.M):
            why.append(f"{t['name']}: {' '.join(m.group(0).split())[:400]}")
        if t['result'] in ('FAIL', 'TIMEOUT', 'ERROR') and not any(v == 'not ok' for v, _ in subs):
            failed += 1
            why.append(f"{t['name']}: {t['result']} (exit status {t.get('returncode')})")
    elif t['result'] in ('OK', 'EXPECTEDFAIL'):
        passed += 1
    elif t['result'] == 'SKIP':
        skipped += 1
    else:
        failed += 1
        tail = ' | '.join(l for l in (t.get('stderr') or out).splitlines()[-3:])
        why.append(f"{t['name']}: {t['result']} (exit status {t.get('returncode')}): {tail[:400]}")
for w in why:
    print("FAILED " + w)
print(f"{passed} passed, {failed} failed, {skipped} skipped")
PY
exit $rc
