// Test helpers (see helpers.h).
#include "helpers.h"

#include <fstream>
#include <sstream>

#ifdef __EMSCRIPTEN__
#include <emscripten.h>
#else
#include <zlib.h>
#endif

namespace shardlab::test {

#ifdef __EMSCRIPTEN__
// Decompresses with node's zlib into a malloc'd buffer; returns its size.
EM_JS(int, node_gunzip, (const char* path, char** out), {
  const fs = require('fs');
  const zlib = require('zlib');
  const data = zlib.gunzipSync(fs.readFileSync(UTF8ToString(path)));
  const ptr = _malloc(data.length);
  HEAPU8.set(data, ptr);
  HEAPU32[out >> 2] = ptr;
  return data.length;
});
#endif

std::string source_path(const std::string& relative) {
  return std::string(SHARDLAB_SOURCE_DIR) + "/" + relative;
}

std::string shared_path(const std::string& relative) {
  return std::string(SHARDLAB_SHARED_DIR) + "/" + relative;
}

bool file_exists(const std::string& path) { return std::ifstream(path).good(); }

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string read_json_text(const std::string& path) {
  if (path.size() < 3 || path.substr(path.size() - 3) != ".gz") return read_bytes(path);
#ifdef __EMSCRIPTEN__
  char* data = nullptr;
  const int size = node_gunzip(path.c_str(), &data);
  std::string text(data, static_cast<size_t>(size));
  free(data);
  return text;
#else
  gzFile file = gzopen(path.c_str(), "rb");
  std::string text;
  char chunk[1 << 16];
  int got;
  while ((got = gzread(file, chunk, sizeof chunk)) > 0)
    text.append(chunk, static_cast<size_t>(got));
  gzclose(file);
  return text;
#endif
}

std::optional<std::string> benchmark_text(const std::string& letter) {
  const std::string path = shared_path("benchmarks/asplos-2025-iopddl-" + letter + ".json.gz");
  if (!file_exists(path)) return std::nullopt;
  return read_json_text(path);
}

Problem example_problem() {
  ProblemBuilder b;
  b.add_node(30, 70, {15}, {10});
  b.add_node(40, 70, {55, 65}, {25, 25});
  b.add_node(50, 120, {25, 45, 35}, {15, 20, 15});
  b.add_node(110, 140, {85, 75}, {10, 10});
  b.add_node(110, 150, {95}, {15});
  b.add_edge(0, 1, {30, 40});
  b.add_edge(0, 2, {50, 10, 40});
  b.add_edge(1, 3, {90, 10, 20, 80});
  b.add_edge(2, 4, {60, 20, 30});
  b.add_edge(3, 4, {70, 60});
  b.set_usage_limit(50);
  b.problem.name = "example";
  return std::move(b.build()).value();
}

}  // namespace shardlab::test
