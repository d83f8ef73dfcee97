// What the plan lab's engine needs to know about a model on a cluster, as one
// small interface: the facts of the model (layers, hidden size, FLOPs), the
// per-micro-batch costs of its parts (a transformer layer, the embedding, the
// head) on one device of a tensor-parallel group, the state bytes by ZeRO
// stage, and the prices of collectives and point-to-point transfers.
// Production answers come from model_costs.cpp (BlockCache of block.h, the
// formulas of formulas.h, the hierarchical collectives of
// core/teach/collectives.h); unit tests answer with synthetic tables. The
// engine (stage_model.h, step_model.h, search.h) sees nothing else.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <tuple>

#include "core/plan/block.h"
#include "core/plan/formulas.h"
#include "core/plan/model.h"
#include "core/status.h"

namespace shardlab::plan {

// The model as the engine sees it.
struct ModelFacts {
  std::string name;
  std::string kind = "transformer";  // or "einsum" (a teaching-lab model with a repeated block)
  int32_t layers = 0;                // L: the repeated block's count
  int64_t hidden = 0;                // h (reports)
  // What one sequence sends from a stage to the next (s h 16-bit values for
  // a transformer; the repeated block's carried tensor for an einsum model).
  int64_t p2p_bytes_per_sequence = 0;
  int32_t heads = 0;  // tensor parallelism must divide them (and kv_heads)
  int32_t kv_heads = 0;
  int32_t experts = 0;     // 0: dense; expert parallelism must divide them
  int64_t parameters = 0;  // total elements
  // FLOPs of one sequence (forward + backward): model FLOPs as Korthikanti et
  // al. count them, and hardware FLOPs per recomputation setting (index
  // static_cast<int>(Recompute)), Narayanan et al.'s Eq. 3 for kFull.
  double model_flops_per_sequence = 0;
  std::array<double, 3> hardware_flops_per_sequence{};
};

// The decisions a part's costs depend on.
struct PartConfig {
  int32_t tp = 1;
  bool sequence_parallel = false;
  int32_t ep = 1;
  int64_t microbatch = 1;
  Recompute recompute = Recompute::kNone;
  bool lean = false;  // the parts' memory-lean layouts (block.h BlockQuery::lean)
  auto key() const { return std::tuple(tp, sequence_parallel, ep, microbatch, recompute, lean); }
};

// One micro-batch through one part on one device of the tensor-parallel
// group, in seconds and bytes. Times are those of the part's own work
// (compute, and the layout's collectives inside the group, e.g. Megatron's
// all-reduces, or the experts' all-to-alls); what recomputation adds is the
// engine's (stage_model.h): full recomputation runs forward_s() again before
// the backward, selective recomputation attention_core_forward_s.
struct PartCosts {
  double forward_compute_s = 0, forward_comm_s = 0;
  double backward_compute_s = 0, backward_comm_s = 0;  // B: input gradients
  double weight_compute_s = 0, weight_comm_s = 0;      // W: weight gradients
  double attention_core_forward_s = 0;
  int64_t dense_parameters = 0;   // elements held on this device, replicated over data parallelism
  int64_t expert_parameters = 0;  // elements held on this device, replicated over dp / ep
  // Of dense_parameters, those that are another part's too (a head tied to
  // the embedding): held once when both parts are on one stage.
  int64_t tied_parameters = 0;
  // Bytes one micro-batch keeps from its forward to its backward under the
  // recomputation setting (Korthikanti et al.'s per-layer quantity for a
  // layer), the part of them its weight gradient (W) still needs after the
  // input gradient (B), and the extra working memory while its backward runs
  // (full recomputation: the recomputed activations of one layer).
  int64_t activation_bytes = 0;
  int64_t keep_bytes = 0;
  int64_t transient_bytes = 0;
  std::string layout;  // the layout's name, for the report
  double forward_s() const { return forward_compute_s + forward_comm_s; }
  double backward_s() const { return backward_compute_s + backward_comm_s; }
  double weight_s() const { return weight_compute_s + weight_comm_s; }
};

// A group of ranks as the hierarchical collectives see it: per_node ranks on
// each of `nodes` nodes (ranks of one node talk over the intra-node links).
struct GroupShape {
  int32_t per_node = 1;
  int32_t nodes = 1;
  int64_t size() const { return static_cast<int64_t>(per_node) * nodes; }
};

enum class Collective : uint8_t { kAllReduce, kReduceScatter, kAllGather };

class PlanCosts {
 public:
  virtual ~PlanCosts() = default;
  virtual const ModelFacts& facts() const = 0;
  // The part's costs, or why the configuration cannot hold it (e.g. "tp = 3
  // does not divide the 32 heads").
  virtual Result<PartCosts> part(BlockPart part, const PartConfig& config) = 0;
  // Weights, gradients and optimizer state of `parameters` elements sharded
  // by ZeRO stage `zero` over `dp` ranks (formulas.h state_bytes).
  virtual StateBytes state(int64_t parameters, int32_t zero, int32_t dp) const = 0;
  // Seconds of a collective over the group; bytes per device as
  // core/teach/collectives.h counts them (all-reduce: the tensor; reduce-
  // scatter: the unreduced input; all-gather: the gathered result).
  virtual double collective_s(Collective kind, int64_t bytes, GroupShape group) const = 0;
  // Seconds to send `bytes` from one GPU to another, inside a node or across.
  virtual double p2p_s(int64_t bytes, bool inter_node) const = 0;

  // Work that one call of part() may do at length (a block's solve), so that
  // a search can put it off to its next step (search.h Planner::step, the
  // page's Stop between two steps). solves(): how many such solves so far;
  // solve_pieces(): how many pieces of them, each a long part of a search's
  // step (a solve may run in several, block.h BlockCache::advance).
  // While a gate is set, a part() that would run a piece of a solve asks
  // gate() before each; false refuses it (the pieces done are kept: a later
  // call runs the rest) and sets deferred() until the gate is set again.
  // Costs that never work long keep these defaults.
  virtual int64_t solves() const { return 0; }
  virtual int64_t solve_pieces() const { return solves(); }
  virtual void set_solve_gate(std::function<bool()> gate) { (void)gate; }
  virtual bool deferred() const { return false; }
};

}  // namespace shardlab::plan
