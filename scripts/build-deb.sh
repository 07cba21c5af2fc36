#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Build softdoca's Debian packages (debian/, docs/packaging.md) from this tree:
# the tree's files (git's tracked and untracked-but-not-ignored ones; every file
# but build*/ outside git) are copied into a scratch directory and built there
# with dpkg-buildpackage, without network, then lintian checks the packages.
# OUT (default build/deb) receives the .deb files, build.log, lintian.txt and
# tree.sha256, the tree they were built from: a second run on the same tree
# reuses them (--rebuild builds anyway).
# Usage: scripts/build-deb.sh [--rebuild] [OUT]
set -u
src=$(cd "$(dirname "$0")/.." && pwd)
rebuild=0
[ "${1:-}" = --rebuild ] && rebuild=1 && shift
out=${1:-$src/build/deb}
mkdir -p "$out" && out=$(cd "$out" && pwd)

fail() {
	echo "build-deb: $*" >&2
	exit 1
}

for tool in dpkg-buildpackage dpkg-parsechangelog dh; do
	command -v "$tool" > /dev/null || fail "$tool is missing: run 'scripts/install-deps.sh --deb' (as root)"
done

# The tree, as a NUL-separated list of files relative to $src.
list_tree() {
	if git -C "$src" rev-parse --show-toplevel 2> /dev/null | grep -qxF "$src"; then
		git -C "$src" ls-files -z --cached --others --exclude-standard |
			while IFS= read -r -d '' f; do [ -e "$src/$f" ] && printf '%s\0' "$f"; done
	else
		(cd "$src" && find . \( -path './build*' -o -path ./.git \) -prune -o \( -type f -o -type l \) -printf '%P\0')
	fi
}

list=$(mktemp)
trap 'rm -f "$list"' EXIT
list_tree | LC_ALL=C sort -z > "$list"
tree=$( (tr '\0' '\n' < "$list"; cd "$src" && xargs -0 sha256sum < "$list") | sha256sum | cut -d' ' -f1)
if [ $rebuild = 0 ] && [ -f "$out/tree.sha256" ] && [ "$(cat "$out/tree.sha256")" = "$tree" ] &&
	ls "$out"/*.deb > /dev/null 2>&1; then
	echo "build-deb: $out holds the packages of this tree (--rebuild builds them again)"
	exit 0
fi

version=$(dpkg-parsechangelog -l "$src/debian/changelog" -S Version)
scratch=$(mktemp -d)
trap 'rm -f "$list"; rm -rf "$scratch"' EXIT
tree_dir=$scratch/softdoca-$version
mkdir -p "$tree_dir"
(cd "$src" && tar --null -T "$list" -cf -) | tar -C "$tree_dir" -xf - || fail "could not copy the tree"

# No network: a network namespace of its own with only a down loopback, where the
# kernel lets us make one (root, or user namespaces); meson never downloads
# anyway (debhelper passes --wrap-mode=nodownload).
isolate=()
if unshare --net true 2> /dev/null; then
	isolate=(unshare --net)
elif unshare --net --map-root-user true 2> /dev/null; then
	isolate=(unshare --net --map-root-user)
fi
echo "build-deb: building softdoca $version in $tree_dir${isolate[*]:+ (${isolate[*]})}; log: $out/build.log"
rm -f "$out"/*.deb "$out"/*.ddeb "$out"/*.changes "$out"/*.buildinfo "$out/tree.sha256" "$out/lintian.txt"
# A caller's search paths and test settings must not reach the build.
if ! (cd "$tree_dir" && env -u PKG_CONFIG_PATH -u LD_LIBRARY_PATH -u LD_PRELOAD -u MALLOC_PERTURB_ \
	"${isolate[@]}" dpkg-buildpackage -b -us -uc -jauto) > "$out/build.log" 2>&1; then
	# The lines that say what went wrong (each file no package has, each missing one), else the end.
	grep -E 'missing files:|error' "$out/build.log" | tail -30 >&2 || tail -25 "$out/build.log" >&2
	fail "dpkg-buildpackage failed (the whole log: $out/build.log)"
fi
mv "$scratch"/*.deb "$scratch"/*.changes "$scratch"/*.buildinfo "$out"/
mv "$scratch"/*.ddeb "$out"/ 2> /dev/null

# lintian on every package: errors fail the build, warnings are listed in
# docs/packaging.md with the reason each stays.
if command -v lintian > /dev/null; then
	lintian --tag-display-limit 0 "$out"/softdoca_"${version}"_*.changes > "$out/lintian.txt" 2>&1
	errors=$(grep -c '^E: ' "$out/lintian.txt")
	warnings=$(grep -c '^W: ' "$out/lintian.txt")
	echo "build-deb: lintian: $errors errors, $warnings warnings ($out/lintian.txt)"
	[ "$errors" = 0 ] || { grep '^E: ' "$out/lintian.txt" >&2; fail "lintian found errors"; }
else
	echo "lintian is not installed: not run" > "$out/lintian.txt"
	echo "build-deb: lintian is not installed: the packages were not checked" >&2
fi
echo "$tree" > "$out/tree.sha256"
ls "$out"/*.deb
