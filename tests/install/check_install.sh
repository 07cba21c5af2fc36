#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Install the build into a scratch DESTDIR, then build and run a DOCA program
# through pkg-config for each personality, as a user of the installed SDK would.
# Then move the installed prefix somewhere else and run installed programs
# there without LD_LIBRARY_PATH: they find their libraries through their
# relative rpath ($ORIGIN/../<libdir>), not through a system-wide install.
# The soft NIC, libsoftdoca_fabric (a private library, no .pc), must sit beside
# libdoca_rdma and libdoca_verbs, which find it the same way.
# Usage: check_install.sh <build-dir> <hello_doca.c> <cc>
set -u
build=$1 src=$2 cc=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "1..8"
if meson install -C "$build" --destdir "$tmp/root" --no-rebuild --quiet > "$tmp/install.log" 2>&1; then
	echo "ok 1 meson install into DESTDIR"
else
	echo "not ok 1 meson install into DESTDIR"; sed 's/^/# /' "$tmp/install.log"; exit 1
fi
host_pc=$(dirname "$(find "$tmp/root" -path '*/pkgconfig/doca-common.pc' -not -path '*/softdoca/*' | head -1)")
dpu_pc=$(dirname "$(find "$tmp/root" -path '*/softdoca/dpu/pkgconfig/doca-common.pc' | head -1)")
n=1 failed=0
for p in host dpu; do
	pcdir=$host_pc
	[ "$p" = dpu ] && pcdir=$dpu_pc
	n=$((n + 1))
	flags=$(PKG_CONFIG_PATH="$pcdir" pkg-config --cflags --libs doca-common doca-dma 2> "$tmp/pc.err")
	# shellcheck disable=SC2086
	if [ -n "$pcdir" ] && "$cc" -std=gnu11 -Wall -Werror -DDOCA_ALLOW_EXPERIMENTAL_API -o "$tmp/hello-$p" "$src" $flags \
		> "$tmp/cc.log" 2>&1; then
		echo "ok $n build through pkg-config, $p personality"
	else
		echo "not ok $n build through pkg-config, $p personality"; sed 's/^/# /' "$tmp/pc.err" "$tmp/cc.log"
		failed=1; n=$((n + 1)); echo "not ok $n run, $p personality # not built"; continue
	fi
	n=$((n + 1))
	out=$(env -u LD_LIBRARY_PATH "$tmp/hello-$p" 2>&1)
	rc=$?
	# The program lists only its own side's functions (docs/personalities.md).
	own=b1 other=03
	[ "$p" = dpu ] && own=03 other=b1
	if [ $rc = 0 ] && grep -qx "personality: $p" <<< "$out" && grep -q "dma: copied 4096 bytes" <<< "$out" &&
		grep -q "^device: 0000:$own:00.0" <<< "$out" && ! grep -q "^device: 0000:$other:" <<< "$out"; then
		echo "ok $n run, $p personality"
	else
		echo "not ok $n run, $p personality"; sed 's/^/# /' <<< "$out"; failed=1
	fi
done

# A private prefix, moved after installation.
prefix=$(meson introspect "$build" --buildoptions |
	python3 -c 'import json,sys; print(next(o["value"] for o in json.load(sys.stdin) if o["name"] == "prefix"))')
moved=$tmp/elsewhere/prefix
mkdir -p "$tmp/elsewhere"
mv "$tmp/root$prefix" "$moved"
for prog in doca_caps doca_core_tour; do
	n=$((n + 1))
	exe=$moved/bin/$prog
	args=--version
	[ "$prog" = doca_core_tour ] && args=
	# shellcheck disable=SC2086
	out=$(cd / && env -u LD_LIBRARY_PATH SOFTDOCA_TOPOLOGY=builtin "$exe" $args 2>&1)
	rc=$?
	libs=$(env -u LD_LIBRARY_PATH ldd "$exe" 2>&1 | grep 'libdoca_')
	if [ $rc = 0 ] && [ -n "$libs" ] && ! grep -v -F "$moved/" <<< "$libs" | grep -q .; then
		echo "ok $n installed $prog runs from a moved prefix without LD_LIBRARY_PATH"
	else
		echo "not ok $n installed $prog runs from a moved prefix without LD_LIBRARY_PATH (exit $rc)"
		sed 's/^/# /' <<< "$libs"; sed 's/^/# /' <<< "$out" | tail -5; failed=1
	fi
done

# One libsoftdoca_fabric in the libdir, which both RDMA libraries load from the moved prefix.
n=$((n + 1))
rdma_lib=$(find "$moved" -name 'libdoca_rdma.so.3' | head -1)
if [ -z "$rdma_lib" ]; then
	echo "ok $n libsoftdoca_fabric beside libdoca_rdma and libdoca_verbs # SKIP built without UCX (no RDMA libraries)"
else
	libdir_moved=$(dirname "$rdma_lib")
	fabric=$(find "$moved" -name 'libsoftdoca_fabric.so*' -type f)
	bad=
	for lib in libdoca_rdma.so.3 libdoca_verbs.so.3; do
		found=$(env -u LD_LIBRARY_PATH ldd "$libdir_moved/$lib" 2>&1 | awk '$1 == "libsoftdoca_fabric.so.3" {print $3}')
		[ "$found" = "$libdir_moved/libsoftdoca_fabric.so.3" ] || bad="$bad $lib:${found:-not-found}"
	done
	if [ "$(wc -l <<< "$fabric")" = 1 ] && [ "$(dirname "$fabric")" = "$libdir_moved" ] && [ -z "$bad" ] &&
		! find "$moved" -name 'softdoca_fabric*.pc' | grep -q .; then
		echo "ok $n libsoftdoca_fabric beside libdoca_rdma and libdoca_verbs"
	else
		echo "not ok $n libsoftdoca_fabric beside libdoca_rdma and libdoca_verbs"
		echo "# installed: $fabric"; echo "# resolved:$bad"; failed=1
	fi
fi
exit $failed
