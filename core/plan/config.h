// A plan's shape on the cluster: which pipeline schedules the plan lab uses
// and how many stages each makes of p devices, where every rank sits
// (Megatron's order: tensor-parallel ranks innermost, then data-parallel,
// then pipeline stages across), the groups its collectives run over, and
// whether each stage-to-stage transfer stays inside a node. check_plan()
// says in one line why a plan cannot run (the messages of --fix).
// Used by stage_model.h, the search and the report.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/pipeline/model.h"
#include "core/plan/costs.h"
#include "core/plan/model.h"
#include "core/status.h"

namespace shardlab::plan {

// The schedules a plan may use: the pipeline lab's, less those that keep two
// copies of the parameters (DualPipe, Chimera) and the list schedule.
const std::vector<std::string>& plan_schedule_names();  // GPipe, 1F1B, Interleaved1F1B, ZB-H1, ...
// A schedule by any of the pipeline lab's names and aliases ("zb-h1",
// "interleaved", ...); false when unknown or not one of the above.
bool find_plan_schedule(std::string_view text, std::string* canonical);

struct ScheduleShape {
  std::string name;  // canonical
  pipeline::PlacementKind placement = pipeline::PlacementKind::kLinear;
  int32_t chunks = 1;           // model chunks per device: 1, v (interleaved) or 2 (V-shape)
  bool split_backward = false;  // W runs apart from B (the zero-bubble schedules)
  bool fixed_order = true;      // the order depends on the shape only (ZBV's greedy reads times)
};
// The shape of `schedule` with `vpp` chunks per device (vpp matters for
// Interleaved1F1B only; V-shapes always have 2).
ScheduleShape schedule_shape(const std::string& schedule, int32_t vpp);

// Stages of the chain (pp x chunks) and the device of stage k.
int32_t stage_count(const Plan& plan);
int32_t device_of_stage(const ScheduleShape& shape, int32_t pp, int32_t stage);

// Where a plan's ranks sit. Rank r = tp_rank + tp (dp_rank + dp pp_rank), as
// Megatron orders them; expert-parallel groups are ep consecutive
// data-parallel ranks, the experts' data-parallel groups the rest.
struct RankLayout {
  GroupShape tp, dp, ep, expert_dp;
  // Per stage edge k -> k+1 (stages - 1 entries): true when some rank of
  // stage k sends across nodes (the slowest pair sets the transfer time);
  // edges between stages of one device are never sent.
  std::vector<bool> edge_inter_node;
  std::vector<bool> edge_same_device;
};
RankLayout rank_layout(const Plan& plan, const Cluster& cluster);

// OK when the plan's degrees, schedule and batch fit the model, cluster and
// training; otherwise one line naming the conflict, e.g. "tp=8 x pp=8 x
// dp=48 = 3072 GPUs, the cluster has 64". Stage layers are checked when
// given (pp x chunks entries, each at least 1, summing to the layers).
Status check_plan(const Plan& plan, const ModelFacts& model, const Cluster& cluster,
                  const Training& training);

// "tp=8 pp=8 dp=1 vpp=1 sp=on zero=1 1F1B mbs=1 m=64 recompute=full" (messages, logs).
std::string plan_summary(const Plan& plan);

}  // namespace shardlab::plan
