#!/usr/bin/env bash
# Coverage-guided fuzzing of the readers with clang's libFuzzer under ASan and
# UBSan: builds the fuzz targets (tests/fuzz/*_fuzz.cpp, one per reader) in
# build/fuzz and runs one for SECONDS (default 300) on a scratch corpus seeded
# like ctest's fuzz_* tests. Findings land in build/fuzz/findings/TARGET/.
# Needs: apt-get install clang libclang-rt-14-dev (CI runs the same targets
# without libFuzzer: see tests/fuzz/driver.cpp).
# Usage: tests/fuzz/run.sh [TARGET] [SECONDS] [extra libFuzzer flags...]
#   TARGET: reader, problem, model, schedule or csv (default reader).
set -euo pipefail
cd "$(dirname "$0")/../.."
target="${1:-reader}"
seconds="${2:-300}"
shift $(( $# > 2 ? 2 : $# ))
out=build/fuzz
cmake -S . -B "$out" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++-14 \
  -DSHARDLAB_FUZZ=ON -DSHARDLAB_SANITIZE=ON >/dev/null
cmake --build "$out" -j "$(nproc 2>/dev/null || echo 2)" --target "${target}_fuzz" >/dev/null

corpus="$out/corpus/$target"
findings="$out/findings/$target"
mkdir -p "$corpus" "$findings"
# Seeds: the same files ctest's fuzz_* tests replay. Targets whose first
# byte picks a variant (reader: chunk size; schedule: the problem) get it.
seed() {  # seed PREFIX_BYTES FILE...
  local prefixes="$1"
  shift
  for f in "$@"; do
    [ -f "$f" ] || continue
    for k in $(seq 0 $((prefixes - 1))); do
      printf "\\x$(printf %02x "$k")" | cat - "$f" > "$corpus/$k-$(basename "$f")"
    done
    [ "$prefixes" -eq 0 ] && cp "$f" "$corpus/"
  done
  return 0
}
heldout="$out/heldout"
python3 tests/heldout/make_corpus.py "$heldout" --small >/dev/null
case "$target" in
  reader) seed 3 examples/example.json tests/bad_inputs/*.json ;;
  problem) seed 0 examples/pipeline/*.json tests/cli/pipeline_bad_inputs/*.json "$heldout"/p_*.json ;;
  model) seed 0 examples/teach/*.json examples/teach/heldout/*.json "$heldout"/m_*.json ;;
  schedule) seed 3 tests/fuzz/seeds/schedule/*.json "$heldout"/s_*.json ;;
  csv)  # the reference dumps and the held-out CSVs behind the two bytes that pick the problem
    for f in tests/data/pytorch/*.csv "$heldout"/c_*.csv; do
      [ -f "$f" ] || continue
      devices=$(head -c 65536 "$f" | tr -d '\r' | grep -c . || true)
      devices=$(( devices < 1 ? 1 : devices > 8 ? 8 : devices ))
      for mb in 1 2 3 10; do
        printf "\\$(printf '%03o' $((devices - 1)))\\$(printf '%03o' $((mb - 1)))" | cat - "$f" \
          > "$corpus/$mb-$(basename "$f")"
      done
    done ;;
  *) echo "run.sh: unknown target '$target' (reader, problem, model, schedule or csv)"; exit 1 ;;
esac
"$out/tests/${target}_fuzz" -max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=2560 \
  -artifact_prefix="$findings/" -print_final_stats=1 "$@" "$corpus"
