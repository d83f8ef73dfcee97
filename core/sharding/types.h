// Basic numeric types shared by every ShardLab module: costs, usages, totals,
// the "forbidden" sentinel and the decimal formatting of 128-bit totals.
// Everything in core/ and wasm/ includes this; it depends on nothing.
#pragma once

#include <cstdint>
#include <string>

namespace shardlab {

using Cost = int64_t;     // one cost entry, in the instance's unit
using Usage = int64_t;    // one memory usage entry, in the instance's unit
using Time = int64_t;     // a time point of a node interval
using Int128 = __int128;  // exact totals that may exceed int64

// Cost entries at or above this value mean "this choice is forbidden". The
// reader clamps them to exactly kForbidden so one comparison identifies them.
constexpr Cost kForbidden = 1'000'000'000'000'000'000LL;

inline bool is_forbidden(Cost c) { return c >= kForbidden; }

// Decimal text of a 128-bit integer (costs are printed as strings because
// they may exceed 2^53 and JavaScript numbers).
std::string to_decimal(Int128 value);

}  // namespace shardlab
