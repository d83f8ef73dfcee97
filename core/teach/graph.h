// The training graph the generator shards: every node is a loop nest over
// named letters (an einsum in the broad sense), so one strategy space serves
// forward ops, their backward ops and the rest. build_graph() turns a
// ModelSpec into nodes for inputs, parameters (storage + optimizer), forward
// ops, shared outputs (read by several ops), loss gradients, backward ops and
// gradient sums, in a topological schedule whose times give every node its
// live interval.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"
#include "core/teach/model.h"

namespace shardlab::teach {

enum class NodeKind {
  kInput,      // a declared non-parameter tensor (the data); any layout is free
  kParameter,  // a parameter's storage: weights (+ gradients, optimizer state)
  kForward,    // an op of the model
  kLossGrad,   // d(loss)/d(output) of a final output (a pointwise loss)
  kBackward,   // the gradient of one input of a forward op
  kGradSum,    // the sum of the gradients a tensor gets from several consumers
  kShared,     // an op's output as its several readers take it: re-partitioned once
};
const char* node_kind_name(NodeKind kind);

// Where a node's work falls in a training step: the forward (F), the
// backward's input gradients (B: the gradient of an activation, on the
// critical path to the previous layer), its weight gradients (W: the
// gradient of a parameter, which zero-bubble schedules defer), or the
// optimizer step (a parameter's own node).
enum class Phase { kForward, kInputGrad, kWeightGrad, kOptimizer };
const char* phase_name(Phase phase);  // "forward", "backward_input", "backward_weight", "optimizer"

// One input of a node: the node that produces it and this node's letters for
// that tensor's dimensions (positional).
struct Operand {
  int32_t node = -1;
  std::string letters;
};

struct GraphNode {
  NodeKind kind = NodeKind::kForward;
  std::string name;            // "h", "h.grad.W1", "y.loss_grad", "grad.a", or the tensor's name
  std::string op;              // the forward op (or tensor) it belongs to
  std::string detail;          // "einsum bd,df->bf", "elementwise gelu (backward)", ...
  std::string letters;         // the loop letters (for inputs and parameters: dims)
  std::vector<int64_t> sizes;  // size of each letter
  std::string out_letters;     // letters of its output, in the output's dimension order
  std::vector<Operand> operands;
  int32_t dtype_bytes = 2;
  double flops = 0;          // total work of the loop nest, unsharded
  std::string work_letters;  // letters whose split divides the work (an embedding's
                             // table rows do not)
  char normalized = 0;       // softmax/layernorm letter: splitting it needs statistics
  // The output is a parameter's gradient: left unreduced (partial) over the
  // axes of contracted letters; the edge to the parameter reduces it.
  int32_t grad_of = -1;  // the parameter node, or -1
  // The output is one of several gradients of a shared output: left partial
  // too, so that the sum (which may take partial terms) all-reduces once.
  bool into_sum = false;
  // A shared output whose readers' gradients are summed in its group, and
  // that sum (their strategies say over which axes it takes partial terms).
  bool sums_gradients = false;
  // Parameters: the gradient producers (edges into this node).
  std::vector<int32_t> gradients;
  // The node whose strategy this one follows: an op's backward nodes, its
  // loss gradient and the sum of its output's gradients run in the layout of
  // the forward op (one instance node per forward op, input and parameter).
  int32_t lead = -1;
  int32_t tensor = -1;          // ModelSpec tensor it holds/produces (-1: a gradient)
  std::vector<int32_t> pinned;  // inputs: the fixed layout (see TensorSpec::pinned)
  int64_t time = 0;             // schedule position
  int64_t lo = 0, hi = 0;       // live interval [lo, hi)

  int32_t letter_index(char c) const;  // position in letters, or -1
  int64_t size_of(char c) const;
  Phase phase() const;
};

struct Graph {
  std::vector<GraphNode> nodes;
  int64_t horizon = 0;                 // the optimizer step happens at horizon - 1
  std::vector<int32_t> forward_of_op;  // ModelSpec op -> its forward node
  // ModelSpec tensor -> the node that holds it for its readers (an input or
  // parameter, the producing op, or its shared node); -1 when unused.
  std::vector<int32_t> holder_of_tensor;
};

Result<Graph> build_graph(const ModelSpec& model);

}  // namespace shardlab::teach
