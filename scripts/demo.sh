#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The showcase (`make demo`): list the emulated devices, walk through DOCA Core,
# run the DPU local copy with chained buffers, the host -> DPU copy as two
# processes, then two RDMA pairs (a write and a send/receive), pressing Enter the
# way a person would, a DOCA Verbs write pair and the Verbs wait-on-CQ sample,
# DOCA's DMA Copy application in each direction, and DOCA's Secure Channel
# application (messages both ways over Comch's producer/consumer fast path), a Compress round
# trip, an erasure-coding recovery and DOCA's File Integrity application.  Prints a PASS/FAIL line per step and a summary; exits
# non-zero if any step failed.
# Usage: scripts/demo.sh <builddir>
set -u

build=${1:?usage: $0 <builddir>}
[ -d "$build" ] || { echo "demo: no build directory $build (run 'make build' first)" >&2; exit 2; }

caps=$build/tools/doca_caps/doca_caps
caps_dpu=$build/tools/doca_caps/dpu/doca_caps
tour=$build/samples/doca_common/doca_core_tour
local_copy=$build/samples/doca_dma/doca_dma_local_copy
host=$build/samples/doca_dma/doca_dma_copy_host
dpu=$build/samples/doca_dma/doca_dma_copy_dpu
rdma=$build/samples/doca_rdma/doca_rdma_
verbs=$build/samples/doca_verbs/doca_verbs_
dma_copy=$build/applications/dma_copy
secure_channel=$build/applications/secure_channel
# A build configured without UCX (-Ducx=disabled) has no libdoca_rdma and no RDMA samples.
with_rdma=0
[ -e "$build/src/rdma/libdoca_rdma.so" ] && with_rdma=1

if [ -t 1 ]; then
	bold=$'\e[1m' green=$'\e[32m' red=$'\e[31m' dim=$'\e[2m' off=$'\e[0m'
else
	bold='' green='' red='' dim='' off=''
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/softdoca-demo.XXXXXX")
host_pid=
declare -A bg_pid bg_fd
cleanup() {
	[ -n "$host_pid" ] && kill "$host_pid" 2>/dev/null
	exec 3>&- 2>/dev/null
	for n in "${!bg_pid[@]}"; do kill "${bg_pid[$n]}" 2>/dev/null; done
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

# RDMA pairs: start NAME CMD... runs CMD in the background with its stdin on a
# FIFO we hold open (Enter is written there); its output goes to $tmp/NAME.out.
start() {
	local n=$1 fd
	shift
	mkfifo "$tmp/$n.in"
	"$@" <"$tmp/$n.in" >"$tmp/$n.out" 2>&1 &
	bg_pid[$n]=$!
	exec {fd}>"$tmp/$n.in"
	bg_fd[$n]=$fd
}
# wait_for NAME PATTERN [COUNT]: until COUNT lines of NAME's output match (10 s).
wait_for() {
	local i
	for i in $(seq 200); do
		[ "$(grep -c -- "$2" "$tmp/$1.out")" -ge "${3:-1}" ] && return 0
		kill -0 "${bg_pid[$1]}" 2>/dev/null || break
		sleep 0.05
	done
	grep -q -- "$2" "$tmp/$1.out"
}
# A subshell takes the SIGPIPE if the program already exited.
enter() { say "Pressing Enter in the $1."; (echo >&"${bg_fd[$1]}") 2>/dev/null; }
# finish NAME: wait for the exit (10 s), show the output, return the exit status.
finish() {
	local i rc=124
	for i in $(seq 200); do
		if ! kill -0 "${bg_pid[$1]}" 2>/dev/null; then
			wait "${bg_pid[$1]}"
			rc=$?
			break
		fi
		sleep 0.05
	done
	kill "${bg_pid[$1]}" 2>/dev/null
	unset "bg_pid[$1]"
	eval "exec ${bg_fd[$1]}>&-"
	# Without the log prefix ([time][pid][DOCA][INF][file:line][function]) and the state lines.
	grep -v "RDMA context\|Starting the sample" "$tmp/$1.out" |
		sed -e 's/^\(\[[^]]*\]\)\{6\} //' -e "s/^/   $1 | /"
	return $rc
}

programs=("$caps" "$tour" "$local_copy" "$host" "$dpu")
[ "$with_rdma" = 1 ] && programs+=("${rdma}write_responder" "${rdma}write_requester" "${rdma}send" "${rdma}receive"
	"${verbs}server_client" "${verbs}wait_cq_wr")
for p in "${programs[@]}"; do
	[ -x "$p" ] || { echo "demo: $p is not built (run 'make build')" >&2; exit 2; }
done

step "1. The devices of the emulated machine, as each side sees them (doca_caps)"
say "One BlueField-like device. A host program sees the host's PCI functions (b1:00.x):"
if show "$caps" --list-devs && ! grep -q "03:00" "$tmp/out"; then
	pass "doca_caps --list-devs (host)"
else
	fail "doca_caps --list-devs (host)" "exit $? or a DPU function listed"
fi
say "A DPU program sees the DPU's functions (03:00.x), and the host's as their representors:"
if show "$caps_dpu" --list-devs --list-rep-devs && grep -q "Representor PCI: 0000:b1:00.0" "$tmp/out"; then
	pass "doca_caps --list-devs --list-rep-devs (DPU)"
else
	fail "doca_caps --list-devs --list-rep-devs (DPU)" "exit $? or no representor of b1:00.0"
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

step "5. RDMA write: the requester writes into memory the responder exported"
if [ "$with_rdma" = 1 ]; then
	text="Written by RDMA from process $$"
	say "Responder (mlx5_0): exports its memory, writes its descriptors, waits for Enter twice."
	say "Requester (mlx5_1): reads them, writes \"$text\" into the responder's memory."
	start responder "${rdma}write_responder" -d mlx5_0 -ld "$tmp/resp.txt" -re "$tmp/req.txt" -m "$tmp/mmap.txt"
	start requester "${rdma}write_requester" -d mlx5_1 -ld "$tmp/req.txt" -re "$tmp/resp.txt" -m "$tmp/mmap.txt" \
		-w "$text"
	if wait_for responder "press enter" && wait_for requester "press enter"; then
		enter responder
		wait_for responder "press enter" 2
		enter requester
		finish requester
		req_rc=$?
		enter responder
		finish responder
		resp_rc=$?
		if [ "$req_rc" = 0 ] && [ "$resp_rc" = 0 ] &&
			grep -qF "Requester has written: \"$text\"" "$tmp/responder.out"; then
			pass "RDMA write pair (the responder printed the requester's text)"
		else
			fail "RDMA write pair" "exit codes $req_rc/$resp_rc"
		fi
	else
		finish responder
		finish requester
		fail "RDMA write pair" "the samples did not get ready"
	fi

	step "6. RDMA send/receive between two processes"
	text="Sent by RDMA from process $$"
	start receiver "${rdma}receive" -d mlx5_0 -ld "$tmp/recv.txt" -re "$tmp/send.txt"
	start sender "${rdma}send" -d mlx5_1 -ld "$tmp/send.txt" -re "$tmp/recv.txt" -s "$text"
	if wait_for receiver "press enter" && wait_for sender "press enter"; then
		enter receiver
		wait_for receiver "Receive task was submitted"
		enter sender
		finish sender
		send_rc=$?
		finish receiver
		recv_rc=$?
		if [ "$send_rc" = 0 ] && [ "$recv_rc" = 0 ] &&
			grep -qF "Got from sender: \"$text\"" "$tmp/receiver.out"; then
			pass "RDMA send/receive pair (the receiver printed the sender's text)"
		else
			fail "RDMA send/receive pair" "exit codes $send_rc/$recv_rc"
		fi
	else
		finish receiver
		finish sender
		fail "RDMA send/receive pair" "the samples did not get ready"
	fi
else
	skip "RDMA pairs" "this build has no RDMA (configured without UCX: -Ducx=disabled or libucx-dev missing)"
fi

step "7. DOCA Verbs: one RC QP between two processes, then a send that waits on a CQ"
if [ "$with_rdma" = 1 ]; then
	say "Server (mlx5_0): sets up its QP and a buffer, listens on TCP port 5000 for the exchange"
	say "(address, key, QP number, GID, LID), then only reads its own memory until 8 messages are there."
	say "Client (mlx5_1): connects, moves its QP to RTS and RDMA-writes 8 messages (-ro write -n 8 -b)."
	start vserver "${verbs}server_client" -d mlx5_0 -ro write -n 8
	if wait_for vserver "Waiting for a client to connect on TCP port 5000"; then
		start vclient "${verbs}server_client" -d mlx5_1 -c 127.0.0.1 -ro write -n 8 -b
		finish vclient
		client_rc=$?
		finish vserver
		server_rc=$?
		if [ "$client_rc" = 0 ] && [ "$server_rc" = 0 ] &&
			[ "$(grep -c "Received a valid message #[1-8] from client" "$tmp/vserver.out")" = 8 ]; then
			pass "Verbs write pair (the busy-polling server saw all 8 messages)"
		else
			fail "Verbs write pair" "exit codes $client_rc/$server_rc"
		fi
	else
		finish vserver
		fail "Verbs write pair" "the server did not start listening on TCP port 5000"
	fi
	say "Wait CQ WR (mlx5_0): two loopback connections; the second forwards a buffer only after"
	say "a wait work request saw the first connection's CQ produce a completion."
	if show "${verbs}wait_cq_wr" -d mlx5_0 && grep -q "Data in buffer3 is identical to the data in buffer1" "$tmp/out"; then
		pass "doca_verbs_wait_cq_wr -d mlx5_0"
	else
		fail "doca_verbs_wait_cq_wr -d mlx5_0"
	fi
else
	skip "Verbs samples" "this build has no RDMA (configured without UCX: -Ducx=disabled or libucx-dev missing)"
fi

step "8. DMA Copy (doca_dma_copy): a file host -> DPU, then DPU -> host, negotiated over Comch"
if [ -x "$dma_copy/host/doca_dma_copy" ] && [ -x "$dma_copy/dpu/doca_dma_copy" ]; then
	mkdir -p "$tmp/hostfs" "$tmp/dpufs"
	export SOFTDOCA_RUNTIME_DIR=$tmp/comch
	head -c $((4 << 20)) /dev/urandom >"$tmp/hostfs/report.bin"
	say "Host holds report.bin (4 MiB); the DPU side is started first, as DOCA asks."
	for dir in to_dpu to_host; do
		if [ $dir = to_dpu ]; then
			src=$tmp/hostfs/report.bin dst=$tmp/dpufs/report.bin
		else
			mv "$tmp/dpufs/report.bin" "$tmp/dpufs/back.bin"
			src=$tmp/dpufs/back.bin dst=$tmp/hostfs/back.bin
		fi
		name=$(basename "$src")
		start "dpu_$dir" "$dma_copy/dpu/doca_dma_copy" -f "$tmp/dpufs/$name" -p 03:00.0 -r b1:00.0
		wait_for "dpu_$dir" "Server waiting on a client to connect"
		start "host_$dir" "$dma_copy/host/doca_dma_copy" -f "$tmp/hostfs/$name" -p b1:00.0
		finish "host_$dir"
		host_rc=$?
		finish "dpu_$dir"
		dpu_rc=$?
		if [ "$host_rc" = 0 ] && [ "$dpu_rc" = 0 ] && cmp -s "$src" "$dst"; then
			pass "DMA Copy ${dir/_/ } ($(sha256sum <"$dst" | cut -c1-16)... on both sides)"
		else
			fail "DMA Copy ${dir/_/ }" "exit codes $host_rc/$dpu_rc"
		fi
	done
	unset SOFTDOCA_RUNTIME_DIR
else
	skip "DMA Copy" "applications/dma_copy is not built"
fi

step "9. Secure Channel (doca_secure_channel): messages both ways between the host and the DPU"
if [ -x "$secure_channel/host/doca_secure_channel" ] && [ -x "$secure_channel/dpu/doca_secure_channel" ]; then
	export SOFTDOCA_RUNTIME_DIR=$tmp/comch
	say "A Comch server (DPU) and client (host) agree on 2000 messages of 1 KiB; each side's producer"
	say "then writes them into the other side's posted receive buffers, and each side checks every byte."
	sc_args=(-s 1024 -n 2000)
	start sc_dpu "$secure_channel/dpu/doca_secure_channel" "${sc_args[@]}" -p 03:00.0 -r b1:00.0
	wait_for sc_dpu "Server waiting on a client to connect"
	start sc_host "$secure_channel/host/doca_secure_channel" "${sc_args[@]}" -p b1:00.0
	finish sc_host
	host_rc=$?
	finish sc_dpu
	dpu_rc=$?
	if [ "$host_rc" = 0 ] && [ "$dpu_rc" = 0 ] &&
		[ "$(grep -c "Consumer received 2000 messages" "$tmp/sc_host.out" "$tmp/sc_dpu.out" |
			awk -F: '{ n += $2 } END { print n }')" = 2 ]; then
		pass "Secure Channel (2000 messages each way, verified on both sides)"
	else
		fail "Secure Channel" "exit codes $host_rc/$dpu_rc"
	fi
	unset SOFTDOCA_RUNTIME_DIR
else
	skip "Secure Channel" "applications/secure_channel is not built"
fi

step "10. DOCA Compress: a file compressed and decompressed again (doca_compress_deflate / doca_decompress_deflate)"
comp=$build/samples/doca_compress
if [ -x "$comp/doca_compress_deflate" ] && [ -x "$comp/doca_decompress_deflate" ]; then
	for i in $(seq 1 300); do echo "line $i: the engines of every card, in software, on one machine"; done >"$tmp/story.txt"
	head -c 65536 /dev/urandom >>"$tmp/story.txt"
	say "story.txt: $(stat -c %s "$tmp/story.txt") bytes of text and random data; -wf adds the zlib framing."
	if show "$comp/doca_compress_deflate" -f "$tmp/story.txt" -o "$tmp/story.z" -wf -c &&
		show "$comp/doca_decompress_deflate" -f "$tmp/story.z" -o "$tmp/story.out" -wf -c &&
		cmp -s "$tmp/story.txt" "$tmp/story.out"; then
		pass "Compress round trip ($(stat -c %s "$tmp/story.txt") -> $(stat -c %s "$tmp/story.z") -> $(stat -c %s "$tmp/story.out") bytes, identical)"
	else
		fail "Compress round trip" "see the output above"
	fi
else
	skip "Compress round trip" "samples/doca_compress is not built"
fi

step "11. DOCA Erasure Coding: 4 data + 2 redundancy blocks, two blocks lost, the file recovered"
ec=$build/samples/doca_erasure_coding/doca_erasure_coding_recover
if [ -x "$ec" ]; then
	head -c 300000 /dev/urandom >"$tmp/precious.bin"
	mkdir -p "$tmp/blocks"
	say "Encode precious.bin into data_block_0..3 and rdnc_block_0..1, delete blocks 0 and 2, recover."
	if show "$ec" -i "$tmp/precious.bin" -o "$tmp/blocks" -t 4 -r 2 -d 0,2 -b &&
		cmp -s "$tmp/precious.bin" "$tmp/precious.bin_recovered"; then
		pass "Erasure coding recovery (2 of 6 blocks lost, file identical)"
	else
		fail "Erasure coding recovery" "see the output above"
	fi
else
	skip "Erasure coding recovery" "samples/doca_erasure_coding is not built"
fi

step "12. File Integrity (doca_file_integrity): the host sends a file and its SHA-256, the DPU checks it"
fi_app=$build/applications/file_integrity
if [ -x "$fi_app/host/doca_file_integrity" ] && [ -x "$fi_app/dpu/doca_file_integrity" ]; then
	export SOFTDOCA_RUNTIME_DIR=$tmp/comch
	head -c $((3 << 20)) /dev/urandom >"$tmp/hostfs_fi.bin"
	rm -f "$tmp/dpufs_fi.bin"
	start fi_dpu "$fi_app/dpu/doca_file_integrity" -p 03:00.0 -r b1:00.0 -f "$tmp/dpufs_fi.bin"
	wait_for fi_dpu "Server waiting on a client to connect"
	start fi_host "$fi_app/host/doca_file_integrity" -p b1:00.0 -f "$tmp/hostfs_fi.bin"
	finish fi_host
	host_rc=$?
	finish fi_dpu
	dpu_rc=$?
	if [ "$host_rc" = 0 ] && [ "$dpu_rc" = 0 ] && grep -q "SUCCESS: file SHA is identical" "$tmp/fi_dpu.out" &&
		cmp -s "$tmp/hostfs_fi.bin" "$tmp/dpufs_fi.bin"; then
		pass "File Integrity (3 MiB, SHA-256 $(sha256sum <"$tmp/hostfs_fi.bin" | cut -c1-16)... on both sides)"
	else
		fail "File Integrity" "exit codes $host_rc/$dpu_rc"
	fi
	unset SOFTDOCA_RUNTIME_DIR
else
	skip "File Integrity" "applications/file_integrity is not built"
fi

step "13. Fault injection (SOFTDOCA_FAULTS): an AGAIN storm and a failed task, replayable by seed; a timeline (SOFTDOCA_TRACE)"
perf=$build/tools/doca_perf/doca_perf
if [ -x "$perf" ]; then
	SOFTDOCA_FAULTS='seed=7;dma.submit=again:0.2' SOFTDOCA_STATS=1 "$perf" dma -s 64 -n 5000 \
		>"$tmp/fault_again.out" 2>&1
	again_rc=$?
	SOFTDOCA_FAULTS='dma.complete=error:1@100' "$perf" dma -s 64 -n 5000 >"$tmp/fault_err.out" 2>&1
	err_rc=$?
	grep -m2 -h "softdoca-fault\|softdoca-stats.*latency" "$tmp/fault_again.out" | cut -c1-160
	grep -h "softdoca-fault\|DMA task failed" "$tmp/fault_err.out" | cut -c1-160
	if [ "$again_rc" = 0 ] && grep -q "returned DOCA_ERROR_AGAIN and were retried" "$tmp/fault_again.out" &&
		[ "$err_rc" = 1 ] && grep -q "DMA task failed: DOCA_ERROR_IO_FAILED" "$tmp/fault_err.out"; then
		pass "Fault injection ($(grep -c softdoca-fault "$tmp/fault_again.out") AGAIN retried; the 101st completion failed cleanly)"
	else
		fail "Fault injection" "exit codes $again_rc/$err_rc"
	fi
	echo "  (grammar and SOFTDOCA_STATS: docs/diagnostics.md; replay a run by giving the same SOFTDOCA_FAULTS)"
	# The same storm with 1 ms delays, timed: kept after the demo (outside $tmp) for a viewer.
	trace=$build/softdoca-demo-trace.json
	SOFTDOCA_FAULTS='seed=7;dma.submit=again:0.2;dma.complete=delay:1ms' SOFTDOCA_TRACE=$trace \
		"$perf" dma -s 64 -n 2000 --warmup 0 >"$tmp/fault_trace.out" 2>&1
	trace_rc=$?
	slices=$(python3 -c 'import json, sys; print(sum(e["ph"] == "X" for e in json.load(open(sys.argv[1]))["traceEvents"]))' \
		"$trace" 2>/dev/null)
	if [ "$trace_rc" = 0 ] && [ "$slices" = 2000 ]; then
		pass "Fault injection traced (SOFTDOCA_TRACE: 2000 task slices under AGAIN and 1 ms delays)"
	else
		fail "Fault injection traced" "exit code $trace_rc, ${slices:-no} slices in $trace"
	fi
	echo "  trace: $trace"
	echo "  view it: open https://ui.perfetto.dev and drop the file on it, or load it in chrome://tracing"
else
	skip "Fault injection" "tools/doca_perf is not built"
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
