// Internal to the plan lab's readers (presets.cpp, cluster.cpp): the
// "expected one of ..., found "x" (did you mean "y"?)" message for a name
// that is not in a list, with the nearest name within two edits.
#pragma once

#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>
#include <vector>

#include "core/json_doc.h"

namespace shardlab::plan::detail {

inline std::string lower(std::string_view text) {
  std::string out;
  for (char c : text) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Levenshtein distance, case-insensitive.
inline size_t edit_distance(std::string_view a_text, std::string_view b_text) {
  return json::edit_distance(lower(a_text), lower(b_text));
}

// "expected one of A, B, C, found "x" (did you mean "B"?)", the suggestion
// only when a name is within two edits.
inline std::string expected_one_of(const std::vector<std::string>& names, std::string_view found) {
  std::string list;
  std::string closest;
  size_t best = 3;
  for (const std::string& name : names) {
    list += (list.empty() ? "" : ", ") + name;
    const size_t d = edit_distance(found, name);
    if (d < best) {
      best = d;
      closest = name;
    }
  }
  std::string message = "expected one of " + list + ", found \"" + std::string(found) + "\"";
  if (!closest.empty()) message += " (did you mean \"" + closest + "\"?)";
  return message;
}

}  // namespace shardlab::plan::detail
