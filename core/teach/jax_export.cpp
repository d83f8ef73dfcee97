// The JAX script of a plan (jax_export.h): the mesh from jax.devices(), a
// NamedSharding per tensor with its PartitionSpec (explain.h's
// partition_spec, so the script and the report's "partition_specs" agree),
// who decided each layout, and example arrays created in their shardings
// (jit with out_shardings, so no device ever holds a whole tensor).
#include "core/teach/jax_export.h"

#include <algorithm>
#include <cstdint>

namespace shardlab::teach {
namespace {

std::string quoted(const std::string& name) { return "'" + name + "'"; }

// 1234567 -> "1,234,567".
std::string grouped(int64_t value) {
  std::string digits = std::to_string(value < 0 ? -value : value);
  for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3) digits.insert(i, ",");
  return (value < 0 ? "-" : "") + digits;
}

// The narrowest JAX dtype at least as wide as the tensor's elements.
const char* dtype_of(int32_t bytes) {
  if (bytes <= 1) return "jnp.int8";
  if (bytes == 2) return "jnp.bfloat16";
  if (bytes <= 4) return "jnp.float32";
  return "jnp.float64";
}

std::string shape_tuple(const std::vector<int64_t>& dims) {
  std::string text = "(";
  for (size_t d = 0; d < dims.size(); ++d) text += (d ? ", " : "") + std::to_string(dims[d]);
  return text + (dims.size() == 1 ? ",)" : ")");
}

bool exported(NodeKind kind) {
  return kind == NodeKind::kInput || kind == NodeKind::kParameter || kind == NodeKind::kForward;
}

}  // namespace

std::string jax_script(const Generated& gen, const Explanation& x, const SolveSummary& solve) {
  const std::vector<GraphNode>& nodes = gen.graph.nodes;
  const ModelSpec& model = gen.model;
  const MeshSpec& mesh = model.mesh;
  auto is_forced = [&](size_t v) {
    return gen.forced[gen.group_of[v]] >= 0 && nodes[v].lead == static_cast<int32_t>(v);
  };

  std::string shape_text, axes_text;
  for (int32_t a = 0; a < mesh.rank(); ++a) {
    shape_text += (a ? ", " : "") + std::to_string(mesh.shape[a]);
    axes_text += (a ? ", " : "") + quoted(mesh.axes[a]);
  }
  if (mesh.rank() == 1) axes_text += ",";
  const int64_t devices = mesh.devices();

  std::string forced_text;
  int32_t tensors = 0, forced_tensors = 0;
  for (size_t v = 0; v < nodes.size(); ++v) {
    if (is_forced(v))
      forced_text +=
          (forced_text.empty() ? "" : ", ") + nodes[v].name + " = " + x.strategy_names[v];
    if (exported(nodes[v].kind)) {
      ++tensors;
      if (is_forced(v)) ++forced_tensors;
    }
  }

  std::string out;
  auto line = [&](const std::string& s) { out += s + "\n"; };
  line("# " + model.name + " on a [" + shape_text + "] mesh (" + axes_text +
       "): the layout of every tensor, from ShardLab's teaching lab.");
  if (solve.found) {
    line("# Cost " + grouped(solve.cost) + " ns per step" +
         (solve.proven_optimal ? ", proven optimal" : ", the best found (not proven optimal)") +
         " under these choices.");
  }
  if (forced_text.empty()) {
    line("# Chosen by the solver: all " + std::to_string(tensors) + " layouts below.");
  } else {
    line("# Forced by the user: " + forced_text + ".");
    line("# The solver chose the rest (" + std::to_string(tensors - forced_tensors) + " of " +
         std::to_string(tensors) + " layouts below; each line says which).");
  }
  line("# Textbook: " +
       (x.textbook.empty() ? std::string("no textbook strategy matches (mixed)") : x.textbook) +
       ".");
  const RepeatSpec& repeat = model.repeat;
  if (repeat.present()) {
    line("# One repetition of the block " + model.ops[repeat.first].name + " .. " +
         model.ops[repeat.last].name + " (the model runs it " + std::to_string(repeat.times) +
         " times, each with its own parameters, in this layout).");
  }
  line("# It needs " + std::to_string(devices) + " devices; on one CPU run it with");
  line("#   XLA_FLAGS=--xla_force_host_platform_device_count=" + std::to_string(devices) +
       " python3 " + model.name + "_sharding.py");
  line("import functools");
  line("");
  line("import jax");
  line("import jax.numpy as jnp");
  line("import numpy as np");
  line("from jax.sharding import Mesh, NamedSharding, PartitionSpec as P");
  line("");
  line("devices = jax.devices()");
  line("if len(devices) < " + std::to_string(devices) + ":");
  line("    raise SystemExit(f'this layout needs " + std::to_string(devices) +
       " devices; JAX sees {len(devices)}')");
  line("mesh = Mesh(np.array(devices[:" + std::to_string(devices) + "]).reshape(" + shape_text +
       "), (" + axes_text + "))");
  line("");
  line("# One NamedSharding per tensor: inputs, parameters, then each op's output.");
  line("shardings = {");
  for (size_t v = 0; v < nodes.size(); ++v) {
    const GraphNode& node = nodes[v];
    if (!exported(node.kind)) continue;
    std::string what;
    if (node.kind == NodeKind::kInput) {
      what = "input";
    } else if (node.kind == NodeKind::kParameter) {
      const int32_t stage = zero_stage(gen, x.node_plan, static_cast<int32_t>(v));
      what = stage ? "parameter, ZeRO-" + std::to_string(stage) : "parameter";
    } else {
      what = node.detail;
    }
    std::string who;
    if (is_forced(v)) {
      who = "forced by the user: " + x.strategy_names[v];
    } else if (!node.pinned.empty()) {
      who = "fixed by the model: " + x.strategy_names[v];
    } else {
      who = "chosen by the solver: " + x.strategy_names[v];
    }
    line("    " + quoted(node.name) + ": NamedSharding(mesh, " +
         partition_spec(gen, static_cast<int32_t>(v), x.node_plan[v]) + "),  # " + what + "; " +
         who);
  }
  line("}");
  line("shapes = {");
  for (const GraphNode& node : nodes) {
    if (!exported(node.kind)) continue;
    const TensorShape shape = output_shape(node);
    line("    " + quoted(node.name) + ": (" + shape_tuple(shape.dims) + ", " +
         dtype_of(shape.dtype_bytes) + "),");
  }
  line("}");
  line("");
  line("# Example arrays, each created in its sharding (no device holds a whole tensor).");
  line("arrays = {");
  line("    name: jax.jit(functools.partial(jnp.zeros, shape, dtype),");
  line("                  out_shardings=shardings[name])()");
  line("    for name, (shape, dtype) in shapes.items()");
  line("}");
  line("for name, array in arrays.items():");
  line("    print(name, array.shape, array.sharding.spec)");
  return out;
}

}  // namespace shardlab::teach
