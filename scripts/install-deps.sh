#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Install the Debian packages softdoca needs to build, test and demo, and only
# those that are missing.  Non-interactive; safe to run again.
set -eu

pkgs="gcc g++ make meson ninja-build pkg-config libjson-c-dev libucx-dev ucx-utils
      librdmacm-dev libibverbs-dev ibverbs-utils iproute2
      zlib1g-dev libdeflate-dev liblz4-dev lz4 libxxhash-dev libssl-dev openssl libisal-dev procps python3 valgrind iperf3 gnuplot-nox mptcpd mptcpize"
# --deb: also what `make deb` and the deb-packages test need; only they ask for it,
# so `make test` stays quick where these are missing (the test then skips).
[ "${1:-}" = --deb ] && pkgs="$pkgs debhelper dpkg-dev lintian"

missing=""
for p in $pkgs; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing="$missing $p"
	fi
done

[ -z "$missing" ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "softdoca: missing Debian packages:$missing" >&2
	echo "softdoca: run 'sudo $0' (or install them) and try again" >&2
	exit 1
fi

echo "softdoca: installing:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
