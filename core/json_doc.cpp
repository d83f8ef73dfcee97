// The JSON document reader behind core/json_doc.h: a recursive-descent parser
// (RFC 8259, nothing more lenient) that records offsets and keeps the JSON
// path of the value being read, so each syntax error names where it is.
#include "core/json_doc.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>

namespace shardlab::json {
namespace {

std::string quote(std::string_view text, size_t limit = 40) {
  std::string out = "\"";
  out.append(text.substr(0, limit));
  if (text.size() > limit) out += "...";
  return out + "\"";
}

std::string number_text(double value) {
  char buffer[40];
  std::snprintf(buffer, sizeof buffer, "%.17g", value);
  return buffer;
}

// Levenshtein distance, for "did you mean" on unknown keys.
size_t edit_distance(std::string_view a, std::string_view b) {
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

// "FILE:LINE:COL (byte B)"; line_starts holds the offset of every line's start.
std::string locate(const std::string& source, const std::vector<int64_t>& line_starts,
                   int64_t offset) {
  const auto line = std::upper_bound(line_starts.begin(), line_starts.end(), offset);
  const int64_t line_index = line - line_starts.begin();
  return source + ":" + std::to_string(line_index) + ":" +
         std::to_string(offset - line_starts[line_index - 1] + 1) + " (byte " +
         std::to_string(offset) + ")";
}

Status located_error(const std::string& where, const std::string& path, const std::string& expected,
                     const std::string& found) {
  std::string message = where + ": ";
  if (!path.empty()) message += "at " + path + ": ";
  message += "expected " + expected + ", found " + found;
  return Status(StatusCode::kInvalidInput, message);
}

class Parser {
 public:
  Parser(const std::string& source, std::string_view text, const std::vector<int64_t>& lines)
      : source_(source), text_(text), lines_(lines) {}

  Status parse(Value* root) {
    skip_space();
    Status status = value(root, "", 0);
    if (!status.is_ok()) return status;
    skip_space();
    if (at_ < text_.size()) {
      return fail(at_, "", "end of input after the top-level value", found_here());
    }
    return Status::ok();
  }

 private:
  Status fail(size_t offset, const std::string& path, const std::string& expected,
              const std::string& found) const {
    return located_error(locate(source_, lines_, static_cast<int64_t>(offset)), path, expected,
                         found);
  }

  // What stands at the cursor, for "found ...": a token, a character or the end.
  std::string found_here() const {
    if (at_ >= text_.size()) {
      return text_.empty() ? "end of input (the file is empty)"
                           : "end of input (the file is truncated)";
    }
    size_t end = at_;
    while (end < text_.size() && end - at_ < 20 &&
           (std::isalnum(static_cast<unsigned char>(text_[end])) || text_[end] == '_' ||
            text_[end] == '-' || text_[end] == '+' || text_[end] == '.')) {
      ++end;
    }
    if (end == at_) end = at_ + 1;
    const unsigned char c = static_cast<unsigned char>(text_[at_]);
    if (c < 0x20) {
      char buffer[16];
      std::snprintf(buffer, sizeof buffer, "byte 0x%02x", c);
      return buffer;
    }
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

  Status value(Value* out, const std::string& path, int depth) {
    out->offset = static_cast<int64_t>(at_);
    if (at_ >= text_.size()) return fail(at_, path, "a value", found_here());
    const char c = text_[at_];
    if (c == '{' || c == '[') {
      if (depth >= Document::kMaxDepth) {
        return fail(at_, path,
                    "at most " + std::to_string(Document::kMaxDepth) + " levels of nesting",
                    "a deeper value");
      }
      return c == '{' ? object(out, path, depth) : array(out, path, depth);
    }
    if (c == '"') {
      out->kind = Kind::kString;
      return string(&out->text, path);
    }
    if (c == '-' || (c >= '0' && c <= '9')) return number(out, path);
    if (literal("true") || literal("false")) {
      out->kind = Kind::kBool;
      out->boolean = c == 't';
    } else if (literal("null")) {
      out->kind = Kind::kNull;
    } else {
      return fail(at_, path, "a value", found_here());
    }
    out->end_offset = static_cast<int64_t>(at_) - 1;
    return Status::ok();
  }

  Status object(Value* out, const std::string& path, int depth) {
    out->kind = Kind::kObject;
    ++at_;
    skip_space();
    if (at_ < text_.size() && text_[at_] == '}') {
      out->end_offset = static_cast<int64_t>(at_++);
      return Status::ok();
    }
    while (true) {
      skip_space();
      if (at_ >= text_.size() || text_[at_] != '"') {
        return fail(at_, path, out->members.empty() ? "a key string or '}'" : "a key string",
                    found_here());
      }
      const size_t key_at = at_;
      std::string key;
      Status status = string(&key, path);
      if (!status.is_ok()) return status;
      for (const auto& member : out->members) {
        if (member.first == key) {
          return fail(key_at, path, "each key once", quote(key) + " a second time");
        }
      }
      skip_space();
      if (at_ >= text_.size() || text_[at_] != ':') {
        return fail(at_, path, "':' after the key " + quote(key), found_here());
      }
      ++at_;
      skip_space();
      const std::string child = path.empty() ? key : path + "." + key;
      out->members.emplace_back(std::move(key), Value());
      out->key_offsets.push_back(static_cast<int64_t>(key_at));
      status = value(&out->members.back().second, child, depth + 1);
      if (!status.is_ok()) return status;
      skip_space();
      if (at_ < text_.size() && text_[at_] == ',') {
        ++at_;
        continue;
      }
      if (at_ < text_.size() && text_[at_] == '}') {
        out->end_offset = static_cast<int64_t>(at_++);
        return Status::ok();
      }
      return fail(at_, path, "',' or '}'", found_here());
    }
  }

  Status array(Value* out, const std::string& path, int depth) {
    out->kind = Kind::kArray;
    ++at_;
    skip_space();
    if (at_ < text_.size() && text_[at_] == ']') {
      out->end_offset = static_cast<int64_t>(at_++);
      return Status::ok();
    }
    while (true) {
      skip_space();
      const std::string child = path + "[" + std::to_string(out->items.size()) + "]";
      out->items.emplace_back();
      Status status = value(&out->items.back(), child, depth + 1);
      if (!status.is_ok()) return status;
      skip_space();
      if (at_ < text_.size() && text_[at_] == ',') {
        ++at_;
        continue;
      }
      if (at_ < text_.size() && text_[at_] == ']') {
        out->end_offset = static_cast<int64_t>(at_++);
        return Status::ok();
      }
      return fail(at_, path, "',' or ']'", found_here());
    }
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

  bool hex4(uint32_t* code) {
    if (at_ + 4 > text_.size()) return false;
    uint32_t value = 0;
    for (int i = 0; i < 4; ++i) {
      const char c = text_[at_ + i];
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
    at_ += 4;
    *code = value;
    return true;
  }

  Status string(std::string* out, const std::string& path) {
    ++at_;  // the opening quote
    while (true) {
      if (at_ >= text_.size()) return fail(at_, path, "'\"' to end the string", found_here());
      const char c = text_[at_];
      if (c == '"') {
        ++at_;
        return Status::ok();
      }
      if (static_cast<unsigned char>(c) < 0x20) {
        return fail(at_, path, "'\"' or a character of the string", found_here());
      }
      if (c != '\\') {
        out->push_back(c);
        ++at_;
        continue;
      }
      const size_t escape_at = at_;
      ++at_;
      const char e = at_ < text_.size() ? text_[at_] : '\0';
      ++at_;
      switch (e) {
        case '"':
          out->push_back('"');
          break;
        case '\\':
          out->push_back('\\');
          break;
        case '/':
          out->push_back('/');
          break;
        case 'b':
          out->push_back('\b');
          break;
        case 'f':
          out->push_back('\f');
          break;
        case 'n':
          out->push_back('\n');
          break;
        case 'r':
          out->push_back('\r');
          break;
        case 't':
          out->push_back('\t');
          break;
        case 'u': {
          uint32_t code = 0;
          if (!hex4(&code)) return fail(escape_at, path, "four hex digits after \\u", "'\\u'");
          if (code >= 0xd800 && code < 0xdc00) {
            uint32_t low = 0;
            if (text_.substr(at_, 2) != "\\u" || (at_ += 2, !hex4(&low)) || low < 0xdc00 ||
                low >= 0xe000) {
              return fail(escape_at, path, "a low surrogate after a high one", "a lone \\u escape");
            }
            code = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
          }
          append_utf8(out, code);
          break;
        }
        default:
          return fail(escape_at, path, "an escape sequence",
                      "'\\" + std::string(e ? 1 : 0, e) + "'");
      }
    }
  }

  Status number(Value* out, const std::string& path) {
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
      return fail(start, path, "a number", found_here());
    }
    out->kind = Kind::kNumber;
    out->text = std::string(text_.substr(start, at_ - start));
    out->end_offset = static_cast<int64_t>(at_) - 1;
    if (int_digits > 1 && text_[int_start] == '0') {
      return fail(start, path, "a number",
                  "the number " + out->text + " (JSON forbids leading zeros)");
    }
    out->number = std::strtod(out->text.c_str(), nullptr);
    if (!std::isfinite(out->number)) {
      return fail(start, path, "a number within the range of a double", "the number " + out->text);
    }
    if (!fraction && !exponent) {
      errno = 0;
      char* end = nullptr;
      const long long value = std::strtoll(out->text.c_str(), &end, 10);
      if (errno == 0) {
        out->integral = true;
        out->integer = value;
      }
    }
    return Status::ok();
  }

  const std::string& source_;
  std::string_view text_;
  const std::vector<int64_t>& lines_;
  size_t at_ = 0;
};

}  // namespace

std::string describe(const Value& value) {
  switch (value.kind) {
    case Kind::kNull:
      return "null";
    case Kind::kBool:
      return value.boolean ? "true" : "false";
    case Kind::kNumber:
      return "the number " + value.text;
    case Kind::kString:
      return "the string " + quote(value.text);
    case Kind::kArray:
      return "an array of " + std::to_string(value.items.size()) +
             (value.items.size() == 1 ? " item" : " items");
    case Kind::kObject:
      return "an object";
  }
  return "a value";
}

Result<Document> Document::parse(std::string source, std::string_view text) {
  auto data = std::make_shared<Data>();
  data->source = std::move(source);
  data->line_starts.push_back(0);
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n') data->line_starts.push_back(static_cast<int64_t>(i) + 1);
  }
  Parser parser(data->source, text, data->line_starts);
  Status status = parser.parse(&data->root);
  if (!status.is_ok()) return status;
  Document doc;
  doc.data_ = std::move(data);
  return doc;
}

JsonAt Document::root() const { return JsonAt(data_, &data_->root, nullptr, ""); }

std::string Document::where(int64_t offset) const {
  return locate(data_->source, data_->line_starts, offset);
}

int64_t JsonAt::offset() const {
  if (value_) return value_->offset;
  return parent_ ? parent_->end_offset : 0;
}

Status JsonAt::error(const std::string& expected, const std::string& found) const {
  return located_error(locate(doc_->source, doc_->line_starts, offset()), path_, expected, found);
}

Status JsonAt::error(const std::string& expected) const {
  if (!value_) return missing();
  return error(expected, describe(*value_));
}

// A missing member is reported at the end of the object that lacks it, with
// the parent's path, as the instance reader does.
Status JsonAt::missing() const {
  const size_t dot = path_.find_last_of('.');
  const std::string parent_path = dot == std::string::npos ? "" : path_.substr(0, dot);
  const std::string key = dot == std::string::npos ? path_ : path_.substr(dot + 1);
  const int64_t at = parent_ ? parent_->end_offset : 0;
  const std::string found = parent_ && parent_->kind == Kind::kObject
                                ? "'}'"
                                : (parent_ ? describe(*parent_) : "nothing");
  return located_error(locate(doc_->source, doc_->line_starts, at), parent_path,
                       "the key " + quote(key), found);
}

JsonAt JsonAt::operator[](std::string_view key) const {
  const std::string child = path_.empty() ? std::string(key) : path_ + "." + std::string(key);
  if (value_ && value_->kind == Kind::kObject) {
    for (const auto& member : value_->members) {
      if (member.first == key) return JsonAt(doc_, &member.second, value_, child);
    }
  }
  return JsonAt(doc_, nullptr, value_, child);
}

JsonAt JsonAt::operator[](size_t index) const {
  const std::string child = path_ + "[" + std::to_string(index) + "]";
  if (value_ && value_->kind == Kind::kArray && index < value_->items.size()) {
    return JsonAt(doc_, &value_->items[index], value_, child);
  }
  return JsonAt(doc_, nullptr, value_, child);
}

JsonAt JsonAt::member(size_t index) const {
  if (!value_ || value_->kind != Kind::kObject || index >= value_->members.size()) {
    return JsonAt(doc_, nullptr, value_, path_);
  }
  const auto& m = value_->members[index];
  return JsonAt(doc_, &m.second, value_, path_.empty() ? m.first : path_ + "." + m.first);
}

bool JsonAt::has(std::string_view key) const { return (*this)[key].exists(); }

size_t JsonAt::size() const {
  if (!value_) return 0;
  if (value_->kind == Kind::kArray) return value_->items.size();
  if (value_->kind == Kind::kObject) return value_->members.size();
  return 0;
}

std::vector<std::string> JsonAt::keys() const {
  std::vector<std::string> out;
  if (value_ && value_->kind == Kind::kObject) {
    for (const auto& member : value_->members) out.push_back(member.first);
  }
  return out;
}

Status JsonAt::expect(Kind kind) const {
  if (is(kind)) return Status::ok();
  static const char* const kNames[] = {"null",     "true or false", "a number",
                                       "a string", "an array",      "an object"};
  return error(kNames[static_cast<int>(kind)]);
}

Result<int64_t> JsonAt::integer(int64_t min, int64_t max) const {
  const std::string range = " from " + std::to_string(min) + " to " + std::to_string(max);
  if (!is(Kind::kNumber)) return error("an integer");
  int64_t value = 0;
  if (value_->integral) {
    value = value_->integer;
  } else if (std::floor(value_->number) == value_->number &&
             std::fabs(value_->number) < 9007199254740992.0) {
    value = static_cast<int64_t>(value_->number);
  } else {
    return error("an integer" + range);
  }
  if (value < min || value > max) return error("an integer" + range);
  return value;
}

Result<double> JsonAt::number(double min, double max) const {
  if (!is(Kind::kNumber)) return error("a number");
  if (value_->number < min || value_->number > max) {
    return error("a number from " + number_text(min) + " to " + number_text(max));
  }
  return value_->number;
}

Result<std::string> JsonAt::string() const {
  if (!is(Kind::kString)) return error("a string");
  return value_->text;
}

Result<bool> JsonAt::boolean() const {
  if (!is(Kind::kBool)) return error("true or false");
  return value_->boolean;
}

Status JsonAt::only_keys(std::initializer_list<std::string_view> allowed) const {
  return only_keys(std::vector<std::string_view>(allowed));
}

Status JsonAt::only_keys(const std::vector<std::string_view>& allowed) const {
  Status status = expect(Kind::kObject);
  if (!status.is_ok()) return status;
  for (size_t i = 0; i < value_->members.size(); ++i) {
    const std::string& key = value_->members[i].first;
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
    return located_error(locate(doc_->source, doc_->line_starts, value_->key_offsets[i]), path_,
                         "one of the keys " + list, found);
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
