#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The steps of contrib/docker/Dockerfile, one command each, so the image's recipe
# also runs where there is no container runtime (`make test` runs all three in
# tests/install/check_deb.sh):
#   ci-image.sh build OUT         install softdoca's build dependencies where they
#                                 are missing (root only), build the packages into
#                                 OUT (scripts/build-deb.sh), and put OUT/project
#                                 beside them: a DOCA-style meson project
#   ci-image.sh install OUT       install OUT's packages with apt, and what a DOCA
#                                 project builds with (gcc, meson, ninja, pkgconf)
#   ci-image.sh check OUT [ROOT]  build OUT/project through pkg-config alone against
#                                 the packages of ROOT (default /, the installed
#                                 ones; else a `dpkg -x` root), both personalities;
#                                 run its programs; check the versions
# Each result is a line "ok: ..." or "FAILED: ..."; the exit status is 0 when
# nothing failed.
set -u
src=$(cd "$(dirname "$0")/.." && pwd)
step=${1:-} out=${2:-}
[ -n "$step" ] && [ -n "$out" ] || { sed -n 's/^#   //p' "$0" >&2; exit 2; }
export DEBIAN_FRONTEND=noninteractive
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fail() {
	echo "FAILED: $*"
	exit 1
}

# apt needs its package lists once (a fresh debian:12 image has none).
apt_lists() {
	ls /var/lib/apt/lists/*_Packages > /dev/null 2>&1 || apt-get update -qq
}

step_build() {
	if ! (cd "$src" && dpkg-checkbuilddeps) > /dev/null 2>&1; then
		[ "$(id -u)" = 0 ] || fail "build dependencies missing (run as root, or install them):" \
			"$(cd "$src" && dpkg-checkbuilddeps 2>&1)"
		apt-get update -qq
		# build-essential comes with build-dep; lintian is optional (build-deb.sh)
		apt-get build-dep -y -qq --no-install-recommends "$src/" > /dev/null || fail "apt-get build-dep"
	fi
	"$src/scripts/build-deb.sh" "$out" || fail "the packages did not build"
	echo "ok: packages built in $out"
	local proj=$out/project
	rm -rf "$proj" && mkdir -p "$proj/dma_local_copy"
	cp "$src/tests/install/deb_project/meson.build" "$src/tests/install/hello_doca.c" \
		"$src/tests/install/check_versions.sh" "$proj/" &&
		cp "$src"/samples/doca_dma/dma_local_copy_{main.c,sample.c,sample.h} "$src"/samples/doca_dma/dma_common.[ch] \
			"$src"/samples/common/common.[ch] "$proj/dma_local_copy/" || fail "could not make $proj"
}

step_install() {
	local debs tools="" t
	debs=$(ls "$out"/*.deb | grep -v -- '-dbgsym_')
	for t in gcc libc6-dev meson ninja-build pkgconf; do
		dpkg-query -W -f='${Status}' "$t" 2> /dev/null | grep -q "install ok installed" || tools="$tools $t"
	done
	apt_lists
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $debs $tools > "$out/install.log" 2>&1 ||
		fail "apt-get install: $(tail -5 "$out/install.log")"
	echo "ok: installed $(wc -l <<< "$debs") packages${tools:+ and$tools}"
}

# run EXE LABEL PATTERN...: EXE exits 0 and prints a line matching each PATTERN (grep -E).
run() {
	local exe=$1 label=$2 text want
	shift 2
	if ! text=$(cd / && env -u LD_LIBRARY_PATH SOFTDOCA_TOPOLOGY=builtin "$exe" 2>&1); then
		echo "FAILED: $label exited non-zero:"; sed 's/^/  /' <<< "$text" | tail -15
		return 1
	fi
	for want in "$@"; do
		grep -qE "$want" <<< "$text" || { echo "FAILED: $label printed no line like '$want':"; sed 's/^/  /' <<< "$text" | tail -15; return 1; }
	done
}

step_check() {
	local root=${1%/} triplet libdir status=0 p pcdir env_pc
	triplet=$(gcc -print-multiarch)
	libdir=/usr/lib/$triplet
	for p in host dpu; do
		pcdir=$root$libdir/pkgconfig
		[ $p = dpu ] && pcdir=$root$libdir/softdoca/dpu/pkgconfig
		if [ -z "$root" ]; then
			# The system's packages: the host's .pc files are on pkg-config's default path.
			env_pc=(env -u PKG_CONFIG_LIBDIR -u PKG_CONFIG_PATH)
			[ $p = dpu ] && env_pc+=(PKG_CONFIG_PATH="$pcdir")
		else
			env_pc=(env -u PKG_CONFIG_PATH PKG_CONFIG_LIBDIR="$pcdir")
		fi
		if ! (cd "$tmp" && "${env_pc[@]}" meson setup "b-$p" "$out/project" && ninja -C "b-$p") > "$tmp/$p.log" 2>&1; then
			echo "FAILED: $p: the DOCA project did not build through pkg-config ($pcdir):"
			tail -20 "$tmp/$p.log" | sed 's/^/  /'
			status=1
			continue
		fi
		if ! grep -q "Run-time dependency doca-dma found: YES" "$tmp/$p.log"; then
			echo "FAILED: $p: meson did not find doca-dma through pkg-config"; status=1; continue
		fi
		run "$tmp/b-$p/hello_doca" "$p: hello_doca" "^personality: $p\$" "^dma: copied 4096 bytes\$" || { status=1; continue; }
		if [ $p = dpu ]; then
			run "$tmp/b-$p/doca_dma_local_copy" "dpu: DOCA's doca_dma_local_copy sample" \
				"Success, memory copied and verified as correct\$" "Sample finished successfully" || { status=1; continue; }
			echo "ok: $p: hello_doca and DOCA's doca_dma_local_copy sample built through pkg-config ($pcdir) and ran"
		else
			echo "ok: $p: hello_doca built through pkg-config ($pcdir) and ran"
		fi
	done
	local version tap
	if [ -z "$root" ]; then
		version=$(dpkg-query -W -f='${Version}' libdoca-common3)
	else
		version=$(dpkg-deb -f "$(ls "$out"/libdoca-common3_*.deb | head -1)" Version)
	fi
	tap=$("$out/project/check_versions.sh" "${root:-/}" /usr $version)
	if [ $? = 0 ]; then
		echo "ok: versions: $(grep -c '^ok' <<< "$tap") checks, $(sed -n 's/^ok [0-9]* doca_caps --version[^:]*: //p' <<< "$tap")"
	else
		echo "FAILED: versions:"; grep '^not ok' <<< "$tap" | sed 's/^/  /'
		status=1
	fi
	return $status
}

case $step in
build) step_build ;;
install) step_install ;;
check) step_check "${3:-/}" ;;
*) echo "ci-image.sh: unknown step '$step' (build, install, check)" >&2; exit 2 ;;
esac
