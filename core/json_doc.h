// A small JSON document reader for the labs' input files (pipeline problems,
// schedules, teaching models, options): the whole text is parsed into a
// compact tree that keeps where every value starts, and a cursor (JsonAt)
// whose typed reads explain their failures in the house format, the same as
// the instance reader's:
//   "FILE:LINE:COL (byte B): at PATH: expected X, found Y"
// Contest instances have their own streaming reader (core/sharding/io.h).
//
// What parse() refuses, each at the offending byte with its JSON path: text
// that is not UTF-8 (a UTF-16 or UTF-32 file is named as such; a UTF-8
// byte-order mark is skipped), lone surrogate escapes, documents above
// Limits::max_bytes, containers above Limits::max_items, nesting deeper
// than Limits::max_depth, duplicate keys and everything RFC 8259 forbids.
// So every string a reader takes is valid UTF-8 and can be written back as
// JSON (nlohmann's dump throws on anything else).
//
// Memory: the tree takes 20 bytes per value (40 per object member) plus
// the text, the strings that had escapes and 4 bytes per line, so at most
// 12 times the document's size (a list of one-digit numbers), about 6 times
// for a problem file of short keys; the parse runs in two passes (check and
// count, then fill arrays of the exact size), so a refused document
// allocates no tree at all.
//
// Usage:
//   Result<json::Document> doc = json::Document::parse("model.json", text);
//   json::JsonAt root = doc.value().root();
//   json::Errors errors;                       // keeps the first error only
//   Status keys = root.only_keys({"name", "ops"});
//   int64_t p = errors.take(root["stages"].integer(1, 1024));
//   if (!errors.ok()) return errors.status();
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/status.h"

namespace shardlab::json {

// Levenshtein distance, for "did you mean" on unknown keys, options and
// names (short names only: either side over 64 characters counts as 64
// edits away unless the two are equal). Case-sensitive.
size_t edit_distance(std::string_view a, std::string_view b);

enum class Kind { kNull, kBool, kNumber, kString, kArray, kObject };

// The largest document any lab reads (the CLI's file reader and the page
// refuse larger files before parsing).
constexpr int64_t kMaxDocumentBytes = int64_t{64} << 20;

struct Limits {
  int64_t max_bytes = kMaxDocumentBytes;
  int64_t max_items = 1'000'000;  // items of one array or members of one object
  int32_t max_depth = 200;        // nesting levels
};

// One value, as JsonAt::value() hands it out (containers: kind and offsets).
struct Value {
  Kind kind = Kind::kNull;
  int64_t offset = 0;      // byte offset of the value's first character
  int64_t end_offset = 0;  // byte offset of its last character (']' or '}' for containers)
  bool boolean = false;
  double number = 0;      // every number, as the nearest double
  bool integral = false;  // written without fraction or exponent, and fits int64
  int64_t integer = 0;    // the exact value when integral
  std::string text;       // a string's value (unescaped); a number's literal text
  int64_t items = 0;      // an array's items, an object's members
};

class JsonAt;

class Document {
 public:
  // Parses the whole text; any error comes back as one line in the house
  // format, with the JSON path of the value being read.
  static Result<Document> parse(std::string source, std::string_view text,
                                const Limits& limits = Limits());
  static constexpr int kMaxDepth = 200;

  JsonAt root() const;
  const std::string& source() const;
  // "FILE:LINE:COL (byte B)" for a byte offset (lines and columns from 1,
  // columns in bytes; after a byte-order mark line 1 starts at byte 3).
  std::string where(int64_t offset) const;
  // Bytes held by the document (text, strings, tree, line index), for the
  // memory figures in tests and benchmarks.
  int64_t memory_bytes() const;

  struct Data;  // defined in json_doc.cpp

 private:
  std::shared_ptr<const Data> data_;
  friend class JsonAt;
};

// A value inside a document together with its JSON path ("ops[2].einsum"),
// or a member that is missing (exists() is false; reads from it fail with
// "expected the key ..." at the end of the object that lacks it, or at the
// nearest value that exists when a whole branch is missing).
class JsonAt {
 public:
  bool exists() const { return node_ >= 0; }
  Kind kind() const;
  bool is(Kind kind) const { return exists() && this->kind() == kind; }
  Value value() const;
  const std::string& path() const { return path_; }
  int64_t offset() const;

  // An error at this value: "WHERE: at PATH: expected EXPECTED, found FOUND",
  // where FOUND defaults to a description of the value ("the string \"x\"",
  // "the number 1.5", "an object", ...).
  Status error(const std::string& expected) const;
  Status error(const std::string& expected, const std::string& found) const;

  // Members and items. Indexing an object by key never fails by itself; a
  // non-object or an out-of-range index gives a missing value too.
  JsonAt operator[](std::string_view key) const;
  JsonAt operator[](size_t index) const;
  bool has(std::string_view key) const;
  size_t size() const;                    // items of an array, members of an object
  std::vector<std::string> keys() const;  // an object's keys, in document order
  std::string key(size_t index) const;    // an object's index-th key
  JsonAt member(size_t index) const;      // an object's index-th member

  // Typed reads. integer() accepts integral literals and numbers whose value
  // is integral and below 2^53 in magnitude (2.0, 1e3).
  Result<int64_t> integer(int64_t min, int64_t max) const;
  Result<double> number(double min, double max) const;
  Result<std::string> string() const;
  Result<bool> boolean() const;
  // OK when the value has this kind ("expected an object, found ...").
  Status expect(Kind kind) const;
  // OK when the value is an array of at most max_items items.
  Status expect_array(size_t max_items, const std::string& what) const;
  // OK when every key of this object is in `allowed`; otherwise an error at
  // the first other key, naming the closest allowed key when one is near.
  Status only_keys(std::initializer_list<std::string_view> allowed) const;
  Status only_keys(const std::vector<std::string_view>& allowed) const;

  // Reads of optional members: the fallback when the key is absent.
  Result<int64_t> integer_or(std::string_view key, int64_t fallback, int64_t min,
                             int64_t max) const;
  Result<double> number_or(std::string_view key, double fallback, double min, double max) const;
  Result<std::string> string_or(std::string_view key, std::string fallback) const;
  Result<bool> boolean_or(std::string_view key, bool fallback) const;

 private:
  friend class Document;
  JsonAt(std::shared_ptr<const Document::Data> doc, int32_t node, int32_t parent, std::string path,
         size_t parent_path_size)
      : doc_(std::move(doc)),
        node_(node),
        parent_(parent),
        parent_path_size_(parent_path_size),
        path_(std::move(path)) {}
  JsonAt child(int32_t node, std::string path) const;
  Status missing() const;

  std::shared_ptr<const Document::Data> doc_;
  int32_t node_ = -1;    // -1: a missing member
  int32_t parent_ = -1;  // the nearest existing value it was looked up in
  // Missing values: path_ begins with the path of parent_, this long; the
  // next segment names the first member that is missing.
  size_t parent_path_size_ = 0;
  std::string path_;
};

// A short description of a value for "found ..." ("the string \"abc\"").
std::string describe(const Value& value);

// The user's text, quoted for a one-line message: at most `limit` bytes
// (cut at a character boundary, "..." after), quotes and backslashes
// escaped, control characters written as escapes (\n, \u001b), so that a
// name can never break the line or drive a terminal.
std::string quote(std::string_view text, size_t limit = 40);

// An int64 written as a decimal string ("445": values that may pass 2^53
// travel so) or as an integral number.
Result<int64_t> decimal_integer(const JsonAt& at);

// Keeps the first error of a sequence of reads, so that code can read many
// fields and check once: reads after an error return the fallback.
class Errors {
 public:
  template <typename T>
  T take(Result<T> result, T fallback = T{}) {
    if (!result.is_ok()) {
      add(result.status());
      return fallback;
    }
    return std::move(result).value();
  }
  void add(const Status& status) {
    if (first_.is_ok() && !status.is_ok()) first_ = status;
  }
  bool ok() const { return first_.is_ok(); }
  const Status& status() const { return first_; }

 private:
  Status first_;
};

}  // namespace shardlab::json
