// SHA-256 (FIPS 180-4), incremental. Identifies instance files in result JSON
// and permalinks; the same code runs natively and in wasm, so a file hashed
// in the browser matches the CLI's digest.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace shardlab {

class Sha256 {
 public:
  // allow_hardware: use the x86 SHA extensions when the CPU has them (tests
  // turn it off to compare with the portable code).
  explicit Sha256(bool allow_hardware = true);
  void update(const void* data, size_t size);
  std::string hex_digest();  // finalizes; call once

 private:
  void compress(const uint8_t* block);
  uint32_t state_[8];
  uint8_t block_[64];
  size_t block_used_ = 0;
  uint64_t total_bytes_ = 0;
  bool use_hardware_ = false;
};

std::string sha256_hex(const void* data, size_t size);

}  // namespace shardlab
