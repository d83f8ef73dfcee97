// The bad-input corpus (tests/bad_inputs): every file gets its exact message,
// whatever the chunk sizes the reader is fed with. gzip files go through the
// native file reader (the wasm module never sees gzip: the browser inflates).
#include <doctest/doctest.h>

#include <filesystem>

#include "core/sharding/io.h"
#include "helpers.h"

namespace shardlab {
namespace {

std::string trim(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  return text;
}

// Feeds text in chunks of `chunk` bytes (0: all at once) and returns the
// first error message, or "" when the text is accepted.
std::string message_for(const std::string& name, const std::string& text, size_t chunk) {
  InstanceReader reader(name);
  const size_t step = chunk == 0 ? std::max<size_t>(text.size(), 1) : chunk;
  for (size_t at = 0; at < text.size(); at += step) {
    const Status status = reader.feed(text.data() + at, std::min(step, text.size() - at));
    if (!status.is_ok()) return status.message();
  }
  const Result<Problem> result = reader.finish();
  return result.is_ok() ? "" : result.status().message();
}

TEST_CASE("bad-input corpus: exact messages at every chunk size") {
  const std::filesystem::path folder = test::source_path("tests/bad_inputs");
  int checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(folder)) {
    const std::string name = entry.path().filename().string();
    if (name.size() < 5 || name.find(".expected") != std::string::npos ||
        entry.path().extension() == ".sh" || entry.path().extension() == ".md") {
      continue;
    }
    const std::string expected = trim(test::read_bytes(entry.path().string() + ".expected"));
    CAPTURE(name);
    if (entry.path().extension() == ".gz") {
#ifndef __EMSCRIPTEN__
      const Result<Problem> result = read_instance_file(entry.path().string());
      REQUIRE_FALSE(result.is_ok());
      std::string message = result.status().message();
      const std::string full = entry.path().string();
      if (message.rfind(full, 0) == 0) message = name + message.substr(full.size());
      CHECK(message == expected);
      ++checked;
#endif
      continue;
    }
    const std::string text = test::read_bytes(entry.path().string());
    for (size_t chunk : {size_t{0}, size_t{1}, size_t{2}, size_t{3}, size_t{7}, size_t{64}}) {
      CAPTURE(chunk);
      CHECK(message_for(name, text, chunk) == expected);
    }
    ++checked;
  }
#ifdef __EMSCRIPTEN__
  CHECK(checked >= 27);
#else
  CHECK(checked >= 30);
#endif
}

TEST_CASE("the reader keeps failing with its first error") {
  InstanceReader reader("x.json");
  const std::string text = "[1]" + std::string(100, ' ');
  const Status first = reader.feed(text.data(), text.size());
  REQUIRE_FALSE(first.is_ok());
  const Status again = reader.feed("{}", 2);
  CHECK(again.message() == first.message());
  CHECK(reader.finish().status().message() == first.message());
}

}  // namespace
}  // namespace shardlab
