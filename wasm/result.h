// The one result shape of the module's JavaScript surface, used by every
// bindings file (wasm/*.cpp): a call that can fail returns
//   {ok: true, value}  or  {ok: false, error: {code, message}}
// with code the StatusCode's name ("InvalidInput", "InvalidArgument",
// "IoError", "Internal") and message the core's one line. Nothing signals
// failure by an empty string, a sentinel or an abort; web/result.mjs's
// unwrap() turns the second shape into a thrown ShardLabError. Also here:
// the progress record (core/progress.h) as the object web/protocol.mjs
// expects, built once at this edge.
#pragma once

#include <emscripten/val.h>

#include <string>
#include <utility>
#include <vector>

#include "core/progress.h"
#include "core/status.h"

namespace shardlab::web {

inline emscripten::val ok(emscripten::val value = emscripten::val::null()) {
  emscripten::val out = emscripten::val::object();
  out.set("ok", true);
  out.set("value", std::move(value));
  return out;
}

inline emscripten::val failure(const Status& status) {
  emscripten::val error = emscripten::val::object();
  error.set("code",
            std::string(status_code_name(status.is_ok() ? StatusCode::kInternal : status.code())));
  error.set("message", status.is_ok() ? std::string("failed without a message") : status.message());
  emscripten::val out = emscripten::val::object();
  out.set("ok", false);
  out.set("error", error);
  return out;
}

// Result<T> -> {ok, value: convert(T)} | {ok: false, error}.
template <typename T, typename Convert>
emscripten::val result_of(Result<T> result, Convert&& convert) {
  if (!result.is_ok()) return failure(result.status());
  return ok(convert(std::move(result).value()));
}

inline emscripten::val result_of(Result<std::string> result) {
  return result_of(std::move(result), [](std::string text) { return emscripten::val(text); });
}

// A JS-owned copy of native numbers (a view alone would dangle when memory grows).
template <typename T>
emscripten::val copy_out(const char* array_type, const T* data, size_t count) {
  return emscripten::val::global(array_type).new_(emscripten::typed_memory_view(count, data));
}

inline emscripten::val counters_val(const std::vector<Counters::Entry>& entries) {
  emscripten::val out = emscripten::val::object();
  for (const Counters::Entry& e : entries) {
    switch (e.kind) {
      case Counters::Kind::kInt:
        out.set(e.name, static_cast<double>(e.integer));
        break;
      case Counters::Kind::kReal:
        out.set(e.name, e.real);
        break;
      case Counters::Kind::kBool:
        out.set(e.name, e.flag);
        break;
      case Counters::Kind::kText:
        out.set(e.name, e.text);
        break;
      case Counters::Kind::kNull:
        out.set(e.name, emscripten::val::null());
        break;
      case Counters::Kind::kGroup:
        out.set(e.name, counters_val(e.group));
        break;
    }
  }
  return out;
}

// {elapsedS, found, incumbent (null when not found), bound, gap, finished, counters}.
inline emscripten::val progress_val(const Progress& p) {
  emscripten::val out = emscripten::val::object();
  out.set("elapsedS", p.elapsed_s);
  out.set("found", p.found);
  out.set("incumbent", p.found ? emscripten::val(p.incumbent) : emscripten::val::null());
  out.set("bound", p.bound);
  out.set("gap", p.gap);
  out.set("finished", p.finished);
  out.set("counters", counters_val(p.counters.entries()));
  return out;
}

}  // namespace shardlab::web
