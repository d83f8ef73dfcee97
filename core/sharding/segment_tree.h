// Range-add / range-max segment tree over time checkpoints: the memory profile
// of a partial or complete plan. Used by the incremental evaluator and by the
// hard-feasible search moves; O(log T) per update or query.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

namespace shardlab {

class MaxSegmentTree {
 public:
  MaxSegmentTree() = default;
  explicit MaxSegmentTree(int32_t size) { reset(size); }

  // All values become 0.
  void reset(int32_t size) {
    size_ = std::max(size, 1);
    leaves_ = 1;
    while (leaves_ < size_) leaves_ *= 2;
    max_.assign(2 * leaves_, 0);
    add_.assign(2 * leaves_, 0);
    // Padding leaves must never win a max query.
    for (int32_t i = size_; i < leaves_; ++i) max_[leaves_ + i] = kLow;
    for (int32_t i = leaves_ - 1; i >= 1; --i) max_[i] = std::max(max_[2 * i], max_[2 * i + 1]);
  }

  // Builds from explicit values in O(T).
  void assign(const std::vector<int64_t>& values) {
    reset(static_cast<int32_t>(values.size()));
    for (size_t i = 0; i < values.size(); ++i) max_[leaves_ + i] = values[i];
    for (int32_t i = leaves_ - 1; i >= 1; --i) max_[i] = std::max(max_[2 * i], max_[2 * i + 1]);
  }

  int32_t size() const { return size_; }

  // Adds delta to positions [lo, hi).
  void add(int32_t lo, int32_t hi, int64_t delta) {
    if (lo >= hi || delta == 0) return;
    add_rec(1, 0, leaves_, lo, hi, delta);
  }

  // Max over [lo, hi); kLow for an empty range.
  // Bottom-up, without recursion (the hot query of the search moves). The
  // nodes taken on the left all lie under node l - 1 of the current level,
  // those on the right under node r, so climbing a level adds that node's
  // pending add to each side's running maximum.
  int64_t max(int32_t lo, int32_t hi) const {
    if (lo >= hi) return kLow;
    int32_t l = lo + leaves_;
    int32_t r = hi + leaves_;
    int64_t left = kLow;
    int64_t right = kLow;
    bool have_left = false;
    bool have_right = false;
    while (l < r) {
      if (l & 1) {
        left = have_left ? std::max(left, max_[l]) : max_[l];
        have_left = true;
        ++l;
      }
      if (r & 1) {
        --r;
        right = have_right ? std::max(right, max_[r]) : max_[r];
        have_right = true;
      }
      l >>= 1;
      r >>= 1;
      if (have_left) left += add_[l - 1];
      if (have_right) right += add_[r];
    }
    for (int32_t p = (l - 1) >> 1; have_left && p >= 1; p >>= 1) left += add_[p];
    for (int32_t p = r >> 1; have_right && p >= 1; p >>= 1) right += add_[p];
    if (!have_left) return right;
    if (!have_right) return left;
    return std::max(left, right);
  }

  int64_t max_all() const { return max_[1]; }

  // Position of the leftmost maximum.
  int32_t argmax() const {
    int32_t node = 1;
    while (node < leaves_) {
      const int64_t target = max_[node] - add_[node];
      node = max_[2 * node] >= target ? 2 * node : 2 * node + 1;
    }
    return node - leaves_;
  }

  // Value at one position.
  int64_t at(int32_t index) const {
    int32_t node = leaves_ + index;
    int64_t value = max_[node];
    for (node /= 2; node >= 1; node /= 2) value += add_[node];
    return value;
  }

  static constexpr int64_t kLow = std::numeric_limits<int64_t>::min() / 4;

 private:
  void add_rec(int32_t node, int32_t nlo, int32_t nhi, int32_t lo, int32_t hi, int64_t delta) {
    if (hi <= nlo || nhi <= lo) return;
    if (lo <= nlo && nhi <= hi) {
      max_[node] += delta;
      add_[node] += delta;
      return;
    }
    const int32_t mid = (nlo + nhi) / 2;
    add_rec(2 * node, nlo, mid, lo, hi, delta);
    add_rec(2 * node + 1, mid, nhi, lo, hi, delta);
    max_[node] = std::max(max_[2 * node], max_[2 * node + 1]) + add_[node];
  }

  int32_t size_ = 0;
  int32_t leaves_ = 1;
  std::vector<int64_t> max_;  // max of the subtree including this node's add
  std::vector<int64_t> add_;  // pending add applying to the whole subtree
};

}  // namespace shardlab
