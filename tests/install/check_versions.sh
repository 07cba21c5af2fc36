#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The four-way version match, for every module an installation has: the .pc
# files' Version (pkg-config --modversion, host and DPU), the headers'
# DOCA_VERSION_* seen through that module's Cflags, doca_caps --version (host
# and DPU builds), and the libraries' file version and SONAME; plus
# doca_version_runtime() of a program linked through the module's Libs.  All
# must name the DOCA API level of the headers.  softdoca's own version
# (doca_caps) must equal the Debian package version when one is given.
# Usage: check_versions.sh --build <build-dir> <cc>    (a DESTDIR install of the build)
#        check_versions.sh <root> <prefix> [<package-version>]    (/ and /usr: installed packages)
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc=cc
if [ "$1" = --build ]; then
	build=$2 cc=$3
	if ! meson install -C "$build" --destdir "$tmp/root" --no-rebuild --quiet > "$tmp/install.log" 2>&1; then
		echo "1..1"; echo "not ok 1 meson install into DESTDIR"; sed 's/^/# /' "$tmp/install.log"; exit 1
	fi
	root=$tmp/root
	prefix=$(meson introspect "$build" --buildoptions |
		python3 -c 'import json,sys; print(next(o["value"] for o in json.load(sys.stdin) if o["name"] == "prefix"))')
	pkg_version=
else
	root=${1%/} prefix=$2 pkg_version=${3:-}
fi

# The host .pc directory: <prefix>/<libdir>/pkgconfig holding doca-common.pc.
host_pc=
for d in "$root$prefix"/lib/*/pkgconfig "$root$prefix"/lib*/pkgconfig; do
	[ -f "$d/doca-common.pc" ] && host_pc=$d && break
done
libdir=${host_pc%/pkgconfig}
dpu_pc=$libdir/softdoca/dpu/pkgconfig
if [ -z "$host_pc" ] || [ ! -d "$dpu_pc" ]; then
	echo "1..1"; echo "not ok 1 no doca-common.pc under $root$prefix (host) and $dpu_pc (DPU)"; exit 1
fi
modules=$(cd "$host_pc" && ls doca-*.pc | sed 's/\.pc$//')

# "3.0.0058" and "3.0.58" are the same version: compare the numbers.
norm() {
	awk -F. 'NF == 3 && $1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ && $3 ~ /^[0-9]+$/ { printf "%d.%d.%d", $1, $2, $3; ok = 1 }
		END { if (!ok) printf "bad(%s)", $0 }' <<< "$1"
}

cat > "$tmp/version.c" << 'C'
#include <stdio.h>
#include <doca_version.h>

int
main(void)
{
	printf("%d.%d.%d %s\n", DOCA_VERSION_MAJOR, DOCA_VERSION_MINOR, DOCA_VERSION_PATCH, doca_version_runtime());
	return 0;
}
C

echo "1..$(($(wc -w <<< "$modules") + 2))"
n=0 failed=0
# The reference: the headers of doca-common (host).
ref=$(PKG_CONFIG_LIBDIR=$host_pc pkg-config --cflags doca-common | xargs -n1 | sed -n 's/^-I//p' |
	while read -r d; do [ -f "$d/doca_version.h" ] && echo "$d/doca_version.h" && break; done)
ref=$(awk '$1 == "#define" && $2 ~ /^DOCA_VERSION_(MAJOR|MINOR|PATCH)$/ { v[$2] = $3 }
	END { printf "%s.%s.%s", v["DOCA_VERSION_MAJOR"], v["DOCA_VERSION_MINOR"], v["DOCA_VERSION_PATCH"] }' "${ref:-/dev/null}")
for m in $modules; do
	n=$((n + 1))
	why=
	lib=$(PKG_CONFIG_LIBDIR=$host_pc pkg-config --libs-only-l "$m" | xargs -n1 | sed -n '1s/^-l//p')
	real=$(find "$libdir" -maxdepth 1 -type f -name "lib$lib.so.*" | head -1)
	if [ -z "$real" ]; then
		echo "not ok $n $m: $m.pc is installed, lib$lib.so.* is not (in $libdir)"; failed=1
		continue
	fi
	soname=$(readelf -d "$real" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
	[ "${real##*/}" = "lib$lib.so.$ref" ] || why="$why; library file ${real##*/}"
	[ "$soname" = "lib$lib.so.${ref%%.*}" ] || why="$why; SONAME $soname"
	for p in host dpu; do
		pcdir=$host_pc
		[ $p = dpu ] && pcdir=$dpu_pc
		mv=$(PKG_CONFIG_LIBDIR=$pcdir pkg-config --modversion "$m" 2>&1)
		[ "$(norm "$mv")" = "$ref" ] || why="$why; $p pkg-config $mv"
		# shellcheck disable=SC2046
		if ! "$cc" -std=gnu11 -DDOCA_ALLOW_EXPERIMENTAL_API -o "$tmp/v-$p" "$tmp/version.c" \
			$(PKG_CONFIG_LIBDIR=$pcdir pkg-config --cflags --libs "$m") > "$tmp/cc.log" 2>&1; then
			why="$why; $p: no program builds with its Cflags and Libs: $(grep -m1 -E 'cannot find|error' "$tmp/cc.log")"
			continue
		fi
		read -r hdr rt <<< "$(env -u LD_LIBRARY_PATH "$tmp/v-$p")"
		[ "$hdr" = "$ref" ] || why="$why; $p headers $hdr"
		[ "$(norm "$rt")" = "$ref" ] || why="$why; $p doca_version_runtime() $rt"
	done
	if [ -z "$why" ]; then
		echo "ok $n $m: pkg-config (host, DPU), headers, runtime, lib$lib.so.$ref (SONAME lib$lib.so.${ref%%.*}) all say $ref"
	else
		echo "not ok $n $m: not everything says the headers' $ref${why}"; failed=1
	fi
done

# doca_caps, both builds: the DOCA API level of its headers and at run time.
n=$((n + 1))
why=
softdoca= caps_api=
for exe in "$root$prefix/bin/doca_caps" "$libdir/softdoca/dpu/bin/doca_caps"; do
	if ! out=$(cd / && env -u LD_LIBRARY_PATH SOFTDOCA_TOPOLOGY=builtin "$exe" --version --json 2>&1); then
		why="$why; $exe --version failed: $out"
		continue
	fi
	read -r api rt sd <<< "$(python3 -c 'import json,sys; v = json.load(sys.stdin)["version"]
print(v["doca_api"], v["doca_runtime"], v["softdoca"])' <<< "$out")"
	[ "$(norm "$api")" = "$ref" ] && [ "$(norm "$rt")" = "$ref" ] || why="$why; $exe: DOCA API $api, runtime $rt"
	caps_api=$api softdoca=$sd
done
if [ -z "$why" ]; then
	echo "ok $n doca_caps --version (host and DPU builds): DOCA API $caps_api, softdoca $softdoca"
else
	echo "not ok $n doca_caps --version does not say the headers' $ref$why"; failed=1
fi

# softdoca's own version is the package's.
n=$((n + 1))
if [ -z "$pkg_version" ]; then
	echo "ok $n softdoca $softdoca is the package version # SKIP not a package install"
elif [ "$softdoca" = "${pkg_version%-*}" ]; then
	echo "ok $n softdoca $softdoca is the package version ($pkg_version)"
else
	echo "not ok $n softdoca ${softdoca:-?} (doca_caps) is not the package version $pkg_version"; failed=1
fi
exit $failed
