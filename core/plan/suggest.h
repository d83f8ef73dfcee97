// Internal to the plan lab's readers (presets.cpp, cluster.cpp): the
// "expected one of ..., found "x" (did you mean "y"?)" message for a name
// that is not in a list, with the nearest name within two edits.
#pragma once

#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>
#include <vector>

namespace shardlab::plan::detail {

inline std::string lower(std::string_view text) {
  std::string out;
  for (char c : text) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Levenshtein distance, case-insensitive.
inline size_t edit_distance(std::string_view a_text, std::string_view b_text) {
  const std::string a = lower(a_text), b = lower(b_text);
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1])});
      diagonal = up;
    }
  }
  return row[b.size()];
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
