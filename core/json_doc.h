// A small JSON document reader for the labs' input files (pipeline problems,
// teaching models, options): the whole text is parsed into a tree that keeps
// where every value starts, and a cursor (JsonAt) whose typed reads explain
// their failures in the house format, the same as the instance reader's:
//   "FILE:LINE:COL (byte B): at PATH: expected X, found Y"
// Meant for documents of a few megabytes at most; contest instances have
// their own streaming reader (core/sharding/io.h).
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

enum class Kind { kNull, kBool, kNumber, kString, kArray, kObject };

struct Value {
  Kind kind = Kind::kNull;
  int64_t offset = 0;      // byte offset of the value's first character
  int64_t end_offset = 0;  // byte offset of its last character (']' or '}' for containers)
  bool boolean = false;
  double number = 0;         // every number, as the nearest double
  bool integral = false;     // written without fraction or exponent, and fits int64
  int64_t integer = 0;       // the exact value when integral
  std::string text;          // a string's value (unescaped); a number's literal text
  std::vector<Value> items;  // array items
  std::vector<std::pair<std::string, Value>> members;  // object members, in document order
  std::vector<int64_t> key_offsets;                    // where each member's key starts
};

class JsonAt;

class Document {
 public:
  // Parses the whole text; a syntax error (or a duplicate key, or more than
  // kMaxDepth levels of nesting) comes back as one line in the house format.
  static Result<Document> parse(std::string source, std::string_view text);
  static constexpr int kMaxDepth = 200;

  JsonAt root() const;
  const std::string& source() const { return data_->source; }
  // "FILE:LINE:COL (byte B)" for a byte offset (lines and columns from 1).
  std::string where(int64_t offset) const;

 private:
  struct Data {
    std::string source;
    std::vector<int64_t> line_starts;
    Value root;
  };
  std::shared_ptr<const Data> data_;
  friend class JsonAt;
};

// A value inside a document together with its JSON path ("ops[2].einsum"),
// or a member that is missing (exists() is false; reads from it fail with
// "expected the key ..." at the end of the object that lacks it).
class JsonAt {
 public:
  bool exists() const { return value_ != nullptr; }
  Kind kind() const { return value_ ? value_->kind : Kind::kNull; }
  bool is(Kind kind) const { return value_ && value_->kind == kind; }
  const Value& value() const { return *value_; }
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
  JsonAt member(size_t index) const;      // an object's index-th member

  // Typed reads. integer() accepts integral literals and numbers whose value
  // is integral and below 2^53 in magnitude (2.0, 1e3).
  Result<int64_t> integer(int64_t min, int64_t max) const;
  Result<double> number(double min, double max) const;
  Result<std::string> string() const;
  Result<bool> boolean() const;
  // OK when the value has this kind ("expected an object, found ...").
  Status expect(Kind kind) const;
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
  JsonAt(std::shared_ptr<const Document::Data> doc, const Value* value, const Value* parent,
         std::string path)
      : doc_(std::move(doc)), value_(value), parent_(parent), path_(std::move(path)) {}
  Status missing() const;

  std::shared_ptr<const Document::Data> doc_;
  const Value* value_ = nullptr;   // null: a missing member
  const Value* parent_ = nullptr;  // the object or array it was looked up in
  std::string path_;
};

// A short description of a value for "found ..." ("the string \"abc\"").
std::string describe(const Value& value);

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
