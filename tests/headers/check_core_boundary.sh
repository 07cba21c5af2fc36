#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The Core boundary is enforced by the compiler (docs/architecture.md "The Core
# boundary", src/core/core_private.h): outside libdoca_common, src/core/sd_core.h
# compiles and its accessors work; a Core field read does not compile; a Core
# internal header included directly does not compile; and no file outside Core
# and the tests spells a mangled field name to get round it.
# Usage: check_core_boundary.sh <cc> <source-root> <personality-include-dir>
# Prints TAP.
set -u
cc=$1 root=$2 pinc=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
flags=(-std=gnu11 -D_GNU_SOURCE -DDOCA_ALLOW_EXPERIMENTAL_API -Wall -Werror -fsyntax-only -I"$pinc"
       -I"$root/include")
echo "1..4"
n=0 failed=0
report() { # expected-to-compile?, description, file, pattern the errors must show
	local want=$1 what=$2 file=$3 pattern=$4
	n=$((n + 1))
	if "$cc" "${flags[@]}" "$file" 2> "$tmp/err"; then
		[ "$want" = yes ] && { echo "ok $n $what"; return; }
		echo "not ok $n $what (it compiled)"; failed=1
	else
		[ "$want" = no ] && grep -q -- "$pattern" "$tmp/err" && { echo "ok $n $what"; return; }
		echo "not ok $n $what"; sed 's/^/# /' "$tmp/err"; failed=1
	fi
}
cat > "$tmp/accessors.c" <<EOT
#include "$root/src/core/sd_core.h"
size_t sd_check_room(const struct doca_buf *b);
size_t sd_check_room(const struct doca_buf *b) { return sd_buf_len(b) - sd_buf_data_len(b) + sd_buf_tail_room(b); }
EOT
report yes "sd_core.h and its accessors compile outside Core" "$tmp/accessors.c" ""
cat > "$tmp/field.c" <<EOT
#include "$root/src/core/sd_core.h"
void *sd_check_field(const struct doca_buf *b);
void *sd_check_field(const struct doca_buf *b) { return b->data; }
EOT
report no "a Core field read outside Core does not compile" "$tmp/field.c" "has no member named"
cat > "$tmp/internal.c" <<EOT
#include "$root/src/core/sd_core.h"
#include "$root/src/core/mmap_internal.h"
EOT
report no "a Core internal header included directly does not compile" "$tmp/internal.c" "include src/core/sd_core.h"
n=$((n + 1))
hits=$(grep -rln 'sd_core_private_' "$root/src" "$root/tools" "$root/bench" "$root/samples" "$root/applications" \
	--include='*.[ch]' | grep -v '/src/core/' || true)
if [ -z "$hits" ]; then
	echo "ok $n no mangled Core field name outside Core"
else
	echo "not ok $n no mangled Core field name outside Core"; echo "$hits" | sed 's/^/# /'; failed=1
fi
exit $failed
