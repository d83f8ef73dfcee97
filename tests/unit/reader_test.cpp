// The streaming reader against nlohmann/json's DOM (the oracle) on example.json
// and contest instances B and G, chunk-size invariance, and the accepted
// variations of the format (key order, unknown keys, exponents, null, BOM).
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "core/sharding/io.h"
#include "helpers.h"

namespace shardlab {
namespace {

using nlohmann::json;

// Builds the model from nlohmann's DOM, independently of the reader.
Problem oracle(const std::string& text) {
  const json doc = json::parse(text);
  const json& p = doc.at("problem");
  ProblemBuilder b;
  const json& nodes = p.at("nodes");
  for (size_t v = 0; v < nodes.at("intervals").size(); ++v) {
    std::vector<Cost> costs;
    std::vector<Usage> usages;
    for (const json& c : nodes.at("costs")[v]) costs.push_back(c.get<int64_t>());
    for (const json& u : nodes.at("usages")[v]) usages.push_back(u.get<int64_t>());
    b.add_node(nodes.at("intervals")[v][0].get<int64_t>(),
               nodes.at("intervals")[v][1].get<int64_t>(), costs, usages);
  }
  const json& edges = p.at("edges");
  for (size_t e = 0; e < edges.at("nodes").size(); ++e) {
    std::vector<Cost> costs;
    for (const json& c : edges.at("costs")[e]) costs.push_back(c.get<int64_t>());
    b.add_edge(edges.at("nodes")[e][0].get<int32_t>(), edges.at("nodes")[e][1].get<int32_t>(),
               costs);
  }
  if (p.contains("usage_limit") && !p.at("usage_limit").is_null()) {
    b.set_usage_limit(p.at("usage_limit").get<int64_t>());
  }
  if (p.contains("name") && p.at("name").is_string())
    b.problem.name = p.at("name").get<std::string>();
  return std::move(b.build()).value();
}

void check_same(const Problem& a, const Problem& b) {
  REQUIRE(a.num_nodes() == b.num_nodes());
  REQUIRE(a.num_edges() == b.num_edges());
  CHECK(a.name == b.name);
  CHECK(a.has_usage_limit == b.has_usage_limit);
  CHECK(a.usage_limit == b.usage_limit);
  CHECK(a.strategy_begin == b.strategy_begin);
  CHECK(a.strategy_cost == b.strategy_cost);
  CHECK(a.strategy_usage == b.strategy_usage);
  CHECK(a.interval_lo == b.interval_lo);
  CHECK(a.interval_hi == b.interval_hi);
  CHECK(a.edge_u == b.edge_u);
  CHECK(a.edge_v == b.edge_v);
  CHECK(a.num_matrices() == b.num_matrices());
  int64_t differing = 0;
  for (int32_t e = 0; e < a.num_edges(); ++e) {
    const int64_t size =
        static_cast<int64_t>(a.num_strategies(a.edge_u[e])) * a.num_strategies(a.edge_v[e]);
    for (int64_t i = 0; i < size; ++i) differing += a.edge_costs(e)[i] != b.edge_costs(e)[i];
  }
  CHECK(differing == 0);
  CHECK(a.checkpoint_time == b.checkpoint_time);
  CHECK(a.adj_edge == b.adj_edge);
}

Problem read(const std::string& text, size_t chunk = 0) {
  InstanceReader reader("test.json");
  const size_t step = chunk == 0 ? std::max<size_t>(text.size(), 1) : chunk;
  for (size_t at = 0; at < text.size(); at += step) {
    const Status status = reader.feed(text.data() + at, std::min(step, text.size() - at));
    REQUIRE_MESSAGE(status.is_ok(), status.message());
  }
  Result<Problem> result = reader.finish();
  REQUIRE_MESSAGE(result.is_ok(), result.status().message());
  return std::move(result).value();
}

TEST_CASE("reader = nlohmann DOM on example.json, at every chunk size") {
  const std::string text = test::read_bytes(test::source_path("examples/example.json"));
  const Problem expected = oracle(text);
  for (size_t chunk : {size_t{0}, size_t{1}, size_t{5}, size_t{64}, size_t{4096}}) {
    CAPTURE(chunk);
    check_same(read(text, chunk), expected);
  }
  const Problem p = read(text);
  CHECK(p.name == "example");
  CHECK(p.usage_limit == 50);
  CHECK(p.num_matrices() == 5);
}

TEST_CASE("reader = nlohmann DOM on contest instances B and G") {
  for (const char* letter : {"B", "G"}) {
    CAPTURE(letter);
    const std::string text = test::read_json_text(
        test::source_path(std::string("examples/asplos-2025-iopddl-") + letter + ".json.gz"));
    REQUIRE(!text.empty());
    const Problem expected = oracle(text);
    check_same(read(text, 1 << 16), expected);
    check_same(read(text, 4093), expected);
  }
  const Problem b =
      read(test::read_json_text(test::source_path("examples/asplos-2025-iopddl-B.json.gz")));
  CHECK(b.num_nodes() == 816);
  CHECK(b.num_edges() == 1096);
  CHECK(b.usage_limit == 14392528);
}

TEST_CASE("accepted variations: key order, unknown keys, exponents, null, BOM") {
  const std::string reordered =
      "\xEF\xBB\xBF{\"meta\": {\"a\": [1, {\"b\": null}], \"c\": \"x\\u00e9\"},\n"
      " \"problem\": {\"usage_limit\": null, \"edges\": {\"costs\": [[1e+18, 2.5e1, 0, 10.0]],"
      " \"nodes\": [[1, 0]]}, \"name\": null, \"extra\": true,\n"
      " \"nodes\": {\"usages\": [[1, 2], [3, 4]], \"intervals\": [[0, 5], [2, 2]],"
      " \"costs\": [[7, 1000000000000000001], [9, 9223372036854775807]]}}}";
  const Problem p = read(reordered);
  CHECK(p.num_nodes() == 2);
  CHECK_FALSE(p.has_usage_limit);
  CHECK(p.name.empty());
  CHECK(p.node_cost(0, 1) == kForbidden);  // entries above 1e18 are clamped
  CHECK(p.node_cost(1, 1) == kForbidden);
  CHECK(p.edge_u[0] == 1);
  CHECK(p.edge_cost(0, 0, 0) == kForbidden);
  CHECK(p.edge_cost(0, 0, 1) == 25);
  CHECK(p.edge_cost(0, 1, 1) == 10);
  CHECK(p.num_checkpoints() == 1);  // node 1's interval [2, 2) is empty
  // The same document cut into single bytes gives the same model.
  check_same(read(reordered, 1), p);
}

std::string read_error(const std::string& text, size_t chunk) {
  InstanceReader reader("test.json");
  for (size_t at = 0; at < text.size(); at += chunk) {
    const Status status = reader.feed(text.data() + at, std::min(chunk, text.size() - at));
    if (!status.is_ok()) return status.message();
  }
  Result<Problem> result = reader.finish();
  REQUIRE_FALSE(result.is_ok());
  return result.status().message();
}

TEST_CASE("names: UTF-8 only (they are written back into result JSON), at any chunk size") {
  const std::string body =
      "\"nodes\": {\"intervals\": [[0, 1]], \"costs\": [[1]], \"usages\": [[1]]},"
      " \"edges\": {\"nodes\": [], \"costs\": []}}}";
  CHECK(read("{\"problem\": {\"name\": \"caf\u00e9 \\ud83d\\ude00\", " + body).name ==
        "caf\u00e9 \xf0\x9f\x98\x80");
  for (size_t chunk : {size_t{1}, size_t{3}, size_t{4096}}) {
    CAPTURE(chunk);
    CHECK(read_error("{\"problem\": {\"name\": \"caf\xe9\", " + body, chunk) ==
          "test.json:1:26 (byte 25): at problem.name: expected UTF-8 text (save the file as "
          "UTF-8), found the bytes 0xe9 0x22 (an incomplete UTF-8 character)");
    CHECK(read_error("{\"problem\": {\"name\": \"\\udc00\", " + body, chunk) ==
          "test.json:1:23 (byte 22): at problem.name: expected a \\u escape of a character, found "
          "the lone low surrogate '\\udc00'");
    CHECK(read_error("{\"problem\": {\"name\": \"\\ud800x\", " + body, chunk) ==
          "test.json:1:23 (byte 22): at problem.name: expected a low surrogate after a high one, "
          "found a lone \\u escape '\\ud800'");
    CHECK(read_error(std::string("\xff\xfe{\0\"\0", 6) + body, chunk) ==
          "test.json:1:1 (byte 0): expected UTF-8 JSON text, found a UTF-16 (little-endian) "
          "byte-order mark: save the file as UTF-8");
  }
  // Unknown keys' strings are checked too (nothing invalid passes unseen).
  CHECK(read_error("{\"x\": \"\xc0\xaf\", \"problem\": {" + body, 7)
            .find("found the byte 0xc0 (the start of an overlong UTF-8 form)") !=
        std::string::npos);
}

TEST_CASE("identical edge matrices are stored once") {
  const std::string text =
      "{\"problem\": {\"nodes\": {\"intervals\": [[0,1],[0,1],[0,1]], \"costs\": "
      "[[1,2],[3,4],[5,6]],"
      " \"usages\": [[1,1],[1,1],[1,1]]}, \"edges\": {\"nodes\": [[0,1],[1,2],[0,2]],"
      " \"costs\": [[0,1,1,0],[0,1,1,0],[5,5,5,5]]}}}";
  const Problem p = read(text);
  CHECK(p.num_edges() == 3);
  CHECK(p.num_matrices() == 2);
  CHECK(p.edge_matrix[0] == p.edge_matrix[1]);
}

}  // namespace
}  // namespace shardlab
