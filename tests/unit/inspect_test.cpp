// The page's plan views in the core (core/sharding/inspect.h) on the contest's
// example, with the optimal plan [0, 0, 2, 1, 0] (cost 445): live nodes at a
// time, cost shares and neighbours, worked out by hand from example.json, and
// the shape check that replaces out-of-bounds reads in the bindings.
#include "core/sharding/inspect.h"

#include <doctest/doctest.h>

#include <numeric>

#include "core/sharding/evaluate.h"
#include "helpers.h"

namespace shardlab {
namespace {

const std::vector<int32_t> kPlan = {0, 0, 2, 1, 0};

TEST_CASE("live nodes at a time: half-open intervals, largest usage first, ties by index") {
  const Problem p = test::example_problem();
  // t = 50: nodes 0 [30,70), 1 [40,70), 2 [50,120) with usages 10, 25, 15.
  CHECK(live_nodes_at(p, kPlan, 50).value() == std::vector<int32_t>{1, 2, 0});
  // t = 110: nodes 2, 3, 4 with usages 15, 10, 15: node 2 before node 4.
  CHECK(live_nodes_at(p, kPlan, 110).value() == std::vector<int32_t>{2, 4, 3});
  CHECK(live_nodes_at(p, kPlan, 70).value() == std::vector<int32_t>{2});  // 0 and 1 end at 70
  CHECK(live_nodes_at(p, kPlan, 29).value().empty());
  // Another plan reorders by its own usages: node 2's strategy 1 uses 20.
  CHECK(live_nodes_at(p, {0, 0, 1, 1, 0}, 110).value() == std::vector<int32_t>{2, 4, 3});
  CHECK(live_nodes_at(p, {0, 0, 1, 1, 0}, 50).value() == std::vector<int32_t>{1, 2, 0});
}

TEST_CASE("cost shares: own cost plus half of each incident edge, adding up to the cost") {
  const Problem p = test::example_problem();
  const std::vector<double> shares = cost_shares(p, kPlan).value();
  CHECK(shares == std::vector<double>{50, 75, 70, 110, 140});
  CHECK(std::accumulate(shares.begin(), shares.end(), 0.0) ==
        static_cast<double>(evaluate(p, kPlan).cost));
}

TEST_CASE("neighbours: the other end of each edge and the entry the plan pays") {
  const Problem p = test::example_problem();
  const std::vector<Neighbour> n3 = neighbours_of(p, kPlan, 3).value();
  REQUIRE(n3.size() == 2);
  CHECK(n3[0].node == 1);
  CHECK(n3[0].edge_cost == 10);  // edge (1, 3), strategies (0, 1)
  CHECK(n3[1].node == 4);
  CHECK(n3[1].edge_cost == 60);  // edge (3, 4), strategies (1, 0)
  const std::vector<Neighbour> n0 = neighbours_of(p, kPlan, 0).value();
  REQUIRE(n0.size() == 2);
  CHECK(n0[0].node + n0[1].node == 3);
  CHECK(n0[0].edge_cost + n0[1].edge_cost == 70);  // 30 to node 1, 40 to node 2
}

TEST_CASE("a plan of the wrong shape, or a node out of range, is an error, not a read") {
  const Problem p = test::example_problem();
  CHECK(live_nodes_at(p, {0, 0}, 50).status().message() ==
        "the plan has 2 entries, the instance 5 nodes");
  CHECK(cost_shares(p, {0, 0, 3, 1, 0}).status().message() ==
        "node 2 has no strategy 3 (it has 3)");
  CHECK(cost_shares(p, {0, -1, 0, 0, 0}).status().code() == StatusCode::kInvalidArgument);
  CHECK(neighbours_of(p, kPlan, 5).status().message() == "no node 5 (the instance has 5)");
  CHECK(neighbours_of(p, kPlan, -1).status().code() == StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace shardlab
