#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The showcase (`make demo`): list the emulated devices, walk through DOCA Core,
# run the DPU local copy with chained buffers, then the host -> DPU copy as two
# processes, pressing Enter on the host the way a person would.  Prints a
# PASS/FAIL line per step and a summary; exits non-zero if any step failed.
# Usage: scripts/demo.sh <builddir>
set -u

build=${1:?usage: $0 <builddir>}
[ -d "$build" ] || { echo "demo: no build directory $build (run 'make build' first)" >&2; exit 2; }

caps=$build/tools/doca_caps/doca_caps
tour=$build/samples/doca_common/doca_core_tour
local_copy=$build/samples/doca_dma/doca_dma_local_copy
host=$build/samples/doca_dma/doca_dma_copy_host
dpu=$build/samples/doca_dma/doca_dma_copy_dpu

if [ -t 1 ]; then
	bold=$'\e[1m' green=$'\e[32m' red=$'\e[31m' dim=$'\e[2m' off=$'\e[0m'
else
	bold='' green='' red='' dim='' off=''
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/softdoca-demo.XXXXXX")
host_pid=
cleanup() {
	[ -n "$host_pid" ] && kill "$host_pid" 2>/dev/null
	exec 3>&- 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

results=()
failed=0
pass() { results+=("${green}PASS${off}  $1"); echo "${green}PASS${off} $1"; }
fail() { results+=("${red}FAIL${off}  $1"); echo "${red}FAIL${off} $1${2:+: $2}"; failed=$((failed + 1)); }
skip() { results+=("${dim}SKIP${off}  $1 ($2)"); echo "${dim}SKIP $1: $2${off}"; }
step() { echo; echo "${bold}== $1${off}"; }
say() { echo "${dim}   $*${off}"; }
# Run a command with a time limit, output shown indented and kept in $tmp/out.
show() { timeout 10 "$@" >"$tmp/out" 2>&1; local rc=$?; sed 's/^/   | /' "$tmp/out"; return $rc; }

for p in "$tour" "$local_copy" "$host" "$dpu"; do
	[ -x "$p" ] || { echo "demo: $p is not built (run 'make build')" >&2; exit 2; }
done

step "1. The devices of the emulated machine (doca_caps --list-devs)"
if [ -x "$caps" ]; then
	say "One BlueField-like device: host-side PCI functions (b1:00.x) and DPU-side ones (03:00.x)."
	if show "$caps" --list-devs; then pass "doca_caps --list-devs"; else fail "doca_caps --list-devs" "exit $?"; fi
else
	skip "doca_caps --list-devs" "tools/doca_caps is not built yet"
fi

step "2. A tour of DOCA Core (doca_core_tour)"
say "Devices, an mmap, an inventory, two bufs, a DMA context IDLE -> RUNNING -> IDLE around one copy,"
say "and two rules the library refuses to break, each explained by the library itself."
if show "$tour" && grep -q "Core tour finished successfully" "$tmp/out"; then
	pass "Core tour"
else
	fail "Core tour"
fi

step "3. DPU local copy over chained buffers (doca_dma_local_copy -ns 2 -nd 3)"
say "The text is split over 2 source segments and scattered into 3 destination segments;"
say "the sample then compares the bytes itself."
if show "$local_copy" -ns 2 -nd 3 &&
	grep -q "Success, memory copied and verified as correct" "$tmp/out" &&
	grep -q "Sample finished successfully" "$tmp/out"; then
	pass "doca_dma_local_copy -ns 2 -nd 3"
else
	fail "doca_dma_local_copy -ns 2 -nd 3"
fi

step "4. Host -> DPU copy: two processes, a descriptor file and an Enter press"
text="Hello DPU, this is host process $$ at $(date +%T)"
desc=$tmp/export_desc.txt
info=$tmp/buffer_info.txt
mkfifo "$tmp/stdin"
say "Host: exports a malloc'd buffer holding \"$text\","
say "writes $(basename "$desc") and $(basename "$info"), then waits for Enter."
"$host" -t "$text" -d "$desc" -b "$info" <"$tmp/stdin" >"$tmp/host.out" 2>&1 &
host_pid=$!
exec 3>"$tmp/stdin"	# our end of the host's stdin: Enter is written here
for _ in $(seq 100); do
	grep -q "press enter" "$tmp/host.out" 2>/dev/null && break
	kill -0 "$host_pid" 2>/dev/null || break
	sleep 0.05
done
sed 's/^/   host | /' "$tmp/host.out"
if ! grep -q "press enter" "$tmp/host.out"; then
	fail "host -> DPU copy" "the host sample did not get ready"
else
	say "Buffer info file: address $(sed -n 1p "$info"), length $(sed -n 2p "$info"); descriptor $(stat -c %s "$desc") bytes."
	say "DPU: imports the descriptor and DMA-copies the host's buffer while the host sits in getchar()."
	timeout 10 "$dpu" -d "$desc" -b "$info" >"$tmp/dpu.out" 2>&1
	dpu_rc=$?
	sed 's/^/   dpu  | /' "$tmp/dpu.out"
	say "Pressing Enter on the host."
	echo >&3
	exec 3>&-
	host_rc=124
	for _ in $(seq 100); do
		if ! kill -0 "$host_pid" 2>/dev/null; then
			wait "$host_pid"
			host_rc=$?
			break
		fi
		sleep 0.05
	done
	host_pid=
	tail -n 1 "$tmp/host.out" | sed 's/^/   host | /'
	if [ "$dpu_rc" != 0 ]; then
		fail "host -> DPU copy" "DPU sample exited with $dpu_rc"
	elif ! grep -qF "Memory content: $text" "$tmp/dpu.out"; then
		fail "host -> DPU copy" "the DPU did not print the host's text"
	elif [ "$host_rc" != 0 ] || ! grep -q "Sample finished successfully" "$tmp/host.out"; then
		fail "host -> DPU copy" "host sample exited with $host_rc"
	else
		pass "host -> DPU copy (the DPU printed the host's text)"
	fi
fi

echo
echo "${bold}Summary${off}"
for r in "${results[@]}"; do echo "  $r"; done
if [ "$failed" = 0 ]; then
	echo "${green}${bold}demo: PASS${off}"
	exit 0
fi
echo "${red}${bold}demo: FAIL ($failed step(s) failed)${off}"
exit 1
