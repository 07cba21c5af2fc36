#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# make bench: the full side-by-side comparison (bench/compare.py) on a built tree,
# writing the results page docs/results/README.md with its plots and raw JSON.
# Usage: scripts/bench.sh BUILD_DIR [extra compare.py flags]
set -eu

build=${1:?usage: scripts/bench.sh BUILD_DIR [compare.py flags]}
shift
root=$(cd "$(dirname "$0")/.." && pwd)

ninja -C "$build" tools/doca_perf/doca_perf bench/peer_copy bench/dma_bench bench/comch_bench \
	applications/dma_copy/host/doca_dma_copy applications/dma_copy/dpu/doca_dma_copy >/dev/null
# compare.py imports the test bed (namespaces) from python/softdoca_testbed.
export PYTHONPATH="$root/python${PYTHONPATH:+:$PYTHONPATH}"
exec python3 "$root/bench/compare.py" --build "$build" --out "$build/bench/results" \
	--page "$root/docs/results" "$@"
