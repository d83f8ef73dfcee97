// Turns a model into a contest instance: the training graph (graph.h), each
// node's strategies with their own cost and usage (strategies.h), one
// instance node per forward op (with its backward ops), input and parameter,
// and one edge per pair of them whose matrix prices every pair of layouts
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

// The member's strategy that follows the lead's: the same axis on the same
// letter (the member's letters are among the lead's), or replicated.
Result<int32_t> follow(const Generated& gen, int32_t lead, int32_t member, int32_t s) {
  if (member == lead) return s;
  const GraphNode& l = gen.graph.nodes[lead];
  const GraphNode& m = gen.graph.nodes[member];
  Strategy want;
  if (m.kind == NodeKind::kGradSum) want.partial = gen.strategies[lead][s].partial;
  // A member defers where it reduces at all; elsewhere deferring means nothing.
  if (gen.strategies[lead][s].defer) {
    Strategy plain = want;
    for (int8_t letter : gen.strategies[lead][s].axis_letter) {
      plain.axis_letter.push_back(
          letter < 0 ? int8_t{-1} : static_cast<int8_t>(m.letter_index(l.letters[letter])));
    }
    want.defer = reduces_partial_sums(m, plain, gen.model.mesh);
  }
  for (int8_t letter : gen.strategies[lead][s].axis_letter) {
    want.axis_letter.push_back(letter < 0 ? int8_t{-1}
                                          : static_cast<int8_t>(m.letter_index(l.letters[letter])));
  }
  const std::vector<Strategy>& list = gen.strategies[member];
  for (size_t i = 0; i < list.size(); ++i) {
    if (list[i] == want) return static_cast<int32_t>(i);
  }
  return Status(StatusCode::kInternal, "no strategy of " + m.name + " follows " + l.name);
}

// Sums of nanoseconds that stop at kForbidden instead of wrapping.
int64_t add_capped(int64_t a, int64_t b) { return a >= kForbidden - b ? kForbidden : a + b; }

// Keeps the strategies that split every pinned letter the node has on its
// axis (and put nothing else there).
Status apply_pins(const GraphNode& node, const std::vector<std::pair<char, int32_t>>& pins,
                  const MeshSpec& mesh, std::vector<Strategy>* list) {
  std::vector<Strategy> kept;
  for (const Strategy& s : *list) {
    bool ok = true;
    for (const auto& [letter, axis] : pins) {
      const int32_t l = node.letter_index(letter);
      if (l >= 0 && s.axis_letter[axis] != l) ok = false;
    }
    if (ok) kept.push_back(s);
  }
  if (kept.empty()) {
    return Status(StatusCode::kInvalidArgument,
                  "no strategy of " + node.name + " splits its pinned letters on their axes (a " +
                      "split must divide the letter's size; mesh axis sizes " +
                      std::to_string(mesh.devices()) + " devices in all)");
  }
  *list = std::move(kept);
  return Status::ok();
}

}  // namespace

Phase link_phase(const Generated& gen, const Link& link) {
  if (link.operand == kGradientLink) return Phase::kWeightGrad;
  if (link.operand == kCarryGradient) return Phase::kInputGrad;
  return gen.graph.nodes[link.to].phase();
}

std::vector<int32_t> Generated::node_plan(const std::vector<int32_t>& plan) const {
  std::vector<int32_t> out(graph.nodes.size(), 0);
  for (size_t v = 0; v < graph.nodes.size(); ++v) out[v] = member_strategy[v][plan[group_of[v]]];
  return out;
}

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
  gen.group_of.assign(n, -1);
  for (const auto& [letter, axis] : options.pinned_letters) {
    if (axis < 0 || axis >= gen.model.mesh.rank()) {
      return Status(StatusCode::kInvalidArgument,
                    "pinned letter '" + std::string(1, letter) + "' on a mesh axis that is not");
    }
  }
  for (int32_t v = 0; v < n; ++v) {
    gen.strategies[v] = enumerate_strategies(nodes[v], gen.model);
    // A shared output is a re-partitioned copy for its readers: not pinned.
    if (!options.pinned_letters.empty() && nodes[v].lead == v &&
        nodes[v].kind != NodeKind::kShared) {
      Status pinned =
          apply_pins(nodes[v], options.pinned_letters, gen.model.mesh, &gen.strategies[v]);
      if (!pinned.is_ok()) return pinned;
    }
    for (const Strategy& s : gen.strategies[v]) {
      gen.node_costs[v].push_back(node_cost(nodes[v], s, gen.model, gen.costs));
    }
    if (nodes[v].lead == v) {
      gen.group_of[v] = static_cast<int32_t>(gen.groups.size());
      gen.groups.push_back({v});
    }
  }
  for (int32_t v = 0; v < n; ++v) {
    if (nodes[v].lead == v) continue;
    gen.group_of[v] = gen.group_of[nodes[v].lead];
    gen.groups[gen.group_of[v]].push_back(v);
  }
  // Deferred reductions (strategies.h), for models that name their sequence
  // letter (sequence parallelism is what they are for, and they add a
  // quarter to the strategies): members may defer under any of their
  // strategies; a lead offers it, after its other strategies (so that ties
  // keep the textbook's reading), where some member of its group would
  // all-reduce partial sums.
  const MeshSpec& mesh = gen.model.mesh;
  const bool defer = gen.model.sequence != 0;
  for (int32_t v = 0; v < n && defer; ++v) {
    if (nodes[v].lead == v) continue;
    const size_t count = gen.strategies[v].size();
    for (size_t s = 0; s < count; ++s) {
      if (!reduces_partial_sums(nodes[v], gen.strategies[v][s], mesh)) continue;
      Strategy d = gen.strategies[v][s];
      d.defer = true;
      gen.strategies[v].push_back(d);
      gen.node_costs[v].push_back(node_cost(nodes[v], d, gen.model, gen.costs));
    }
  }
  for (const std::vector<int32_t>& group : gen.groups) {
    if (!defer) break;
    const int32_t lead = group[0];
    const size_t count = gen.strategies[lead].size();
    for (size_t s = 0; s < count; ++s) {
      bool reduces = false;
      for (int32_t v : group) {
        if (reduces) break;
        if (v == lead) {
          reduces = reduces_partial_sums(nodes[v], gen.strategies[v][s], mesh);
          continue;
        }
        Result<int32_t> follows = follow(gen, lead, v, static_cast<int32_t>(s));
        if (!follows.is_ok()) return follows.status();
        reduces = reduces_partial_sums(nodes[v], gen.strategies[v][follows.value()], mesh);
      }
      if (!reduces) continue;
      Strategy d = gen.strategies[lead][s];
      d.defer = true;
      gen.strategies[lead].push_back(d);
      gen.node_costs[lead].push_back(node_cost(nodes[lead], d, gen.model, gen.costs));
    }
  }
  gen.member_strategy.resize(n);
  for (int32_t v = 0; v < n; ++v) {
    const int32_t lead = nodes[v].lead;
    for (size_t s = 0; s < gen.strategies[lead].size(); ++s) {
      Result<int32_t> follows = follow(gen, lead, v, static_cast<int32_t>(s));
      if (!follows.is_ok()) return follows.status();
      gen.member_strategy[v].push_back(follows.value());
    }
  }
  const int32_t groups = static_cast<int32_t>(gen.groups.size());
  gen.forced.assign(groups, -1);
  // Times of 10^18 ns and more are the contest format's "forbidden": a model
  // that large is refused rather than silently given forbidden choices.
  const auto too_costly = [](const std::string& where) {
    return Status(StatusCode::kInvalidInput, "the model is too large to price: a cost of " + where +
                                                 " reaches 10^18 ns (the instance format's limit)");
  };
  for (const auto& [name, text] : options.forces) {
    int32_t g = 0;
    while (g < groups && nodes[gen.groups[g][0]].name != name) ++g;
    if (g == groups) {
      std::string names;
      for (const std::vector<int32_t>& group : gen.groups) {
        names += (names.empty() ? "" : ", ") + nodes[group[0]].name;
      }
      return Status(StatusCode::kInvalidArgument,
                    "--force '" + name + "=" + text + "': no op, input or parameter '" + name +
                        "' (backward ops follow their forward op); the choices are " + names);
    }
    const int32_t lead = gen.groups[g][0];
    Result<int32_t> s = find_strategy(nodes[lead], gen.strategies[lead], text, gen.model.mesh);
    if (!s.is_ok()) return Status(StatusCode::kInvalidArgument, "--force " + s.status().message());
    gen.forced[g] = s.value();
  }

  // Links: every operand and every gradient into a parameter. A consumer
  // group reads a non-parameter output once per layout: its backward ops use
  // the copy its forward op re-partitioned.
  gen.internal_links.resize(groups);
  std::map<std::pair<int32_t, int32_t>, int32_t> edge_of;
  std::map<std::pair<int32_t, std::pair<int32_t, std::string>>, bool> seen;
  auto add_link = [&](const Link& link) {
    const int32_t gu = gen.group_of[link.from];
    const int32_t gv = gen.group_of[link.to];
    if (gu == gv) {
      gen.internal_links[gu].push_back(link);
      return;
    }
    // One edge per pair of groups, whichever way its links run.
    const auto key = std::make_pair(std::min(gu, gv), std::max(gu, gv));
    const auto [it, fresh] = edge_of.emplace(key, static_cast<int32_t>(gen.edges.size()));
    if (fresh) gen.edges.push_back({key.first, key.second, {}});
    gen.edges[it->second].links.push_back(link);
  };
  for (int32_t v = 0; v < n; ++v) {
    for (size_t k = 0; k < nodes[v].operands.size(); ++k) {
      const Operand& o = nodes[v].operands[k];
      if (nodes[o.node].kind != NodeKind::kParameter) {
        const auto key = std::make_pair(gen.group_of[v], std::make_pair(o.node, o.letters));
        if (!seen.emplace(key, true).second) continue;
      }
      add_link({o.node, v, static_cast<int32_t>(k)});
    }
    for (int32_t g : nodes[v].gradients) add_link({g, v, kGradientLink});
  }
  // A repeated block: its output becomes the next repetition's input, in the
  // layout the block reads it, and that input's gradient goes back.
  const RepeatSpec& repeat = gen.model.repeat;
  if (repeat.present() && repeat.times > 1) {
    const int32_t last = gen.graph.forward_of_op[repeat.last];
    const int32_t input = gen.graph.holder_of_tensor[repeat.input];
    if (input >= 0 && gen.group_of[last] != gen.group_of[input]) {
      add_link({last, input, kCarry});
      if (gen.model.training) add_link({input, last, kCarryGradient});
    }
  }

  // A parameter's strategy that splits it on every axis the options name.
  const auto shards_all = [&](int32_t v, const Strategy& st) {
    for (int32_t a : options.sharded_parameter_axes) {
      if (a < 0 || a >= gen.model.mesh.rank()) return false;
      if (gen.model.mesh.shape[a] > 1 && st.axis_letter[a] < 0) return false;
    }
    return nodes[v].kind == NodeKind::kParameter;
  };
  ProblemBuilder builder;
  builder.problem.name = gen.model.name;
  for (int32_t g = 0; g < groups; ++g) {
    const int32_t lead = gen.groups[g][0];
    std::vector<Cost> costs;
    std::vector<Usage> usages;
    bool any_sharded = false;
    for (size_t s = 0; s < gen.strategies[lead].size() && !any_sharded; ++s) {
      any_sharded = nodes[lead].kind == NodeKind::kParameter &&
                    !options.sharded_parameter_axes.empty() &&
                    shards_all(lead, gen.strategies[lead][s]);
    }
    for (size_t s = 0; s < gen.strategies[lead].size(); ++s) {
      int64_t cost = 0;
      for (int32_t v : gen.groups[g]) {
        cost = add_capped(cost, gen.node_costs[v][gen.member_strategy[v][s]].total_ns);
      }
      for (const Link& link : gen.internal_links[g]) {
        cost = add_capped(cost, link_collectives(gen, link, gen.member_strategy[link.from][s],
                                                 gen.member_strategy[link.to][s], nullptr));
      }
      const bool allowed = (gen.forced[g] < 0 || gen.forced[g] == static_cast<int32_t>(s)) &&
                           (!any_sharded || shards_all(lead, gen.strategies[lead][s]));
      if (allowed && cost >= kForbidden) return too_costly(nodes[lead].name);
      costs.push_back(allowed ? cost : kForbidden);
      usages.push_back(gen.node_costs[lead][s].usage_bytes);
    }
    // The op's output lives from its forward to its last use in the backward.
    builder.add_node(nodes[lead].lo, nodes[lead].hi, costs, usages);
  }
  for (const EdgeInfo& edge : gen.edges) {
    const int32_t lu = gen.groups[edge.from][0];
    const int32_t lv = gen.groups[edge.to][0];
    const int32_t ku = static_cast<int32_t>(gen.strategies[lu].size());
    const int32_t kv = static_cast<int32_t>(gen.strategies[lv].size());
    std::vector<Cost> matrix(static_cast<size_t>(ku) * kv, 0);
    std::vector<Cost> priced;  // per pair of member strategies: many lead pairs share one
    std::vector<Layout> have, want;
    for (const Link& link : edge.links) {
      const size_t members_to = gen.strategies[link.to].size();
      priced.assign(gen.strategies[link.from].size() * members_to, -1);
      have.assign(gen.strategies[link.from].size(), Layout());
      want.assign(members_to, Layout());
      const TensorShape shape = output_shape(nodes[link.from]);
      for (int32_t a = 0; a < ku; ++a) {
        for (int32_t b = 0; b < kv; ++b) {
          // Each link runs from a member of one group to a member of the other.
          const bool forward = gen.group_of[link.from] == edge.from;
          const int32_t sf = gen.member_strategy[link.from][forward ? a : b];
          const int32_t st = gen.member_strategy[link.to][forward ? b : a];
          Cost& known = priced[sf * members_to + st];
          if (known < 0) {
            if (have[sf].empty()) have[sf] = link_source_layout(gen, link, sf);
            if (want[st].empty()) want[st] = link_target_layout(gen, link, st);
            known = reshard(gen.costs, shape, have[sf], want[st], std::string(), nullptr);
          }
          Cost& entry = matrix[a * kv + b];
          entry = add_capped(entry, known);
          if (entry >= kForbidden) {
            return too_costly(nodes[link.from].name + " -> " + nodes[link.to].name);
          }
        }
      }
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

Layout link_source_layout(const Generated& gen, const Link& link, int32_t from_strategy) {
  return output_layout(gen.graph.nodes[link.from], gen.strategies[link.from][from_strategy]);
}

Layout link_target_layout(const Generated& gen, const Link& link, int32_t to_strategy) {
  const GraphNode& to = gen.graph.nodes[link.to];
  const Strategy& st = gen.strategies[link.to][to_strategy];
  return link.operand == kGradientLink ? gradient_layout(to, st)
         : link.operand < 0            ? output_layout(to, st)
                                       : operand_layout(to, st, link.operand);
}

int64_t link_collectives(const Generated& gen, const Link& link, int32_t from_strategy,
                         int32_t to_strategy, std::vector<Collective>* out) {
  const GraphNode& from = gen.graph.nodes[link.from];
  const GraphNode& to = gen.graph.nodes[link.to];
  const Layout wanted = link_target_layout(gen, link, to_strategy);
  // Names are only built for explanations, not for the generator's matrices.
  const std::string what =
      !out                             ? std::string()
      : link.operand == kGradientLink  ? "gradient of " + to.name
      : link.operand == kCarry         ? "output of " + from.name + " into the next repetition"
      : link.operand == kCarryGradient ? "gradient of " + from.name + " from the next repetition"
                                       : "output of " + from.name;
  return reshard(gen.costs, output_shape(from), link_source_layout(gen, link, from_strategy),
                 wanted, what, out);
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
    row(&text, c,
        c + static_cast<int64_t>(p.num_strategies(p.edge_u[e])) * p.num_strategies(p.edge_v[e]));
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
  for (size_t g = 0; g < gen.groups.size(); ++g) {
    const int32_t lead = gen.groups[g][0];
    const GraphNode& node = gen.graph.nodes[lead];
    nlohmann::ordered_json names = nlohmann::ordered_json::array();
    for (const Strategy& s : gen.strategies[lead]) {
      names.push_back(strategy_name(node, s, gen.model.mesh));
    }
    nlohmann::ordered_json members = nlohmann::ordered_json::array();
    for (int32_t v : gen.groups[g]) members.push_back(gen.graph.nodes[v].name);
    nodes.push_back({{"name", node.name},
                     {"kind", node_kind_name(node.kind)},
                     {"detail", node.detail},
                     {"letters", node.letters},
                     {"sizes", node.sizes},
                     {"members", std::move(members)},
                     {"strategies", std::move(names)}});
    if (gen.forced[g] >= 0) nodes.back()["forced"] = gen.forced[g];
  }
  out["nodes"] = std::move(nodes);
  nlohmann::ordered_json edges = nlohmann::ordered_json::array();
  for (const EdgeInfo& e : gen.edges) {
    nlohmann::ordered_json carries = nlohmann::ordered_json::array();
    for (const Link& link : e.links) {
      const std::string& from = gen.graph.nodes[link.from].name;
      const std::string& to = gen.graph.nodes[link.to].name;
      carries.push_back(link.operand == kGradientLink ? "gradient of " + to
                        : link.operand == kCarry      ? from + " -> " + to + " (next repetition)"
                        : link.operand == kCarryGradient
                            ? "gradient " + from + " -> " + to + " (from the next repetition)"
                            : from + " -> " + to);
    }
    edges.push_back({{"from", e.from}, {"to", e.to}, {"carries", std::move(carries)}});
  }
  out["edges"] = std::move(edges);
  return out.dump();
}

}  // namespace shardlab::teach
