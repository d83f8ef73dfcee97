// Native file reading: streams a .json or gzip file (detected by its magic
// bytes) through InstanceReader in fixed chunks, hashing the stored bytes on
// the way. Built only where zlib is available (not in the wasm module: the
// browser decompresses with DecompressionStream and feeds the reader).
#include <sys/stat.h>
#include <zlib.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>

#include "core/sha256.h"
#include "core/sharding/io.h"

namespace shardlab {
namespace {

constexpr size_t kChunk = size_t{1} << 20;

struct FileCloser {
  void operator()(FILE* f) const { std::fclose(f); }
};

}  // namespace

Result<Problem> read_instance_file(const std::string& path, ReadStats* stats) {
  const auto started = std::chrono::steady_clock::now();
  std::unique_ptr<FILE, FileCloser> file(std::fopen(path.c_str(), "rb"));
  if (!file) {
    return Status(StatusCode::kIoError,
                  path + ": cannot open the file (" + std::strerror(errno) + ")");
  }
  struct stat info {};
  if (fstat(fileno(file.get()), &info) == 0 && S_ISDIR(info.st_mode)) {
    return Status(StatusCode::kIoError,
                  path + ": cannot read the file (" + std::strerror(EISDIR) + ")");
  }
  InstanceReader reader(path);
  Sha256 hash;
  std::vector<unsigned char> in(kChunk);
  std::vector<unsigned char> out;
  z_stream zs{};
  bool gzip = false;
  bool first = true;
  bool stream_ended = false;
  int64_t file_bytes = 0;
  int64_t json_bytes = 0;
  struct ZEnd {
    z_stream* zs;
    bool* active;
    ~ZEnd() {
      if (*active) inflateEnd(zs);
    }
  } zend{&zs, &gzip};

  for (;;) {
    const size_t got = std::fread(in.data(), 1, in.size(), file.get());
    if (got == 0) {
      if (std::ferror(file.get())) {
        return Status(StatusCode::kIoError, path + ": cannot read the file after byte " +
                                                std::to_string(file_bytes) + " (" +
                                                std::strerror(errno) + ")");
      }
      break;
    }
    hash.update(in.data(), got);
    if (first) {
      first = false;
      if (got >= 2 && in[0] == 0x1f && in[1] == 0x8b) {
        gzip = true;
        if (inflateInit2(&zs, 15 + 16) != Z_OK) {
          gzip = false;
          return Status(StatusCode::kInternal, path + ": zlib initialisation failed");
        }
        out.resize(4 * kChunk);
      }
    }
    file_bytes += static_cast<int64_t>(got);
    if (!gzip) {
      json_bytes += static_cast<int64_t>(got);
      Status status = reader.feed(in.data(), got);
      if (!status.is_ok()) return status;
      continue;
    }
    zs.next_in = in.data();
    zs.avail_in = static_cast<uInt>(got);
    for (;;) {
      if (stream_ended) {
        if (zs.avail_in == 0) break;
        // Concatenated gzip members are one stream (as gunzip treats them).
        inflateReset(&zs);
        stream_ended = false;
      }
      zs.next_out = out.data();
      zs.avail_out = static_cast<uInt>(out.size());
      const int rc = inflate(&zs, Z_NO_FLUSH);
      if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR) {
        const int64_t at = file_bytes - static_cast<int64_t>(zs.avail_in);
        return Status(StatusCode::kInvalidInput,
                      path + ": byte " + std::to_string(at) +
                          " of the compressed file: the gzip stream is corrupt (" +
                          (zs.msg ? zs.msg : "inflate error") + ")");
      }
      const size_t produced = out.size() - zs.avail_out;
      json_bytes += static_cast<int64_t>(produced);
      if (produced > 0) {
        Status status = reader.feed(out.data(), produced);
        if (!status.is_ok()) return status;
      }
      if (rc == Z_STREAM_END) {
        stream_ended = true;
        continue;
      }
      // Done with this chunk once zlib has input left to want and room to spare.
      if (zs.avail_in == 0 && zs.avail_out != 0) break;
      if (rc == Z_BUF_ERROR && produced == 0) break;
    }
  }
  if (gzip && !stream_ended) {
    return Status(
        StatusCode::kInvalidInput,
        path + ": byte " + std::to_string(file_bytes) +
            " of the compressed file: the gzip stream ends early (the file is truncated)");
  }
  Result<Problem> result = reader.finish();
  if (stats != nullptr) {
    stats->file_bytes = file_bytes;
    stats->json_bytes = json_bytes;
    stats->sha256 = hash.hex_digest();
    stats->seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  }
  return result;
}

}  // namespace shardlab
