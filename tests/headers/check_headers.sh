#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Every public header must compile on its own as C11 -pedantic and as C++17, and
# the programs in tests/headers/uses_*.c (written as DOCA's samples are, relying on
# the standard headers DOCA's headers bring) must compile as the samples do.
# Usage: check_headers.sh <cc> <c++> <include-dir> <personality-include-dir> <programs-dir> <header>...
# Prints TAP, one line per header and language, then one per program.
set -u
cc=$1 cxx=$2 inc=$3 pinc=$4 progs=$5
shift 5
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
nprogs=$(ls "$progs"/uses_*.c | wc -l)
echo "1..$(($# * 2 + nprogs))"
n=0 failed=0
for h in "$@"; do
	name=$(basename "$h")
	printf '#include <%s>\n#include <%s>\nint sd_header_check_%s;\n' "$name" "$name" "${name%.h}" > "$tmp/t.c"
	cp "$tmp/t.c" "$tmp/t.cpp"
	n=$((n + 1))
	if "$cc" -std=c11 -pedantic -Wall -Wextra -Werror -fsyntax-only -I"$pinc" -I"$inc" "$tmp/t.c" 2> "$tmp/err"; then
		echo "ok $n $name as C11"
	else
		echo "not ok $n $name as C11"; sed 's/^/# /' "$tmp/err"; failed=1
	fi
	n=$((n + 1))
	if "$cxx" -std=c++17 -Wall -Wextra -Werror -fsyntax-only -I"$pinc" -I"$inc" "$tmp/t.cpp" 2> "$tmp/err"; then
		echo "ok $n $name as C++"
	else
		echo "not ok $n $name as C++"; sed 's/^/# /' "$tmp/err"; failed=1
	fi
done
# As the samples build: gnu11, -DDOCA_ALLOW_EXPERIMENTAL_API, warnings as errors
# (an implicit declaration or an unknown PRIu64 fails).
for p in "$progs"/uses_*.c; do
	n=$((n + 1))
	if "$cc" -std=gnu11 -Wall -Werror -DDOCA_ALLOW_EXPERIMENTAL_API -fsyntax-only -I"$pinc" -I"$inc" "$p" 2> "$tmp/err"; then
		echo "ok $n $(basename "$p") builds with only its DOCA includes"
	else
		echo "not ok $n $(basename "$p") builds with only its DOCA includes"; sed 's/^/# /' "$tmp/err"; failed=1
	fi
done
exit $failed
