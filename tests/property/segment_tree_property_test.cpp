// Property test of the range-add / range-max segment tree that every
// hard-feasible move relies on: after seeded random range additions, every
// range maximum, the global maximum, argmax and point values agree with a
// plain array, for sizes that are and are not powers of two.
#include <doctest/doctest.h>

#include <algorithm>
#include <vector>

#include "core/rng.h"
#include "core/sharding/segment_tree.h"

namespace shardlab {
namespace {

TEST_CASE("segment tree: range add and range max agree with a plain array") {
  Rng rng(2024);
  for (int32_t size : {1, 2, 3, 5, 8, 13, 64, 100}) {
    MaxSegmentTree tree(size);
    std::vector<int64_t> plain(size, 0);
    for (int32_t round = 0; round < 120; ++round) {
      const int32_t lo = static_cast<int32_t>(rng.below(static_cast<uint32_t>(size)));
      const int32_t hi = lo + 1 + static_cast<int32_t>(rng.below(static_cast<uint32_t>(size - lo)));
      const int64_t delta = static_cast<int64_t>(rng.below(2001)) - 1000;
      tree.add(lo, hi, delta);
      for (int32_t t = lo; t < hi; ++t) plain[t] += delta;
      for (int32_t a = 0; a < size; ++a) {
        for (int32_t b = a + 1; b <= size; ++b) {
          const int64_t expected = *std::max_element(plain.begin() + a, plain.begin() + b);
          REQUIRE(tree.max(a, b) == expected);
        }
        REQUIRE(tree.at(a) == plain[a]);
      }
      const auto top = std::max_element(plain.begin(), plain.end());
      REQUIRE(tree.max_all() == *top);
      REQUIRE(tree.argmax() == static_cast<int32_t>(top - plain.begin()));
      REQUIRE(tree.max(lo, lo) == MaxSegmentTree::kLow);
    }
  }
}

}  // namespace
}  // namespace shardlab
