#!/usr/bin/env bash
# Prints the reader/evaluator table (tests/bench/reader_bench.cpp) for the
# contest instances in ../shared/benchmarks, plus Python's json module on M as
# the "10x" yardstick and gunzip's own speed. Never fails on time.
# Usage: tests/bench/reader_bench.sh [SHARED_DIR]
set -euo pipefail
cd "$(dirname "$0")/../.."
shared="${1:-../shared}"
if [ ! -d "$shared/benchmarks" ]; then
  echo "reader_bench: $shared/benchmarks is absent; the benchmarks read the contest instances from ../shared"
  exit 1
fi
cmake --preset native >/dev/null
cmake --build --preset native -j "$(nproc 2>/dev/null || echo 2)" --target reader_bench >/dev/null
build/native/tests/reader_bench "$shared"
m="$shared/benchmarks/asplos-2025-iopddl-M.json.gz"
if [ -f "$m" ]; then
  python3 - "$m" <<'PY'
import gzip, json, sys, time
text = gzip.open(sys.argv[1], 'rb').read()
start = time.perf_counter(); json.loads(text); seconds = time.perf_counter() - start
print(f"# python3 json.loads on M: {len(text) / 1e6 / seconds:.0f} MB/s ({seconds:.2f} s)")
PY
  start=$(date +%s.%N); gzip -dc "$m" > /dev/null; end=$(date +%s.%N)
  python3 -c "print(f'# gunzip -dc on M: {70.145 / ($end - $start):.0f} MB/s')"
fi
