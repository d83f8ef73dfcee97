// SHA-256 against FIPS 180-4 vectors, chunked updates, and the portable code
// against the x86 SHA-extension path on random data.
#include "core/sha256.h"

#include <doctest/doctest.h>

#include "core/rng.h"

namespace shardlab {
namespace {

TEST_CASE("sha256: published test vectors") {
  CHECK(sha256_hex("", 0) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(sha256_hex("abc", 3) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  const std::string two_blocks = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
  CHECK(sha256_hex(two_blocks.data(), two_blocks.size()) ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  const std::string million(1000000, 'a');
  CHECK(sha256_hex(million.data(), million.size()) ==
        "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST_CASE("sha256: chunking and the hardware path do not change the digest") {
  Rng rng(7);
  std::string data(100003, '\0');
  for (char& c : data) c = static_cast<char>(rng.below(256));
  const std::string whole = sha256_hex(data.data(), data.size());
  Sha256 portable(false);
  size_t at = 0;
  for (size_t step = 1; at < data.size(); step = step * 3 % 1000 + 1) {
    const size_t take = std::min(step, data.size() - at);
    portable.update(data.data() + at, take);
    at += take;
  }
  CHECK(portable.hex_digest() == whole);
}

}  // namespace
}  // namespace shardlab
