// Builds the training graph of a model: the forward ops as written, then (when
// training) a pointwise loss gradient for every final output, the backward
// ops in reverse order (each input's gradient is a loop nest over the same
// letters as the forward op, so it shards in the same vocabulary), sums
// where a tensor feeds several ops, and the parameters, which receive their
// gradients for the optimizer step at the end. The schedule is the order of
// creation; a node lives from its time until its last consumer's.
#include "core/teach/graph.h"

#include <algorithm>
#include <map>

namespace shardlab::teach {
namespace {

// Elementwise functions whose gradient is the incoming gradient itself (no
// saved inputs needed); every other function reads its forward inputs.
bool is_linear(const std::string& function) {
  return function == "add" || function == "sub" || function == "identity";
}

class Builder {
 public:
  explicit Builder(const ModelSpec& model) : model_(model) {}

  Result<Graph> build() {
    tensor_node_.assign(model_.tensors.size(), -1);
    readers_.assign(model_.tensors.size(), 0);
    for (const OpSpec& op : model_.ops) {
      std::vector<int32_t> seen;
      for (int32_t t : op.inputs) {
        if (std::find(seen.begin(), seen.end(), t) != seen.end()) continue;
        seen.push_back(t);
        ++readers_[t];
      }
    }
    declare_tensors();
    for (size_t i = 0; i < model_.ops.size(); ++i) add_forward(static_cast<int32_t>(i));
    if (model_.training) add_backward();
    schedule();
    graph_.holder_of_tensor = tensor_node_;
    return std::move(graph_);
  }

 private:
  // A node that leads itself unless told otherwise.
  int32_t add(GraphNode node, int32_t lead = -1) {
    const int32_t id = static_cast<int32_t>(graph_.nodes.size());
    node.lead = lead < 0 ? id : lead;
    graph_.nodes.push_back(std::move(node));
    return id;
  }

  // Letters in order of first appearance, with their sizes.
  static void set_letters(GraphNode* node, const std::vector<std::string>& subscripts,
                          const std::vector<const std::vector<int64_t>*>& shapes) {
    for (size_t k = 0; k < subscripts.size(); ++k) {
      for (size_t d = 0; d < subscripts[k].size(); ++d) {
        const char c = subscripts[k][d];
        if (node->letters.find(c) != std::string::npos) continue;
        node->letters += c;
        node->sizes.push_back((*shapes[k])[d]);
      }
    }
    node->work_letters = node->letters;
  }

  double points(const GraphNode& node) const {
    double n = 1;
    for (int64_t s : node.sizes) n *= static_cast<double>(s);
    return n;
  }

  void declare_tensors() {
    std::vector<bool> used(model_.tensors.size(), false);
    for (const OpSpec& op : model_.ops) {
      for (int32_t t : op.inputs) used[t] = true;
    }
    for (size_t t = 0; t < model_.tensors.size(); ++t) {
      const TensorSpec& spec = model_.tensors[t];
      if (spec.producer >= 0 || !used[t]) continue;
      GraphNode node;
      node.kind = spec.parameter ? NodeKind::kParameter : NodeKind::kInput;
      node.name = spec.name;
      node.op = spec.name;
      node.detail = spec.parameter ? "parameter" : "input";
      node.letters = spec.dims;
      node.sizes = spec.shape;
      node.out_letters = spec.dims;
      node.work_letters = spec.dims;
      node.dtype_bytes = spec.dtype_bytes;
      node.tensor = static_cast<int32_t>(t);
      node.pinned = spec.pinned;
      tensor_node_[t] = add(std::move(node));
    }
  }

  void add_forward(int32_t index) {
    const OpSpec& op = model_.ops[index];
    const TensorSpec& out = model_.tensors[op.output];
    GraphNode node;
    node.kind = NodeKind::kForward;
    node.name = op.name;
    node.op = op.name;
    node.dtype_bytes = out.dtype_bytes;
    node.tensor = op.output;
    std::vector<std::string> subs = op.input_letters;
    std::vector<const std::vector<int64_t>*> shapes;
    for (int32_t t : op.inputs) shapes.push_back(&model_.tensors[t].shape);
    subs.push_back(op.output_letters);
    shapes.push_back(&out.shape);
    set_letters(&node, subs, shapes);
    node.out_letters = op.output_letters;
    for (size_t k = 0; k < op.inputs.size(); ++k) {
      node.operands.push_back({tensor_node_[op.inputs[k]], op.input_letters[k]});
    }
    switch (op.kind) {
      case OpKind::kEinsum:
        node.detail = "einsum " + op.text;
        node.flops = op.flops >= 0 ? op.flops : (op.inputs.size() == 2 ? 2 : 1) * points(node);
        break;
      case OpKind::kEmbedding:
        node.detail = "embedding " + op.text;
        // A lookup copies one row per id: the table's rows do not divide the
        // work (each device scans every id and keeps the rows it owns).
        node.work_letters.erase(node.work_letters.find(op.input_letters[1][0]), 1);
        node.flops = product(out.shape);
        break;
      case OpKind::kElementwise:
        node.detail = "elementwise " + op.text;
        node.flops = op.flops_per_element * points(node);
        break;
      case OpKind::kReduce:
      case OpKind::kSoftmax:
      case OpKind::kLayernorm:
        node.detail = std::string(op_kind_name(op.kind)) + " along " + op.along;
        node.flops = op.flops_per_element * points(node);
        if (op.kind != OpKind::kReduce) node.normalized = op.along;
        break;
    }
    const int32_t id = add(std::move(node));
    tensor_node_[op.output] = id;
    graph_.forward_of_op.push_back(id);
    if (readers_[op.output] >= 2) add_shared(op.output, id);
  }

  // An output read by several ops goes through one node of its own that
  // holds it in the layout the readers take (re-partitioned once for all of
  // them, and saved that way for the backward); the gradients the readers
  // send back are summed there, in that layout, and re-partitioned once into
  // the producer's. Without it every reader would pay its own collective.
  void add_shared(int32_t tensor, int32_t producer) {
    const GraphNode& p = graph_.nodes[producer];
    GraphNode node;
    node.kind = NodeKind::kShared;
    node.name = p.name + ".shared";
    node.op = p.name;
    node.detail = "the output of " + p.name + " as its " + std::to_string(readers_[tensor]) +
                  " readers take it";
    node.letters = p.out_letters;
    node.work_letters = p.out_letters;
    for (char c : p.out_letters) node.sizes.push_back(p.size_of(c));
    node.out_letters = p.out_letters;
    node.operands.push_back({producer, p.out_letters});
    node.dtype_bytes = p.dtype_bytes;
    node.tensor = tensor;
    tensor_node_[tensor] = add(std::move(node));
  }

  static double product(const std::vector<int64_t>& shape) {
    double n = 1;
    for (int64_t s : shape) n *= static_cast<double>(s);
    return n;
  }

  // ---- training ------------------------------------------------------------

  void add_backward() {
    const size_t n = model_.tensors.size();
    std::vector<bool> needs(n, false);
    for (size_t t = 0; t < n; ++t) {
      needs[t] = model_.tensors[t].parameter || model_.tensors[t].requires_grad;
    }
    std::vector<bool> consumed(n, false);
    for (const OpSpec& op : model_.ops) {
      for (int32_t t : op.inputs) {
        needs[op.output] = needs[op.output] || needs[t];
        consumed[t] = true;
      }
    }
    contributions_.assign(n, {});
    // A pointwise loss on every final output that depends on a parameter.
    for (const OpSpec& op : model_.ops) {
      if (consumed[op.output] || !needs[op.output]) continue;
      const GraphNode& fwd = graph_.nodes[tensor_node_[op.output]];
      GraphNode loss;
      loss.kind = NodeKind::kLossGrad;
      loss.name = op.name + ".loss_grad";
      loss.op = op.name;
      loss.detail = "loss gradient of " + op.name;
      loss.letters = fwd.out_letters;
      loss.work_letters = fwd.out_letters;
      for (char c : fwd.out_letters) loss.sizes.push_back(fwd.size_of(c));
      loss.out_letters = fwd.out_letters;
      loss.operands.push_back({tensor_node_[op.output], fwd.out_letters});
      loss.dtype_bytes = fwd.dtype_bytes;
      // A gradient that arrives from the next block costs nothing here.
      loss.flops = model_.tensors[op.output].gradient_given ? 0 : points(loss);
      if (model_.tensors[op.output].gradient_given) {
        loss.detail = "gradient of " + op.name + " from the next block";
      }
      const int32_t lead = tensor_node_[op.output];
      contributions_[op.output].push_back(add(std::move(loss), lead));
    }
    for (size_t i = model_.ops.size(); i-- > 0;) {
      const OpSpec& op = model_.ops[i];
      if (!needs[op.output]) continue;
      const int32_t grad = gradient_of(op.output);
      for (size_t k = 0; k < op.inputs.size(); ++k) {
        if (!needs[op.inputs[k]]) continue;
        if (op.kind == OpKind::kEmbedding && k == 0) continue;  // ids have no gradient
        add_input_gradient(op, static_cast<int32_t>(k), grad, graph_.forward_of_op[i]);
      }
    }
    // Declared inputs whose gradient is wanted get it in their own layout:
    // one sum node in the input's group, even for a single contribution.
    for (size_t t = 0; t < n; ++t) {
      const TensorSpec& spec = model_.tensors[t];
      if (!spec.requires_grad || spec.producer >= 0 || spec.parameter) continue;
      if (tensor_node_[t] < 0 || contributions_[t].empty()) continue;
      add_sum(static_cast<int32_t>(t));
    }
  }

  // The node holding d(loss)/d(tensor): the only contribution, or their sum.
  int32_t gradient_of(int32_t tensor) {
    std::vector<int32_t>& parts = contributions_[tensor];
    if (parts.size() == 1) return parts[0];
    return add_sum(tensor);
  }

  int32_t add_sum(int32_t tensor) {
    std::vector<int32_t>& parts = contributions_[tensor];
    // Megatron's trick: the readers' partial sums are added first and
    // all-reduced once (one all-reduce for q, k and v's input gradient).
    if (graph_.nodes[tensor_node_[tensor]].kind == NodeKind::kShared) {
      graph_.nodes[tensor_node_[tensor]].sums_gradients = true;
      for (int32_t p : parts) graph_.nodes[p].into_sum = true;
    }
    const TensorSpec& spec = model_.tensors[tensor];
    GraphNode sum;
    sum.kind = NodeKind::kGradSum;
    sum.name = "grad." + spec.name;
    sum.op = spec.name;
    sum.detail = parts.size() == 1
                     ? "gradient of " + spec.name + " in its layout"
                     : "sum of " + std::to_string(parts.size()) + " gradients of " + spec.name;
    sum.letters = spec.dims;
    sum.work_letters = spec.dims;
    sum.sizes = spec.shape;
    sum.out_letters = spec.dims;
    sum.dtype_bytes = spec.dtype_bytes;
    for (int32_t p : parts) sum.operands.push_back({p, spec.dims});
    sum.flops = static_cast<double>(parts.size() - 1) * product(spec.shape);
    sum.sums_gradients = graph_.nodes[tensor_node_[tensor]].sums_gradients;
    return add(std::move(sum), tensor_node_[tensor]);
  }

  void add_input_gradient(const OpSpec& op, int32_t k, int32_t grad, int32_t fwd_id) {
    const GraphNode& fwd = graph_.nodes[fwd_id];
    const int32_t input = op.inputs[k];
    const TensorSpec& in = model_.tensors[input];
    GraphNode node;
    node.kind = NodeKind::kBackward;
    node.name = op.name + ".grad." + in.name;
    if (std::count(op.inputs.begin(), op.inputs.end(), input) > 1) {
      node.name += "." + std::to_string(k);
    }
    node.op = op.name;
    node.letters = fwd.letters;
    node.sizes = fwd.sizes;
    node.work_letters = fwd.work_letters;
    node.out_letters = op.input_letters[k];
    node.dtype_bytes = in.dtype_bytes;
    node.operands.push_back({grad, op.output_letters});
    const double work = points(fwd);
    switch (op.kind) {
      case OpKind::kEinsum:
        if (op.inputs.size() == 2) {
          const int32_t other = 1 - k;
          node.operands.push_back({tensor_node_[op.inputs[other]], op.input_letters[other]});
          node.flops = 2 * work;
        } else {
          node.flops = work;
        }
        if (op.flops >= 0) node.flops = op.flops;
        break;
      case OpKind::kEmbedding:
        node.operands.push_back({tensor_node_[op.inputs[0]], op.input_letters[0]});
        node.flops = fwd.flops;
        break;
      case OpKind::kElementwise:
        if (!is_linear(op.text)) {
          for (size_t j = 0; j < op.inputs.size(); ++j) {
            node.operands.push_back({tensor_node_[op.inputs[j]], op.input_letters[j]});
          }
        }
        node.flops = op.flops_per_element * work;
        break;
      case OpKind::kReduce:
        node.flops = work;
        break;
      case OpKind::kSoftmax:
        node.operands.push_back({fwd_id, op.output_letters});  // reads its output
        node.normalized = op.along;
        node.flops = op.flops_per_element * work;
        break;
      case OpKind::kLayernorm:
        node.operands.push_back({tensor_node_[input], op.input_letters[k]});
        node.normalized = op.along;
        node.flops = op.flops_per_element * work;
        break;
    }
    std::string signature;
    for (const Operand& o : node.operands) {
      signature += (signature.empty() ? "" : ",") + o.letters;
    }
    node.detail = std::string(op_kind_name(op.kind)) + " " + signature + "->" + node.out_letters +
                  " (gradient of " + in.name + ")";
    if (in.parameter) {
      node.grad_of = tensor_node_[input];
      const int32_t id = add(std::move(node), fwd_id);
      graph_.nodes[tensor_node_[input]].gradients.push_back(id);
    } else {
      contributions_[input].push_back(add(std::move(node), fwd_id));
    }
  }

  // Times in creation order (inputs and parameters at 0); a node lives until
  // its last consumer has run. Gradients go straight into the parameter's
  // gradient buffer (counted by the parameter), so they live one step.
  void schedule() {
    std::vector<GraphNode>& nodes = graph_.nodes;
    int64_t time = 0;
    for (GraphNode& node : nodes) {
      const bool storage = node.kind == NodeKind::kInput || node.kind == NodeKind::kParameter;
      node.time = storage ? 0 : ++time;
      node.lo = node.time;
      node.hi = node.time + 1;
    }
    graph_.horizon = time + 2;  // the optimizer step at time + 1
    for (GraphNode& node : nodes) {
      for (const Operand& o : node.operands) {
        nodes[o.node].hi = std::max(nodes[o.node].hi, node.time + 1);
      }
    }
    for (GraphNode& node : nodes) {
      if (node.kind == NodeKind::kParameter) node.hi = graph_.horizon;
    }
  }

  const ModelSpec& model_;
  Graph graph_;
  std::vector<int32_t> tensor_node_;  // who holds each tensor for its readers
  std::vector<int32_t> readers_;      // ops reading each tensor
  std::vector<std::vector<int32_t>> contributions_;
};

}  // namespace

const char* node_kind_name(NodeKind kind) {
  switch (kind) {
    case NodeKind::kInput:
      return "input";
    case NodeKind::kParameter:
      return "parameter";
    case NodeKind::kForward:
      return "forward";
    case NodeKind::kLossGrad:
      return "loss_grad";
    case NodeKind::kBackward:
      return "backward";
    case NodeKind::kShared:
      return "shared";
    case NodeKind::kGradSum:
      return "grad_sum";
  }
  return "?";
}

const char* phase_name(Phase phase) {
  switch (phase) {
    case Phase::kForward:
      return "forward";
    case Phase::kInputGrad:
      return "backward_input";
    case Phase::kWeightGrad:
      return "backward_weight";
    case Phase::kOptimizer:
      return "optimizer";
  }
  return "?";
}

Phase GraphNode::phase() const {
  switch (kind) {
    case NodeKind::kInput:
    case NodeKind::kForward:
    case NodeKind::kShared:
      return Phase::kForward;
    case NodeKind::kParameter:
      return Phase::kOptimizer;
    case NodeKind::kBackward:
      return grad_of >= 0 ? Phase::kWeightGrad : Phase::kInputGrad;
    case NodeKind::kLossGrad:
    case NodeKind::kGradSum:
      return Phase::kInputGrad;
  }
  return Phase::kForward;
}

int32_t GraphNode::letter_index(char c) const {
  const size_t i = letters.find(c);
  return i == std::string::npos ? -1 : static_cast<int32_t>(i);
}

int64_t GraphNode::size_of(char c) const {
  const int32_t i = letter_index(c);
  return i < 0 ? 1 : sizes[i];
}

Result<Graph> build_graph(const ModelSpec& model) { return Builder(model).build(); }

}  // namespace shardlab::teach
