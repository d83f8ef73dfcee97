// The labs' JSON document reader: values and offsets, every syntax error's
// exact message, bytes that are not UTF-8, byte-order marks, limits, typed
// reads with their ranges, missing and unknown keys, the memory it takes, and
// agreement with nlohmann/json on random documents.
#include "core/json_doc.h"

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "core/rng.h"

namespace shardlab::json {
namespace {

std::string parse_error(const std::string& text) {
  Result<Document> doc = Document::parse("in.json", text);
  REQUIRE_FALSE(doc.is_ok());
  CHECK(doc.status().code() == StatusCode::kInvalidInput);
  return doc.status().message();
}

Document parsed(const std::string& text) {
  Result<Document> doc = Document::parse("in.json", text);
  REQUIRE_MESSAGE(doc.is_ok(), doc.status().message());
  return doc.value();
}

TEST_CASE("json_doc: values, paths and offsets") {
  const Document doc = parsed(
      "{\"name\": \"mlp\",\n \"shape\": [4096, 1e3, -2.5],\n \"ok\": true, \"none\": null,\n"
      " \"s\": \"a\\u00e9\\ud83d\\ude00\\n\"}");
  const JsonAt root = doc.root();
  CHECK(root.is(Kind::kObject));
  CHECK(root.keys() == std::vector<std::string>{"name", "shape", "ok", "none", "s"});
  CHECK(root["name"].string().value() == "mlp");
  CHECK(root["shape"].size() == 3);
  CHECK(root["shape"][0].integer(0, 10000).value() == 4096);
  CHECK(root["shape"][1].integer(0, 10000).value() == 1000);
  CHECK(root["shape"][2].number(-10, 10).value() == -2.5);
  CHECK(root["shape"][2].path() == "shape[2]");
  CHECK(root["ok"].boolean().value());
  CHECK(root["none"].is(Kind::kNull));
  CHECK(root["s"].string().value() == "a\xc3\xa9\xf0\x9f\x98\x80\n");
  CHECK(doc.where(root["shape"][1].offset()) == "in.json:2:18 (byte 33)");
  CHECK(root.member(1).path() == "shape");
}

TEST_CASE("json_doc: syntax errors name the place, the path and what was expected") {
  CHECK(parse_error("") ==
        "in.json:1:1 (byte 0): expected a value, found end of input (the "
        "file is empty)");
  CHECK(parse_error("{\"a\": [1, 2,]}") ==
        "in.json:1:13 (byte 12): at a[2]: expected a value, "
        "found ']'");
  CHECK(parse_error("{\"a\": [1, 2") ==
        "in.json:1:12 (byte 11): at a: expected ',' or ']', found end of input (the file is "
        "truncated)");
  CHECK(parse_error("{\"a\": 1 \"b\": 2}") ==
        "in.json:1:9 (byte 8): expected ',' or '}', found '\"'");
  CHECK(parse_error("{\"a\": 1, \"a\": 2}") ==
        "in.json:1:10 (byte 9): expected each key once, found \"a\" a second time");
  CHECK(parse_error("{\"x\": {\"n\": 012}}") ==
        "in.json:1:13 (byte 12): at x.n: expected a number, found the number 012 (JSON forbids "
        "leading zeros)");
  CHECK(parse_error("{\"x\": NaN}") == "in.json:1:7 (byte 6): at x: expected a value, found 'NaN'");
  CHECK(parse_error("{\"x\": \"a\\qb\"}") ==
        "in.json:1:9 (byte 8): at x: expected an escape sequence, found '\\q'");
  CHECK(parse_error("{\"x\" 1}") ==
        "in.json:1:6 (byte 5): expected ':' after the key \"x\", "
        "found '1'");
  CHECK(parse_error("{} {}") ==
        "in.json:1:4 (byte 3): expected end of input after the top-level value, found '{'");
  CHECK(parse_error("[1e999]") ==
        "in.json:1:2 (byte 1): at [0]: expected a number within the "
        "range of a double, found the number 1e999");
  CHECK(parse_error("{\"x\": \"tab\there\"}") ==
        "in.json:1:11 (byte 10): at x: expected '\"' or a character of the string, found the "
        "byte 0x09 (a raw tab: write \\t)");
  CHECK(parse_error("[-]") == "in.json:1:2 (byte 1): at [0]: expected a number, found '-'");
  std::string deep(Document::kMaxDepth + 1, '[');
  CHECK(parse_error(deep).find("expected at most 200 levels of nesting") != std::string::npos);
}

TEST_CASE("json_doc: bytes that are not UTF-8 are refused where they stand") {
  CHECK(parse_error("{\"name\": \"caf\xe9\"}") ==
        "in.json:1:14 (byte 13): at name: expected UTF-8 text (save the file as UTF-8), found the "
        "bytes 0xe9 0x22 (an incomplete UTF-8 character)");
  CHECK(parse_error("[\"\xff\"]") ==
        "in.json:1:3 (byte 2): at [0]: expected UTF-8 text (save the file as UTF-8), found the "
        "byte 0xff (no UTF-8 character starts with it)");
  CHECK(parse_error("[\"\xc0\xaf\"]").find("found the byte 0xc0 (the start of an overlong") !=
        std::string::npos);
  CHECK(parse_error("[\"\xed\xa0\x80\"]").find("(a UTF-16 surrogate written as UTF-8") !=
        std::string::npos);
  CHECK(parse_error("[\"\xf4\x90\x80\x80\"]").find("(beyond U+10FFFF") != std::string::npos);
  CHECK(parse_error("[\"ab\xe2\x82") ==
        "in.json:1:5 (byte 4): at [0]: expected UTF-8 text (save the file as UTF-8), found the "
        "bytes 0xe2 0x82 (a UTF-8 character cut short by the end of the text)");
  CHECK(parse_error("{\"a\": 1, \xff}") ==
        "in.json:1:10 (byte 9): expected a key string, found the byte 0xff (no UTF-8 character "
        "starts with it)");
  // Characters that look like JSON but are not, named.
  CHECK(parse_error("{\xe2\x80\x9c"
                    "a\xe2\x80\x9d: 1}") ==
        "in.json:1:2 (byte 1): expected a key string or '}', found '\xe2\x80\x9c' (U+201C)");
  CHECK(parse_error("{\xc2\xa0}") ==
        "in.json:1:2 (byte 1): expected a key string or '}', found the invisible character U+00A0 "
        "(not a JSON space)");
  CHECK(parse_error("[1, \xef\xbb\xbf 2]") ==
        "in.json:1:5 (byte 4): at [1]: expected a value, found a byte-order mark (U+FEFF)");
  // Surrogate escapes: pairs become one character, halves alone are refused.
  CHECK(parsed("[\"\\ud83d\\ude00\"]").root()[0].string().value() == "\xf0\x9f\x98\x80");
  CHECK(parse_error("[\"\\udc00\"]") ==
        "in.json:1:3 (byte 2): at [0]: expected a \\u escape of a character (a low surrogate "
        "follows a high one), found the lone low surrogate '\\udc00'");
  CHECK(parse_error("[\"\\ud83dA\"]") ==
        "in.json:1:3 (byte 2): at [0]: expected a low surrogate after a high one, found a lone "
        "\\u escape '\\ud83d'");
  // An escaped NUL is a character like any other.
  CHECK(parsed("[\"a\\u0000b\"]").root()[0].string().value() == std::string("a\0b", 3));
}

TEST_CASE("json_doc: a UTF-8 byte-order mark is skipped; UTF-16 and UTF-32 are named") {
  const Document doc = parsed("\xef\xbb\xbf{\"a\": [1,\n 2]}");
  CHECK(doc.root()["a"][1].integer(0, 9).value() == 2);
  CHECK(doc.where(doc.root()["a"].offset()) == "in.json:1:7 (byte 9)");  // columns after the mark
  CHECK(parse_error("\xef\xbb\xbf") ==
        "in.json:1:1 (byte 3): expected a value, found end of input (the file is truncated)");
  CHECK(parse_error(std::string("\xff\xfe{\0}\0", 6)) ==
        "in.json:1:1 (byte 0): expected UTF-8 JSON text, found a UTF-16 (little-endian) "
        "byte-order mark: save the file as UTF-8");
  CHECK(parse_error(std::string("\xfe\xff\0{", 4)).find("UTF-16 (big-endian) byte-order mark") !=
        std::string::npos);
  CHECK(parse_error(std::string("\xff\xfe\0\0{\0\0\0", 8)).find("a UTF-32 (little-endian)") !=
        std::string::npos);
  CHECK(parse_error(std::string("{\0\"\0a\0", 6)) ==
        "in.json:1:1 (byte 0): expected UTF-8 JSON text, found UTF-16 (little-endian) text (every "
        "other byte is 0x00): save the file as UTF-8");
  CHECK(parse_error(std::string("[1,\0]", 5)) ==
        "in.json:1:4 (byte 3): at [1]: expected a value, found the byte 0x00");
}

TEST_CASE("json_doc: limits on size, items, depth; long keys and numbers quoted short") {
  Limits small;
  small.max_bytes = 10;
  small.max_items = 3;
  small.max_depth = 2;
  CHECK(Document::parse("in.json", "[1, 2, 3, 4, 5]", small).status().message() ==
        "in.json:1:1 (byte 0): expected a document of at most 10 bytes, found 15 bytes");
  CHECK(Document::parse("in.json", "[1,2,3,4]", small).status().message() ==
        "in.json:1:8 (byte 7): expected at most 3 items in an array, found more");
  CHECK(Document::parse("in.json", "{\"a\":{\"b\":1}}", Limits{100, 3, 1}).status().message() ==
        "in.json:1:6 (byte 5): at a: expected at most 1 levels of nesting, found "
        "a deeper value");
  CHECK(Document::parse("in.json", "{\"a\":1,\"b\":2,\"c\":3,\"d\":4}", Limits{100, 3, 5})
            .status()
            .message() ==
        "in.json:1:20 (byte 19): expected at most 3 members in an object, "
        "found more");
  CHECK(parse_error("[" + std::string(100, '9') + "e999]") ==
        "in.json:1:2 (byte 1): at [0]: expected a number within the range of a double, found the "
        "number 9999999999999999999999999999999999999999...");
  const std::string long_key(1000, 'k');
  CHECK(parse_error("{\"" + long_key + "\" 1}") ==
        "in.json:1:1005 (byte 1004): expected ':' after the key \"" + std::string(40, 'k') +
            "...\", found '1'");
  // Duplicates are found in objects of any size, without a quadratic scan.
  std::string many = "{";
  for (int i = 0; i < 200000; ++i) many += "\"k" + std::to_string(i) + "\": 0, ";
  CHECK(parse_error(many + "\"k199999\": 1}")
            .find("expected each key once, found \"k199999\" a "
                  "second time") != std::string::npos);
}

TEST_CASE("json_doc: quote() keeps a message on one line and in UTF-8") {
  CHECK(quote("a\"b\\c") == "\"a\\\"b\\\\c\"");
  CHECK(quote("line\nbreak\t\x1b[31m") == "\"line\\nbreak\\t\\u001b[31m\"");
  CHECK(quote("caf\xe9") == "\"caf\\xe9\"");
  CHECK(quote("\xc3\xa9\xc3\xa9\xc3\xa9", 3) == "\"\xc3\xa9\xc3\xa9...\"");  // whole characters
  CHECK(quote(std::string(50, 'x')) == "\"" + std::string(40, 'x') + "...\"");
}

TEST_CASE("json_doc: the tree takes at most 12 times the text") {
  // The densest document for the tree: one-digit items.
  std::string dense = "[";
  for (int i = 0; i < 100000; ++i) dense += "0,";
  dense += "0]";
  const Document a = parsed(dense);
  CHECK(a.root().size() == 100001);
  CHECK(a.memory_bytes() <= 12 * static_cast<int64_t>(dense.size()));
  // Objects with one-letter keys, and a typical problem file.
  std::string members = "{";
  for (int i = 0; i < 50000; ++i) members += "\"" + std::to_string(i) + "\":0,";
  members += "\"x\":0}";
  CHECK(parsed(members).memory_bytes() <= 12 * static_cast<int64_t>(members.size()));
  std::string stages = "{\"microbatches\": 8, \"stages\": [";
  for (int i = 0; i < 10000; ++i) stages += "{\"F\": 1.5, \"B\": 2, \"W\": 1, \"act\": 1},\n";
  stages += "{}]}";
  CHECK(parsed(stages).memory_bytes() <= 6 * static_cast<int64_t>(stages.size()));
}

TEST_CASE("json_doc: typed reads, missing and unknown keys") {
  const Document doc = parsed(
      "{\"mesh\": {\"shape\": [8, 2.5, \"4\"], \"axes\": [\"x\"],\n"
      "  \"bandwith_GBps\": [100]}}");
  const JsonAt mesh = doc.root()["mesh"];
  CHECK(mesh["shape"][1].integer(1, 64).status().message() ==
        "in.json:1:24 (byte 23): at mesh.shape[1]: expected an integer from 1 to 64, found the "
        "number 2.5");
  CHECK(mesh["shape"][2].integer(1, 64).status().message() ==
        "in.json:1:29 (byte 28): at mesh.shape[2]: expected an integer, found the string \"4\"");
  CHECK(mesh["shape"][0].integer(16, 64).status().message() ==
        "in.json:1:21 (byte 20): at mesh.shape[0]: expected an integer from 16 to 64, found the "
        "number 8");
  // Range bounds print as written: whole numbers in digits, others in the shortest text that
  // reads back (not %.17g's 9.9999999999999995e-07).
  CHECK(mesh["shape"][1].number(1e-6, 1e9).value() == 2.5);
  CHECK(mesh["shape"][1].number(1e-6, 0.1).status().message() ==
        "in.json:1:24 (byte 23): at mesh.shape[1]: expected a number from 1e-06 to 0.1, found the "
        "number 2.5");
  CHECK(mesh["shape"][1].number(3, 1e15).status().message() ==
        "in.json:1:24 (byte 23): at mesh.shape[1]: expected a number from 3 to 1e+15, found the "
        "number 2.5");
  CHECK(mesh["latency_us"].number(0, 1).status().message() ==
        "in.json:2:25 (byte 73): at mesh: expected the key \"latency_us\", found '}'");
  CHECK_FALSE(mesh["latency_us"].exists());
  CHECK(mesh["shape"][7].exists() == false);
  CHECK(mesh.only_keys({"shape", "axes", "bandwidth_GBps"}).message() ==
        "in.json:2:3 (byte 51): at mesh: expected one of the keys shape, axes, bandwidth_GBps, "
        "found the key \"bandwith_GBps\" (did you mean \"bandwidth_GBps\"?)");
  CHECK(mesh["axes"].expect(Kind::kObject).message() ==
        "in.json:1:43 (byte 42): at mesh.axes: expected an object, found an array of 1 item");
  CHECK(mesh.number_or("device_tflops", 100, 0, 1e6).value() == 100);
  CHECK(mesh.string_or("name", "mesh").value() == "mesh");
  CHECK(doc.root()["name"].string().status().message() ==
        "in.json:2:26 (byte 74): expected the key \"name\", found '}'");
  // A missing branch is reported at its first missing key, where the
  // nearest existing object ends (not at byte 0, not at the last key).
  CHECK(mesh["backward"]["stage"].integer(0, 9).status().message() ==
        "in.json:2:25 (byte 73): at mesh: expected the key \"backward\", found '}'");
  CHECK(mesh["shape"][5].integer(0, 9).status().message() ==
        "in.json:1:32 (byte 31): at mesh.shape: expected an item [5] (at least 6 items), found an "
        "array of 3 items");
  CHECK(mesh["axes"][0]["x"].exists() == false);
  CHECK(mesh["axes"][0]["x"].string().status().message() ==
        "in.json:1:44 (byte 43): at mesh.axes[0]: expected an object with the key \"x\", found the "
        "string \"x\"");
  CHECK(mesh.expect_array(5, "sizes").message() ==
        "in.json:1:10 (byte 9): at mesh: expected an array of sizes, found an object");
  CHECK(mesh["shape"].expect_array(2, "sizes").message() ==
        "in.json:1:20 (byte 19): at mesh.shape: expected at most 2 sizes, found an array of 3 "
        "items");

  Errors errors;
  const int64_t a = errors.take(mesh["shape"][0].integer(1, 64));
  const int64_t b = errors.take(mesh["shape"][1].integer(1, 64), int64_t{-1});
  const int64_t c = errors.take(mesh["shape"][2].integer(1, 64), int64_t{-2});
  CHECK(a == 8);
  CHECK(b == -1);
  CHECK(c == -2);
  CHECK_FALSE(errors.ok());
  CHECK(errors.status().message().find("mesh.shape[1]") != std::string::npos);
}

// Random documents written by nlohmann/json read back to the same values.
void compare(const nlohmann::json& want, const JsonAt& got) {
  if (want.is_object()) {
    REQUIRE(got.is(Kind::kObject));
    REQUIRE(got.size() == want.size());
    for (const auto& [key, value] : want.items()) compare(value, got[key]);
  } else if (want.is_array()) {
    REQUIRE(got.is(Kind::kArray));
    REQUIRE(got.size() == want.size());
    for (size_t i = 0; i < want.size(); ++i) compare(want[i], got[i]);
  } else if (want.is_string()) {
    CHECK(got.string().value() == want.get<std::string>());
  } else if (want.is_number_integer()) {
    CHECK(got.value().integral);
    CHECK(got.value().integer == want.get<int64_t>());
  } else if (want.is_number()) {
    CHECK(got.value().number == want.get<double>());
  } else if (want.is_boolean()) {
    CHECK(got.boolean().value() == want.get<bool>());
  } else {
    CHECK(got.is(Kind::kNull));
  }
}

nlohmann::json random_value(Rng& rng, int depth) {
  const int kind = static_cast<int>(rng.below(depth > 3 ? 5 : 7));
  switch (kind) {
    case 0:
      return nullptr;
    case 1:
      return rng.below(2) == 1;
    case 2:
      return static_cast<int64_t>(rng.below(1u << 30)) - (1 << 29);
    case 3:
      return static_cast<double>(rng.below(1000000)) / 64.0 + 0.5;
    case 4: {
      std::string s;
      for (uint64_t i = rng.below(8); i > 0; --i)
        s.push_back(static_cast<char>(32 + rng.below(95)));
      if (rng.below(4) == 0) s += "\xc3\xa9\n\"\\";
      return s;
    }
    case 5: {
      nlohmann::json a = nlohmann::json::array();
      for (uint64_t i = rng.below(5); i > 0; --i) a.push_back(random_value(rng, depth + 1));
      return a;
    }
    default: {
      nlohmann::json o = nlohmann::json::object();
      for (uint64_t i = rng.below(5); i > 0; --i)
        o["k" + std::to_string(rng.below(100))] = random_value(rng, depth + 1);
      return o;
    }
  }
}

TEST_CASE("json_doc: agrees with nlohmann/json on random documents") {
  Rng rng(2026);
  for (int round = 0; round < 300; ++round) {
    const nlohmann::json want = random_value(rng, 0);
    const std::string text = want.dump(round % 2 ? 2 : -1);
    const Document doc = parsed(text);
    compare(want, doc.root());
  }
}

}  // namespace
}  // namespace shardlab::json
