// Reading instances. InstanceReader is a push parser for the contest JSON
// format: feed() it chunks of bytes in order, then finish(). It never holds
// the whole document, never builds a DOM, and stores each distinct edge matrix
// once while streaming. The CLI feeds it from a file (optionally through
// zlib); the wasm bindings feed it from File.stream() chunks in the browser.
//
// Errors are one line: "SOURCE: line L, column C (byte B): at PATH: expected
// X, found Y". After the first error every call returns that same status.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "core/sharding/model.h"
#include "core/status.h"

namespace shardlab {

// The most JSON text one instance may have (11 times the largest contest
// instance): beyond it feed() fails, so an endless stream (a device, a pipe,
// a gzip bomb) ends there. The model takes at most 4 bytes of memory per
// byte of JSON (an 8-byte integer per "0,"), plus the working buffer.
constexpr int64_t kMaxInstanceBytes = int64_t{1} << 30;

class InstanceReader {
 public:
  // source_name is used only in error messages (usually the file name).
  explicit InstanceReader(std::string source_name);
  ~InstanceReader();
  InstanceReader(const InstanceReader&) = delete;
  InstanceReader& operator=(const InstanceReader&) = delete;

  Status feed(const void* data, size_t size);
  // Validates what was read and returns the finalized model. Call once.
  Result<Problem> finish();

  int64_t bytes_fed() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Convenience: parse a whole in-memory document.
Result<Problem> read_instance_bytes(const std::string& source_name, const void* data, size_t size);

struct ReadStats {
  int64_t file_bytes = 0;  // bytes on disk (compressed size for .gz)
  int64_t json_bytes = 0;  // bytes of JSON text parsed
  double seconds = 0;      // wall time of the whole read
  std::string sha256;      // hex digest of the file's bytes as stored
};

// Native only: reads a .json file, or gzip data (detected by its magic bytes,
// whatever the extension), streaming it through the reader in chunks.
Result<Problem> read_instance_file(const std::string& path, ReadStats* stats = nullptr);

}  // namespace shardlab
