// SHA-256 against FIPS 180-4 vectors and digests computed elsewhere
// (Python's hashlib), for the portable code and for the x86 SHA-extension
// path where the CPU has it, whole and in chunks of every size. Each path is
// checked against the known digests, never against the other: in wasm only
// the portable code runs, and it must still meet every digest.
#include "core/sha256.h"

#include <doctest/doctest.h>

#include <string>
#include <utility>

namespace shardlab {
namespace {

std::string digest(const std::string& data, bool allow_hardware, size_t first_step) {
  Sha256 hash(allow_hardware);
  size_t at = 0;
  for (size_t step = first_step; at < data.size(); step = step * 3 % 1000 + 1) {
    const size_t take = std::min(step, data.size() - at);
    hash.update(data.data() + at, take);
    at += take;
  }
  return hash.hex_digest();
}

// data[i] = ((i * 7919) >> 3 ^ (i * 31)) & 0xff, as in the Python that made
// the digests below: hashlib.sha256(bytes(...)).hexdigest().
std::string pattern(size_t size) {
  std::string data(size, '\0');
  for (size_t i = 0; i < size; ++i)
    data[i] = static_cast<char>(((i * 7919) >> 3 ^ (i * 31)) & 0xff);
  return data;
}

TEST_CASE("sha256: published vectors and known digests, portable and hardware paths") {
  const std::string two_blocks = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
  const std::pair<std::string, const char*> known[] = {
      {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
      {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
      {two_blocks, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
      {std::string(1000000, 'a'),
       "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"},
      // The padding's edge cases: 55, 56 and 64 bytes.
      {pattern(55), "52917ad1c77985bcc38bf8ad6986848448f8b9672460934f7e02f3ab54f7f761"},
      {pattern(56), "36861e23c5287c8ec38859f87bb9cf9087b2bb70367b1a449bbd4b6fc7bed321"},
      {pattern(64), "8516dd3733b2ef81f401f65ce188a860944702ac84f4cb710e7d0bbe862d3785"},
      {pattern(100003), "b9be39ff751bfb4ec7a52bee76fac989e2cdbbf3b2ff376d4ca6433ed01051da"},
  };
  for (const auto& entry : known) {
    // Not a structured binding: clang 14 (the wasm build) cannot capture one in CAPTURE.
    const std::string& data = entry.first;
    const char* hex = entry.second;
    CAPTURE(data.size());
    CHECK(sha256_hex(data.data(), data.size()) == hex);
    for (bool hardware : {false, true}) {
      CAPTURE(hardware);
      for (size_t first_step : {size_t{1}, size_t{7}, size_t{64}, size_t{1000}}) {
        CHECK(digest(data, hardware, first_step) == hex);
      }
    }
  }
}

}  // namespace
}  // namespace shardlab
