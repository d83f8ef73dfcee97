// A standalone driver for the fuzz targets, for ctest without libFuzzer:
// runs LLVMFuzzerTestOneInput on every seed file, then on a fixed number of
// mutants of them (byte flips, insertions, deletions, copies and JSON tokens
// that readers have tripped on), drawn from core/rng.h with a fixed seed so
// every run is the same. Built with the debug preset, so ASan and UBSan
// watch every call. tests/fuzz/run.sh runs the same targets under libFuzzer.
// Usage: TARGET [--mutants N] [--prefix K] SEED_FILE_OR_DIR...
//   --prefix K: each seed also runs with each byte 0..K-1 in front (targets
//   whose first byte picks a variant).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "core/rng.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

void run(const std::string& input) {
  LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(input.data()), input.size());
}

const char* const kTokens[] = {"\"",
                               "{",
                               "}",
                               "[",
                               "]",
                               ",",
                               ":",
                               "0",
                               "-1",
                               "1e400",
                               "1e-7",
                               "0.5",
                               "null",
                               "true",
                               "\\u0000",
                               "\\ud800",
                               "\xff",
                               "\xc3",
                               "\xef\xbb\xbf",
                               "\xe2\x80\x9c",
                               "\n",
                               "4294967296",
                               "9223372036854775808",
                               "[[[[",
                               "\"\":",
                               "1e15"};

std::string mutate(std::string text, shardlab::Rng* rng) {
  const uint32_t edits = 1 + rng->below(4);
  for (uint32_t k = 0; k < edits; ++k) {
    const size_t at = text.empty() ? 0 : rng->below(static_cast<uint32_t>(text.size()));
    switch (rng->below(5)) {
      case 0:
        if (!text.empty()) text[at] = static_cast<char>(rng->below(256));
        break;
      case 1:
        text.insert(text.begin() + static_cast<std::ptrdiff_t>(at),
                    static_cast<char>(rng->below(256)));
        break;
      case 2:
        text.erase(at, 1 + rng->below(16));
        break;
      case 3: {
        const size_t from = text.empty() ? 0 : rng->below(static_cast<uint32_t>(text.size()));
        const std::string piece = text.substr(from, 1 + rng->below(32));
        text.insert(at, piece);
        break;
      }
      default:
        text.insert(at, kTokens[rng->below(std::size(kTokens))]);
        break;
    }
  }
  return text;
}

}  // namespace

int main(int argc, char** argv) {
  int64_t mutants = 0;
  int prefix = 0;
  std::vector<std::string> paths;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--mutants" && i + 1 < argc) {
      mutants = std::atoll(argv[++i]);
    } else if (arg == "--prefix" && i + 1 < argc) {
      prefix = std::atoi(argv[++i]);
    } else {
      paths.push_back(arg);
    }
  }
  std::vector<std::string> files;
  for (const std::string& path : paths) {
    if (std::filesystem::is_directory(path)) {
      for (const auto& entry : std::filesystem::directory_iterator(path)) {
        if (entry.is_regular_file()) files.push_back(entry.path().string());
      }
    } else {
      files.push_back(path);
    }
  }
  std::sort(files.begin(), files.end());
  std::vector<std::string> seeds;
  for (const std::string& file : files) {
    std::ifstream in(file, std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (prefix == 0) seeds.push_back(text);
    for (int k = 0; k < prefix; ++k) seeds.push_back(std::string(1, static_cast<char>(k)) + text);
  }
  if (seeds.empty()) {
    std::fprintf(stderr, "fuzz driver: no seed files in the arguments\n");
    return 1;
  }
  for (const std::string& seed : seeds) run(seed);
  shardlab::Rng rng(2026);
  for (int64_t i = 0; i < mutants; ++i) {
    std::string input = seeds[rng.below(static_cast<uint32_t>(seeds.size()))];
    // Keep the variant byte of prefixed seeds; mutate the document.
    if (prefix > 0 && !input.empty()) {
      input = input.substr(0, 1) + mutate(input.substr(1), &rng);
    } else {
      input = mutate(std::move(input), &rng);
    }
    run(input);
  }
  std::printf("fuzz driver: %zu seeds and %lld mutants, no finding\n", seeds.size(),
              static_cast<long long>(mutants));
  return 0;
}
