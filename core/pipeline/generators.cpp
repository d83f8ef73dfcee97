// The generator table: names, aliases, the placement each schedule needs and
// the conditions under which its published order is defined (the asserts of
// the reference implementations: Megatron's m % p == 0 for interleaving,
// DualPipe's even PP, even N and N >= 2 PP, DualPipeV's N >= 2 ranks,
// Chimera's even D and N a multiple of D), and PyTorch's own orders under
// their torch: names (the conditions of their constructors, torch_ir.h).
#include "core/pipeline/generators.h"

#include <cctype>

#include "core/pipeline/schedules.h"
#include "core/pipeline/torch_ir.h"

namespace shardlab::pipeline {
namespace {

struct Entry {
  const char* name;
  const char* summary;
  PlacementKind placement;
  std::vector<const char*> aliases;
};

const std::vector<Entry>& table() {
  static const std::vector<Entry> entries = {
      {"GPipe",
       "all forwards, then all backwards (Huang et al. 2019)",
       PlacementKind::kLinear,
       {"afab", "fillDrain"}},
      {"1F1B",
       "one forward one backward after a warm-up (PipeDream-flush, Megatron)",
       PlacementKind::kLinear,
       {"pipedreamflush", "onefoneb"}},
      {"Interleaved1F1B",
       "Megatron's interleaved 1F1B with v model chunks per device (Narayanan et al. 2021)",
       PlacementKind::kInterleaved,
       {"interleaved", "vpp", "interleaved1f1b"}},
      {"ZB-H1",
       "zero bubble, 1F1B memory: W's deferred into the bubbles (Qi et al. 2024)",
       PlacementKind::kLinear,
       {"zb1p", "zbh1"}},
      {"ZB-H2",
       "zero bubble with 2p-1 warm-up forwards (Qi et al. 2024)",
       PlacementKind::kLinear,
       {"zb2p", "zbh2"}},
      {"ZBV",
       "V-shape zero bubble at 1F1B memory: the zero-bubble authors' greedy",
       PlacementKind::kVShape,
       {"zbv", "zerobubblev"}},
      {"DualPipe",
       "bidirectional, two parameter copies, overlapped F&B pairs (DeepSeek-V3)",
       PlacementKind::kBidirectional,
       {"dualpipe"}},
      {"DualPipeV",
       "DualPipe cut in half onto a V: n ranks, 2n stages (DeepSeek, Sea AI Lab)",
       PlacementKind::kVShape,
       {"dualpipev", "cutinhalf"}},
      {"Chimera",
       "two pipelines in opposite directions (Li and Hoefler, SC'21)",
       PlacementKind::kBidirectional,
       {"chimera"}},
      {"torch:Interleaved1F1B",
       "PyTorch's ScheduleInterleaved1F1B (torch.distributed.pipelining): its own order, "
       "also for m not a multiple of p",
       PlacementKind::kInterleaved,
       {}},
      {"torch:InterleavedZeroBubble",
       "PyTorch's ScheduleInterleavedZeroBubble: interleaved ZB1P with its idle steps",
       PlacementKind::kInterleaved,
       {}},
      {"torch:ZBVZeroBubble",
       "PyTorch's ScheduleZBVZeroBubble: its fixed ZB-V pattern (not the authors' greedy)",
       PlacementKind::kVShape,
       {}},
      {"torch:DualPipeV",
       "PyTorch's ScheduleDualPipeV: DeepSeek's eight steps on the V, pairs as OVERLAP_F_B",
       PlacementKind::kVShape,
       {}},
      {"list",
       "a priority list schedule (B, then F, then W) for any problem",
       PlacementKind::kAuto,
       {"greedy"}},
  };
  return entries;
}

std::string squash(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '-' || c == '_' || c == ' ') continue;
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

const Entry* find_entry(std::string_view text) {
  const std::string key = squash(text);
  for (const Entry& entry : table()) {
    if (squash(entry.name) == key) return &entry;
    for (const char* alias : entry.aliases) {
      if (squash(alias) == key) return &entry;
    }
  }
  return nullptr;
}

// The problem-shape conditions of a schedule ("" when it applies).
std::string shape_reason(const Entry& entry, const Problem& problem) {
  const std::string name = entry.name;
  if (name == "list") return "";
  if (problem.form != Form::kStages) {
    return name + " schedules a chain of stages; this problem is an operator graph";
  }
  const int32_t p = problem.devices, m = problem.microbatches;
  if (is_torch_schedule(name)) {
    const int32_t v = entry.placement == PlacementKind::kVShape ? 2 : problem.placement.chunks;
    return torch_schedule_reason(name, p, m, v);
  }
  if (name == "Interleaved1F1B") {
    const int32_t v = problem.placement.chunks;
    if (v < 2)
      return "Interleaved1F1B needs at least 2 chunks per device (chunks is " + std::to_string(v) +
             ")";
    if (m % p != 0) {
      return "Interleaved1F1B (Megatron) needs the micro-batches to be a multiple of the "
             "devices; m = " +
             std::to_string(m) + ", p = " + std::to_string(p);
    }
  }
  if (name == "DualPipe") {
    if (p % 2 != 0) return "DualPipe needs an even number of devices; p = " + std::to_string(p);
    if (m % 2 != 0)
      return "DualPipe needs an even number of micro-batches; m = " + std::to_string(m);
    if (m < 2 * p) {
      return "DualPipe needs at least 2 p = " + std::to_string(2 * p) +
             " micro-batches; m = " + std::to_string(m);
    }
  }
  if (name == "DualPipeV" && m < 2 * p) {
    return "DualPipeV needs at least 2 p = " + std::to_string(2 * p) +
           " micro-batches; m = " + std::to_string(m);
  }
  if (name == "Chimera") {
    if (p % 2 != 0) return "Chimera needs an even number of devices; p = " + std::to_string(p);
    if (m % p != 0) {
      return "Chimera needs the micro-batches to be a multiple of the devices; m = " +
             std::to_string(m) + ", p = " + std::to_string(p);
    }
  }
  return "";
}

Result<Order> build(const std::string& name, const Expansion& e) {
  if (name == "GPipe") return gpipe_order(e);
  if (name == "1F1B") return one_f_one_b_order(e);
  if (name == "Interleaved1F1B") return interleaved_order(e);
  if (name == "ZB-H1") return zb_h1_order(e);
  if (name == "ZB-H2") return zb_h2_order(e);
  if (name == "ZBV") return zbv_order(e);
  if (name == "DualPipe") return dualpipe_order(e);
  if (name == "DualPipeV") return dualpipev_order(e);
  if (name == "Chimera") return chimera_order(e);
  if (is_torch_schedule(name)) return torch_order(e, name);
  return list_order(e);
}

Result<Generated> generate_entry(const Entry& entry, const Problem& problem) {
  const std::string reason = shape_reason(entry, problem);
  if (!reason.empty()) return Status(StatusCode::kInvalidArgument, reason);
  Placement placement;
  placement.kind = entry.placement;
  placement.chunks = problem.placement.chunks;
  Result<Expansion> expansion = expand(problem, placement);
  if (!expansion.is_ok()) {
    return Status(StatusCode::kInvalidArgument,
                  std::string(entry.name) + ": " + expansion.status().message());
  }
  Result<Order> order = build(entry.name, expansion.value());
  if (!order.is_ok()) return order.status();
  return Generated{std::move(expansion).value(), std::move(order).value()};
}

}  // namespace

const std::vector<std::string>& schedule_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const Entry& entry : table()) out.push_back(entry.name);
    return out;
  }();
  return names;
}

bool find_schedule(std::string_view text, std::string* canonical) {
  const Entry* entry = find_entry(text);
  if (entry && canonical) *canonical = entry->name;
  return entry != nullptr;
}

std::vector<ScheduleInfo> list_schedules(const Problem& problem) {
  std::vector<ScheduleInfo> out;
  for (const Entry& entry : table()) {
    ScheduleInfo info;
    info.name = entry.name;
    info.summary = entry.summary;
    std::string reason = shape_reason(entry, problem);
    if (reason.empty()) {
      Placement placement;
      placement.kind = entry.placement;
      placement.chunks = problem.placement.chunks;
      const Status fits = check_placement(problem, placement);
      if (!fits.is_ok()) reason = std::string(entry.name) + ": " + fits.message();
    }
    info.applicable = reason.empty();
    info.reason = reason;
    out.push_back(info);
  }
  return out;
}

Result<Generated> generate(const Problem& problem, std::string_view name) {
  const Entry* entry = find_entry(name);
  if (!entry) {
    std::string known;
    for (const std::string& n : schedule_names()) known += (known.empty() ? "" : ", ") + n;
    return Status(StatusCode::kInvalidArgument,
                  "unknown schedule '" + std::string(name) + "' (known: " + known + ")");
  }
  return generate_entry(*entry, problem);
}

}  // namespace shardlab::pipeline
