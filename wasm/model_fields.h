// The input arrays of a Problem as a table of raw byte fields, shared by the
// wasm bindings (export to JS typed arrays and import back in other workers)
// and the native parity driver (tests/wasm/parity_native.cpp), so both sides
// compute the same model digest. Derived arrays are rebuilt by finalize().
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/sha256.h"
#include "core/sharding/model.h"

namespace shardlab::web {

// A view of one input array as bytes; resize() sets its element count.
struct FieldRef {
  const char* name;
  int32_t element_bytes;
  uint8_t* (*data)(Problem&);
  size_t (*count)(const Problem&);
  void (*resize)(Problem&, size_t);
};

#define SHARDLAB_FIELD(member)                                                  \
  FieldRef {                                                                    \
#member, static_cast<int32_t>(sizeof(Problem{}.member[0])),                   \
        [](Problem& p) { return reinterpret_cast<uint8_t*>(p.member.data()); },   \
        [](const Problem& p) { return p.member.size(); },                         \
        [](Problem& p, size_t n) { p.member.resize(n); } \
  }

// Order matters: it is the wire order between workers and the digest order.
inline const std::vector<FieldRef>& model_fields() {
  static const std::vector<FieldRef> fields = {
      SHARDLAB_FIELD(strategy_begin), SHARDLAB_FIELD(strategy_cost), SHARDLAB_FIELD(strategy_usage),
      SHARDLAB_FIELD(interval_lo),    SHARDLAB_FIELD(interval_hi),   SHARDLAB_FIELD(edge_u),
      SHARDLAB_FIELD(edge_v),         SHARDLAB_FIELD(edge_matrix),   SHARDLAB_FIELD(matrix_begin),
      SHARDLAB_FIELD(matrix_cost),
  };
  return fields;
}

#undef SHARDLAB_FIELD

// SHA-256 over the name, the limit and every input array's bytes (both
// platforms are little-endian, so equal models give equal digests).
inline std::string model_digest(const Problem& problem) {
  Problem& p = const_cast<Problem&>(problem);  // data() only; nothing is written
  Sha256 hash(false);
  hash.update(p.name.data(), p.name.size());
  const std::string limit =
      "|" + std::to_string(p.has_usage_limit) + "|" + std::to_string(p.usage_limit) + "|";
  hash.update(limit.data(), limit.size());
  for (const FieldRef& field : model_fields()) {
    const uint64_t count = field.count(p);
    hash.update(&count, sizeof count);
    hash.update(field.data(p), count * static_cast<size_t>(field.element_bytes));
  }
  return hash.hex_digest();
}

}  // namespace shardlab::web
