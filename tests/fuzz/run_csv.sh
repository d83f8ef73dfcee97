#!/usr/bin/env bash
# Builds the PyTorch CSV reader's fuzzer (tests/fuzz/csv_fuzz.cpp) with
# clang's libFuzzer + ASan/UBSan into build/fuzz (again only when a source is
# newer than the binary) and runs it for SECONDS (default 300) on a scratch
# corpus seeded with tests/data/pytorch/*.csv. Prints libFuzzer's last status
# line (executions, corpus). Exits 77 (ctest's "skipped") when clang++-14 or
# libFuzzer is missing: apt-get install clang-14 libclang-rt-14-dev.
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds="${1:-300}"
out=build/fuzz
if ! command -v clang++-14 >/dev/null 2>&1 ||
   ! ls /usr/lib/llvm-14/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1; then
  echo "run_csv.sh: clang++-14 with libFuzzer is not installed; skipped"
  exit 77
fi
mkdir -p "$out/csv_corpus" "$out/deps-include"
ln -sfn /usr/include/nlohmann "$out/deps-include/nlohmann"
sources=(tests/fuzz/csv_fuzz.cpp core/json_doc.cpp core/progress.cpp core/options_table.cpp)
for f in core/pipeline/*.cpp; do
  case "$f" in core/pipeline/planner.cpp) ;; *) sources+=("$f") ;; esac
done
binary="$out/csv_fuzz"
# Objects older than their source or than the newest header are rebuilt.
newest_header=$(ls -t core/*.h core/pipeline/*.h | head -n 1)
mkdir -p "$out/csv_obj"
objects=()
stale=()
for f in "${sources[@]}"; do
  o="$out/csv_obj/$(echo "$f" | tr '/' '_').o"
  objects+=("$o")
  if [ ! -f "$o" ] || [ "$f" -nt "$o" ] || [ "$newest_header" -nt "$o" ]; then stale+=("$f"); fi
done
for f in "${stale[@]}"; do
  # json_doc.h's recursive vector<pair<string, Value>> trips clang 14 with
  # libstdc++ 12 in C++20 mode; that file needs nothing newer than C++17.
  std=gnu++20
  [ "$f" = core/json_doc.cpp ] && std=gnu++17
  echo "clang++-14 -std=$std -O1 -g -fsanitize=fuzzer-no-link,address,undefined -I. -isystem $out/deps-include -c $f -o $out/csv_obj/$(echo "$f" | tr '/' '_').o"
done | xargs -r -P 2 -I{} sh -c '{}'
if [ ${#stale[@]} -gt 0 ] || [ ! -x "$binary" ]; then
  clang++-14 -fsanitize=fuzzer,address,undefined "${objects[@]}" -o "$binary"
fi
# Seeds: the reference dumps, each behind the two bytes that pick its problem.
seed() {  # seed FILE DEVICES MICROBATCHES
  printf "\\$(printf '%03o' $(($2 - 1)))\\$(printf '%03o' $(($3 - 1)))" | cat - "tests/data/pytorch/$1" \
    > "$out/csv_corpus/seed_$1"
}
seed dualpipev_4rank_10mb.csv 4 10
seed interleaved1f1b_2rank_3mb_compute.csv 2 3
seed interleaved1f1b_2rank_3mb_comms.csv 2 3
seed interleavedzb_2rank_1mb_compute.csv 2 1
seed zbv_2rank_2mb_compute.csv 2 2
seed lockstep_1f1b_2rank_2mb_compute.csv 2 2
"$binary" -max_total_time="$seconds" -max_len=8192 -timeout=10 -rss_limit_mb=2048 -error_exitcode=1 \
  -artifact_prefix="$out/" \
  -print_final_stats=1 "$out/csv_corpus" 2>&1 | tee "$out/csv_fuzz.log" | grep -E "^#[0-9]+.*(DONE|pulse)|stat::number_of_executed_units|ERROR|SUMMARY" | tail -n 4
grep -q -E "ERROR|SUMMARY: .*Sanitizer|deadly signal" "$out/csv_fuzz.log" && exit 1
exit 0
