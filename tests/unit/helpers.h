// Test helpers: where the sources and ../shared live, whole-file reads, gzip
// decompression (zlib natively, node's zlib under wasm), and the contest's
// example instance built in code.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/sharding/model.h"

namespace shardlab::test {

std::string source_path(const std::string& relative);  // under the checkout
std::string shared_path(const std::string& relative);  // under ../shared
bool file_exists(const std::string& path);
std::string read_bytes(const std::string& path);
// The JSON text of a .json or .json.gz file.
std::string read_json_text(const std::string& path);
// A contest instance from ../shared/benchmarks, or nullopt when absent.
std::optional<std::string> benchmark_text(const std::string& letter);

Problem example_problem();  // ../shared/benchmarks/example.json, built in code

}  // namespace shardlab::test
