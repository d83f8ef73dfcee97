// Turns a model into a contest instance: the training graph (graph.h), each
// node's strategies with their own cost and usage (strategies.h), and one
// edge per producer-consumer pair whose matrix prices every pair of layouts
// with the collectives that re-partition between them (collectives.h).
// Also writes the instance as contest JSON and the sidecar that names it.
#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

#include "core/sharding/evaluate.h"
#include "core/teach/teach.h"

namespace shardlab::teach {
namespace {

std::string what_flows(const Generated& gen, const EdgeInfo& edge) {
  const GraphNode& from = gen.graph.nodes[edge.from];
  const GraphNode& to = gen.graph.nodes[edge.to];
  if (edge.operands.size() == 1 && edge.operands[0] < 0) return "gradient of " + to.name;
  return "output of " + from.name;
}

}  // namespace

Result<Generated> generate(const ModelSpec& model, const GenerateOptions& options) {
  Generated gen;
  gen.model = model;
  if (options.override_cost_model) gen.model.cost_model = options.cost_model;
  Result<Graph> graph = build_graph(gen.model);
  if (!graph.is_ok()) return graph.status();
  gen.graph = std::move(graph).value();
  gen.costs = CostTable(gen.model.mesh, gen.model.cost_model);
  const std::vector<GraphNode>& nodes = gen.graph.nodes;
  const int32_t n = static_cast<int32_t>(nodes.size());

  gen.strategies.resize(n);
  gen.node_costs.resize(n);
  gen.forced.assign(n, -1);
  for (int32_t v = 0; v < n; ++v) {
    gen.strategies[v] = enumerate_strategies(nodes[v], gen.model);
    for (const Strategy& s : gen.strategies[v]) {
      gen.node_costs[v].push_back(node_cost(nodes[v], s, gen.model, gen.costs));
    }
  }
  for (const auto& [name, text] : options.forces) {
    int32_t v = 0;
    while (v < n && nodes[v].name != name) ++v;
    if (v == n) {
      std::string names;
      for (const GraphNode& node : nodes) names += (names.empty() ? "" : ", ") + node.name;
      return Status(StatusCode::kInvalidArgument,
                    "--force '" + name + "=" + text + "': no node '" + name +
                        "'; the nodes are " + names);
    }
    Result<int32_t> s = find_strategy(nodes[v], gen.strategies[v], text, gen.model.mesh);
    if (!s.is_ok()) return Status(StatusCode::kInvalidArgument, "--force " + s.status().message());
    gen.forced[v] = s.value();
  }

  // Edges: one per (producer, consumer) pair, operands merged.
  std::map<std::pair<int32_t, int32_t>, int32_t> edge_of;
  auto edge_for = [&](int32_t from, int32_t to) -> EdgeInfo& {
    const auto [it, fresh] = edge_of.emplace(std::make_pair(from, to),
                                             static_cast<int32_t>(gen.edges.size()));
    if (fresh) gen.edges.push_back({from, to, {}});
    return gen.edges[it->second];
  };
  for (int32_t v = 0; v < n; ++v) {
    for (size_t k = 0; k < nodes[v].operands.size(); ++k) {
      edge_for(nodes[v].operands[k].node, v).operands.push_back(static_cast<int32_t>(k));
    }
    for (int32_t g : nodes[v].gradients) edge_for(g, v).operands.push_back(-1);
  }

  ProblemBuilder builder;
  builder.problem.name = gen.model.name;
  for (int32_t v = 0; v < n; ++v) {
    std::vector<Cost> costs;
    std::vector<Usage> usages;
    for (size_t s = 0; s < gen.strategies[v].size(); ++s) {
      const bool allowed = gen.forced[v] < 0 || gen.forced[v] == static_cast<int32_t>(s);
      costs.push_back(allowed ? gen.node_costs[v][s].total_ns : kForbidden);
      usages.push_back(gen.node_costs[v][s].usage_bytes);
    }
    builder.add_node(nodes[v].lo, nodes[v].hi, costs, usages);
  }
  for (int32_t e = 0; e < static_cast<int32_t>(gen.edges.size()); ++e) {
    const EdgeInfo& edge = gen.edges[e];
    const int32_t ku = static_cast<int32_t>(gen.strategies[edge.from].size());
    const int32_t kv = static_cast<int32_t>(gen.strategies[edge.to].size());
    std::vector<Cost> matrix(static_cast<size_t>(ku) * kv);
    for (int32_t a = 0; a < ku; ++a) {
      for (int32_t b = 0; b < kv; ++b) matrix[a * kv + b] = edge_collectives(gen, e, a, b, nullptr);
    }
    builder.add_edge(edge.from, edge.to, matrix);
  }
  if (gen.model.mesh.has_memory) {
    builder.set_usage_limit(std::llround(gen.model.mesh.device_memory_GB * 1e9));
  }
  Result<Problem> problem = builder.build();
  if (!problem.is_ok()) {
    return Status(StatusCode::kInvalidInput,
                  "the generated instance is not valid (" + problem.status().message() + ")");
  }
  gen.problem = std::move(problem).value();
  return gen;
}

int64_t edge_collectives(const Generated& gen, int32_t edge, int32_t from_strategy,
                         int32_t to_strategy, std::vector<Collective>* out) {
  const EdgeInfo& info = gen.edges[edge];
  const GraphNode& from = gen.graph.nodes[info.from];
  const GraphNode& to = gen.graph.nodes[info.to];
  const Strategy& sf = gen.strategies[info.from][from_strategy];
  const Strategy& st = gen.strategies[info.to][to_strategy];
  const TensorShape shape = output_shape(from);
  const Layout produced = output_layout(from, sf);
  int64_t total = 0;
  for (int32_t k : info.operands) {
    const Layout wanted = k < 0 ? gradient_layout(to, st) : operand_layout(to, st, k);
    total += reshard(gen.costs, shape, produced, wanted,
                     k < 0 ? "gradient of " + to.name : "output of " + from.name, out);
  }
  return total;
}

std::vector<int32_t> prefer_less_memory(const Generated& gen, std::vector<int32_t> plan) {
  const Problem& p = gen.problem;
  if (static_cast<int32_t>(plan.size()) != p.num_nodes()) return plan;
  IncrementalEvaluator eval(p, std::move(plan));
  if (!eval.feasible()) return eval.solution();
  for (bool moved = true; moved;) {
    moved = false;
    for (int32_t v = 0; v < p.num_nodes(); ++v) {
      int32_t best = eval.solution()[v];
      for (int32_t s = 0; s < p.num_strategies(v); ++s) {
        const bool smaller = p.node_usage(v, s) < p.node_usage(v, best) ||
                             (p.node_usage(v, s) == p.node_usage(v, best) && s < best);
        if (!smaller || is_forbidden(p.node_cost(v, s))) continue;
        const IncrementalEvaluator::Delta d = eval.delta(v, s);
        if (d.cost == 0 && d.forbidden == 0 && (!p.has_usage_limit || d.peak <= p.usage_limit)) {
          best = s;
        }
      }
      if (best != eval.solution()[v]) {
        eval.set(v, best);
        moved = true;
      }
    }
  }
  return eval.solution();
}

std::string instance_json(const Generated& gen) {
  const Problem& p = gen.problem;
  // Written by hand: rows of integers, one node or edge per line.
  std::string text = "{\n  \"problem\": {\n    \"name\": " + nlohmann::json(p.name).dump() +
                     ",\n    \"nodes\": {\n      \"intervals\": [";
  auto row = [](std::string* out, const auto* begin, const auto* end) {
    *out += "[";
    for (const auto* it = begin; it != end; ++it) {
      *out += (it == begin ? "" : ", ") + std::to_string(*it);
    }
    *out += "]";
  };
  const int32_t n = p.num_nodes();
  for (int32_t v = 0; v < n; ++v) {
    text += (v ? ",\n        [" : "\n        [") + std::to_string(p.interval_lo[v]) + ", " +
            std::to_string(p.interval_hi[v]) + "]";
  }
  text += "\n      ],\n      \"costs\": [";
  for (int32_t v = 0; v < n; ++v) {
    text += v ? ",\n        " : "\n        ";
    const Cost* c = p.strategy_cost.data() + p.strategy_begin[v];
    row(&text, c, c + p.num_strategies(v));
  }
  text += "\n      ],\n      \"usages\": [";
  for (int32_t v = 0; v < n; ++v) {
    text += v ? ",\n        " : "\n        ";
    const Usage* u = p.strategy_usage.data() + p.strategy_begin[v];
    row(&text, u, u + p.num_strategies(v));
  }
  text += "\n      ]\n    },\n    \"edges\": {\n      \"nodes\": [";
  for (int32_t e = 0; e < p.num_edges(); ++e) {
    text += (e ? ",\n        [" : "\n        [") + std::to_string(p.edge_u[e]) + ", " +
            std::to_string(p.edge_v[e]) + "]";
  }
  text += "\n      ],\n      \"costs\": [";
  for (int32_t e = 0; e < p.num_edges(); ++e) {
    text += e ? ",\n        " : "\n        ";
    const Cost* c = p.edge_costs(e);
    row(&text, c, c + static_cast<int64_t>(p.num_strategies(p.edge_u[e])) *
                          p.num_strategies(p.edge_v[e]));
  }
  text += "\n      ]\n    }";
  if (p.has_usage_limit) text += ",\n    \"usage_limit\": " + std::to_string(p.usage_limit);
  text += "\n  }\n}\n";
  return text;
}

std::string sidecar_json(const Generated& gen) {
  nlohmann::ordered_json out;
  out["format"] = "shardlab-teach-sidecar";
  out["model"] = gen.model.name;
  out["cost_model"] = cost_model_name(gen.model.cost_model);
  out["cost_unit"] = "ns";
  out["usage_unit"] = "bytes";
  out["mesh"] = {{"shape", gen.model.mesh.shape}, {"axes", gen.model.mesh.axes}};
  nlohmann::ordered_json nodes = nlohmann::ordered_json::array();
  for (size_t v = 0; v < gen.graph.nodes.size(); ++v) {
    const GraphNode& node = gen.graph.nodes[v];
    nlohmann::ordered_json names = nlohmann::ordered_json::array();
    for (const Strategy& s : gen.strategies[v]) {
      names.push_back(strategy_name(node, s, gen.model.mesh));
    }
    nodes.push_back({{"name", node.name},
                     {"kind", node_kind_name(node.kind)},
                     {"op", node.op},
                     {"detail", node.detail},
                     {"letters", node.letters},
                     {"sizes", node.sizes},
                     {"strategies", std::move(names)}});
    if (gen.forced[v] >= 0) nodes.back()["forced"] = gen.forced[v];
  }
  out["nodes"] = std::move(nodes);
  nlohmann::ordered_json edges = nlohmann::ordered_json::array();
  for (const EdgeInfo& e : gen.edges) {
    edges.push_back({{"from", e.from}, {"to", e.to}, {"carries", what_flows(gen, e)}});
  }
  out["edges"] = std::move(edges);
  return out.dump();
}

}  // namespace shardlab::teach
