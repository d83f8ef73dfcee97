// Reader and evaluator benchmark: prints a table for the contest instances in
// ../shared/benchmarks (parse throughput from memory and from the .json.gz
// file, zlib's own inflate speed as the yardstick, peak RSS while reading the
// uncompressed file, full and incremental evaluation times). Never fails on
// time. Usage: reader_bench [SHARED_DIR]   |   reader_bench --rss FILE
#include <malloc.h>
#include <sys/resource.h>
#include <zlib.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "core/rng.h"
#include "core/sharding/evaluate.h"
#include "core/sharding/io.h"
#include "core/sharding/search/greedy.h"

namespace shardlab {
namespace {

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

long peak_rss_kb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Inflates a gzip buffer; returns the text and the time it took.
std::string gunzip(const std::string& gz, double* seconds) {
  std::string out;
  z_stream zs{};
  inflateInit2(&zs, 15 + 16);
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(gz.data()));
  zs.avail_in = static_cast<uInt>(gz.size());
  std::vector<char> chunk(1 << 20);
  const double start = now_s();
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    zs.next_out = reinterpret_cast<Bytef*>(chunk.data());
    zs.avail_out = static_cast<uInt>(chunk.size());
    rc = inflate(&zs, Z_NO_FLUSH);
    if (rc != Z_OK && rc != Z_STREAM_END) break;
    out.append(chunk.data(), chunk.size() - zs.avail_out);
  }
  *seconds = now_s() - start;
  inflateEnd(&zs);
  return out;
}

// Best-of-n time to parse text fed in 1 MiB chunks.
double parse_seconds(const std::string& text, int runs) {
  double best = 1e9;
  for (int r = 0; r < runs; ++r) {
    const double start = now_s();
    InstanceReader reader("bench");
    for (size_t at = 0; at < text.size(); at += 1 << 20) {
      reader.feed(text.data() + at, std::min<size_t>(1 << 20, text.size() - at));
    }
    const Result<Problem> problem = reader.finish();
    best = std::min(best, now_s() - start);
    if (!problem.is_ok()) {
      std::fprintf(stderr, "%s\n", problem.status().message().c_str());
      return -1;
    }
  }
  return best;
}

int rss_mode(const std::string& path) {
  // As the CLI does: a fixed mmap threshold, so freed blocks go back to the OS.
  mallopt(M_MMAP_THRESHOLD, 128 * 1024);
  const long before = peak_rss_kb();
  Result<Problem> problem = read_instance_file(path);
  if (!problem.is_ok()) {
    std::fprintf(stderr, "%s\n", problem.status().message().c_str());
    return 2;
  }
  std::printf("%ld %ld %lld\n", before, peak_rss_kb(),
              static_cast<long long>(problem.value().memory_bytes()));
  return 0;
}

int table_mode(const char* self, const std::string& shared) {
  const std::string folder = shared + "/benchmarks";
  std::printf("# reader and evaluator benchmark (instances from %s)\n", folder.c_str());
  std::printf("%-4s %8s %9s %9s %9s %9s %9s %9s %8s %9s %9s\n", "inst", "JSON MB", "parse",
              "gz file", "inflate", "model MB", "RSS MB", "RSS-base", "RSS/mod", "eval ms",
              "incr us");
  int found = 0;
  for (const char* letter : {"B", "G", "V", "A", "M", "S"}) {
    const std::string gz_path = folder + "/asplos-2025-iopddl-" + letter + ".json.gz";
    const std::string gz = read_file(gz_path);
    if (gz.empty()) {
      std::printf("%-4s (missing: %s)\n", letter, gz_path.c_str());
      continue;
    }
    ++found;
    double inflate_s = 0;
    const std::string text = gunzip(gz, &inflate_s);
    const double mb = static_cast<double>(text.size()) / 1e6;
    const double parse_s = parse_seconds(text, 5);
    // The whole file path: read .json.gz from disk, inflate, parse, hash.
    double file_s = 1e9;
    Result<Problem> problem = Status(StatusCode::kInternal, "unread");
    for (int r = 0; r < 3; ++r) {
      const double start = now_s();
      problem = read_instance_file(gz_path);
      file_s = std::min(file_s, now_s() - start);
    }
    const Problem& p = problem.value();
    // Peak RSS while reading the uncompressed file, in a fresh process.
    const std::string json_path = "/tmp/shardlab-bench-" + std::string(letter) + ".json";
    std::ofstream(json_path, std::ios::binary) << text;
    long base_kb = 0, peak_kb = 0;
    long long model_bytes = 0;
    const std::string command = std::string(self) + " --rss " + json_path;
    if (FILE* pipe = popen(command.c_str(), "r")) {
      if (std::fscanf(pipe, "%ld %ld %lld", &base_kb, &peak_kb, &model_bytes) != 3) peak_kb = 0;
      pclose(pipe);
    }
    std::remove(json_path.c_str());
    // Evaluation: a full check of the least-usage plan, and one-node changes.
    const std::vector<int32_t> plan = min_usage_assignment(p);
    double eval_s = 1e9;
    for (int r = 0; r < 5; ++r) {
      const double start = now_s();
      const Evaluation e = evaluate(p, plan);
      eval_s = std::min(eval_s, now_s() - start);
      if (e.cost < 0) return 3;
    }
    IncrementalEvaluator inc(p, plan);
    Rng rng(1);
    const int moves = 200000;
    const double start = now_s();
    int64_t sink = 0;
    for (int i = 0; i < moves; ++i) {
      const int32_t v = static_cast<int32_t>(rng.below(static_cast<uint32_t>(p.num_nodes())));
      const int32_t s = static_cast<int32_t>(rng.below(static_cast<uint32_t>(p.num_strategies(v))));
      const IncrementalEvaluator::Delta d = inc.delta(v, s);
      sink += d.cost;
      if (i % 2 == 0) inc.set(v, s);
    }
    const double incr_us = (now_s() - start) / moves * 1e6;
    const double model_mb = static_cast<double>(model_bytes) / 1e6;
    const double rss_mb = static_cast<double>(peak_kb) / 1e3;
    const double growth_mb = static_cast<double>(peak_kb - base_kb) / 1e3;
    std::printf("%-4s %8.1f %6.0f MB/s %4.0f MB/s %4.0f MB/s %9.1f %9.1f %9.1f %8.2f %9.2f %9.2f\n",
                letter, mb, mb / parse_s, mb / file_s, mb / inflate_s, model_mb, rss_mb, growth_mb,
                growth_mb / std::max(model_mb, 1e-9), eval_s * 1e3, incr_us + 0 * sink);
  }
  std::printf(
      "# parse: feeding the JSON text from memory (best of 5); gz file: reading the .json.gz\n"
      "# from disk, inflating, parsing and hashing it (best of 3); inflate: zlib alone, the\n"
      "# yardstick. RSS: peak of a fresh process reading the uncompressed .json (RSS-base: its\n"
      "# growth over the process at start). eval: full evaluate() of the least-usage plan;\n"
      "# incr: one delta() plus, every other time, set() of a random one-node change.\n");
  if (found == 0) {
    std::printf("# no instances found: %s is absent (benchmarks read ../shared)\n", folder.c_str());
    return 1;
  }
  return 0;
}

}  // namespace
}  // namespace shardlab

int main(int argc, char** argv) {
  if (argc == 3 && std::strcmp(argv[1], "--rss") == 0) return shardlab::rss_mode(argv[2]);
  const std::string shared = argc >= 2 ? argv[1] : SHARDLAB_SHARED_DIR;
  return shardlab::table_mode(argv[0], shared);
}
