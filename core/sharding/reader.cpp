// The streaming, schema-aware reader of contest instances (see io.h).
//
// Design: bytes are appended to a small working buffer (the unparsed tail of
// the previous chunk plus the new chunk, NUL-terminated so the scanners need
// no bounds checks). An explicit stack of frames, one per open object or
// array, makes the parser resumable at any token boundary: a token that runs
// into the end of the buffer is left for the next feed(). Integer lists, which
// are nearly all of the bytes, are parsed by a dedicated tight loop. Nodes'
// lists grow in fixed blocks rather than by doubling so the peak memory stays
// near the size of the final model.
#include <algorithm>
#include <cstring>
#include <limits>
#include <unordered_map>

#include "core/sharding/io.h"
#include "core/utf8.h"

namespace shardlab {
namespace {

// Append-only storage in fixed blocks: no doubling spikes while streaming,
// and move_to() frees each block as soon as it has been copied.
template <typename T>
class BlockVector {
 public:
  static constexpr size_t kShift = 14;
  static constexpr size_t kBlock = size_t{1} << kShift;

  void push_back(T value) {
    if (next_ == block_end_) add_block();
    *next_++ = value;
  }
  size_t size() const {
    return blocks_.empty() ? 0 : (blocks_.size() - 1) * kBlock + (next_ - blocks_.back().get());
  }
  T operator[](size_t i) const { return blocks_[i >> kShift][i & (kBlock - 1)]; }
  void clear() {
    blocks_.clear();
    blocks_.shrink_to_fit();
    next_ = block_end_ = nullptr;
  }
  void move_to(std::vector<T>* out) {
    const size_t total = size();
    out->clear();
    out->reserve(total);
    for (size_t b = 0; b < blocks_.size(); ++b) {
      const size_t count = std::min(kBlock, total - b * kBlock);
      out->insert(out->end(), blocks_[b].get(), blocks_[b].get() + count);
      blocks_[b].reset();
    }
    clear();
  }

 private:
  void add_block() {
    blocks_.emplace_back(new T[kBlock]);
    next_ = blocks_.back().get();
    block_end_ = next_ + kBlock;
  }

  std::vector<std::unique_ptr<T[]>> blocks_;
  T* next_ = nullptr;
  T* block_end_ = nullptr;
};

enum class Target : uint8_t {
  kDocument,  // the top-level value slot
  kRoot,      // {"problem": ...}
  kProblem,
  kNodes,
  kEdges,
  kIntervals,  // arrays whose elements are integer lists
  kNodeCosts,
  kNodeUsages,
  kEdgeNodes,
  kEdgeCosts,
  kInterval,  // integer lists
  kCostList,
  kUsageList,
  kEdgePair,
  kMatrix,
  kName,  // scalar slots
  kUsageLimit,
  kSkip,  // any JSON value, ignored (unknown keys)
};

enum class Phase : uint8_t {
  kKeyOrEnd,    // object, just after '{'
  kKey,         // object, after ','
  kColon,       // object, after a key
  kValue,       // object after ':', array after ',', document start
  kValueOrEnd,  // array, just after '['
  kCommaOrEnd,  // after a complete member/element
  kDone,        // document: the top-level value is complete
};

struct KeySpec {
  const char* name;
  Target child;
};

struct ObjectSpec {
  const KeySpec* keys;
  int count;
  uint32_t required;  // bit i set: keys[i] must appear
};

constexpr KeySpec kRootKeys[] = {{"problem", Target::kProblem}};
constexpr KeySpec kProblemKeys[] = {{"name", Target::kName},
                                    {"nodes", Target::kNodes},
                                    {"edges", Target::kEdges},
                                    {"usage_limit", Target::kUsageLimit}};
constexpr KeySpec kNodesKeys[] = {{"intervals", Target::kIntervals},
                                  {"costs", Target::kNodeCosts},
                                  {"usages", Target::kNodeUsages}};
constexpr KeySpec kEdgesKeys[] = {{"nodes", Target::kEdgeNodes}, {"costs", Target::kEdgeCosts}};

ObjectSpec object_spec(Target t) {
  switch (t) {
    case Target::kRoot:
      return {kRootKeys, 1, 0b1};
    case Target::kProblem:
      return {kProblemKeys, 4, 0b0110};
    case Target::kNodes:
      return {kNodesKeys, 3, 0b111};
    case Target::kEdges:
      return {kEdgesKeys, 2, 0b11};
    default:
      return {nullptr, 0, 0};
  }
}

bool is_object_target(Target t) {
  return t == Target::kRoot || t == Target::kProblem || t == Target::kNodes || t == Target::kEdges;
}

bool is_list_of_lists(Target t) { return t >= Target::kIntervals && t <= Target::kEdgeCosts; }

bool is_int_list(Target t) { return t >= Target::kInterval && t <= Target::kMatrix; }

Target element_target(Target list) {
  switch (list) {
    case Target::kIntervals:
      return Target::kInterval;
    case Target::kNodeCosts:
      return Target::kCostList;
    case Target::kNodeUsages:
      return Target::kUsageList;
    case Target::kEdgeNodes:
      return Target::kEdgePair;
    case Target::kEdgeCosts:
      return Target::kMatrix;
    default:
      return Target::kSkip;
  }
}

const char* expected_value(Target t) {
  switch (t) {
    case Target::kDocument:
      return "'{' (an object with the key \"problem\")";
    case Target::kRoot:
    case Target::kProblem:
    case Target::kNodes:
    case Target::kEdges:
      return "'{' (an object)";
    case Target::kIntervals:
    case Target::kNodeCosts:
    case Target::kNodeUsages:
    case Target::kEdgeNodes:
    case Target::kEdgeCosts:
      return "'[' (an array of arrays)";
    case Target::kInterval:
      return "'[' (an interval [lo, hi])";
    case Target::kEdgePair:
      return "'[' (a node pair [u, v])";
    case Target::kCostList:
    case Target::kUsageList:
    case Target::kMatrix:
      return "'[' (an array of integers)";
    case Target::kName:
      return "a string";
    case Target::kUsageLimit:
      return "an integer or null";
    case Target::kSkip:
      return "a value";
  }
  return "a value";
}

inline bool is_space(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

inline bool is_digit(char c) { return static_cast<unsigned char>(c - '0') < 10; }

enum class Scan { kOk, kNeedMore, kError };

// The general (slow) paths only start a token when at least this many bytes
// follow it, or at the end of input, so an error message quotes the same
// bytes whatever the chunk sizes were.
constexpr ptrdiff_t kLookahead = 64;

// Where a value started, kept for checks that can only run at the end (edges
// may come before the nodes they name).
struct SourcePos {
  int64_t byte = 0;
  uint32_t line = 0;
  uint32_t column = 0;
};

struct Frame {
  Target target = Target::kDocument;
  Phase phase = Phase::kValue;
  bool object = false;    // an object (else an array or the document)
  int8_t key_index = -1;  // objects: which spec key the current member is
  uint32_t seen = 0;      // objects: keys seen so far
  int64_t count = 0;      // arrays: complete elements; objects: members
  std::string key;        // objects: the current member's key
};

}  // namespace

struct InstanceReader::Impl {
  explicit Impl(std::string source) : source(std::move(source)) {
    Frame document;
    document.target = Target::kDocument;
    document.phase = Phase::kValue;
    stack.push_back(std::move(document));
  }

  std::string source;
  Status status;
  bool finished = false;

  // Working buffer: buf[pos, len) is unparsed; buf[len] == '\0'.
  std::vector<char> buf{'\0'};
  size_t pos = 0;
  size_t len = 0;
  int64_t base = 0;  // absolute offset of buf[0]
  int64_t fed = 0;

  // Lazy line counting: newlines before absolute offset line_scan are known.
  int64_t line_scan = 0;
  int64_t line = 1;
  int64_t line_start = 0;

  std::vector<Frame> stack;

  // Model under construction: complete arrays live in `model`, the ones
  // being read in blocks below.
  Problem model;
  std::string name;
  bool has_limit = false;
  Usage limit = 0;
  BlockVector<Cost> node_costs;
  BlockVector<Usage> node_usages;
  BlockVector<int32_t> cost_counts;   // strategies per node, from costs
  BlockVector<int32_t> usage_counts;  // strategies per node, from usages
  BlockVector<Time> lo, hi;
  int64_t intervals_closed = -1;  // node count seen by each node array
  int64_t costs_closed = -1;
  int64_t usages_closed = -1;
  BlockVector<int32_t> edge_u, edge_v, edge_matrix;
  BlockVector<SourcePos> pair_pos, matrix_pos;  // for deferred errors
  int64_t pairs_closed = -1;
  int64_t matrices_closed = -1;
  BlockVector<Cost> matrix_pool;
  std::vector<int64_t> matrix_begin{0};
  std::unordered_multimap<uint64_t, int32_t> matrix_index;
  std::vector<Cost> scratch;  // the matrix being read
  int64_t pair[2] = {0, 0};   // the interval or node pair being read

  // ---------------------------------------------------------------- errors
  int64_t abs(const char* p) const { return base + static_cast<int64_t>(p - buf.data()); }

  void count_lines_to(int64_t target) {
    const char* p = buf.data() + (line_scan - base);
    const char* stop = buf.data() + (target - base);
    while (p < stop) {
      const void* nl = std::memchr(p, '\n', static_cast<size_t>(stop - p));
      if (nl == nullptr) break;
      p = static_cast<const char*>(nl) + 1;
      ++line;
      line_start = abs(p);
    }
    line_scan = target;
  }

  // The JSON path of the value being read, e.g. problem.nodes.costs[3][1].
  // Frames below the top are always inside a member or element; the top
  // frame contributes only when include_top and it is inside one too.
  std::string path(bool include_top) const {
    std::string out;
    for (size_t i = 1; i < stack.size(); ++i) {
      const Frame& f = stack[i];
      if (i + 1 == stack.size()) {
        const bool inside = f.object ? f.phase == Phase::kColon || f.phase == Phase::kValue
                                     : f.phase == Phase::kValue || f.phase == Phase::kValueOrEnd;
        if (!include_top || !inside) break;
      }
      if (f.object) {
        if (!out.empty()) out += '.';
        out += f.key;
      } else {
        out += '[' + std::to_string(f.count) + ']';
      }
    }
    return out;
  }

  // Line and column of p (which lies in the buffer, at or after every
  // position asked before).
  SourcePos pos_of(const char* p) {
    const int64_t offset = abs(p);
    if (offset > line_scan) count_lines_to(offset);
    return {offset, static_cast<uint32_t>(line), static_cast<uint32_t>(offset - line_start + 1)};
  }

  void fail_pos(const SourcePos& pos, const std::string& where, const std::string& message) {
    std::string text = source + ":" + std::to_string(pos.line) + ":" + std::to_string(pos.column) +
                       " (byte " + std::to_string(pos.byte) + "): ";
    if (!where.empty()) text += "at " + where + ": ";
    status = Status(StatusCode::kInvalidInput, text + message);
  }

  // Fails with a message located at p (which lies in the buffer).
  void fail_at(const char* p, const std::string& where, const std::string& message) {
    fail_pos(pos_of(p), where, message);
  }

  std::string describe(const char* p) const {
    const char* end = buf.data() + len;
    if (p >= end) return "end of input";
    const unsigned char c = static_cast<unsigned char>(*p);
    // The user's bytes, escaped where they are not printable UTF-8.
    auto clip = [&](const char* from, const char* to) {
      return utf8::printable(std::string_view(from, static_cast<size_t>(to - from)), 40);
    };
    if (c == '"') {
      const char* q = p + 1;
      while (q < end && *q != '"' && q - p < 42) q += (*q == '\\' && q + 1 < end) ? 2 : 1;
      return "the string " + clip(p, std::min(q + 1, end));
    }
    if (c == '-' || is_digit(static_cast<char>(c))) {
      const char* q = p + 1;
      while (q < end &&
             (is_digit(*q) || *q == '.' || *q == 'e' || *q == 'E' || *q == '+' || *q == '-')) {
        ++q;
      }
      return "the number " + clip(p, q);
    }
    if (std::isalpha(c)) {
      const char* q = p;
      while (q < end && std::isalnum(static_cast<unsigned char>(*q))) ++q;
      const std::string word = clip(p, q);
      if (word == "true" || word == "false" || word == "null") return word;
      return "'" + word + "'";
    }
    if (c >= 0x20 && c < 0x7f) return std::string("'") + static_cast<char>(c) + "'";
    if (c >= 0x80) {
      const size_t length = utf8::char_length(std::string_view(p, static_cast<size_t>(end - p)), 0);
      if (length > 0) return "'" + std::string(p, length) + "'";
    }
    char hex[16];
    std::snprintf(hex, sizeof hex, "byte 0x%02x", c);
    return hex;
  }

  void fail_expected(const char* p, const std::string& expected, bool include_top = true) {
    fail_at(p, path(include_top), "expected " + expected + ", found " + describe(p));
  }

  // ---------------------------------------------------------------- tokens
  // Parses a JSON number at p as an exact int64. On kOk, p is past it.
  Scan scan_int(const char*& p, bool final, int64_t* out) {
    const char* end = buf.data() + len;
    const char* s = p;
    const bool negative = *s == '-';
    if (negative) ++s;
    const char* digits = s;
    uint64_t value = 0;
    while (is_digit(*s)) {
      value = value * 10 + static_cast<uint64_t>(*s - '0');
      ++s;
    }
    if (s == end && !final) return Scan::kNeedMore;
    const size_t num_digits = static_cast<size_t>(s - digits);
    if (num_digits == 0) {
      if (s == end) {
        fail_at(s, path(true), "expected digits, found end of input (the file is truncated)");
      } else {
        fail_expected(p, "an integer");
      }
      return Scan::kError;
    }
    if (num_digits > 1 && *digits == '0') {
      fail_at(p, path(true),
              "expected an integer, found " + describe(p) + " (JSON forbids leading zeros)");
      return Scan::kError;
    }
    if (*s == '.' || *s == 'e' || *s == 'E') return scan_general(p, s, final, out);
    const uint64_t max_magnitude = negative ? uint64_t{1} << 63 : (uint64_t{1} << 63) - 1;
    if (num_digits > 19 || value > max_magnitude) {
      fail_at(p, path(true), "expected an integer within int64, found " + describe(p));
      return Scan::kError;
    }
    *out = negative ? static_cast<int64_t>(0 - value) : static_cast<int64_t>(value);
    p = s;
    return Scan::kOk;
  }

  // Fractions and exponents: accepted only when the value is an exact integer
  // (Python writes 1e18 as 1e+18, for example).
  Scan scan_general(const char*& p, const char* s, bool final, int64_t* out) {
    const char* end = buf.data() + len;
    const bool negative = *p == '-';
    std::string mantissa(p + (negative ? 1 : 0), s);
    int64_t scale = 0;
    if (*s == '.') {
      ++s;
      const char* frac = s;
      while (is_digit(*s)) ++s;
      if (s == end && !final) return Scan::kNeedMore;
      if (s == frac) {
        fail_at(p, path(true), "expected digits after '.' in " + describe(p));
        return Scan::kError;
      }
      mantissa.append(frac, s);
      scale -= s - frac;
    }
    if (*s == 'e' || *s == 'E') {
      ++s;
      bool exp_negative = false;
      if (*s == '+' || *s == '-') exp_negative = *s++ == '-';
      const char* exp_digits = s;
      int64_t exponent = 0;
      while (is_digit(*s)) {
        if (exponent < 1'000'000) exponent = exponent * 10 + (*s - '0');
        ++s;
      }
      if (s == end && !final) return Scan::kNeedMore;
      if (s == exp_digits) {
        fail_at(p, path(true), "expected digits in the exponent of " + describe(p));
        return Scan::kError;
      }
      scale += exp_negative ? -exponent : exponent;
    }
    size_t first = mantissa.find_first_not_of('0');
    mantissa = first == std::string::npos ? std::string() : mantissa.substr(first);
    while (scale < 0 && !mantissa.empty() && mantissa.back() == '0') {
      mantissa.pop_back();
      ++scale;
    }
    if (mantissa.empty()) {
      *out = 0;
      p = s;
      return Scan::kOk;
    }
    if (scale < 0) {
      fail_at(p, path(true), "expected an integer, found " + describe(p));
      return Scan::kError;
    }
    if (static_cast<int64_t>(mantissa.size()) + scale > 19) {
      fail_at(p, path(true), "expected an integer within int64, found " + describe(p));
      return Scan::kError;
    }
    unsigned __int128 value = 0;
    for (char c : mantissa) value = value * 10 + static_cast<unsigned>(c - '0');
    for (int64_t i = 0; i < scale; ++i) value *= 10;
    const unsigned __int128 max_magnitude =
        negative ? (unsigned __int128)1 << 63 : ((unsigned __int128)1 << 63) - 1;
    if (value > max_magnitude) {
      fail_at(p, path(true), "expected an integer within int64, found " + describe(p));
      return Scan::kError;
    }
    *out = negative ? -static_cast<int64_t>(value - 1) - 1 : static_cast<int64_t>(value);
    p = s;
    return Scan::kOk;
  }

  // Parses a JSON string at p (which points at '"'); on kOk p is past it.
  Scan scan_string(const char*& p, bool final, std::string* out) {
    const char* end = buf.data() + len;
    const char* s = p + 1;
    out->clear();
    for (;;) {
      const char* run = s;
      while (s < end && *s != '"' && *s != '\\' && static_cast<unsigned char>(*s) >= 0x20 &&
             static_cast<unsigned char>(*s) < 0x80) {
        ++s;
      }
      out->append(run, s);
      if (s >= end) {
        if (!final) return Scan::kNeedMore;
        fail_at(s, path(true), "expected '\"' to close the string, found end of input");
        return Scan::kError;
      }
      if (*s == '"') break;
      if (static_cast<unsigned char>(*s) >= 0x80) {
        // Names are written back into result JSON: only UTF-8 may pass.
        const std::string_view rest(s, static_cast<size_t>(end - s));
        std::string why;
        const size_t length = utf8::char_length(rest, 0, &why);
        if (length == 0) {
          if (!final && rest.size() < 4) return Scan::kNeedMore;
          fail_at(s, path(true), "expected UTF-8 text (save the file as UTF-8), found " + why);
          return Scan::kError;
        }
        out->append(s, length);
        s += length;
        continue;
      }
      if (static_cast<unsigned char>(*s) < 0x20) {
        fail_at(s, path(true),
                "expected a string character, found " + describe(s) +
                    " (control characters must be escaped)");
        return Scan::kError;
      }
      // Escape sequence.
      if (s + 1 >= end) {
        if (!final) return Scan::kNeedMore;
        fail_at(s, path(true), "expected an escape sequence, found end of input");
        return Scan::kError;
      }
      const char e = s[1];
      const char* simple = std::strchr("\"\\/bfnrt", e);
      if (e != '\0' && simple != nullptr) {
        static const char kDecoded[] = "\"\\/\b\f\n\r\t";
        out->push_back(kDecoded[simple - "\"\\/bfnrt"]);
        s += 2;
        continue;
      }
      if (e != 'u') {
        fail_at(s, path(true), std::string("expected an escape sequence, found '\\") + e + "'");
        return Scan::kError;
      }
      if (end - s < 6) {
        if (!final) return Scan::kNeedMore;
        fail_at(s, path(true), "expected 4 hex digits after \\u, found end of input");
        return Scan::kError;
      }
      uint32_t code = 0;
      for (int i = 2; i < 6; ++i) {
        const char h = s[i];
        const int digit = is_digit(h)              ? h - '0'
                          : (h >= 'a' && h <= 'f') ? h - 'a' + 10
                          : (h >= 'A' && h <= 'F') ? h - 'A' + 10
                                                   : -1;
        if (digit < 0) {
          fail_at(s, path(true), "expected 4 hex digits after \\u");
          return Scan::kError;
        }
        code = code * 16 + static_cast<uint32_t>(digit);
      }
      if (code >= 0xdc00 && code < 0xe000) {
        fail_at(s, path(true),
                "expected a \\u escape of a character, found the lone low surrogate '" +
                    std::string(s, 6) + "'");
        return Scan::kError;
      }
      if (code >= 0xd800 && code < 0xdc00) {
        // A high surrogate needs its low half: \uD83D\uDE00 is one character.
        if (end - s < 12) {
          if (!final) return Scan::kNeedMore;
        }
        uint32_t low = 0;
        bool ok = end - s >= 12 && s[6] == '\\' && s[7] == 'u';
        for (int i = 8; ok && i < 12; ++i) {
          const char h = s[i];
          const int digit = is_digit(h)              ? h - '0'
                            : (h >= 'a' && h <= 'f') ? h - 'a' + 10
                            : (h >= 'A' && h <= 'F') ? h - 'A' + 10
                                                     : -1;
          ok = digit >= 0;
          low = low * 16 + static_cast<uint32_t>(digit);
        }
        if (!ok || low < 0xdc00 || low >= 0xe000) {
          fail_at(s, path(true),
                  "expected a low surrogate after a high one, found a lone \\u escape '" +
                      std::string(s, 6) + "'");
          return Scan::kError;
        }
        code = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
        s += 6;
      }
      s += 6;
      if (code < 0x80) {
        out->push_back(static_cast<char>(code));
      } else if (code < 0x800) {
        out->push_back(static_cast<char>(0xC0 | (code >> 6)));
        out->push_back(static_cast<char>(0x80 | (code & 0x3F)));
      } else if (code < 0x10000) {
        out->push_back(static_cast<char>(0xE0 | (code >> 12)));
        out->push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3F)));
        out->push_back(static_cast<char>(0x80 | (code & 0x3F)));
      } else {
        out->push_back(static_cast<char>(0xF0 | (code >> 18)));
        out->push_back(static_cast<char>(0x80 | ((code >> 12) & 0x3F)));
        out->push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3F)));
        out->push_back(static_cast<char>(0x80 | (code & 0x3F)));
      }
    }
    p = s + 1;
    return Scan::kOk;
  }

  // true / false / null at p.
  Scan scan_literal(const char*& p, bool final, const char** which) {
    const char* end = buf.data() + len;
    for (const char* word : {"true", "false", "null"}) {
      const size_t n = std::strlen(word);
      const size_t avail = static_cast<size_t>(end - p);
      if (std::strncmp(p, word, std::min(n, avail)) != 0) continue;
      if (avail < n) {
        if (!final) return Scan::kNeedMore;
        break;
      }
      *which = word;
      p += n;
      return Scan::kOk;
    }
    return Scan::kError;
  }

  // ---------------------------------------------------------------- values
  void push(Target target, Phase phase, const char* p) {
    Frame f;
    f.target = target;
    f.phase = phase;
    f.object = *p == '{';
    if (target == Target::kEdgePair) pair_pos.push_back(pos_of(p));
    if (target == Target::kMatrix) matrix_pos.push_back(pos_of(p));
    stack.push_back(std::move(f));
  }

  // Stores one integer of an integer list. p points at the number.
  bool store_int(Frame& f, int64_t value, const char* p) {
    switch (f.target) {
      case Target::kCostList:
      case Target::kMatrix:
        if (value < 0) {
          fail_at(p, path(true), "expected a non-negative cost, found " + describe(p));
          return false;
        }
        value = std::min<int64_t>(value, kForbidden);
        if (f.target == Target::kCostList) {
          node_costs.push_back(value);
        } else {
          scratch.push_back(value);
        }
        return true;
      case Target::kUsageList:
        if (value < 0) {
          fail_at(p, path(true), "expected a non-negative usage, found " + describe(p));
          return false;
        }
        node_usages.push_back(value);
        return true;
      case Target::kInterval:
      case Target::kEdgePair:
        if (f.count >= 2) {
          fail_at(p, path(false),
                  f.target == Target::kInterval
                      ? "expected ']' (an interval is [lo, hi]), found " + describe(p)
                      : "expected ']' (an edge joins exactly 2 nodes), found " + describe(p));
          return false;
        }
        if (f.target == Target::kEdgePair &&
            (value < 0 || value > std::numeric_limits<int32_t>::max())) {
          fail_at(p, path(true), "expected a node index, found " + describe(p));
          return false;
        }
        pair[f.count] = value;
        return true;
      default:
        return false;
    }
  }

  // The bulk of every instance: non-negative integers of at most 19 digits,
  // each followed by ',' (and optional spaces) or ']'. Stores them without
  // going through the general loop; stops at anything else, leaving p at the
  // start of the element it could not take (the general loop handles it).
  template <typename Store>
  void fast_ints(Frame& f, const char*& p, Store store) {
    if (f.phase == Phase::kCommaOrEnd) return;
    const char* s = p;
    int64_t count = f.count;
    for (;;) {
      while (is_space(*s)) ++s;
      const char* digits = s;
      unsigned d = static_cast<unsigned char>(*s) - '0';
      if (d >= 10 || (d == 0 && is_digit(s[1]))) break;
      uint64_t value = d;
      for (d = static_cast<unsigned char>(*++s) - '0'; d < 10;
           d = static_cast<unsigned char>(*++s) - '0') {
        value = value * 10 + d;
      }
      while (is_space(*s)) ++s;
      const char next = *s;
      if (s - digits > 19 || value > static_cast<uint64_t>(INT64_MAX) ||
          (next != ',' && next != ']')) {
        s = digits;
        break;
      }
      store(static_cast<int64_t>(value));
      ++count;
      if (next == ']') {
        f.count = count;
        f.phase = Phase::kCommaOrEnd;
        p = s;
        return;
      }
      ++s;
    }
    if (count != f.count) f.phase = Phase::kValue;
    f.count = count;
    p = s;
  }

  void fast_path(Frame& f, const char*& p) {
    switch (f.target) {
      case Target::kCostList:
        fast_ints(f, p,
                  [this](int64_t v) { node_costs.push_back(std::min<int64_t>(v, kForbidden)); });
        break;
      case Target::kUsageList:
        fast_ints(f, p, [this](int64_t v) { node_usages.push_back(v); });
        break;
      case Target::kMatrix:
        fast_ints(f, p, [this](int64_t v) { scratch.push_back(std::min<int64_t>(v, kForbidden)); });
        break;
      default:
        break;
    }
  }

  // The general loop over an integer list: "n, n, ... ]", any spacing.
  Scan run_int_list(const char*& p, bool final) {
    Frame& f = stack.back();
    for (;;) {
      fast_path(f, p);
      while (is_space(*p)) ++p;
      if (!final && buf.data() + len - p < kLookahead) return Scan::kNeedMore;
      const char c = *p;
      if (f.phase == Phase::kCommaOrEnd) {
        if (c == ',') {
          ++p;
          f.phase = Phase::kValue;
          continue;
        }
        if (c == ']') {
          ++p;
          return close_frame(p - 1) ? Scan::kOk : Scan::kError;
        }
      } else {
        if (c == ']' && f.phase == Phase::kValueOrEnd) {
          ++p;
          return close_frame(p - 1) ? Scan::kOk : Scan::kError;
        }
        if (c == '-' || is_digit(c)) {
          int64_t value;
          const char* start = p;
          const Scan scan = scan_int(p, final, &value);
          if (scan != Scan::kOk) return scan;
          if (!store_int(f, value, start)) return Scan::kError;
          ++f.count;
          f.phase = Phase::kCommaOrEnd;
          continue;
        }
      }
      if (p == buf.data() + len) {
        if (final) fail_unexpected_end(p);
        return final ? Scan::kError : Scan::kNeedMore;
      }
      if (f.phase == Phase::kCommaOrEnd) {
        fail_expected(p, "',' or ']'", false);
      } else if (f.phase == Phase::kValueOrEnd) {
        fail_expected(p, "an integer or ']'");
      } else {
        fail_expected(p, "an integer");
      }
      return Scan::kError;
    }
  }

  // Begins the value for `target` at p (not whitespace). The caller's frame
  // is already marked complete-pending (kCommaOrEnd / kDone).
  Scan begin_value(Target target, const char*& p, bool final) {
    const char c = *p;
    if (target == Target::kSkip) {
      if (c == '{') {
        push(Target::kSkip, Phase::kKeyOrEnd, p++);
        return Scan::kOk;
      }
      if (c == '[') {
        push(Target::kSkip, Phase::kValueOrEnd, p++);
        return Scan::kOk;
      }
      return skip_scalar(p, final);
    }
    if (is_object_target(target)) {
      if (c != '{') return expected_here(target, p);
      push(target, Phase::kKeyOrEnd, p++);
      return Scan::kOk;
    }
    if (is_list_of_lists(target) || is_int_list(target)) {
      if (c != '[') return expected_here(target, p);
      push(target, Phase::kValueOrEnd, p++);
      return Scan::kOk;
    }
    if (target == Target::kName) {
      if (c == '"') return scan_string(p, final, &name);
      const char* word = nullptr;
      const char* start = p;
      const Scan scan = scan_literal(p, final, &word);
      if (scan == Scan::kNeedMore) return scan;
      if (scan == Scan::kOk && std::strcmp(word, "null") == 0) return Scan::kOk;
      return expected_here(target, start);
    }
    if (target == Target::kUsageLimit) {
      if (c == '-' || is_digit(c)) {
        const char* start = p;
        const Scan scan = scan_int(p, final, &limit);
        if (scan != Scan::kOk) return scan;
        if (limit < 0) {
          fail_at(start, path(true),
                  "expected a non-negative usage limit, found " + describe(start));
          return Scan::kError;
        }
        has_limit = true;
        return Scan::kOk;
      }
      const char* word = nullptr;
      const char* start = p;
      const Scan scan = scan_literal(p, final, &word);
      if (scan == Scan::kNeedMore) return scan;
      if (scan == Scan::kOk && std::strcmp(word, "null") == 0) return Scan::kOk;
      return expected_here(target, start);
    }
    return expected_here(target, p);
  }

  Scan expected_here(Target target, const char* p) {
    fail_expected(p, expected_value(stack.size() == 1 ? Target::kDocument : target));
    return Scan::kError;
  }

  Scan skip_scalar(const char*& p, bool final) {
    const char c = *p;
    if (c == '"') {
      std::string ignored;
      return scan_string(p, final, &ignored);
    }
    if (c == '-' || is_digit(c)) {
      // Validate the grammar without caring about the value's range.
      const char* end = buf.data() + len;
      const char* s = p;
      if (*s == '-') ++s;
      if (!is_digit(*s)) {
        if (s == end && !final) return Scan::kNeedMore;
        fail_expected(p, "a number");
        return Scan::kError;
      }
      while (is_digit(*s) || *s == '.' || *s == 'e' || *s == 'E' ||
             ((*s == '+' || *s == '-') && (s[-1] == 'e' || s[-1] == 'E'))) {
        ++s;
      }
      if (s == end && !final) return Scan::kNeedMore;
      p = s;
      return Scan::kOk;
    }
    const char* word = nullptr;
    const Scan scan = scan_literal(p, final, &word);
    if (scan == Scan::kError) fail_expected(p, "a JSON value");
    return scan;
  }

  // ---------------------------------------------------------------- closing
  bool check_node_count(const char* p, const char* array, int64_t count) {
    if (count == 0) {
      fail_at(p, std::string("problem.nodes.") + array, "expected at least one node, found ']'");
      return false;
    }
    const struct {
      const char* name;
      int64_t closed;
    } others[] = {
        {"intervals", intervals_closed}, {"costs", costs_closed}, {"usages", usages_closed}};
    for (const auto& other : others) {
      if (other.closed >= 0 && other.closed != count) {
        fail_at(p, std::string("problem.nodes.") + array,
                "expected " + std::to_string(other.closed) +
                    " entries (one per node, as in problem.nodes." + other.name + "), found " +
                    std::to_string(count));
        return false;
      }
    }
    return true;
  }

  bool check_edge_count(const char* p, const char* array, int64_t count, int64_t other,
                        const char* other_name) {
    if (other >= 0 && other != count) {
      fail_at(p, std::string("problem.edges.") + array,
              "expected " + std::to_string(other) + " entries (one per edge, as in problem.edges." +
                  other_name + "), found " + std::to_string(count));
      return false;
    }
    return true;
  }

  // Compares the strategy counts of node `node` from costs and usages.
  bool check_strategy_count(const char* p, int64_t node, const char* array,
                            const BlockVector<int32_t>& mine, const BlockVector<int32_t>& other,
                            const char* other_name) {
    if (static_cast<size_t>(node) < other.size() && other[node] != mine[node]) {
      fail_at(p, std::string("problem.nodes.") + array + "[" + std::to_string(node) + "]",
              "expected " + std::to_string(other[node]) + " entries (as many as problem.nodes." +
                  other_name + "[" + std::to_string(node) + "]), found " +
                  std::to_string(mine[node]));
      return false;
    }
    return true;
  }

  int32_t intern_matrix() {
    uint64_t hash = 1469598103934665603ULL ^ scratch.size();
    for (Cost c : scratch) {
      hash ^= static_cast<uint64_t>(c);
      hash *= 1099511628211ULL;
      hash ^= hash >> 29;
    }
    auto range = matrix_index.equal_range(hash);
    for (auto it = range.first; it != range.second; ++it) {
      const int32_t id = it->second;
      const int64_t begin = matrix_begin[id];
      if (matrix_begin[id + 1] - begin != static_cast<int64_t>(scratch.size())) {
        continue;
      }
      bool same = true;
      for (size_t i = 0; i < scratch.size() && same; ++i) {
        same = matrix_pool[static_cast<size_t>(begin) + i] == scratch[i];
      }
      if (same) return id;
    }
    const int32_t id = static_cast<int32_t>(matrix_begin.size()) - 1;
    for (Cost c : scratch) matrix_pool.push_back(c);
    matrix_begin.push_back(static_cast<int64_t>(matrix_pool.size()));
    matrix_index.emplace(hash, id);
    return id;
  }

  // Pops the top frame at its closing bracket p and applies its meaning.
  bool close_frame(const char* p) {
    Frame& f = stack.back();
    switch (f.target) {
      case Target::kRoot:
      case Target::kProblem:
      case Target::kNodes:
      case Target::kEdges: {
        const ObjectSpec spec = object_spec(f.target);
        for (int i = 0; i < spec.count; ++i) {
          if ((spec.required >> i & 1) && !(f.seen >> i & 1)) {
            fail_at(p, path(false),
                    std::string("expected the key \"") + spec.keys[i].name + "\", found '}'");
            return false;
          }
        }
        break;
      }
      case Target::kInterval:
      case Target::kEdgePair: {
        if (f.count != 2) {
          fail_at(p, path(false),
                  std::string("expected 2 entries ") +
                      (f.target == Target::kInterval ? "[lo, hi]" : "[u, v]") + ", found " +
                      std::to_string(f.count));
          return false;
        }
        if (f.target == Target::kInterval) {
          if (pair[1] < pair[0]) {
            fail_at(p, path(false),
                    "expected lo <= hi, found [" + std::to_string(pair[0]) + ", " +
                        std::to_string(pair[1]) + "]");
            return false;
          }
          lo.push_back(pair[0]);
          hi.push_back(pair[1]);
        } else {
          edge_u.push_back(static_cast<int32_t>(pair[0]));
          edge_v.push_back(static_cast<int32_t>(pair[1]));
        }
        break;
      }
      case Target::kCostList:
      case Target::kUsageList: {
        const bool costs = f.target == Target::kCostList;
        const int64_t node = stack[stack.size() - 2].count;
        if (f.count == 0) {
          fail_at(p, path(false),
                  costs ? "expected at least one strategy cost, found ']'"
                        : "expected at least one strategy usage, found ']'");
          return false;
        }
        if (f.count > std::numeric_limits<int32_t>::max() / 2) {
          fail_at(p, path(false), "expected fewer strategies, found " + std::to_string(f.count));
          return false;
        }
        auto& mine = costs ? cost_counts : usage_counts;
        mine.push_back(static_cast<int32_t>(f.count));
        if (!check_strategy_count(p, node, costs ? "costs" : "usages", mine,
                                  costs ? usage_counts : cost_counts, costs ? "usages" : "costs")) {
          return false;
        }
        break;
      }
      case Target::kMatrix:
        edge_matrix.push_back(intern_matrix());
        scratch.clear();
        break;
      // Each complete array moves into its exact-size home right away, so
      // its blocks are free for the arrays that follow (this keeps the peak
      // near the final model's size, also in wasm where the heap never
      // shrinks).
      case Target::kIntervals:
        if (!check_node_count(p, "intervals", f.count)) return false;
        intervals_closed = f.count;
        lo.move_to(&model.interval_lo);
        hi.move_to(&model.interval_hi);
        break;
      case Target::kNodeCosts:
        if (!check_node_count(p, "costs", f.count)) return false;
        costs_closed = f.count;
        node_costs.move_to(&model.strategy_cost);
        break;
      case Target::kNodeUsages:
        if (!check_node_count(p, "usages", f.count)) return false;
        usages_closed = f.count;
        node_usages.move_to(&model.strategy_usage);
        break;
      case Target::kEdgeNodes:
        if (!check_edge_count(p, "nodes", f.count, matrices_closed, "costs")) return false;
        pairs_closed = f.count;
        edge_u.move_to(&model.edge_u);
        edge_v.move_to(&model.edge_v);
        break;
      case Target::kEdgeCosts:
        if (!check_edge_count(p, "costs", f.count, pairs_closed, "nodes")) return false;
        matrices_closed = f.count;
        std::unordered_multimap<uint64_t, int32_t>().swap(matrix_index);
        std::vector<Cost>().swap(scratch);
        edge_matrix.move_to(&model.edge_matrix);
        matrix_pool.move_to(&model.matrix_cost);
        break;
      default:
        break;
    }
    stack.pop_back();
    Frame& parent = stack.back();
    if (!parent.object && parent.target != Target::kDocument) ++parent.count;
    return true;
  }

  // ---------------------------------------------------------------- driver
  void run(bool final) {
    const char* p = buf.data() + pos;
    const char* end = buf.data() + len;
    if (base == 0 && pos == 0 && len > 0) {
      if (len >= 2 && static_cast<unsigned char>(p[0]) == 0x1f &&
          static_cast<unsigned char>(p[1]) == 0x8b) {
        fail_at(p, "", "expected JSON text, found gzip-compressed data (decompress it first)");
        return;
      }
      // UTF-16 and UTF-32 files, named instead of failing on their bytes.
      if (len < 4 && !final) return;
      const std::string foreign =
          utf8::foreign_encoding(std::string_view(p, std::min<size_t>(len, 4)));
      if (!foreign.empty()) {
        fail_at(p, "", "expected UTF-8 JSON text, found " + foreign + ": save the file as UTF-8");
        return;
      }
      if (static_cast<unsigned char>(p[0]) == 0xEF) {
        if (len < 3 && !final) return;
        if (len >= 3 && static_cast<unsigned char>(p[1]) == 0xBB &&
            static_cast<unsigned char>(p[2]) == 0xBF) {
          p += 3;
        }
      }
    }
    for (;;) {
      Frame& f = stack.back();
      if (is_int_list(f.target)) {
        // On kNeedMore p rests at the start of the unfinished number.
        if (run_int_list(p, final) == Scan::kOk) continue;
        break;
      }
      while (is_space(*p)) ++p;
      if (!final && end - p < kLookahead) break;  // see kLookahead
      if (p == end) {
        if (final && f.phase != Phase::kDone) fail_unexpected_end(p);
        break;
      }
      const char* token = p;
      Scan scan = step(f, p, final);
      if (scan == Scan::kNeedMore) {
        p = token;
        break;
      }
      if (scan == Scan::kError) break;
    }
    pos = static_cast<size_t>(p - buf.data());
  }

  void fail_unexpected_end(const char* p) {
    const Frame& f = stack.back();
    std::string expected;
    switch (f.phase) {
      case Phase::kKeyOrEnd:
        expected = "a key or '}'";
        break;
      case Phase::kKey:
        expected = "a key";
        break;
      case Phase::kColon:
        expected = "':'";
        break;
      case Phase::kValueOrEnd:
        expected = std::string(child_description(f)) + " or ']'";
        break;
      case Phase::kCommaOrEnd:
        expected = f.object ? "',' or '}'" : "',' or ']'";
        break;
      default:
        expected = child_description(f);
        break;
    }
    fail_at(p, path(true), "expected " + expected + ", found end of input (the file is truncated)");
  }

  // The target of the next member or element of frame f.
  Target child_of(const Frame& f) const {
    if (f.target == Target::kDocument) return Target::kRoot;
    if (f.object) {
      return f.key_index >= 0 ? object_spec(f.target).keys[f.key_index].child : Target::kSkip;
    }
    return element_target(f.target);
  }

  const char* child_description(const Frame& f) const {
    if (stack.size() == 1) return expected_value(Target::kDocument);
    if (is_int_list(f.target)) return "an integer";
    return expected_value(child_of(f));
  }

  // One token at p (not whitespace, not end) in frame f.
  Scan step(Frame& f, const char*& p, bool final) {
    const char c = *p;
    const bool object = f.object;
    switch (f.phase) {
      case Phase::kDone:
        fail_at(p, "", "expected end of input after the top-level object, found " + describe(p));
        return Scan::kError;
      case Phase::kKeyOrEnd:
        if (c == '}') {
          ++p;
          return close_frame(p - 1) ? Scan::kOk : Scan::kError;
        }
        [[fallthrough]];
      case Phase::kKey: {
        if (c != '"') {
          fail_expected(p, f.phase == Phase::kKeyOrEnd ? "a key string or '}'" : "a key string",
                        false);
          return Scan::kError;
        }
        std::string key;
        const char* start = p;
        const Scan scan = scan_string(p, final, &key);
        if (scan != Scan::kOk) return scan;
        f.key_index = -1;
        const ObjectSpec spec = object_spec(f.target);
        for (int i = 0; i < spec.count; ++i) {
          if (key == spec.keys[i].name) f.key_index = static_cast<int8_t>(i);
        }
        if (f.key_index >= 0) {
          if (f.seen >> f.key_index & 1) {
            f.key = key;
            fail_at(start, path(false),
                    "expected each key once, found \"" + key + "\" a second time");
            return Scan::kError;
          }
          f.seen |= 1u << f.key_index;
        }
        f.key = key.empty() ? std::string("\"\"") : key;
        f.phase = Phase::kColon;
        return Scan::kOk;
      }
      case Phase::kColon:
        if (c != ':') {
          fail_expected(p, "':'", false);
          return Scan::kError;
        }
        ++p;
        f.phase = Phase::kValue;
        return Scan::kOk;
      case Phase::kValueOrEnd:
        if (c == ']') {
          ++p;
          return close_frame(p - 1) ? Scan::kOk : Scan::kError;
        }
        [[fallthrough]];
      case Phase::kValue: {
        const Target child = child_of(f);
        const size_t depth = stack.size();
        const Scan scan = begin_value(child, p, final);
        if (scan != Scan::kOk) return scan;
        Frame& parent = stack[depth - 1];
        parent.phase = parent.target == Target::kDocument ? Phase::kDone : Phase::kCommaOrEnd;
        if (stack.size() == depth && !object && parent.target != Target::kDocument) {
          ++parent.count;  // a scalar element completed in place
        }
        return Scan::kOk;
      }
      case Phase::kCommaOrEnd:
        if (c == ',') {
          ++p;
          f.phase = object ? Phase::kKey : Phase::kValue;
          return Scan::kOk;
        }
        if (c == (object ? '}' : ']')) {
          ++p;
          return close_frame(p - 1) ? Scan::kOk : Scan::kError;
        }
        fail_expected(p, object ? "',' or '}'" : "',' or ']'", false);
        return Scan::kError;
    }
    return Scan::kError;
  }

  // ---------------------------------------------------------------- input
  Status feed(const char* data, size_t size) {
    if (!status.is_ok()) return status;
    if (finished) return Status(StatusCode::kInternal, "feed() after finish()");
    if (fed + static_cast<int64_t>(size) > kMaxInstanceBytes) {
      fail_at(buf.data() + len, path(true),
              "expected an instance of at most " + std::to_string(kMaxInstanceBytes) +
                  " bytes of JSON (1 GiB), found more");
      return status;
    }
    fed += static_cast<int64_t>(size);
    // Drop the parsed prefix, keep the unfinished token, append the chunk.
    count_lines_to(base + static_cast<int64_t>(pos));
    const size_t keep = len - pos;
    std::memmove(buf.data(), buf.data() + pos, keep);
    base += static_cast<int64_t>(pos);
    pos = 0;
    len = keep;
    if (buf.size() < keep + size + 1) buf.resize(keep + size + 1);
    std::memcpy(buf.data() + keep, data, size);
    len = keep + size;
    buf[len] = '\0';
    run(false);
    if (status.is_ok() && len - pos > (size_t{64} << 20)) {
      const char* p = buf.data() + pos;
      fail_at(p, path(true), "expected a token shorter than 64 MiB, found " + describe(p));
    }
    return status;
  }

  Result<Problem> finish() {
    if (!status.is_ok()) return status;
    if (finished) return Status(StatusCode::kInternal, "finish() called twice");
    finished = true;
    if (fed == 0) {
      fail_at(buf.data(), "",
              std::string("expected ") + expected_value(Target::kDocument) +
                  ", found end of input (the file is empty)");
      return status;
    }
    run(true);
    if (!status.is_ok()) return status;
    return build();
  }

  Result<Problem> build() {
    const int64_t n = static_cast<int64_t>(model.interval_lo.size());
    if (n == 0) {
      return Status(StatusCode::kInvalidInput,
                    source + ": at problem.nodes: expected at least one node, found none");
    }
    // Edge checks deferred until every node's strategy count is known.
    for (size_t e = 0; e < model.edge_u.size(); ++e) {
      const int64_t u = model.edge_u[e];
      const int64_t v = model.edge_v[e];
      const std::string where = "problem.edges.nodes[" + std::to_string(e) + "]";
      const std::string found = "[" + std::to_string(u) + ", " + std::to_string(v) + "]";
      if (u >= n || v >= n) {
        fail_pos(pair_pos[e], where,
                 "expected node indices below " + std::to_string(n) + ", found " + found);
        return status;
      }
      if (u == v) {
        fail_pos(pair_pos[e], where, "expected two different nodes, found " + found);
        return status;
      }
      const int32_t m = model.edge_matrix[e];
      const int64_t size = matrix_begin[m + 1] - matrix_begin[m];
      const int64_t want = static_cast<int64_t>(cost_counts[u]) * cost_counts[v];
      if (size != want) {
        fail_pos(matrix_pos[e], "problem.edges.costs[" + std::to_string(e) + "]",
                 "expected " + std::to_string(want) + " entries (" +
                     std::to_string(cost_counts[u]) +
                     (cost_counts[u] == 1 ? " strategy" : " strategies") + " of node " +
                     std::to_string(u) + " x " + std::to_string(cost_counts[v]) + " of node " +
                     std::to_string(v) + "), found " + std::to_string(size));
        return status;
      }
    }
    Problem problem = std::move(model);
    problem.name = name;
    problem.has_usage_limit = has_limit;
    problem.usage_limit = limit;
    problem.strategy_begin.reserve(static_cast<size_t>(n) + 1);
    problem.strategy_begin.push_back(0);
    for (size_t v = 0; v < cost_counts.size(); ++v) {
      problem.strategy_begin.push_back(problem.strategy_begin.back() + cost_counts[v]);
    }
    pair_pos.clear();
    matrix_pos.clear();
    cost_counts.clear();
    usage_counts.clear();
    problem.matrix_begin = std::move(matrix_begin);
    std::vector<char>().swap(buf);
    const Status check = problem.finalize();
    if (!check.is_ok()) {
      return Status(check.code(), source + ": " + check.message());
    }
    return problem;
  }
};

InstanceReader::InstanceReader(std::string source_name)
    : impl_(std::make_unique<Impl>(std::move(source_name))) {}
InstanceReader::~InstanceReader() = default;

Status InstanceReader::feed(const void* data, size_t size) {
  return impl_->feed(static_cast<const char*>(data), size);
}

Result<Problem> InstanceReader::finish() { return impl_->finish(); }

int64_t InstanceReader::bytes_fed() const { return impl_->fed; }

Result<Problem> read_instance_bytes(const std::string& source_name, const void* data, size_t size) {
  InstanceReader reader(source_name);
  Status status = reader.feed(data, size);
  if (!status.is_ok()) return status;
  return reader.finish();
}

}  // namespace shardlab
