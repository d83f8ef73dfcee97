// Status and Result<T>: how core/ reports failure across its API boundary.
// No exception leaves core/; callers (CLI, wasm bindings, tests) inspect the
// code and print the one-line message, which already names file and position.
#pragma once

#include <optional>
#include <string>
#include <utility>

namespace shardlab {

enum class StatusCode {
  kOk = 0,
  kInvalidInput,     // malformed or unsupported instance / solution text
  kIoError,          // a file could not be opened or read
  kInvalidArgument,  // a bad option or command-line value
  kInternal,         // a checker found an inconsistency (a bug)
};

// The code's name as it crosses to the page ({code: "InvalidInput", ...}).
inline const char* status_code_name(StatusCode code) {
  switch (code) {
    case StatusCode::kOk:
      return "Ok";
    case StatusCode::kInvalidInput:
      return "InvalidInput";
    case StatusCode::kIoError:
      return "IoError";
    case StatusCode::kInvalidArgument:
      return "InvalidArgument";
    case StatusCode::kInternal:
      return "Internal";
  }
  return "Internal";
}

class Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}
  static Status ok() { return Status(); }

  bool is_ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

template <typename T>
class Result {
 public:
  Result(T value) : value_(std::move(value)) {}          // NOLINT: implicit by design
  Result(Status status) : status_(std::move(status)) {}  // NOLINT

  bool is_ok() const { return status_.is_ok(); }
  const Status& status() const { return status_; }
  T& value() & { return *value_; }
  const T& value() const& { return *value_; }
  T&& value() && { return std::move(*value_); }

 private:
  Status status_;
  std::optional<T> value_;
};

}  // namespace shardlab
