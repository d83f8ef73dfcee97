// The JSON document reader behind core/json_doc.h: a recursive-descent parser
// (RFC 8259, nothing more lenient) run twice over the text. The first pass
// checks everything (syntax, UTF-8, limits, duplicate keys), keeping the
// JSON path of the value being read so that each error names where it is,
// and counts every container's children; the second fills one array of
// 20-byte nodes, sized exactly, in which each container's children sit side
// by side (an object's as key, value pairs), so items are found by index.
#include "core/json_doc.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unordered_set>

#include "core/utf8.h"

namespace shardlab::json {

// Levenshtein distance (edit_distance in json_doc.h).
size_t edit_distance(std::string_view a, std::string_view b) {
  if (a.size() > 64 || b.size() > 64) return a == b ? 0 : 64;
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

struct Document::Data {
  struct Node {
    uint32_t offset = 0;      // first byte
    uint32_t end_offset = 0;  // last byte
    uint32_t a = 0;           // container: first child; string: first byte (text or arena)
    uint32_t b = 0;           // container: items or members; string: length
    uint8_t kind = 0;         // Kind
    uint8_t flags = 0;        // kTrue, kIntegral, kInArena
  };
  // Numbers keep their value in (a, b): an int64 when integral, else a double.
  static constexpr uint8_t kTrue = 1, kIntegral = 2, kInArena = 4;

  std::string source;
  std::string text;   // the document; strings without escapes point into it
  std::string arena;  // the unescaped strings that had escapes
  std::vector<uint32_t> line_starts;
  std::vector<Node> nodes;  // nodes[0] is the root

  std::string_view string_at(const Node& n) const {
    return std::string_view(n.flags & kInArena ? arena : text).substr(n.a, n.b);
  }
  static int64_t integer_at(const Node& n) {
    const uint64_t bits = (uint64_t{n.b} << 32) | n.a;
    return static_cast<int64_t>(bits);
  }
  static double number_at(const Node& n) {
    if (n.flags & kIntegral) return static_cast<double>(integer_at(n));
    const uint64_t bits = (uint64_t{n.b} << 32) | n.a;
    double value = 0;
    std::memcpy(&value, &bits, sizeof value);
    return value;
  }
};

namespace {

using Node = Document::Data::Node;
using Data = Document::Data;

using utf8::hex_byte;

// "FILE:LINE:COL (byte B)"; line_starts holds the offset of every line's start.
std::string locate(const Data& data, int64_t offset) {
  const auto& starts = data.line_starts;
  const auto line = std::upper_bound(starts.begin(), starts.end(), static_cast<uint64_t>(offset));
  const int64_t index = std::max<int64_t>(1, line - starts.begin());
  const int64_t column = std::max<int64_t>(1, offset - starts[index - 1] + 1);
  return data.source + ":" + std::to_string(index) + ":" + std::to_string(column) + " (byte " +
         std::to_string(offset) + ")";
}

Status located_error(const std::string& where, const std::string& path, const std::string& expected,
                     const std::string& found) {
  std::string message = where + ": ";
  if (!path.empty()) message += "at " + path + ": ";
  message += "expected " + expected + ", found " + found;
  return Status(StatusCode::kInvalidInput, message);
}

// Whole numbers below 10^15 in plain digits; others in the shortest text that
// reads back as the same double: a range's bound of 1e-6 prints as "1e-06",
// not as the "9.9999999999999995e-07" that %.17g gives.
std::string number_text(double value) {
  char buffer[40];
  if (std::fabs(value) < 1e15 && value == std::trunc(value)) {
    std::snprintf(buffer, sizeof buffer, "%.0f", value);
    return buffer;
  }
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(buffer, sizeof buffer, "%.*g", digits, value);
    if (std::strtod(buffer, nullptr) == value) break;
  }
  return buffer;
}

// The keys of one open object, for the duplicate check: a short list, then
// a hash set once the object grows (a linear scan per key would make an
// object of a million keys quadratic).
class KeySet {
 public:
  void clear() {
    small_.clear();
    big_.clear();
  }
  bool insert(const std::string& key) {
    if (big_.empty()) {
      if (std::find(small_.begin(), small_.end(), key) != small_.end()) return false;
      small_.push_back(key);
      if (small_.size() > 16) {
        big_.insert(small_.begin(), small_.end());
        small_.clear();
      }
      return true;
    }
    return big_.insert(key).second;
  }

 private:
  std::vector<std::string> small_;
  std::unordered_set<std::string> big_;
};

class Parser {
 public:
  Parser(Data* data, const Limits& limits) : d_(*data), text_(data->text), limits_(limits) {}

  // Pass 1: everything checked, children counted.
  Status check(size_t start) {
    build_ = false;
    at_ = start;
    skip_space();
    Status status = value(0, 0);
    if (!status.is_ok()) return status;
    skip_space();
    if (at_ < text_.size()) {
      return fail(at_, "end of input after the top-level value", found_here());
    }
    return Status::ok();
  }

  // Pass 2: the tree, into arrays of the sizes pass 1 counted.
  Status build(size_t start) {
    build_ = true;
    at_ = start;
    d_.nodes.resize(node_count_);
    d_.arena.reserve(arena_bytes_);
    next_node_ = 1;
    next_container_ = 0;
    skip_space();
    Status status = value(0, 0);
    if (!status.is_ok() || next_node_ != node_count_ || next_container_ != counts_.size()) {
      return Status(StatusCode::kInternal, d_.source + ": the JSON reader's passes disagree");
    }
    return Status::ok();
  }

 private:
  struct Segment {
    int64_t index = -1;  // an array item, or -1 for an object member
    std::string key;
  };

  std::string path() const {
    std::string out;
    for (const Segment& s : path_) {
      if (s.index >= 0) {
        out += "[" + std::to_string(s.index) + "]";
      } else {
        const std::string key = quote(s.key, 40);
        out += (out.empty() ? "" : ".") + key.substr(1, key.size() - 2);
      }
    }
    return out;
  }

  Status fail(size_t offset, const std::string& expected, const std::string& found) const {
    return located_error(locate(d_, static_cast<int64_t>(offset)), path(), expected, found);
  }

  // What stands at the cursor, for "found ...": a token, a character or the end.
  std::string found_here() const {
    if (at_ >= text_.size()) {
      return text_.empty() ? "end of input (the file is empty)"
                           : "end of input (the file is truncated)";
    }
    const unsigned char c = static_cast<unsigned char>(text_[at_]);
    if (c >= 0x80) return utf8::describe_char(text_, at_);
    if (c < 0x20 || c == 0x7f) return "the byte " + hex_byte(c);
    size_t end = at_;
    while (end < text_.size() && end - at_ < 20 &&
           (std::isalnum(static_cast<unsigned char>(text_[end])) || text_[end] == '_' ||
            text_[end] == '-' || text_[end] == '+' || text_[end] == '.')) {
      ++end;
    }
    if (end == at_) end = at_ + 1;
    return "'" + std::string(text_.substr(at_, end - at_)) + "'";
  }

  void skip_space() {
    while (at_ < text_.size() &&
           (text_[at_] == ' ' || text_[at_] == '\t' || text_[at_] == '\n' || text_[at_] == '\r')) {
      ++at_;
    }
  }

  bool literal(std::string_view word) {
    if (text_.substr(at_, word.size()) != word) return false;
    const size_t next = at_ + word.size();
    if (next < text_.size() && std::isalnum(static_cast<unsigned char>(text_[next]))) return false;
    at_ = next;
    return true;
  }

  Status value(uint32_t slot, int depth) {
    if (!build_) ++node_count_;
    Node* out = build_ ? &d_.nodes[slot] : nullptr;
    if (out) out->offset = static_cast<uint32_t>(at_);
    if (at_ >= text_.size()) return fail(at_, "a value", found_here());
    const char c = text_[at_];
    if (c == '{' || c == '[') {
      if (depth >= limits_.max_depth) {
        return fail(at_, "at most " + std::to_string(limits_.max_depth) + " levels of nesting",
                    "a deeper value");
      }
      return c == '{' ? object(slot, depth) : array(slot, depth);
    }
    if (c == '"') {
      size_t begin = 0, end = 0;
      bool escaped = false;
      Status status = scan_string(&begin, &end, &escaped);
      if (!status.is_ok()) return status;
      if (!out) {
        if (escaped) arena_bytes_ += end - begin;
        return status;
      }
      out->kind = static_cast<uint8_t>(Kind::kString);
      set_string(out, begin, end, escaped);
      out->end_offset = static_cast<uint32_t>(at_ - 1);
      return Status::ok();
    }
    if (c == '-' || (c >= '0' && c <= '9')) return number(out);
    Kind kind = Kind::kNull;
    bool truth = false;
    if (literal("true")) {
      kind = Kind::kBool;
      truth = true;
    } else if (literal("false")) {
      kind = Kind::kBool;
    } else if (!literal("null")) {
      return fail(at_, "a value", found_here());
    }
    if (out) {
      out->kind = static_cast<uint8_t>(kind);
      out->flags = truth ? Data::kTrue : 0;
      out->end_offset = static_cast<uint32_t>(at_ - 1);
    }
    return Status::ok();
  }

  // The children's block: pass 1 counts, pass 2 takes the block it counted.
  uint32_t open_container(uint32_t* count) {
    if (!build_) {
      counts_.push_back(0);
      return static_cast<uint32_t>(counts_.size() - 1);
    }
    *count = counts_[next_container_++];
    return 0;
  }

  Status too_many(const char* what) const {
    return fail(at_, "at most " + std::to_string(limits_.max_items) + " " + what, "more");
  }

  Status object(uint32_t slot, int depth) {
    uint32_t members = 0;
    const uint32_t ordinal = open_container(&members);
    uint32_t first = 0;
    if (build_) {
      first = static_cast<uint32_t>(next_node_);
      next_node_ += 2 * size_t{members};
      Node& n = d_.nodes[slot];
      n.kind = static_cast<uint8_t>(Kind::kObject);
      n.a = first;
      n.b = members;
    } else {
      if (keys_.size() <= static_cast<size_t>(depth)) keys_.resize(depth + 1);
      keys_[depth].clear();
    }
    ++at_;
    skip_space();
    uint32_t count = 0;
    if (at_ < text_.size() && text_[at_] == '}') return close(slot, ordinal, count);
    while (true) {
      skip_space();
      if (at_ >= text_.size() || text_[at_] != '"') {
        return fail(at_, count == 0 ? "a key string or '}'" : "a key string", found_here());
      }
      if (!build_ && count >= limits_.max_items) return too_many("members in an object");
      const size_t key_at = at_;
      size_t begin = 0, end = 0;
      bool escaped = false;
      Status status = scan_string(&begin, &end, &escaped);
      if (!status.is_ok()) return status;
      std::string key;
      if (build_) {
        Node& k = d_.nodes[first + 2 * count];
        k.kind = static_cast<uint8_t>(Kind::kString);
        k.offset = static_cast<uint32_t>(key_at);
        k.end_offset = static_cast<uint32_t>(at_ - 1);
        set_string(&k, begin, end, escaped);
      } else {
        ++node_count_;
        if (escaped) arena_bytes_ += end - begin;
        key = unescaped(begin, end, escaped);
        if (!keys_[depth].insert(key)) {
          return fail(key_at, "each key once", quote(key) + " a second time");
        }
      }
      skip_space();
      if (at_ >= text_.size() || text_[at_] != ':') {
        return fail(at_, "':' after the key " + quote(build_ ? std::string() : key), found_here());
      }
      ++at_;
      skip_space();
      if (!build_) path_.push_back({-1, std::move(key)});
      status = value(first + 2 * count + 1, depth + 1);
      if (!status.is_ok()) return status;
      if (!build_) path_.pop_back();
      ++count;
      skip_space();
      if (at_ < text_.size() && text_[at_] == ',') {
        ++at_;
        continue;
      }
      if (at_ < text_.size() && text_[at_] == '}') return close(slot, ordinal, count);
      return fail(at_, "',' or '}'", found_here());
    }
  }

  Status array(uint32_t slot, int depth) {
    uint32_t items = 0;
    const uint32_t ordinal = open_container(&items);
    uint32_t first = 0;
    if (build_) {
      first = static_cast<uint32_t>(next_node_);
      next_node_ += items;
      Node& n = d_.nodes[slot];
      n.kind = static_cast<uint8_t>(Kind::kArray);
      n.a = first;
      n.b = items;
    }
    ++at_;
    skip_space();
    uint32_t count = 0;
    if (at_ < text_.size() && text_[at_] == ']') return close(slot, ordinal, count);
    if (!build_) path_.push_back({0, {}});
    while (true) {
      skip_space();
      if (!build_) {
        if (count >= limits_.max_items) {
          path_.pop_back();
          return too_many("items in an array");
        }
        path_.back().index = count;
      }
      Status status = value(first + count, depth + 1);
      if (!status.is_ok()) return status;
      ++count;
      skip_space();
      if (at_ < text_.size() && text_[at_] == ',') {
        ++at_;
        continue;
      }
      if (!build_) path_.pop_back();
      if (at_ < text_.size() && text_[at_] == ']') return close(slot, ordinal, count);
      return fail(at_, "',' or ']'", found_here());
    }
  }

  Status close(uint32_t slot, uint32_t ordinal, uint32_t count) {
    if (build_) {
      d_.nodes[slot].end_offset = static_cast<uint32_t>(at_);
    } else {
      counts_[ordinal] = count;
    }
    ++at_;
    return Status::ok();
  }

  void set_string(Node* n, size_t begin, size_t end, bool escaped) {
    if (!escaped) {
      n->a = static_cast<uint32_t>(begin);
      n->b = static_cast<uint32_t>(end - begin);
      return;
    }
    const size_t from = d_.arena.size();
    unescape(text_.substr(begin, end - begin), &d_.arena);
    n->flags = Data::kInArena;
    n->a = static_cast<uint32_t>(from);
    n->b = static_cast<uint32_t>(d_.arena.size() - from);
  }

  std::string unescaped(size_t begin, size_t end, bool escaped) const {
    if (!escaped) return std::string(text_.substr(begin, end - begin));
    std::string out;
    unescape(text_.substr(begin, end - begin), &out);
    return out;
  }

  static void append_utf8(std::string* out, uint32_t code) {
    if (code < 0x80) {
      out->push_back(static_cast<char>(code));
    } else if (code < 0x800) {
      out->push_back(static_cast<char>(0xc0 | (code >> 6)));
      out->push_back(static_cast<char>(0x80 | (code & 0x3f)));
    } else if (code < 0x10000) {
      out->push_back(static_cast<char>(0xe0 | (code >> 12)));
      out->push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3f)));
      out->push_back(static_cast<char>(0x80 | (code & 0x3f)));
    } else {
      out->push_back(static_cast<char>(0xf0 | (code >> 18)));
      out->push_back(static_cast<char>(0x80 | ((code >> 12) & 0x3f)));
      out->push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3f)));
      out->push_back(static_cast<char>(0x80 | (code & 0x3f)));
    }
  }

  static bool hex4(std::string_view text, size_t at, uint32_t* code) {
    if (at + 4 > text.size()) return false;
    uint32_t value = 0;
    for (int i = 0; i < 4; ++i) {
      const char c = text[at + i];
      value <<= 4;
      if (c >= '0' && c <= '9') {
        value |= c - '0';
      } else if (c >= 'a' && c <= 'f') {
        value |= c - 'a' + 10;
      } else if (c >= 'A' && c <= 'F') {
        value |= c - 'A' + 10;
      } else {
        return false;
      }
    }
    *code = value;
    return true;
  }

  // The content of a string that scan_string() accepted, escapes resolved.
  static void unescape(std::string_view raw, std::string* out) {
    for (size_t i = 0; i < raw.size(); ++i) {
      if (raw[i] != '\\') {
        out->push_back(raw[i]);
        continue;
      }
      const char e = raw[++i];
      static constexpr std::string_view kFrom = "\"\\/bfnrt", kTo = "\"\\/\b\f\n\r\t";
      if (e != 'u') {
        out->push_back(kTo[kFrom.find(e)]);
        continue;
      }
      uint32_t code = 0;
      hex4(raw, i + 1, &code);
      i += 4;
      if (code >= 0xd800 && code < 0xdc00) {
        uint32_t low = 0;
        hex4(raw, i + 3, &low);
        i += 6;
        code = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
      }
      append_utf8(out, code);
    }
  }

  // Checks a string from its opening quote to its closing one (left behind
  // the cursor): UTF-8, no raw control characters, valid escapes and
  // surrogate pairs. [*begin, *end) is its raw content.
  Status scan_string(size_t* begin, size_t* end, bool* escaped) {
    ++at_;  // the opening quote
    *begin = at_;
    while (true) {
      if (at_ >= text_.size()) return fail(at_, "'\"' to end the string", found_here());
      const unsigned char c = static_cast<unsigned char>(text_[at_]);
      if (c == '"') {
        *end = at_++;
        return Status::ok();
      }
      if (c < 0x20) {
        const char* what = c == '\t'   ? " (a raw tab: write \\t)"
                           : c == '\n' ? " (a line break inside a string: write \\n)"
                           : c == '\r' ? " (a raw carriage return: write \\r)"
                                       : "";
        return fail(at_, "'\"' or a character of the string", "the byte " + hex_byte(c) + what);
      }
      if (c >= 0x80) {
        std::string why;
        const size_t length = utf8::char_length(text_, at_, &why);
        if (length == 0) return fail(at_, "UTF-8 text (save the file as UTF-8)", why);
        at_ += length;
        continue;
      }
      if (c != '\\') {
        ++at_;
        continue;
      }
      *escaped = true;
      const size_t escape_at = at_;
      const char e = at_ + 1 < text_.size() ? text_[at_ + 1] : '\0';
      at_ += 2;
      if (e == 'u') {
        uint32_t code = 0;
        if (!hex4(text_, at_, &code)) return fail(escape_at, "four hex digits after \\u", "'\\u'");
        at_ += 4;
        if (code >= 0xdc00 && code < 0xe000) {
          return fail(
              escape_at, "a \\u escape of a character (a low surrogate follows a high one)",
              "the lone low surrogate '\\u" + std::string(text_.substr(escape_at + 2, 4)) + "'");
        }
        if (code >= 0xd800 && code < 0xdc00) {
          uint32_t low = 0;
          if (text_.substr(at_, 2) != "\\u" || !hex4(text_, at_ + 2, &low) || low < 0xdc00 ||
              low >= 0xe000) {
            return fail(
                escape_at, "a low surrogate after a high one",
                "a lone \\u escape '\\u" + std::string(text_.substr(escape_at + 2, 4)) + "'");
          }
          at_ += 6;
        }
        continue;
      }
      if (std::string_view("\"\\/bfnrt").find(e) == std::string_view::npos || e == '\0') {
        std::string shown = "'\\";
        if (e >= 0x20 && e < 0x7f) shown.push_back(e);
        return fail(escape_at, "an escape sequence", shown + "'");
      }
    }
  }

  Status number(Node* out) {
    const size_t start = at_;
    auto digits = [&] {
      const size_t from = at_;
      while (at_ < text_.size() && text_[at_] >= '0' && text_[at_] <= '9') ++at_;
      return at_ - from;
    };
    if (text_[at_] == '-') ++at_;
    const size_t int_start = at_;
    const size_t int_digits = digits();
    bool fraction = false;
    bool exponent = false;
    bool ok = int_digits > 0;
    if (ok && at_ < text_.size() && text_[at_] == '.') {
      ++at_;
      fraction = true;
      ok = digits() > 0;
    }
    if (ok && at_ < text_.size() && (text_[at_] == 'e' || text_[at_] == 'E')) {
      ++at_;
      exponent = true;
      if (at_ < text_.size() && (text_[at_] == '+' || text_[at_] == '-')) ++at_;
      ok = digits() > 0;
    }
    if (!ok) {
      at_ = start;
      return fail(start, "a number", found_here());
    }
    const std::string_view literal = text_.substr(start, at_ - start);
    const auto shown = [&] {
      const std::string quoted = quote(literal, 40);
      return "the number " + quoted.substr(1, quoted.size() - 2);
    };
    if (int_digits > 1 && text_[int_start] == '0') {
      return fail(start, "a number", shown() + " (JSON forbids leading zeros)");
    }
    int64_t integer = 0;
    bool integral = false;
    if (!fraction && !exponent) {
      const auto [end, error] =
          std::from_chars(literal.data(), literal.data() + literal.size(), integer);
      integral = error == std::errc() && end == literal.data() + literal.size();
    }
    double number = static_cast<double>(integer);
    if (!integral) {
      number = std::strtod(std::string(literal).c_str(), nullptr);
      if (!std::isfinite(number)) {
        return fail(start, "a number within the range of a double", shown());
      }
    }
    if (out) {
      out->kind = static_cast<uint8_t>(Kind::kNumber);
      out->end_offset = static_cast<uint32_t>(at_ - 1);
      uint64_t bits = 0;
      if (integral) {
        out->flags = Data::kIntegral;
        bits = static_cast<uint64_t>(integer);
      } else {
        std::memcpy(&bits, &number, sizeof bits);
      }
      out->a = static_cast<uint32_t>(bits);
      out->b = static_cast<uint32_t>(bits >> 32);
    }
    return Status::ok();
  }

  Data& d_;
  std::string_view text_;
  const Limits& limits_;
  bool build_ = false;
  size_t at_ = 0;
  // Pass 1's counts for pass 2.
  std::vector<uint32_t> counts_;  // children of each container, in the order they open
  size_t node_count_ = 0;
  size_t arena_bytes_ = 0;
  // Pass 1's state for errors and duplicate keys.
  std::vector<Segment> path_;
  std::vector<KeySet> keys_;  // per depth, the keys of the open object
  // Pass 2's cursors.
  size_t next_node_ = 0;
  size_t next_container_ = 0;
};

}  // namespace

std::string quote(std::string_view text, size_t limit) { return utf8::quote(text, limit); }

std::string describe(const Value& value) {
  switch (value.kind) {
    case Kind::kNull:
      return "null";
    case Kind::kBool:
      return value.boolean ? "true" : "false";
    case Kind::kNumber: {
      const std::string shown = quote(value.text, 40);
      return "the number " + shown.substr(1, shown.size() - 2);
    }
    case Kind::kString:
      return "the string " + quote(value.text);
    case Kind::kArray:
      return "an array of " + std::to_string(value.items) + (value.items == 1 ? " item" : " items");
    case Kind::kObject:
      return "an object";
  }
  return "a value";
}

Result<Document> Document::parse(std::string source, std::string_view text, const Limits& limits) {
  auto data = std::make_shared<Data>();
  data->source = std::move(source);
  data->line_starts.push_back(0);
  const auto early = [&](const std::string& expected, const std::string& found) {
    return located_error(data->source + ":1:1 (byte 0)", "", expected, found);
  };
  // Offsets are 32-bit inside the tree.
  const int64_t max_bytes = std::min<int64_t>(limits.max_bytes, int64_t{UINT32_MAX} - 1);
  if (static_cast<int64_t>(text.size()) > max_bytes) {
    return early("a document of at most " + std::to_string(max_bytes) + " bytes",
                 std::to_string(text.size()) + " bytes");
  }
  const std::string foreign = utf8::foreign_encoding(text);
  if (!foreign.empty()) return early("UTF-8 JSON text", foreign + ": save the file as UTF-8");
  size_t start = 0;
  if (utf8::has_bom(text)) {
    start = 3;  // a UTF-8 byte-order mark: allowed, and not a column of line 1
    data->line_starts[0] = 3;
  }
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n') data->line_starts.push_back(static_cast<uint32_t>(i + 1));
  }
  data->text.assign(text.data(), text.size());
  {
    Parser parser(data.get(), limits);
    Status status = parser.check(start);
    if (!status.is_ok()) return status;
    status = parser.build(start);
    if (!status.is_ok()) return status;
  }
  Document doc;
  doc.data_ = std::move(data);
  return doc;
}

const std::string& Document::source() const { return data_->source; }

JsonAt Document::root() const { return JsonAt(data_, 0, -1, "", 0); }

std::string Document::where(int64_t offset) const { return locate(*data_, offset); }

int64_t Document::memory_bytes() const {
  const Data& d = *data_;
  return static_cast<int64_t>(d.text.capacity() + d.arena.capacity() +
                              d.line_starts.capacity() * sizeof(uint32_t) +
                              d.nodes.capacity() * sizeof(Node) + sizeof(Data));
}

// ---- JsonAt ----------------------------------------------------------------

Kind JsonAt::kind() const {
  return node_ < 0 ? Kind::kNull : static_cast<Kind>(doc_->nodes[node_].kind);
}

Value JsonAt::value() const {
  Value v;
  if (node_ < 0) return v;
  const Node& n = doc_->nodes[node_];
  v.kind = static_cast<Kind>(n.kind);
  v.offset = n.offset;
  v.end_offset = n.end_offset;
  switch (v.kind) {
    case Kind::kArray:
    case Kind::kObject:
      v.items = n.b;
      break;
    case Kind::kBool:
      v.boolean = n.flags & Data::kTrue;
      break;
    case Kind::kNumber:
      v.integral = n.flags & Data::kIntegral;
      v.integer = v.integral ? Data::integer_at(n) : 0;
      v.number = Data::number_at(n);
      v.text = doc_->text.substr(n.offset, n.end_offset - n.offset + 1);
      break;
    case Kind::kString:
      v.text = std::string(doc_->string_at(n));
      break;
    case Kind::kNull:
      break;
  }
  return v;
}

namespace {

std::string describe_node(const Data& d, const Node& n) {
  switch (static_cast<Kind>(n.kind)) {
    case Kind::kArray:
      return "an array of " + std::to_string(n.b) + (n.b == 1 ? " item" : " items");
    case Kind::kObject:
      return "an object";
    case Kind::kNumber: {
      const std::string shown =
          quote(std::string_view(d.text).substr(n.offset, n.end_offset - n.offset + 1), 40);
      return "the number " + shown.substr(1, shown.size() - 2);
    }
    case Kind::kString:
      return "the string " + quote(d.string_at(n));
    case Kind::kBool:
      return n.flags & Data::kTrue ? "true" : "false";
    case Kind::kNull:
      return "null";
  }
  return "a value";
}

}  // namespace

int64_t JsonAt::offset() const {
  if (node_ >= 0) return doc_->nodes[node_].offset;
  if (parent_ < 0) return 0;
  const Node& p = doc_->nodes[parent_];
  const Kind kind = static_cast<Kind>(p.kind);
  return kind == Kind::kObject || kind == Kind::kArray ? p.end_offset : p.offset;
}

Status JsonAt::error(const std::string& expected, const std::string& found) const {
  return located_error(locate(*doc_, offset()), path_, expected, found);
}

Status JsonAt::error(const std::string& expected) const {
  if (node_ < 0) return missing();
  return error(expected, describe_node(*doc_, doc_->nodes[node_]));
}

// A missing member is reported where the nearest existing value ends (an
// object's '}'), with that value's path and the first key that is missing
// under it, as the instance reader does.
Status JsonAt::missing() const {
  const std::string parent_path = path_.substr(0, parent_path_size_);
  std::string segment = path_.substr(parent_path_size_);
  if (!segment.empty() && segment[0] == '.') segment.erase(0, 1);
  const bool index = !segment.empty() && segment[0] == '[';
  const size_t cut = index ? segment.find(']') + 1 : segment.find_first_of(".[");
  if (cut != std::string::npos && cut < segment.size()) segment.resize(cut);
  const std::string where = locate(*doc_, offset());
  if (parent_ < 0) return located_error(where, parent_path, "the key " + quote(segment), "nothing");
  const Node& p = doc_->nodes[parent_];
  const Kind kind = static_cast<Kind>(p.kind);
  if (index && kind == Kind::kArray) {
    return located_error(where, parent_path,
                         "an item " + segment + " (at least " +
                             std::to_string(std::stoll(segment.substr(1)) + 1) + " items)",
                         describe_node(*doc_, p));
  }
  if (kind == Kind::kObject) {
    return located_error(where, parent_path, "the key " + quote(segment), "'}'");
  }
  return located_error(
      where, parent_path,
      index ? "an array with an item " + segment : "an object with the key " + quote(segment),
      describe_node(*doc_, p));
}

JsonAt JsonAt::child(int32_t node, std::string path) const {
  if (node >= 0) return JsonAt(doc_, node, node_, std::move(path), path_.size());
  if (node_ >= 0) return JsonAt(doc_, -1, node_, std::move(path), path_.size());
  return JsonAt(doc_, -1, parent_, std::move(path), parent_path_size_);
}

JsonAt JsonAt::operator[](std::string_view key) const {
  std::string path = path_.empty() ? std::string(key) : path_ + "." + std::string(key);
  if (is(Kind::kObject)) {
    const Node& n = doc_->nodes[node_];
    for (uint32_t i = 0; i < n.b; ++i) {
      if (doc_->string_at(doc_->nodes[n.a + 2 * i]) == key) {
        return child(static_cast<int32_t>(n.a + 2 * i + 1), std::move(path));
      }
    }
  }
  return child(-1, std::move(path));
}

JsonAt JsonAt::operator[](size_t index) const {
  std::string path = path_ + "[" + std::to_string(index) + "]";
  if (is(Kind::kArray) && index < doc_->nodes[node_].b) {
    return child(static_cast<int32_t>(doc_->nodes[node_].a + index), std::move(path));
  }
  return child(-1, std::move(path));
}

std::string JsonAt::key(size_t index) const {
  if (!is(Kind::kObject) || index >= doc_->nodes[node_].b) return "";
  return std::string(doc_->string_at(doc_->nodes[doc_->nodes[node_].a + 2 * index]));
}

JsonAt JsonAt::member(size_t index) const {
  if (!is(Kind::kObject) || index >= doc_->nodes[node_].b) return child(-1, path_);
  const std::string k = key(index);
  return child(static_cast<int32_t>(doc_->nodes[node_].a + 2 * index + 1),
               path_.empty() ? k : path_ + "." + k);
}

bool JsonAt::has(std::string_view key) const { return (*this)[key].exists(); }

size_t JsonAt::size() const {
  if (is(Kind::kArray) || is(Kind::kObject)) return doc_->nodes[node_].b;
  return 0;
}

std::vector<std::string> JsonAt::keys() const {
  std::vector<std::string> out;
  for (size_t i = 0; is(Kind::kObject) && i < size(); ++i) out.push_back(key(i));
  return out;
}

Status JsonAt::expect(Kind kind) const {
  if (is(kind)) return Status::ok();
  static const char* const kNames[] = {"null",     "true or false", "a number",
                                       "a string", "an array",      "an object"};
  return error(kNames[static_cast<int>(kind)]);
}

Status JsonAt::expect_array(size_t max_items, const std::string& what) const {
  if (!is(Kind::kArray)) return error("an array of " + what);
  if (size() > max_items) {
    return error("at most " + std::to_string(max_items) + " " + what,
                 "an array of " + std::to_string(size()) + " items");
  }
  return Status::ok();
}

Result<int64_t> JsonAt::integer(int64_t min, int64_t max) const {
  const std::string range = " from " + std::to_string(min) + " to " + std::to_string(max);
  if (!is(Kind::kNumber)) return error("an integer");
  const Node& n = doc_->nodes[node_];
  int64_t value = 0;
  const double number = Data::number_at(n);
  if (n.flags & Data::kIntegral) {
    value = Data::integer_at(n);
  } else if (std::floor(number) == number && std::fabs(number) < 9007199254740992.0) {
    value = static_cast<int64_t>(number);
  } else {
    return error("an integer" + range);
  }
  if (value < min || value > max) return error("an integer" + range);
  return value;
}

Result<double> JsonAt::number(double min, double max) const {
  if (!is(Kind::kNumber)) return error("a number");
  const double value = Data::number_at(doc_->nodes[node_]);
  if (value < min || value > max) {
    return error("a number from " + number_text(min) + " to " + number_text(max));
  }
  return value;
}

Result<std::string> JsonAt::string() const {
  if (!is(Kind::kString)) return error("a string");
  return std::string(doc_->string_at(doc_->nodes[node_]));
}

Result<bool> JsonAt::boolean() const {
  if (!is(Kind::kBool)) return error("true or false");
  return static_cast<bool>(doc_->nodes[node_].flags & Data::kTrue);
}

Status JsonAt::only_keys(std::initializer_list<std::string_view> allowed) const {
  return only_keys(std::vector<std::string_view>(allowed));
}

Status JsonAt::only_keys(const std::vector<std::string_view>& allowed) const {
  Status status = expect(Kind::kObject);
  if (!status.is_ok()) return status;
  const Node& n = doc_->nodes[node_];
  for (uint32_t i = 0; i < n.b; ++i) {
    const Node& key_node = doc_->nodes[n.a + 2 * i];
    const std::string_view key = doc_->string_at(key_node);
    if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
    std::string list;
    std::string_view closest;
    size_t best = 3;  // suggest only keys within two edits
    for (std::string_view name : allowed) {
      list += (list.empty() ? "" : ", ") + std::string(name);
      const size_t d = edit_distance(key, name);
      if (d < best) {
        best = d;
        closest = name;
      }
    }
    std::string found = "the key " + quote(key);
    if (!closest.empty()) found += " (did you mean \"" + std::string(closest) + "\"?)";
    return located_error(locate(*doc_, key_node.offset), path_, "one of the keys " + list, found);
  }
  return Status::ok();
}

Result<int64_t> JsonAt::integer_or(std::string_view key, int64_t fallback, int64_t min,
                                   int64_t max) const {
  const JsonAt at = (*this)[key];
  return at.exists() ? at.integer(min, max) : Result<int64_t>(fallback);
}

Result<double> JsonAt::number_or(std::string_view key, double fallback, double min,
                                 double max) const {
  const JsonAt at = (*this)[key];
  return at.exists() ? at.number(min, max) : Result<double>(fallback);
}

Result<std::string> JsonAt::string_or(std::string_view key, std::string fallback) const {
  const JsonAt at = (*this)[key];
  return at.exists() ? at.string() : Result<std::string>(std::move(fallback));
}

Result<bool> JsonAt::boolean_or(std::string_view key, bool fallback) const {
  const JsonAt at = (*this)[key];
  return at.exists() ? at.boolean() : Result<bool>(fallback);
}

Result<int64_t> decimal_integer(const JsonAt& at) {
  const std::string expected = "a decimal integer such as \"445\"";
  if (at.is(Kind::kNumber)) {
    if (!at.value().integral) return at.error(expected);
    return at.value().integer;
  }
  if (!at.is(Kind::kString)) return at.error(expected);
  const std::string& text = at.value().text;
  const bool negative = text.size() > 1 && text[0] == '-';
  size_t i = negative ? 1 : 0;
  if (i == text.size() || text.size() - i > 19) return at.error(expected);
  __int128 value = 0;
  for (; i < text.size(); ++i) {
    if (text[i] < '0' || text[i] > '9') return at.error(expected);
    value = value * 10 + (text[i] - '0');
  }
  if (negative) value = -value;
  if (value > std::numeric_limits<int64_t>::max() || value < std::numeric_limits<int64_t>::min()) {
    return at.error(expected);
  }
  return static_cast<int64_t>(value);
}

}  // namespace shardlab::json
