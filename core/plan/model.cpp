// The small functions of the plan lab's structs (model.h): the names of the
// recomputation settings, as the CLI's --fix and the JSON output spell them.
#include "core/plan/model.h"

#include <cctype>

namespace shardlab::plan {

const char* recompute_name(Recompute r) {
  switch (r) {
    case Recompute::kNone:
      return "none";
    case Recompute::kSelective:
      return "selective";
    case Recompute::kFull:
      return "full";
  }
  return "none";
}

// Case-insensitive, so that "Selective" from a hand-written --fix works too.
bool parse_recompute(std::string_view text, Recompute* out) {
  std::string lower;
  for (char c : text) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (Recompute r : {Recompute::kNone, Recompute::kSelective, Recompute::kFull}) {
    if (lower == recompute_name(r)) {
      if (out) *out = r;
      return true;
    }
  }
  return false;
}

}  // namespace shardlab::plan
