#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# softdoca's Debian packages, through the steps of contrib/docker/Dockerfile
# (scripts/ci-image.sh): build them (or reuse those of the same tree), check that
# debian/control's packages all came out, lintian's errors, file collisions with
# each other and with the installed Debian packages (rdma-core's, UCX's, ...);
# `dpkg -x` them into a throwaway root and build and run a DOCA project there
# through pkg-config alone; then, as root only, install them into this system
# with apt, do the same against the installed packages, `dpkg -r` them and check
# that nothing of them is left.  Whatever happens, packages this test installed
# are purged before it exits.  The Docker image itself is built where a container
# runtime answers (docker or podman).
# Usage: check_deb.sh <source-dir> <out-dir>
set -u
src=$1 out=$2
tmp=$(mktemp -d)
installed_here=0
n=0 failed=0

pkgs=$(sed -n 's/^Package: //p' "$src/debian/control")
cleanup() {
	if [ $installed_here = 1 ]; then
		# shellcheck disable=SC2086
		left=$(dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' $pkgs 2> /dev/null | awk '$1 != "un" { print $2 }')
		# shellcheck disable=SC2086
		[ -z "$left" ] || dpkg --purge $left > /dev/null 2>&1
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

tap() {
	n=$((n + 1))
	if [ "$1" = ok ]; then
		echo "ok $n $2"
	else
		echo "not ok $n $2"
		failed=1
	fi
	[ -z "${3:-}" ] || sed 's/^/# /' "$3"
}
skip() {
	n=$((n + 1))
	echo "ok $n $1 # SKIP $2"
}
finish() {
	echo "1..$n"
	exit $failed
}
# One TAP line per "ok: ..." / "FAILED: ..." line of a ci-image.sh step; its
# other lines (the details under a failure) become diagnostics.
tap_steps() {
	local prefix=$1 line
	while IFS= read -r line; do
		case $line in
		ok:*) tap ok "$prefix${line#ok: }" ;;
		FAILED:*) tap fail "$prefix${line#FAILED: }" ;;
		*) echo "# $line" ;;
		esac
	done < "$2"
}

if ! command -v dpkg-buildpackage > /dev/null || ! command -v dh > /dev/null; then
	skip "Debian packages" "dpkg-buildpackage or debhelper is not installed (scripts/install-deps.sh --deb)"
	finish
fi

# 1. Build (ci-image.sh build: build dependencies, scripts/build-deb.sh, the project).
if "$src/scripts/ci-image.sh" build "$out" > "$tmp/build.log" 2>&1; then
	tap ok "packages built from the tree in a scratch directory ($(grep -c . <<< "$pkgs") in debian/control)"
else
	tail -30 "$tmp/build.log" > "$tmp/tail"
	tap fail "packages built from the tree (scripts/ci-image.sh build $out)" "$tmp/tail"
	finish
fi
debs=$(ls "$out"/*.deb | grep -v -- '-dbgsym_')

missing=
for p in $pkgs; do
	ls "$out/${p}"_*.deb > /dev/null 2>&1 || missing="$missing $p"
done
[ -z "$missing" ] && tap ok "every package of debian/control was built" ||
	tap fail "every package of debian/control was built: missing$missing"

if grep -q 'not installed' "$out/lintian.txt"; then
	skip "lintian: no errors" "lintian is not installed (scripts/install-deps.sh --deb)"
else
	grep '^[EW]: ' "$out/lintian.txt" > "$tmp/lintian"
	e=$(grep -c '^E: ' "$tmp/lintian") w=$(grep -c '^W: ' "$tmp/lintian")
	[ "$e" = 0 ] && tap ok "lintian: no errors, $w warnings (docs/packaging.md lists them)" "$tmp/lintian" ||
		tap fail "lintian: $e errors, $w warnings" "$tmp/lintian"
fi

# No path in two of the packages, and none that an installed Debian package owns.
for d in $debs; do
	dpkg-deb -c "$d" | awk '$1 !~ /^d/ { sub(/^\./, "", $6); print $6 }'
done | sort > "$tmp/paths"
uniq -d "$tmp/paths" > "$tmp/twice"
# shellcheck disable=SC2046
dpkg -S $(uniq "$tmp/paths") 2> /dev/null | grep -v '^diversion by' > "$tmp/owned"
# Our own packages may be installed (a developer's system): those owners do not count.
grep -v -E "^($(tr '\n' '|' <<< "$pkgs" | sed 's/|$//'))(:[a-z0-9]+)?: " "$tmp/owned" > "$tmp/others"
against=$(dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' rdma-core libibverbs-dev ibverbs-providers \
	librdmacm-dev libucx-dev libucx0 ucx-utils 2> /dev/null | awk '$1 == "ii" { printf " %s", $2 }')
if [ -s "$tmp/twice" ] || [ -s "$tmp/others" ]; then
	cat "$tmp/twice" "$tmp/others" > "$tmp/collide"
	tap fail "no file in two packages or owned by an installed package" "$tmp/collide"
else
	tap ok "$(wc -l < "$tmp/paths") files, none in two packages or owned by an installed package (among them$against)"
fi

# 2. A throwaway root: dpkg -x, then the project through pkg-config only.
root=$tmp/root
ok=1
for d in $debs; do
	dpkg -x "$d" "$root" || ok=0
done
outside=$(grep -v '^/usr/' "$tmp/paths")
[ $ok = 1 ] && [ -z "$outside" ] && tap ok "dpkg -x into a throwaway root: everything under /usr" ||
	tap fail "dpkg -x into a throwaway root: everything under /usr${outside:+ (not: $outside)}"
"$src/scripts/ci-image.sh" check "$out" "$root" > "$tmp/check.log" 2>&1
tap_steps "dpkg -x root: " "$tmp/check.log"

# 3. This system, as root: install, check, remove.
system_install() {
	local why= mine shadow extra states triplet left
	why=
	if [ "$(id -u)" != 0 ]; then
		why="installing into the system needs root"
	elif ! command -v apt-get > /dev/null; then
		why="no apt-get"
	else
		# shellcheck disable=SC2086
		mine=$(dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' $pkgs 2> /dev/null | awk '$1 != "un" { printf " %s", $2 }')
		shadow=$(env -u PKG_CONFIG_PATH -u PKG_CONFIG_LIBDIR pkg-config --variable=pcfiledir doca-common 2> /dev/null)
		# shellcheck disable=SC2086
		extra=$(apt-get install -s --no-install-recommends $debs 2>&1 | awk '$1 == "Inst" || $1 == "Remv" { print $1, $2 }' |
			grep -v -x -E "Inst ($(tr '\n' '|' <<< "$pkgs" | sed 's/|$//'))")
		if [ -n "$mine" ]; then
			why="softdoca packages are installed here already:$mine"
		elif [ -n "$shadow" ]; then
			why="a doca-common.pc on pkg-config's default path ($shadow) would hide the packages'"
		elif [ -n "$extra" ]; then
			why="apt would also change other packages ($(tr '\n' ',' <<< "$extra"))"
		fi
	fi
	if [ -n "$why" ]; then
		for t in "install (ci-image.sh install)" "build and run the DOCA project against the installed packages" \
			"dpkg -r leaves nothing behind"; do
			skip "system: $t" "$why"
		done
		return
	fi
	installed_here=1
	"$src/scripts/ci-image.sh" install "$out" > "$tmp/install.log" 2>&1
	tap_steps "system: " "$tmp/install.log"
	"$src/scripts/ci-image.sh" check "$out" > "$tmp/check.log" 2>&1
	tap_steps "system: " "$tmp/check.log"

	# dpkg -r: no package left in any state (a package with conffiles would stay
	# "rc"), no file of theirs left, none of softdoca's directories.
	# shellcheck disable=SC2086
	dpkg -r $pkgs > "$tmp/remove.log" 2>&1 || tap fail "system: dpkg -r" "$tmp/remove.log"
	# shellcheck disable=SC2086
	states=$(dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' $pkgs 2> /dev/null | awk '$1 != "un"')
	triplet=$(gcc -print-multiarch)
	left=$(while read -r f; do [ -e "$f" ] || [ -L "$f" ] && echo "$f"; done < "$tmp/paths"
		for d in /usr/lib/"$triplet"/softdoca /usr/include/softdoca /usr/libexec/softdoca /usr/share/doc/softdoca-tools; do
			[ -e "$d" ] && echo "$d"
		done)
	if [ -z "$states" ] && [ -z "$left" ]; then
		installed_here=0
		tap ok "system: dpkg -r leaves nothing behind ($(grep -c . <<< "$pkgs") packages, $(wc -l < "$tmp/paths") files)"
	else
		echo "$states" "$left" | head -20 > "$tmp/left"
		tap fail "system: dpkg -r leaves nothing behind" "$tmp/left"
	fi
}
system_install

# 4. The image itself, where a container runtime answers.
runtime=
for r in docker podman; do
	command -v $r > /dev/null && $r info > /dev/null 2>&1 && runtime=$r && break
done
if [ -z "$runtime" ]; then
	skip "the image of contrib/docker/Dockerfile builds" "no docker or podman that answers here (its steps ran above)"
elif (cd "$src" && $runtime build -f contrib/docker/Dockerfile -t softdoca-check:latest .) > "$tmp/image.log" 2>&1; then
	tap ok "the image of contrib/docker/Dockerfile builds ($runtime)"
else
	tail -20 "$tmp/image.log" > "$tmp/tail"
	tap fail "the image of contrib/docker/Dockerfile builds ($runtime)" "$tmp/tail"
fi
finish
