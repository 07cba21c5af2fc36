#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Install into a scratch DESTDIR, then build a DOCA-style meson project with
# dependency('doca-verbs'), dependency('libibverbs'), dependency('libmlx5')
# found through softdoca's pkg-config directory, in both dependency orders,
# and run it: rdma-core calls on softdoca's ibv objects must reach
# libsoftdoca_ibverbs, not the real libibverbs (docs/verbs.md).  Last,
# rdma-core's ibv_devices with the installed shim in LD_PRELOAD lists the
# soft devices (the installed shim finds its libraries by itself).
# Usage: check_ibverbs.sh <build-dir> <project-source-dir>
set -u
build=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "1..6"
if meson install -C "$build" --destdir "$tmp/root" --no-rebuild --quiet > "$tmp/install.log" 2>&1; then
	echo "ok 1 meson install into DESTDIR"
else
	echo "not ok 1 meson install into DESTDIR"; sed 's/^/# /' "$tmp/install.log"; exit 1
fi
pcdir=$(dirname "$(find "$tmp/root" -path '*/pkgconfig/libibverbs.pc' -not -path '*/softdoca/*' | head -1)")
n=1 failed=0
if [ -f "$pcdir/libmlx5.pc" ] && PKG_CONFIG_PATH="$pcdir" pkg-config --libs libibverbs | grep -q -- '-lsoftdoca_ibverbs.*-libverbs'; then
	echo "ok 2 softdoca's libibverbs.pc / libmlx5.pc list the interposer before rdma-core"
else
	echo "not ok 2 softdoca's libibverbs.pc / libmlx5.pc list the interposer before rdma-core"; failed=1
fi
n=2
for order in "'doca-verbs', 'libibverbs', 'libmlx5'" "'libmlx5', 'libibverbs', 'doca-verbs'"; do
	n=$((n + 1))
	proj=$tmp/proj-$n
	mkdir -p "$proj"
	cp "$src/verbs_ibv.c" "$proj/"
	cat > "$proj/meson.build" <<MESON
project('ibv_interop', 'c', default_options: ['c_std=gnu11'])
deps = []
foreach d : [$order]
	deps += dependency(d)
endforeach
executable('verbs_ibv', 'verbs_ibv.c', dependencies: deps, c_args: ['-DDOCA_ALLOW_EXPERIMENTAL_API'])
MESON
	if ! (cd "$proj" && env -u LD_LIBRARY_PATH PKG_CONFIG_PATH="$pcdir" meson setup b > "$tmp/setup.log" 2>&1 &&
		ninja -C b > "$tmp/ninja.log" 2>&1); then
		echo "not ok $n build with dependencies ($order)"; sed 's/^/# /' "$tmp/setup.log" "$tmp/ninja.log" | tail -20
		failed=1; continue
	fi
	out=$(cd / && env -u LD_LIBRARY_PATH SOFTDOCA_TOPOLOGY=builtin "$proj/b/verbs_ibv" 2>&1)
	rc=$?
	if [ $rc = 0 ] && grep -q "status string 'success'" <<< "$out"; then
		echo "ok $n build and run with dependencies ($order)"
	else
		echo "not ok $n build and run with dependencies ($order) (exit $rc)"; sed 's/^/# /' <<< "$out" | tail -10
		failed=1
	fi
done
# The negative control: rdma-core first on the link line gives the real ibv_reg_mr the soft PD.
n=$((n + 1))
proj=$tmp/proj-bad
mkdir -p "$proj" && cp "$src/verbs_ibv.c" "$proj/"
if cc -std=gnu11 -DDOCA_ALLOW_EXPERIMENTAL_API -o "$proj/bad" "$proj/verbs_ibv.c" \
	$(PKG_CONFIG_PATH="$pcdir" pkg-config --cflags doca-verbs) -libverbs \
	$(PKG_CONFIG_PATH="$pcdir" pkg-config --libs doca-verbs libibverbs) > "$tmp/bad.log" 2>&1; then
	(cd / && env -u LD_LIBRARY_PATH SOFTDOCA_TOPOLOGY=builtin "$proj/bad" > /dev/null 2>&1)
	rc=$?
	if [ $rc != 0 ]; then
		echo "ok $n control: rdma-core linked first does not reach softdoca (exit $rc)"
	else
		echo "ok $n control: rdma-core linked first still worked # SKIP the link order did not matter here"
	fi
else
	echo "not ok $n control build"; sed 's/^/# /' "$tmp/bad.log" | tail -5; failed=1
fi
n=$((n + 1))
shim=$(find "$tmp/root" -name 'libsoftdoca_ibverbs.so.3' -not -path '*/softdoca/*' | head -1)
if ! command -v ibv_devices > /dev/null; then
	echo "ok $n installed shim in LD_PRELOAD: ibv_devices lists mlx5_0 # SKIP ibv_devices not installed (ibverbs-utils)"
elif out=$(cd / && env -u LD_LIBRARY_PATH SOFTDOCA_TOPOLOGY=builtin LD_PRELOAD="$shim" ibv_devices 2>&1) &&
	grep -Eq '^\s+mlx5_0\s+[0-9a-f]{16}$' <<< "$out"; then
	echo "ok $n installed shim in LD_PRELOAD: ibv_devices lists mlx5_0"
else
	echo "not ok $n installed shim in LD_PRELOAD: ibv_devices lists mlx5_0 ($shim)"; sed 's/^/# /' <<< "$out" | tail -10
	failed=1
fi
exit $failed
