// Strategy enumeration, naming and the cost of one node under one strategy
// (see strategies.h). The space is the one of GSPMD (Xu et al. 2021) and of
// Alpa's intra-operator pass (Zheng et al., OSDI 2022): a loop split over a
// mesh axis is data parallel when the loop is a batch, column- or
// row-parallel when it is a weight's dimension (Megatron-LM, Shoeybi et al.
// 2019), expert parallel when it indexes experts (GShard, Lepikhin et al.
// 2021); a split reduction loop leaves partial sums that an all-reduce adds.
#include "core/teach/strategies.h"

#include <algorithm>

namespace shardlab::teach {
namespace {

std::string axis_list(const std::vector<int32_t>& axes, const MeshSpec& mesh) {
  std::string text;
  for (int32_t a : axes) text += (text.empty() ? "" : "+") + mesh.axes[a];
  return text;
}

bool divides(const GraphNode& node, const std::vector<int8_t>& axis_letter, const MeshSpec& mesh) {
  for (size_t l = 0; l < node.letters.size(); ++l) {
    int64_t split = 1;
    for (int32_t a = 0; a < mesh.rank(); ++a) {
      if (axis_letter[a] == static_cast<int8_t>(l)) split *= mesh.shape[a];
    }
    if (node.sizes[l] % split != 0) return false;
  }
  return true;
}

int64_t split_of(const Strategy& s, const MeshSpec& mesh, const std::string& letters,
                 const GraphNode& node) {
  int64_t split = 1;
  for (int32_t a = 0; a < mesh.rank(); ++a) {
    const int8_t l = s.axis_letter[a];
    if (l >= 0 && letters.find(node.letters[l]) != std::string::npos) split *= mesh.shape[a];
  }
  return split;
}

}  // namespace

std::vector<Strategy> enumerate_strategies(const GraphNode& node, const ModelSpec& model) {
  const MeshSpec& mesh = model.mesh;
  const int32_t rank = mesh.rank();
  std::vector<Strategy> out;
  if (!node.pinned.empty()) {
    Strategy s;
    s.axis_letter.assign(node.pinned.begin(), node.pinned.end());
    out.push_back(s);
    return out;
  }
  const int32_t letters = static_cast<int32_t>(node.letters.size());
  std::vector<int8_t> choice(rank, -1);
  // Mixed-radix count over axes (the last axis fastest); size-1 axes stay -1.
  while (true) {
    if (divides(node, choice, mesh)) {
      Strategy s;
      s.axis_letter = choice;
      out.push_back(s);
    }
    int32_t a = rank - 1;
    for (; a >= 0; --a) {
      if (mesh.shape[a] <= 1) continue;
      if (choice[a] + 1 < letters) {
        ++choice[a];
        break;
      }
      choice[a] = -1;
    }
    if (a < 0) break;
  }
  if (node.sums_gradients) {
    std::vector<Strategy> with_sums;
    for (const Strategy& s : out) {
      uint32_t free = 0;
      for (int32_t a = 0; a < rank; ++a) {
        if (mesh.shape[a] > 1 && s.axis_letter[a] < 0) free |= 1u << a;
      }
      // Every subset of the free axes, the empty one first.
      for (uint32_t mask = 0;; mask = (mask - free) & free) {
        Strategy p = s;
        p.partial = static_cast<uint8_t>(mask);
        with_sums.push_back(p);
        if (mask == free) break;
      }
    }
    return with_sums;
  }
  if (node.kind != NodeKind::kParameter || !model.zero) return out;
  std::vector<Strategy> with_stages;
  for (const Strategy& s : out) {
    with_stages.push_back(s);
    if (zero_axes(s, mesh).empty()) continue;
    // ZeRO-3 keeps a flat shard; where one dimension can take the same
    // split, that layout (FSDP's way) is already in the list and at least as
    // cheap, so the flat form is offered only when no dimension divides.
    int64_t ways = 1;
    for (int32_t a : zero_axes(s, mesh)) ways *= mesh.shape[a];
    bool dim_form = false;
    for (size_t l = 0; l < node.letters.size(); ++l) {
      int64_t split = ways;
      for (int32_t a = 0; a < mesh.rank(); ++a) {
        if (s.axis_letter[a] == static_cast<int8_t>(l)) split *= mesh.shape[a];
      }
      dim_form = dim_form || node.sizes[l] % split == 0;
    }
    for (int8_t stage = 1; stage <= 3; ++stage) {
      if (!model.training && stage != 3) continue;
      if (stage == 3 && dim_form) continue;
      Strategy z = s;
      z.zero = stage;
      with_stages.push_back(z);
    }
  }
  return with_stages;
}

std::vector<int32_t> zero_axes(const Strategy& strategy, const MeshSpec& mesh) {
  std::vector<int32_t> axes;
  for (int32_t a = 0; a < mesh.rank(); ++a) {
    if (mesh.shape[a] > 1 && strategy.axis_letter[a] < 0) axes.push_back(a);
  }
  return axes;
}

std::string strategy_name(const GraphNode& node, const Strategy& strategy, const MeshSpec& mesh) {
  std::string text;
  for (size_t l = 0; l < node.letters.size(); ++l) {
    std::vector<int32_t> axes;
    for (int32_t a = 0; a < mesh.rank(); ++a) {
      if (strategy.axis_letter[a] == static_cast<int8_t>(l)) axes.push_back(a);
    }
    if (axes.empty()) continue;
    text +=
        (text.empty() ? "" : ",") + std::string(1, node.letters[l]) + ":" + axis_list(axes, mesh);
  }
  if (strategy.partial) {
    std::vector<int32_t> axes;
    for (int32_t a = 0; a < mesh.rank(); ++a) {
      if (strategy.partial & (1u << a)) axes.push_back(a);
    }
    text += (text.empty() ? "" : ",") + std::string("sum:") + axis_list(axes, mesh);
  }
  if (strategy.zero > 0)
    text += (text.empty() ? "" : ",") + std::string("zero") + std::to_string(strategy.zero);
  if (strategy.defer) text += (text.empty() ? "replicated," : ",") + std::string("defer");
  return text.empty() ? "replicated" : text;
}

Result<int32_t> find_strategy(const GraphNode& node, const std::vector<Strategy>& strategies,
                              const std::string& text, const MeshSpec& mesh) {
  Strategy want;
  want.axis_letter.assign(mesh.rank(), -1);
  auto bad = [&](const std::string& why) {
    std::string names;
    for (const Strategy& s : strategies) {
      names += (names.empty() ? "" : ", ") + strategy_name(node, s, mesh);
    }
    return Status(StatusCode::kInvalidArgument,
                  "'" + node.name + "=" + text + "': " + why + "; its strategies are " + names);
  };
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    const std::string token = text.substr(start, comma - start);
    start = comma + 1;
    if (token == "replicated" || token == "-") continue;
    if (token == "defer") {
      want.defer = true;
      continue;
    }
    if (token.size() == 5 && token.rfind("zero", 0) == 0 && token[4] >= '0' && token[4] <= '3') {
      want.zero = static_cast<int8_t>(token[4] - '0');
      continue;
    }
    const bool sum = token.rfind("sum:", 0) == 0;
    const size_t colon = token.find(':');
    if (!sum && (colon != 1 || node.letter_index(token[0]) < 0)) {
      return bad("expected LETTER:AXIS with a letter of \"" + node.letters + "\", found '" + token +
                 "'");
    }
    size_t at = colon + 1;
    while (at <= token.size()) {
      size_t plus = token.find('+', at);
      if (plus == std::string::npos) plus = token.size();
      const std::string axis = token.substr(at, plus - at);
      at = plus + 1;
      const auto it = std::find(mesh.axes.begin(), mesh.axes.end(), axis);
      if (it == mesh.axes.end()) return bad("no mesh axis '" + axis + "'");
      const size_t a = static_cast<size_t>(it - mesh.axes.begin());
      if (want.axis_letter[a] >= 0 || (want.partial & (1u << a))) {
        return bad("axis '" + axis + "' used twice");
      }
      if (sum) {
        want.partial = static_cast<uint8_t>(want.partial | (1u << a));
      } else {
        want.axis_letter[a] = static_cast<int8_t>(node.letter_index(token[0]));
      }
    }
  }
  for (size_t i = 0; i < strategies.size(); ++i) {
    if (strategies[i] == want) return static_cast<int32_t>(i);
  }
  return bad("no such strategy (a split must divide the letter's size)");
}

TensorShape output_shape(const GraphNode& node) {
  TensorShape shape;
  shape.dtype_bytes = node.dtype_bytes;
  for (char c : node.out_letters) shape.dims.push_back(node.size_of(c));
  return shape;
}

namespace {

// The split each axis makes of a tensor whose dimensions the node names
// `letters`: the dimension of the axis's letter, or replicated.
Layout layout_of(const GraphNode& node, const Strategy& strategy, const std::string& letters) {
  Layout layout(strategy.axis_letter.size(), kReplicated);
  for (size_t a = 0; a < layout.size(); ++a) {
    const int8_t l = strategy.axis_letter[a];
    const size_t dim = l < 0 ? std::string::npos : letters.find(node.letters[l]);
    if (dim != std::string::npos) layout[a] = static_cast<int8_t>(dim);
  }
  return layout;
}

}  // namespace

Layout output_layout(const GraphNode& node, const Strategy& strategy) {
  Layout layout = layout_of(node, strategy, node.out_letters);
  for (size_t a = 0; a < layout.size(); ++a) {
    const bool split = strategy.axis_letter[a] >= 0;
    const bool partial_output = node.grad_of >= 0 || node.into_sum || strategy.defer;
    if (split && layout[a] == kReplicated && partial_output) layout[a] = kPartial;
    if (!split && node.kind == NodeKind::kParameter && strategy.zero == 3) layout[a] = kFlat;
    // A deferred gradient sum hands on its partial terms unreduced.
    if (strategy.defer && node.kind == NodeKind::kGradSum && (strategy.partial & (1u << a))) {
      layout[a] = kPartial;
    }
  }
  return layout;
}

bool reduces_partial_sums(const GraphNode& node, const Strategy& strategy, const MeshSpec& mesh) {
  if (node.kind == NodeKind::kInput || node.kind == NodeKind::kParameter) return false;
  for (int32_t a = 0; a < mesh.rank(); ++a) {
    if (mesh.shape[a] <= 1) continue;
    if (node.kind == NodeKind::kGradSum && (strategy.partial & (1u << a))) return true;
    const int8_t l = strategy.axis_letter[a];
    if (l < 0 || node.grad_of >= 0 || node.into_sum) continue;
    if (node.out_letters.find(node.letters[l]) == std::string::npos) return true;
  }
  return false;
}

Layout operand_layout(const GraphNode& node, const Strategy& strategy, size_t operand) {
  Layout layout = layout_of(node, strategy, node.operands[operand].letters);
  // A gradient sum takes partial terms; the shared output that leads it
  // (whose strategy carries the same bits) reads its producer's value whole.
  if (node.kind != NodeKind::kGradSum) return layout;
  for (size_t a = 0; a < layout.size(); ++a) {
    if (strategy.partial & (1u << a)) layout[a] = kPartial;
  }
  return layout;
}

Layout gradient_layout(const GraphNode& param, const Strategy& strategy) {
  const size_t rank = strategy.axis_letter.size();
  Layout layout(rank, kReplicated);
  for (size_t a = 0; a < rank; ++a) {
    const int8_t l = strategy.axis_letter[a];
    if (l >= 0) {
      layout[a] = l;  // a parameter's letters are its dimensions
    } else if (strategy.zero >= 1) {
      layout[a] = kFlat;
    }
  }
  return layout;
}

int64_t parameter_bytes(int64_t elements, int64_t shards, int64_t zero_ways, int32_t stage,
                        const ModelSpec& model, int32_t dtype_bytes) {
  const int64_t local = elements / shards;
  auto split = [&](int64_t bytes) { return (bytes + zero_ways - 1) / zero_ways; };
  const int64_t w = dtype_bytes;
  if (!model.training) return stage == 3 ? split(w * local) : w * local;
  const int64_t g = dtype_bytes;
  const int64_t o = model.optimizer_state_bytes;
  switch (stage) {
    case 1:
      return (w + g) * local + split(o * local);
    case 2:
      return w * local + split((g + o) * local);
    case 3:
      return split((w + g + o) * local);
    default:
      return (w + g + o) * local;
  }
}

NodeCost node_cost(const GraphNode& node, const Strategy& strategy, const ModelSpec& model,
                   const CostTable& costs) {
  const MeshSpec& mesh = model.mesh;
  NodeCost cost;
  const TensorShape shape = output_shape(node);
  const Layout out = output_layout(node, strategy);
  if (node.kind == NodeKind::kInput) {
    cost.usage_bytes = bytes_per_device(shape, out, mesh);
    return cost;
  }
  if (node.kind == NodeKind::kParameter) {
    const std::vector<int32_t> zaxes = zero_axes(strategy, mesh);
    int64_t elements = 1;
    for (int64_t d : shape.dims) elements *= d;
    const int64_t shards = split_of(strategy, mesh, node.letters, node);
    int64_t ways = 1;
    for (int32_t a : zaxes) ways *= mesh.shape[a];
    cost.usage_bytes = parameter_bytes(elements, shards, strategy.zero > 0 ? ways : 1,
                                       strategy.zero, model, node.dtype_bytes);
    if (model.training && (strategy.zero == 1 || strategy.zero == 2)) {
      // After the optimizer updates its shard, the new weights are gathered.
      cost.collectives.push_back(costs.make(CollectiveKind::kAllGather, zaxes,
                                            node.dtype_bytes * (elements / shards),
                                            "updated weights"));
    }
  } else {
    cost.compute_ns =
        costs.compute_ns(node.flops, split_of(strategy, mesh, node.work_letters, node));
    const int64_t out_bytes = bytes_per_device(shape, out, mesh);
    cost.usage_bytes = out_bytes;
    std::vector<int32_t> contracted;
    std::vector<int32_t> normalized;
    for (int32_t a = 0; a < mesh.rank(); ++a) {
      const int8_t l = strategy.axis_letter[a];
      if (l < 0 || mesh.shape[a] <= 1) continue;
      const char letter = node.letters[l];
      if (node.grad_of < 0 && !node.into_sum &&
          node.out_letters.find(letter) == std::string::npos) {
        contracted.push_back(a);
      }
      if (letter == node.normalized) normalized.push_back(a);
    }
    if (!contracted.empty() && !strategy.defer) {
      std::string letters;
      for (int32_t a : contracted) {
        const char c = node.letters[strategy.axis_letter[a]];
        if (letters.find(c) == std::string::npos) letters += c;
      }
      cost.collectives.push_back(costs.make(CollectiveKind::kAllReduce, contracted, out_bytes,
                                            "partial sums over " + letters));
    }
    std::vector<int32_t> summed;
    for (int32_t a = 0; a < mesh.rank(); ++a) {
      if (strategy.partial & (1u << a)) summed.push_back(a);
    }
    if (node.kind == NodeKind::kGradSum && !summed.empty() && !strategy.defer) {
      cost.collectives.push_back(costs.make(CollectiveKind::kAllReduce, summed, out_bytes,
                                            "partial sums of the gradients"));
    }
    if (!normalized.empty()) {
      // Each row's statistics (two fp32 values) are summed across the split.
      const char letter = node.normalized;
      const int64_t local =
          node.size_of(letter) / split_of(strategy, mesh, std::string(1, letter), node);
      const int64_t rows = out_bytes / node.dtype_bytes / local;
      cost.collectives.push_back(costs.make(CollectiveKind::kAllReduce, normalized, rows * 8,
                                            std::string("row statistics along ") + letter));
    }
  }
  cost.total_ns = cost.compute_ns;
  for (const Collective& c : cost.collectives) cost.total_ns += c.ns;
  return cost;
}

}  // namespace shardlab::teach
