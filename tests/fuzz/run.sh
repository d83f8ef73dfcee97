#!/usr/bin/env bash
# Builds the reader fuzzer with clang's libFuzzer + ASan/UBSan and runs it for
# SECONDS (default 300) on a scratch corpus seeded with the bundled example and
# the bad-input corpus. Needs: apt-get install clang libclang-rt-14-dev.
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds="${1:-300}"
out=build/fuzz
mkdir -p "$out/corpus"
cp examples/example.json "$out/corpus/" 2>/dev/null || true
for f in tests/bad_inputs/*.json; do printf '\x07' | cat - "$f" > "$out/corpus/$(basename "$f")"; done
deps="$out/deps-include"
mkdir -p "$deps"
ln -sfn /usr/include/nlohmann "$deps/nlohmann"
clang++-14 -std=gnu++20 -O1 -g -fsanitize=fuzzer,address,undefined -I. -isystem "$deps" \
  tests/fuzz/reader_fuzz.cpp core/sharding/reader.cpp core/sharding/model.cpp core/sharding/evaluate.cpp -o "$out/reader_fuzz"
"$out/reader_fuzz" -max_total_time="$seconds" -max_len=4096 -timeout=5 "$out/corpus"
