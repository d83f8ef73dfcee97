// The pipeline problem (what the user describes) and its expansion into a
// flat job-shop instance (what the simulator, the checker and the planner
// work on): operations of every micro-batch with durations and memory
// deltas, precedence arcs with communication delays, placement units.
//
// Two forms of problem:
// - stages: a chain of stages, each with F (forward), B (input gradient),
//   W (weight gradient) times, an F&B time for an overlapped pair, activation
//   memory per micro-batch (allocated by F, released by B except the part
//   `keep` that waits for W) and parameter memory per copy of the stage.
//   A *uniform* stages problem gives these values once, for one device's
//   share of the model; each placement splits that share into as many
//   stages as it needs (interleaved: v chunks of 1/v each; V-shape: 2
//   chunks of 1/2; linear and bidirectional: 1), so that every schedule
//   runs the same model on the same devices. Explicit stages are taken as
//   they are, and a placement applies only when their count fits it.
// - operators: a DAG of operators, each with F/B/W, memory and the set of
//   devices it may run on; edges carry a communication delay.
//
// Times and memory are integers inside (ticks): Expansion::time_scale ticks
// per time unit and mem_scale ticks per memory unit, chosen per expansion so
// that every value of the problem is an exact integer (the smallest power of
// ten up to 10^6 that makes the input integral, times the split factor;
// values with more than 6 decimals are rounded). Outputs divide back.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace shardlab::pipeline {

enum class Form : uint8_t { kStages, kOperators };

enum class PlacementKind : uint8_t {
  kAuto,           // each schedule uses its own placement (problem files leave it open)
  kLinear,         // stage s on device s (S = p)
  kInterleaved,    // stage s on device s mod p, chunk s div p (S = v p)
  kVShape,         // stage s on device s for s < p, else 2p-1-s (S = 2p, chunks 0 and 1)
  kBidirectional,  // two parameter copies: copy 0 stage s on device s, copy 1 on p-1-s (S = p)
  kFree,           // every stage (or operator) may go on any of its allowed devices
  kExplicit,       // stage -> device lists given in the problem, per copy
};
const char* placement_name(PlacementKind kind);  // "auto", "linear", "interleaved", ...
// Parses a placement name; false when unknown.
bool parse_placement(std::string_view text, PlacementKind* kind);

struct Placement {
  PlacementKind kind = PlacementKind::kAuto;
  int32_t chunks = 2;  // v of kInterleaved (uniform problems split each share into v stages)
  // kExplicit: devices[copy][stage]; one list (one copy) or two (bidirectional).
  std::vector<std::vector<int32_t>> devices;
};

// One stage of the chain, or (uniform) one device's share of the model.
// Times are in the problem's unit, memory in the problem's memory unit.
struct StageSpec {
  double f = 1, b = 1, w = 1;
  double fb = -1;    // F&B: this stage's F overlapped with another micro-batch's full
                     // backward (B and W) on the same device; < 0 means f + b + w
  double act = 1;    // activation memory per micro-batch, allocated when F starts
  double keep = 0;   // the part of act kept after B until W ends (0 <= keep <= act)
  double param = 0;  // parameter memory per copy of the stage (static)
  double comm = -1;  // delay of the edge to the next stage; < 0 means Problem::comm
};

// A transformer layer that memory defaults are derived from, in bytes
// (core/pipeline/memory.h: activations held until B and until W, parameters
// with their gradients and optimizer state per stage copy).
struct TransformerSpec {
  double hidden = 0;            // h
  double seq = 0;               // s, tokens per sequence
  double micro_batch = 1;       // b, sequences per micro-batch
  double heads = 0;             // a, attention heads
  double tensor_parallel = 1;   // t
  double layers = 1;            // layers in a device's share (uniform) or in each stage
  double bytes_per_param = 16;  // parameter + gradient + optimizer state (mixed-precision Adam)
};

struct OperatorSpec {
  std::string name;
  double f = 1, b = 1, w = 1;
  double act = 1, keep = 0, param = 0;
  std::vector<int32_t> devices;  // allowed devices, ascending; empty means all
};

struct EdgeSpec {
  int32_t from = 0, to = 0;  // operator indices; from's output feeds to
  double comm = -1;          // < 0 means Problem::comm
};

struct Problem {
  std::string name;
  Form form = Form::kStages;
  int32_t devices = 0;
  int32_t microbatches = 0;
  double comm = 0;  // default delay of an edge crossing devices
  // Serial links: a device sends to another device one transfer at a time,
  // in the order it computed the results, each holding the link (from, to)
  // for its delay (the result's bytes over the link's bandwidth). Off: every
  // transfer is in flight on its own (parallel links).
  bool serial_links = false;
  std::vector<double> mem_cap;  // per device (total: activations + parameters); empty = none
  // Stages form.
  bool uniform = true;            // stages holds one entry: one device's share
  std::vector<StageSpec> stages;  // the chain (explicit), or its uniform share
  Placement placement;            // kAuto unless the problem fixes one
  // Where act, keep and param came from when derived (memory.h); memory is
  // then in bytes.
  std::optional<TransformerSpec> transformer;
  // Operators form.
  std::vector<OperatorSpec> operators;
  std::vector<EdgeSpec> edges;
};

// Checks the invariants the expansion relies on (positive counts, finite
// non-negative values, F and B above 0, at most 6 decimals, keep <= act,
// device indices in range, an acyclic operator graph, totals within
// exact_totals()). The problem reader already reports these with positions.
Status validate(const Problem& problem);

// Times and memory are exact to this resolution (6 decimals): a finer value
// would be rounded by the expansion, and an F or B could become 0 ticks.
constexpr double kResolution = 1e-6;
bool on_resolution(double value);

// Whether the problem's totals fit the int64 tick arithmetic of the
// expansion, the simulator, the checker and the planner: the time of all
// work and delays of every micro-batch, and the memory of every micro-batch
// at once, in ticks (under the finest split any placement makes), times the
// device count, below 2^62. When they do not, `expected` and `found` say so
// in the user's numbers, for a message at "microbatches".
struct Totals {
  bool ok = true;
  std::string expected, found;
};
Totals exact_totals(const Problem& problem);

// ---- the expansion ---------------------------------------------------------

enum class OpKind : uint8_t { kF = 0, kB = 1, kW = 2 };
const char* kind_name(OpKind kind);  // "F", "B", "W"

// Where a stage copy's (or an operator's) weights live: all its operations,
// for every micro-batch, run on the one device the placement gives it.
struct Unit {
  int32_t stage = 0;  // position in its chain (stages form), or operator index
  int32_t copy = 0;   // parameter copy, which is also the direction: 0, or 1 (bidirectional)
  int32_t chunk = 0;  // rank of this unit among its device's units (interleaved, V-shape)
  std::vector<int32_t> devices;  // where it may be placed, ascending; one entry = fixed
  int64_t param = 0;             // parameter memory (mem ticks)
  int64_t fb = 0;                // F&B time (ticks): its F overlapped with a full backward
  bool fb_given = false;         // the problem set it (else fb = F + B + W: no overlap gain)
};

struct Op {
  OpKind kind = OpKind::kF;
  int32_t unit = 0;
  int32_t microbatch = 0;
  int64_t duration = 0;  // ticks
  int64_t alloc = 0;     // mem ticks taken when the op starts (F: act)
  int64_t release = 0;   // mem ticks given back when it ends (B: act - keep; W: keep)
};

// to may start only `delay` ticks after from ends when their units sit on
// different devices, and right after it when they share one.
struct Arc {
  int32_t from = 0, to = 0;
  int64_t delay = 0;
};

struct Expansion {
  Form form = Form::kStages;
  PlacementKind placement = PlacementKind::kLinear;
  int32_t devices = 0;
  int32_t microbatches = 0;
  int32_t stages = 0;      // chain length S (stages form) or operator count
  int32_t chunks = 1;      // units per device per copy (interleaved v, V-shape 2)
  int32_t copies = 1;      // 2 for bidirectional
  int64_t time_scale = 1;  // ticks per time unit
  int64_t mem_scale = 1;   // ticks per memory unit
  static constexpr int64_t kNoCap = INT64_MAX;
  std::vector<int64_t> mem_cap;             // per device, mem ticks (kNoCap when none)
  bool serial_links = false;                // Problem::serial_links
  std::vector<int32_t> microbatch_copy;     // the copy (direction) each micro-batch runs through
  std::vector<std::string> operator_names;  // operators form
  std::vector<Unit> units;
  std::vector<Op> ops;
  std::vector<Arc> arcs;
  // Arcs by endpoint (CSR): arcs[pred_arcs[i]] for i in [pred_begin[op], pred_begin[op + 1]).
  std::vector<int32_t> pred_begin, pred_arcs, succ_begin, succ_arcs;

  int32_t num_ops() const { return static_cast<int32_t>(ops.size()); }
  int32_t num_units() const { return static_cast<int32_t>(units.size()); }
  // Stages form: the unit of stage `stage` of copy `copy`.
  int32_t unit_at(int32_t copy, int32_t stage) const { return copy * stages + stage; }
  // The op of (micro-batch, unit, kind), or -1 when that micro-batch does
  // not pass through the unit (the other copy).
  int32_t op_of(int32_t microbatch, int32_t unit, OpKind kind) const {
    return op_index_[(static_cast<size_t>(microbatch) * units.size() + unit) * 3 +
                     static_cast<size_t>(kind)];
  }
  // The fixed device of a unit, or -1 when it may go on several.
  int32_t fixed_device(int32_t unit) const {
    return units[unit].devices.size() == 1 ? units[unit].devices[0] : -1;
  }
  // Duration of an overlapped pair: F op f together with B op b and b's W
  // (a full backward) take the larger of their units' F&B times when the
  // problem gives both; otherwise F + B + W of the two ops (no gain that
  // nobody asked for).
  int64_t pair_duration(int32_t f, int32_t b) const;
  // "F3 s2" / "B0 s5 c1" / "W7 attn": kind, micro-batch, stage (with its copy
  // when 1) or operator name; used in messages and traces.
  std::string op_label(int32_t op) const;
  // Time and memory in the problem's units.
  double time_value(int64_t ticks) const { return static_cast<double>(ticks) / time_scale; }
  double mem_value(int64_t ticks) const { return static_cast<double>(ticks) / mem_scale; }

  std::vector<int32_t> op_index_;  // see op_of(); filled by expand()
};

// The concrete placement an expansion of `problem` uses: the problem's own
// when it fixes one, else `wanted`. kAuto resolves to kLinear (stages) or
// kFree (operators).
Placement resolve_placement(const Problem& problem, const Placement& wanted);

// Expands the problem under a placement (the problem's own placement wins
// when it is not kAuto; then `placement` must be kAuto or the same kind).
// Fails with kInvalidArgument and a reason when the placement does not fit
// (e.g. "interleaved with 2 chunks needs 8 stages on 4 devices, the problem
// has 6").
Result<Expansion> expand(const Problem& problem, const Placement& placement);
// The checks of expand() without building anything (cheap): OK when
// expand(problem, placement) would succeed.
Status check_placement(const Problem& problem, const Placement& placement);

}  // namespace shardlab::pipeline
