#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# One module owns every cross-process copy (docs/security.md "One rule for
# every cross-process copy"): no file of src/ but src/core/xproc.c calls
# process_vm_readv / process_vm_writev or prctl(PR_SET_PTRACER, ...).
src=$1
echo "1..2"
calls=$(grep -rnE '(process_vm_(readv|writev)|PR_SET_PTRACER)[[:space:]]*[(,]' "$src" --include='*.c' --include='*.h' |
	grep -v "^$src/core/xproc.c:" | grep -vE ':[0-9]+:[[:space:]]*(\*|/\*)')
if [ -z "$calls" ]; then
	echo "ok 1 only src/core/xproc.c copies across processes"
else
	echo "not ok 1 only src/core/xproc.c copies across processes"
	echo "$calls" | sed 's/^/# /'
fi
if grep -q 'process_vm_writev' "$src/core/xproc.c" && grep -q 'PR_SET_PTRACER' "$src/core/xproc.c"; then
	echo "ok 2 src/core/xproc.c holds the copy loop and the Yama exception"
else
	echo "not ok 2 src/core/xproc.c holds the copy loop and the Yama exception"
fi
