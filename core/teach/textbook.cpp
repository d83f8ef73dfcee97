// Names a plan per mesh axis after the strategy a course would call it:
// data parallelism (the batch letter split everywhere, parameters
// replicated: Krizhevsky 2014, Goyal et al. 2017), ZeRO stage k (the same
// with parameter state sharded: Rajbhandari et al. 2020), Megatron's tensor
// parallelism (a weight's output letter split, then a weight's contracted
// letter split with an all-reduce: Shoeybi et al. 2019), expert parallelism
// (the expert letter a weight shares with the tokens split, tokens moved by
// all-to-all: Lepikhin et al. 2021), and Megatron's with sequence
// parallelism (the norms and residuals split along the sequence between
// them: Korthikanti et al. 2023). Anything else is "mixed".
#include <algorithm>
#include <set>

#include "core/teach/explain.h"

namespace shardlab::teach {
namespace {

struct AxisFacts {
  bool used = false;
  bool batch_everywhere = true;     // every forward op with the batch letter splits it here
  bool batch_on_axis = false;       // some forward op splits the batch letter here
  bool other_letters = false;       // some forward op splits a non-batch letter here
  bool activation_letters = false;  // ... a letter no weight has (a sequence, say)
  // Such letters split only in norms and elementwise ops (Megatron's sequence
  // parallelism: the norm/residual region split along the sequence), and which.
  bool activation_only_pointwise = true;
  std::string pointwise_letters;
  std::vector<std::pair<char, std::vector<std::string>>> split_ops;  // letter -> ops
  bool param_used_split = false;  // a parameter split here and used split (tensor parallel)
  std::vector<std::pair<std::string, int32_t>> stages;  // parameter -> ZeRO stage here
  int32_t column = 0, row = 0;  // einsums with a weight: split letter kept / contracted
  bool expert = false;          // a weight letter shared with tokens and output is split
  bool all_to_all = false;
};

char letter_on(const GraphNode& node, const Strategy& s, int32_t axis) {
  const int8_t l = s.axis_letter[axis];
  return l < 0 ? 0 : node.letters[l];
}

// True when some op reading parameter v needs it unsplit along `axis`
// although it is stored split there: it is gathered before use (FSDP).
bool gathered_for_use(const Generated& gen, const std::vector<int32_t>& plan, int32_t v,
                      int32_t axis) {
  const std::vector<GraphNode>& nodes = gen.graph.nodes;
  for (size_t c = 0; c < nodes.size(); ++c) {
    for (size_t k = 0; k < nodes[c].operands.size(); ++k) {
      if (nodes[c].operands[k].node != v) continue;
      const Layout need = operand_layout(nodes[c], gen.strategies[c][plan[c]], k);
      if (need[axis] == kReplicated) return true;
    }
  }
  return false;
}

// Letters that name a dimension of some weight (as some op reads it): the
// dimensions tensor parallelism splits (m, f, heads h, vocabulary v, ...).
std::string weight_letters(const Generated& gen) {
  std::string letters;
  for (const GraphNode& node : gen.graph.nodes) {
    if (node.kind != NodeKind::kForward) continue;
    for (const Operand& o : node.operands) {
      if (gen.graph.nodes[o.node].kind != NodeKind::kParameter) continue;
      for (char c : o.letters) {
        if (letters.find(c) == std::string::npos) letters += c;
      }
    }
  }
  return letters;
}

AxisFacts facts_for(const Generated& gen, const std::vector<int32_t>& plan, int32_t axis,
                    const std::vector<PlacedCollective>& collectives) {
  AxisFacts f;
  const char batch = gen.model.batch;
  const std::vector<GraphNode>& nodes = gen.graph.nodes;
  const std::string weights = weight_letters(gen);
  for (size_t v = 0; v < nodes.size(); ++v) {
    const GraphNode& node = nodes[v];
    const Strategy& s = gen.strategies[v][plan[v]];
    if (node.kind == NodeKind::kParameter) {
      const int32_t stage = zero_stage_on(gen, plan, static_cast<int32_t>(v), axis);
      f.stages.emplace_back(node.name, stage);
      if (s.axis_letter[axis] >= 0 && stage == 0) f.param_used_split = true;
      if (stage > 0 || s.axis_letter[axis] >= 0) f.used = true;
      continue;
    }
    if (node.kind != NodeKind::kForward) continue;
    const char c = letter_on(node, s, axis);
    const bool has_batch = batch && node.letter_index(batch) >= 0;
    if (has_batch && c != batch) f.batch_everywhere = false;
    if (!has_batch && c) f.batch_everywhere = false;
    if (!c) continue;
    f.used = true;
    auto it = std::find_if(f.split_ops.begin(), f.split_ops.end(),
                           [c](const auto& entry) { return entry.first == c; });
    if (it == f.split_ops.end()) it = f.split_ops.insert(f.split_ops.end(), {c, {}});
    it->second.push_back(node.name);
    if (c == batch) {
      f.batch_on_axis = true;
      continue;
    }
    f.other_letters = true;
    if (weights.find(c) == std::string::npos) {
      f.activation_letters = true;
      const OpKind kind = gen.model.ops[gen.model.tensors[node.tensor].producer].kind;
      if (kind == OpKind::kLayernorm || kind == OpKind::kElementwise) {
        if (f.pointwise_letters.find(c) == std::string::npos) f.pointwise_letters += c;
      } else {
        f.activation_only_pointwise = false;
      }
    }
    for (const Operand& o : node.operands) {
      if (nodes[o.node].kind != NodeKind::kParameter) continue;
      if (o.letters.find(c) == std::string::npos) continue;
      const bool in_out = node.out_letters.find(c) != std::string::npos;
      bool in_activation = false;
      for (const Operand& other : node.operands) {
        in_activation = in_activation || (nodes[other.node].kind != NodeKind::kParameter &&
                                          other.letters.find(c) != std::string::npos);
      }
      if (in_out && in_activation) {
        f.expert = true;
      } else if (in_out) {
        ++f.column;
      } else {
        ++f.row;
      }
    }
  }
  for (const PlacedCollective& p : collectives) {
    const std::vector<int32_t>& axes = p.collective.axes;
    if (p.collective.kind == CollectiveKind::kAllToAll &&
        std::find(axes.begin(), axes.end(), axis) != axes.end()) {
      f.all_to_all = true;
    }
  }
  return f;
}

AxisRole data_parallel_role(const Generated& gen, const AxisFacts& f, const std::string& name) {
  const std::string batch(1, gen.model.batch);
  std::set<int32_t> stages;
  for (const auto& [param, stage] : f.stages) stages.insert(stage);
  if (stages.empty() || (stages.size() == 1 && *stages.begin() == 0)) {
    return {"data_parallel", "data parallel on '" + name + "' (" + batch + " split" +
                                 (gen.model.training ? ", gradients all-reduced)" : ")")};
  }
  if (stages.size() == 1) {
    const int32_t stage = *stages.begin();
    const char* what[] = {"", "optimizer state", "gradients and optimizer state",
                          "parameters, gradients and optimizer state"};
    return {"zero" + std::to_string(stage),
            "ZeRO-" + std::to_string(stage) + " on '" + name + "' (data parallel with " +
                (gen.model.training ? what[stage] : "parameters") + " sharded)"};
  }
  std::string list;
  for (const auto& [param, stage] : f.stages) {
    list += (list.empty() ? "" : ", ") + param + " stage " + std::to_string(stage);
  }
  return {"zero_mixed", "ZeRO on '" + name + "' (data parallel; " + list + ")"};
}

}  // namespace

int32_t zero_stage_on(const Generated& gen, const std::vector<int32_t>& plan, int32_t v,
                      int32_t axis) {
  const Strategy& s = gen.strategies[v][plan[v]];
  if (gen.model.mesh.shape[axis] <= 1) return 0;
  if (s.axis_letter[axis] >= 0) return gathered_for_use(gen, plan, v, axis) ? 3 : 0;
  return s.zero;
}

int32_t zero_stage(const Generated& gen, const std::vector<int32_t>& plan, int32_t v) {
  int32_t stage = 0;
  for (int32_t a = 0; a < gen.model.mesh.rank(); ++a) {
    stage = std::max(stage, zero_stage_on(gen, plan, v, a));
  }
  return stage;
}

std::vector<AxisRole> name_axes(const Generated& gen, const std::vector<int32_t>& plan,
                                const std::vector<PlacedCollective>& collectives) {
  const MeshSpec& mesh = gen.model.mesh;
  std::vector<AxisRole> roles;
  for (int32_t a = 0; a < mesh.rank(); ++a) {
    const std::string& name = mesh.axes[a];
    if (mesh.shape[a] <= 1) {
      roles.push_back({"replicated", "'" + name + "' has one device"});
      continue;
    }
    const AxisFacts f = facts_for(gen, plan, a, collectives);
    bool zero = false;
    for (const auto& [param, stage] : f.stages) zero = zero || stage > 0;
    if (!f.used) {
      roles.push_back({"replicated", "'" + name + "' unused (everything replicated along it)"});
    } else if (f.batch_everywhere && !f.other_letters && !f.param_used_split) {
      roles.push_back(data_parallel_role(gen, f, name));
    } else if (f.expert && f.all_to_all) {
      roles.push_back({"expert_parallel", "expert parallel on '" + name +
                                              "' (experts split, tokens moved by all-to-all)"});
    } else if (!f.batch_on_axis && !zero && f.activation_letters && f.activation_only_pointwise &&
               f.pointwise_letters.size() == 1 && f.column > 0 && f.row > 0) {
      roles.push_back(
          {"megatron_sp", "Megatron tensor parallel with sequence parallelism on '" + name +
                              "' (column- then row-parallel; norms and "
                              "residuals split along " +
                              f.pointwise_letters + ", reduce-scatter and all-gather)"});
    } else if (!f.batch_on_axis && !zero && !f.activation_letters && f.column + f.row > 0) {
      if (f.column > 0 && f.row > 0) {
        roles.push_back({"megatron", "Megatron tensor parallel on '" + name +
                                         "' (column- then row-parallel, all-reduce after)"});
      } else {
        roles.push_back({"tensor_parallel", "tensor parallel on '" + name + "'"});
      }
    } else {
      // Say what is split where: "b in ln1, q, k and 11 more; m in e".
      std::string what;
      for (const auto& [letter, ops] : f.split_ops) {
        std::string list;
        for (size_t i = 0; i < ops.size() && i < 3; ++i) list += (i ? ", " : "") + ops[i];
        if (ops.size() > 3) list += " and " + std::to_string(ops.size() - 3) + " more";
        what += (what.empty() ? "" : "; ") + std::string(1, letter) + " in " + list;
      }
      roles.push_back({"mixed", "mixed on '" + name + "'" + (what.empty() ? "" : ": " + what)});
    }
  }
  return roles;
}

std::string textbook_name(const std::vector<AxisRole>& roles) {
  std::string text;
  bool any = false;
  for (const AxisRole& r : roles) {
    if (r.key == "mixed") return "";
    if (r.key == "replicated") continue;
    any = true;
    text += (text.empty() ? "" : " + ") + r.text;
  }
  return any ? text : "replicated (no parallelism)";
}

}  // namespace shardlab::teach
