// Explanations of a plan (explain.h): the collectives of every node and edge
// recomputed from the model, the breakdown that adds up to the instance's
// cost, the peak from the sharding evaluator, JAX PartitionSpecs, ZeRO's
// table, and the JSON and text reports built from them.
#include "core/teach/explain.h"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "core/sharding/evaluate.h"
#include "core/teach/jax_export.h"

namespace shardlab::teach {
namespace {

using Json = nlohmann::ordered_json;

const char* pass_of(Phase phase) {
  switch (phase) {
    case Phase::kForward:
      return "forward";
    case Phase::kOptimizer:
      return "optimizer";
    default:
      return "backward";
  }
}

std::string fixed(double value, int digits) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", digits, value);
  return text;
}

std::string human_bytes(int64_t bytes) {
  const double b = static_cast<double>(bytes);
  if (b >= 1e9) return fixed(b / 1e9, 2) + " GB";
  if (b >= 1e6) return fixed(b / 1e6, 2) + " MB";
  if (b >= 1e3) return fixed(b / 1e3, 1) + " kB";
  return std::to_string(bytes) + " B";
}

std::string human_ns(int64_t ns) {
  const double t = static_cast<double>(ns);
  if (t >= 1e6) return fixed(t / 1e6, 3) + " ms";
  if (t >= 1e3) return fixed(t / 1e3, 1) + " us";
  return std::to_string(ns) + " ns";
}

std::vector<int32_t> axes_on(const Strategy& s, int32_t letter) {
  std::vector<int32_t> axes;
  for (size_t a = 0; a < s.axis_letter.size(); ++a) {
    if (s.axis_letter[a] == letter) axes.push_back(static_cast<int32_t>(a));
  }
  return axes;
}

Json dims_json(const Generated& gen, int32_t v, int32_t strategy) {
  const GraphNode& node = gen.graph.nodes[v];
  const Strategy& s = gen.strategies[v][strategy];
  Json dims = Json::object();
  for (size_t l = 0; l < node.letters.size(); ++l) {
    const std::vector<int32_t> axes = axes_on(s, static_cast<int32_t>(l));
    const std::string key(1, node.letters[l]);
    if (axes.empty()) {
      dims[key] = nullptr;
    } else if (axes.size() == 1) {
      dims[key] = gen.model.mesh.axes[axes[0]];
    } else {
      Json list = Json::array();
      for (int32_t a : axes) list.push_back(gen.model.mesh.axes[a]);
      dims[key] = list;
    }
  }
  return dims;
}

// One axis by name, a group as an array of names.
Json axis_json(const MeshSpec& mesh, const std::vector<int32_t>& axes) {
  if (axes.size() == 1) return mesh.axes[axes[0]];
  Json list = Json::array();
  for (int32_t a : axes) list.push_back(mesh.axes[a]);
  return list;
}

std::string axes_text(const MeshSpec& mesh, const std::vector<int32_t>& axes) {
  std::string text;
  for (int32_t a : axes) text += (text.empty() ? "" : "+") + mesh.axes[a];
  return text;
}

Json collective_json(const Generated& gen, const PlacedCollective& p) {
  return Json{{"kind", collective_name(p.collective.kind)},
              {"axis", axis_json(gen.model.mesh, p.collective.axes)},
              {"bytes", p.collective.bytes},
              {"ns", p.collective.ns},
              {"what", p.collective.what},
              {"on", p.on},
              {"pass", p.pass},
              {"phase", phase_name(p.phase)}};
}

std::string spec_entry(const std::vector<int32_t>& axes, const MeshSpec& mesh) {
  if (axes.empty()) return "None";
  if (axes.size() == 1) return "'" + mesh.axes[axes[0]] + "'";
  std::string text = "(";
  for (size_t i = 0; i < axes.size(); ++i) text += (i ? ", '" : "'") + mesh.axes[axes[i]] + "'";
  return text + ")";
}

}  // namespace

std::string partition_spec(const Generated& gen, int32_t v, int32_t strategy) {
  const GraphNode& node = gen.graph.nodes[v];
  const Strategy& s = gen.strategies[v][strategy];
  const MeshSpec& mesh = gen.model.mesh;
  const Layout layout = output_layout(node, s);
  const TensorShape shape = output_shape(node);
  std::vector<std::vector<int32_t>> per_dim(shape.dims.size());
  std::vector<int32_t> flat;
  for (int32_t a = 0; a < mesh.rank(); ++a) {
    if (layout[a] >= 0) per_dim[layout[a]].push_back(a);
    if (layout[a] == kFlat) flat.push_back(a);
  }
  if (!flat.empty()) {
    // FSDP's way of writing ZeRO-3: the largest dimension the shards divide.
    int64_t ways = 1;
    for (int32_t a : flat) ways *= mesh.shape[a];
    int32_t best = -1;
    for (size_t d = 0; d < shape.dims.size(); ++d) {
      int64_t split = ways;
      for (int32_t a : per_dim[d]) split *= mesh.shape[a];
      if (shape.dims[d] % split == 0 && (best < 0 || shape.dims[d] > shape.dims[best])) {
        best = static_cast<int32_t>(d);
      }
    }
    if (best >= 0) {
      per_dim[best].insert(per_dim[best].end(), flat.begin(), flat.end());
      std::sort(per_dim[best].begin(), per_dim[best].end());
    }
  }
  std::string text = "P(";
  for (size_t d = 0; d < per_dim.size(); ++d) {
    text += (d ? ", " : "") + spec_entry(per_dim[d], mesh);
  }
  return text + ")";
}

Result<Explanation> explain(const Generated& gen, const std::vector<int32_t>& plan) {
  const std::vector<GraphNode>& nodes = gen.graph.nodes;
  const int32_t groups = static_cast<int32_t>(gen.groups.size());
  if (static_cast<int32_t>(plan.size()) != groups) {
    return Status(StatusCode::kInvalidInput, "the plan has " + std::to_string(plan.size()) +
                                                 " entries but the instance has " +
                                                 std::to_string(groups) + " nodes");
  }
  for (int32_t g = 0; g < groups; ++g) {
    const size_t k = gen.strategies[gen.groups[g][0]].size();
    if (plan[g] < 0 || plan[g] >= static_cast<int32_t>(k)) {
      return Status(StatusCode::kInvalidInput,
                    "node " + std::to_string(g) + " (" + nodes[gen.groups[g][0]].name +
                        ") has strategy " + std::to_string(plan[g]) + " but only " +
                        std::to_string(k) + " strategies");
    }
  }
  Explanation x;
  x.plan = plan;
  x.node_plan = gen.node_plan(plan);
  const std::vector<int32_t>& np = x.node_plan;
  const int32_t n = static_cast<int32_t>(nodes.size());
  for (int32_t v = 0; v < n; ++v) {
    x.strategy_names.push_back(strategy_name(nodes[v], gen.strategies[v][np[v]], gen.model.mesh));
    const NodeCost& cost = gen.node_costs[v][np[v]];
    const Phase phase = nodes[v].phase();
    x.compute_ns += cost.compute_ns;
    x.phases[static_cast<int>(phase)].compute_ns += cost.compute_ns;
    for (const Collective& c : cost.collectives) {
      x.collectives.push_back({c, "op " + nodes[v].name, pass_of(phase), phase});
      x.op_collective_ns += c.ns;
      x.phases[static_cast<int>(phase)].collective_ns += c.ns;
    }
  }
  auto add_links = [&](const std::vector<Link>& links) {
    for (const Link& link : links) {
      std::vector<Collective> list;
      const Phase phase = link_phase(gen, link);
      const int64_t ns = link_collectives(gen, link, np[link.from], np[link.to], &list);
      x.edge_collective_ns += ns;
      x.phases[static_cast<int>(phase)].collective_ns += ns;
      for (Collective& c : list) {
        x.collectives.push_back({std::move(c),
                                 "edge " + nodes[link.from].name + " -> " + nodes[link.to].name,
                                 pass_of(phase), phase});
      }
    }
  };
  for (const EdgeInfo& edge : gen.edges) add_links(edge.links);
  for (const std::vector<Link>& links : gen.internal_links) add_links(links);
  x.total_ns = x.compute_ns + x.op_collective_ns + x.edge_collective_ns;
  const Evaluation check = evaluate(gen.problem, plan);
  x.peak_bytes = static_cast<int64_t>(check.peak_usage);
  x.peak_time = check.peak_time;
  for (int32_t v = 0; v < n; ++v) {
    if (nodes[v].kind == NodeKind::kParameter) {
      x.parameter_bytes_at_peak += gen.node_costs[v][np[v]].usage_bytes;
    }
  }
  x.axes = name_axes(gen, np, x.collectives);
  x.textbook = textbook_name(x.axes);

  const ModelSpec& m = gen.model;
  x.zero_ways = m.mesh.devices();
  for (const GraphNode& node : nodes) {
    if (node.kind != NodeKind::kParameter) continue;
    int64_t elements = 1;
    for (int64_t d : node.sizes) elements *= d;
    x.parameters += elements;
  }
  if (m.training) {
    const int64_t p = x.parameters;
    const int64_t w = m.dtype_bytes;
    const int64_t o = m.optimizer_state_bytes;
    const int64_t nn = x.zero_ways;
    const int64_t formula[] = {(2 * w + o) * p, 2 * w * p + (o * p + nn - 1) / nn,
                               w * p + ((w + o) * p + nn - 1) / nn,
                               ((2 * w + o) * p + nn - 1) / nn};
    for (int32_t stage = 0; stage <= 3; ++stage) {
      ZeroRow row;
      row.stage = stage;
      row.formula_bytes = formula[stage];
      for (const GraphNode& node : nodes) {
        if (node.kind != NodeKind::kParameter) continue;
        int64_t elements = 1;
        for (int64_t d : node.sizes) elements *= d;
        row.generator_bytes +=
            parameter_bytes(elements, 1, stage ? nn : 1, stage, m, node.dtype_bytes);
      }
      x.zero_table.push_back(row);
    }
  }
  return x;
}

std::string explanation_json(const Generated& gen, const Explanation& x,
                             const SolveSummary& solve) {
  const std::vector<GraphNode>& nodes = gen.graph.nodes;
  const MeshSpec& mesh = gen.model.mesh;
  Json out;
  out["model"] = gen.model.name;
  out["mesh"] = {{"shape", mesh.shape}, {"axes", mesh.axes}};
  out["training"] = gen.model.training;
  out["cost_model"] = cost_model_name(gen.model.cost_model);
  out["cost_unit"] = "ns";
  out["usage_unit"] = "bytes";
  out["instance"] = {{"nodes", gen.problem.num_nodes()},
                     {"edges", gen.problem.num_edges()},
                     {"strategies", gen.problem.total_strategies()}};
  if (solve.found) {
    out["cost"] = solve.cost;
    out["lower_bound"] = solve.lower_bound;
    out["proven_optimal"] = solve.proven_optimal;
    out["seconds"] = solve.seconds;
  }
  out["plan"] = x.plan;
  out["breakdown"] = {{"compute_ns", x.compute_ns},
                      {"op_collectives_ns", x.op_collective_ns},
                      {"edge_collectives_ns", x.edge_collective_ns},
                      {"total_ns", x.total_ns}};
  Json phases = Json::object();
  for (Phase p : {Phase::kForward, Phase::kInputGrad, Phase::kWeightGrad, Phase::kOptimizer}) {
    const PhaseTime& t = x.phases[static_cast<int>(p)];
    phases[phase_name(p)] = {{"compute_ns", t.compute_ns}, {"collectives_ns", t.collective_ns}};
  }
  out["phases"] = std::move(phases);
  const RepeatSpec& repeat = gen.model.repeat;
  if (repeat.present()) {
    out["repeat"] = {{"first", gen.model.ops[repeat.first].name},
                     {"last", gen.model.ops[repeat.last].name},
                     {"input", gen.model.tensors[repeat.input].name},
                     {"times", repeat.times},
                     {"solved", "one repetition"}};
  }
  out["peak_bytes_per_device"] = x.peak_bytes;
  out["peak_time"] = x.peak_time;
  out["parameter_bytes_per_device"] = x.parameter_bytes_at_peak;
  if (gen.problem.has_usage_limit) {
    out["memory_limit_bytes"] = gen.problem.usage_limit;
  } else {
    out["memory_limit_bytes"] = nullptr;
  }
  out["textbook"] = x.textbook;
  Json axes = Json::object();
  for (int32_t a = 0; a < mesh.rank(); ++a) {
    axes[mesh.axes[a]] = {{"role", x.axes[a].key}, {"text", x.axes[a].text}};
  }
  out["axes"] = axes;

  // Collectives by the node they belong to: its own, and those on its
  // incoming edges (re-partitioning its inputs, or reducing its gradient).
  std::vector<Json> node_collectives(nodes.size(), Json::array());
  for (const PlacedCollective& p : x.collectives) {
    const std::string& on = p.on;
    const size_t arrow = on.find(" -> ");
    const std::string target = arrow == std::string::npos ? on.substr(3) : on.substr(arrow + 4);
    for (size_t v = 0; v < nodes.size(); ++v) {
      if (nodes[v].name == target) node_collectives[v].push_back(collective_json(gen, p));
    }
  }
  Json ops = Json::object();
  Json backward = Json::object();
  Json parameters = Json::object();
  Json inputs = Json::object();
  Json specs = Json::object();
  for (size_t v = 0; v < nodes.size(); ++v) {
    const GraphNode& node = nodes[v];
    const int32_t s = x.node_plan[v];
    const NodeCost& cost = gen.node_costs[v][s];
    Json entry = {
        {"strategy", x.strategy_names[v]}, {"dims", dims_json(gen, static_cast<int32_t>(v), s)},
        {"detail", node.detail},           {"compute_ns", cost.compute_ns},
        {"usage_bytes", cost.usage_bytes}, {"collectives", node_collectives[v]}};
    if (gen.forced[gen.group_of[v]] >= 0 && node.lead == static_cast<int32_t>(v)) {
      entry["forced"] = true;
    }
    switch (node.kind) {
      case NodeKind::kForward:
        specs[node.name] = partition_spec(gen, static_cast<int32_t>(v), s);
        ops[node.name] = std::move(entry);
        break;
      case NodeKind::kParameter:
        entry["zero_stage"] = zero_stage(gen, x.node_plan, static_cast<int32_t>(v));
        entry["partition_spec"] = partition_spec(gen, static_cast<int32_t>(v), s);
        specs[node.name] = entry["partition_spec"];
        parameters[node.name] = std::move(entry);
        break;
      case NodeKind::kInput:
        entry["partition_spec"] = partition_spec(gen, static_cast<int32_t>(v), s);
        specs[node.name] = entry["partition_spec"];
        inputs[node.name] = std::move(entry);
        break;
      default:
        entry["kind"] = node_kind_name(node.kind);
        backward[node.name] = std::move(entry);
    }
  }
  out["ops"] = std::move(ops);
  out["backward"] = std::move(backward);
  out["parameters"] = std::move(parameters);
  out["inputs"] = std::move(inputs);
  Json all = Json::array();
  for (const PlacedCollective& p : x.collectives) all.push_back(collective_json(gen, p));
  out["collectives"] = std::move(all);
  out["partition_specs"] = std::move(specs);
  out["jax"] = jax_script(gen, x, solve);
  if (!x.zero_table.empty()) {
    Json table = Json::array();
    for (const ZeroRow& row : x.zero_table) {
      table.push_back({{"stage", row.stage},
                       {"generator_bytes", row.generator_bytes},
                       {"formula_bytes", row.formula_bytes}});
    }
    out["zero_table"] = {
        {"parameters", x.parameters}, {"devices", x.zero_ways}, {"rows", std::move(table)}};
  }
  if (solve.has_unforced) {
    Json forced = Json::object();
    for (size_t v = 0; v < nodes.size(); ++v) {
      if (gen.forced[gen.group_of[v]] >= 0 && nodes[v].lead == static_cast<int32_t>(v)) {
        forced[nodes[v].name] = x.strategy_names[v];
      }
    }
    out["force"] = {{"forced", std::move(forced)},
                    {"free_cost", solve.unforced_cost},
                    {"free_lower_bound", solve.unforced_bound},
                    {"free_proven_optimal", solve.unforced_proven},
                    {"difference", solve.cost - solve.unforced_cost}};
  }
  return out.dump();
}

std::string explanation_text(const Generated& gen, const Explanation& x,
                             const SolveSummary& solve) {
  const std::vector<GraphNode>& nodes = gen.graph.nodes;
  const MeshSpec& mesh = gen.model.mesh;
  std::string text;
  auto line = [&](const std::string& s) { text += s + "\n"; };
  size_t width = 4;
  for (const GraphNode& node : nodes) width = std::max(width, node.name.size());
  auto pad = [](std::string s, size_t w) {
    s.resize(std::max(s.size(), w), ' ');
    return s;
  };
  line(pad("node", width) + "  " + pad("pass", 10) + pad("strategy", 18) + "collectives it pays");
  for (size_t v = 0; v < nodes.size(); ++v) {
    const GraphNode& node = nodes[v];
    std::string paid;
    for (const PlacedCollective& p : x.collectives) {
      const size_t arrow = p.on.find(" -> ");
      const std::string target =
          arrow == std::string::npos ? p.on.substr(3) : p.on.substr(arrow + 4);
      if (target != node.name) continue;
      paid += (paid.empty() ? "" : "; ") + std::string(collective_name(p.collective.kind)) +
              " on " + axes_text(mesh, p.collective.axes) + " of " +
              human_bytes(p.collective.bytes) + " (" + p.collective.what + ", " +
              human_ns(p.collective.ns) + ")";
    }
    line(pad(node.name, width) + "  " + pad(pass_of(node.phase()), 10) +
         pad(x.strategy_names[v] +
                 (gen.forced[gen.group_of[v]] >= 0 && node.lead == static_cast<int32_t>(v)
                      ? " (forced)"
                      : ""),
             18) +
         (paid.empty() ? "-" : paid));
  }
  line("");
  line("cost " + human_ns(x.total_ns) + " = compute " + human_ns(x.compute_ns) +
       " + op collectives " + human_ns(x.op_collective_ns) + " + edge collectives " +
       human_ns(x.edge_collective_ns));
  if (solve.found) {
    line("solver: cost " + std::to_string(solve.cost) + " ns, lower bound " +
         std::to_string(solve.lower_bound) + " ns" +
         (solve.proven_optimal ? " (proven optimal" : " (not proven optimal") + " in " +
         fixed(solve.seconds, 3) + " s)");
  }
  if (solve.has_unforced) {
    line("without the forced strategies: cost " + std::to_string(solve.unforced_cost) +
         " ns, lower bound " + std::to_string(solve.unforced_bound) + " ns; forcing costs " +
         std::to_string(solve.cost - solve.unforced_cost) + " ns more");
  }
  const RepeatSpec& repeat = gen.model.repeat;
  if (repeat.present()) {
    line("the block " + gen.model.ops[repeat.first].name + " .. " +
         gen.model.ops[repeat.last].name + " repeats " + std::to_string(repeat.times) +
         " times; this is one repetition's layout and cost (with the re-partitioning into the next "
         "repetition's input)");
  }
  line("peak memory per device " + human_bytes(x.peak_bytes) + " at step " +
       std::to_string(x.peak_time) + " (parameter state " + human_bytes(x.parameter_bytes_at_peak) +
       ")" +
       (gen.problem.has_usage_limit ? ", limit " + human_bytes(gen.problem.usage_limit) : ""));
  line("textbook: " +
       (x.textbook.empty() ? std::string("no textbook strategy (mixed)") : x.textbook));
  std::string specs;
  for (size_t v = 0; v < nodes.size(); ++v) {
    const NodeKind k = nodes[v].kind;
    if (k != NodeKind::kInput && k != NodeKind::kParameter && k != NodeKind::kForward) continue;
    specs += (specs.empty() ? "" : ", ") + nodes[v].name + "=" +
             partition_spec(gen, static_cast<int32_t>(v), x.node_plan[v]);
  }
  line("JAX PartitionSpecs: " + specs);
  if (!x.zero_table.empty()) {
    line("ZeRO memory table for " + std::to_string(x.parameters) + " parameters on " +
         std::to_string(x.zero_ways) + " devices (generator's accounting | ZeRO's formula):");
    const char* names[] = {"data parallel", "ZeRO-1", "ZeRO-2", "ZeRO-3"};
    for (const ZeroRow& row : x.zero_table) {
      line("  " + pad(names[row.stage], 14) + human_bytes(row.generator_bytes) + " | " +
           human_bytes(row.formula_bytes));
    }
  }
  return text;
}

}  // namespace shardlab::teach
