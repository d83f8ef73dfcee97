// Schedules, stage placement, rank layout and the one-line checks of a plan
// (config.h).
#include "core/plan/config.h"

#include <algorithm>

#include "core/pipeline/generators.h"

namespace shardlab::plan {
namespace {

using pipeline::PlacementKind;

std::string times(std::initializer_list<std::string> parts) {
  std::string out;
  for (const std::string& part : parts) out += (out.empty() ? "" : " x ") + part;
  return out;
}

Status invalid(std::string message) {
  return Status(StatusCode::kInvalidArgument, std::move(message));
}

// The group {start + j * stride : j < count} on nodes of g ranks: the most
// ranks it has on one node, and how many nodes it touches.
GroupShape group_shape(int64_t start, int64_t stride, int64_t count, int32_t g) {
  GroupShape shape;
  if (start % g == 0 && stride % g == 0) {  // one rank per node
    shape.per_node = 1;
    shape.nodes = static_cast<int32_t>(count);
    return shape;
  }
  if (start % g == 0 && g % stride == 0) {  // g / stride ranks fill each node
    shape.per_node = static_cast<int32_t>(std::min<int64_t>(count, g / stride));
    shape.nodes = static_cast<int32_t>((count + shape.per_node - 1) / shape.per_node);
    return shape;
  }
  int32_t run = 0;
  int64_t last = -1;
  shape.nodes = 0;
  shape.per_node = 0;
  for (int64_t j = 0; j < count; ++j) {  // members in rank order: a node's members are adjacent
    const int64_t node = (start + j * stride) / g;
    if (node != last) {
      ++shape.nodes;
      run = 0;
      last = node;
    }
    shape.per_node = std::max(shape.per_node, ++run);
  }
  return shape;
}

// True when some rank of device `from`'s block sends to a rank on another
// node (rank r of the block talks to the rank at the same offset of `to`).
bool crosses_nodes(int64_t from, int64_t to, int64_t block, int32_t g) {
  if (from == to) return false;
  if (block % g == 0) return true;                                    // blocks fill whole nodes
  if (g % block == 0) return (from * block) / g != (to * block) / g;  // blocks inside nodes
  for (int64_t r = 0; r < block; ++r) {
    if ((from * block + r) / g != (to * block + r) / g) return true;
  }
  return false;
}

}  // namespace

const std::vector<std::string>& plan_schedule_names() {
  static const std::vector<std::string> names = {"1F1B", "Interleaved1F1B", "ZB-H1", "ZB-H2",
                                                 "ZBV",  "DualPipeV",       "GPipe"};
  return names;
}

bool find_plan_schedule(std::string_view text, std::string* canonical) {
  std::string name;
  if (!pipeline::find_schedule(text, &name)) return false;
  const auto& names = plan_schedule_names();
  if (std::find(names.begin(), names.end(), name) == names.end()) return false;
  if (canonical) *canonical = name;
  return true;
}

ScheduleShape schedule_shape(const std::string& schedule, int32_t vpp) {
  ScheduleShape shape;
  shape.name = schedule;
  if (schedule == "Interleaved1F1B") {
    shape.placement = PlacementKind::kInterleaved;
    shape.chunks = vpp;
  } else if (schedule == "ZBV" || schedule == "DualPipeV") {
    shape.placement = PlacementKind::kVShape;
    shape.chunks = 2;
  }
  shape.split_backward =
      schedule == "ZB-H1" || schedule == "ZB-H2" || schedule == "ZBV" || schedule == "DualPipeV";
  shape.fixed_order = schedule != "ZBV";
  return shape;
}

int32_t stage_count(const Plan& plan) {
  return plan.pp * schedule_shape(plan.schedule, plan.vpp).chunks;
}

int32_t device_of_stage(const ScheduleShape& shape, int32_t pp, int32_t stage) {
  switch (shape.placement) {
    case PlacementKind::kInterleaved:
      return stage % pp;
    case PlacementKind::kVShape:
      return stage < pp ? stage : 2 * pp - 1 - stage;
    default:
      return stage;
  }
}

RankLayout rank_layout(const Plan& plan, const Cluster& cluster) {
  const int32_t g = std::max(1, cluster.gpus_per_node);
  const int64_t t = plan.tp, d = plan.dp;
  const int64_t ep = std::max(1, plan.ep);
  RankLayout layout;
  layout.tp = group_shape(0, 1, t, g);
  layout.dp = group_shape(0, t, d, g);
  layout.ep = group_shape(0, t, ep, g);
  layout.expert_dp = group_shape(0, t * ep, std::max<int64_t>(1, d / ep), g);
  const ScheduleShape shape = schedule_shape(plan.schedule, plan.vpp);
  const int32_t stages = plan.pp * shape.chunks;
  const int64_t block = t * d;  // ranks of one pipeline stage's device
  for (int32_t k = 0; k + 1 < stages; ++k) {
    const int64_t from = device_of_stage(shape, plan.pp, k);
    const int64_t to = device_of_stage(shape, plan.pp, k + 1);
    layout.edge_inter_node.push_back(crosses_nodes(from, to, block, g));
    layout.edge_same_device.push_back(from == to);
  }
  return layout;
}

Status check_plan(const Plan& plan, const ModelFacts& model, const Cluster& cluster,
                  const Training& training) {
  const auto str = [](int64_t v) { return std::to_string(v); };
  if (plan.tp < 1 || plan.pp < 1 || plan.dp < 1 || plan.ep < 1 || plan.vpp < 1) {
    return invalid("tp, pp, dp, ep and vpp must be at least 1");
  }
  if (plan.gpus() != cluster.gpus()) {
    return invalid(times({"tp=" + str(plan.tp), "pp=" + str(plan.pp), "dp=" + str(plan.dp)}) +
                   " = " + str(plan.gpus()) + " GPUs, the cluster has " + str(cluster.gpus()));
  }
  if (model.heads > 0 && model.heads % plan.tp != 0) {
    return invalid("tp=" + str(plan.tp) + " does not divide the " + str(model.heads) +
                   " attention heads");
  }
  if (model.kv_heads > 0 && model.kv_heads % plan.tp != 0 && plan.tp % model.kv_heads != 0) {
    return invalid("tp=" + str(plan.tp) + " and the " + str(model.kv_heads) +
                   " key/value heads do not divide one another");
  }
  if (plan.ep > 1) {
    if (model.experts == 0)
      return invalid("ep=" + str(plan.ep) + " needs a mixture-of-experts model");
    if (model.experts % plan.ep != 0) {
      return invalid("ep=" + str(plan.ep) + " does not divide the " + str(model.experts) +
                     " experts");
    }
    if (plan.dp % plan.ep != 0) {
      return invalid("ep=" + str(plan.ep) + " does not divide dp=" + str(plan.dp) +
                     " (expert parallelism is carved out of data parallelism)");
    }
  }
  if (plan.zero < 0 || plan.zero > 3) return invalid("zero must be 0, 1, 2 or 3");
  if (plan.sequence_parallel && plan.tp == 1) return invalid("sp=on needs tp > 1");
  std::string schedule;
  if (!find_plan_schedule(plan.schedule, &schedule) || schedule != plan.schedule) {
    return invalid("unknown schedule '" + plan.schedule +
                   "' (1f1b, interleaved, zb-h1, zb-h2, zbv, dualpipev, gpipe)");
  }
  const ScheduleShape shape = schedule_shape(schedule, plan.vpp);
  if (schedule == "Interleaved1F1B" && plan.vpp < 2) {
    return invalid("the interleaved schedule needs vpp >= 2, found vpp=" + str(plan.vpp));
  }
  if (shape.placement == PlacementKind::kVShape && plan.vpp != 2) {
    return invalid(schedule + " puts 2 chunks on each device (a V); vpp=" + str(plan.vpp));
  }
  if (shape.placement == PlacementKind::kLinear && plan.vpp != 1) {
    return invalid(schedule + " runs one chunk per device; vpp=" + str(plan.vpp) +
                   " needs the interleaved schedule");
  }
  const int64_t stages = static_cast<int64_t>(plan.pp) * shape.chunks;
  if (stages > model.layers) {
    return invalid(times({"pp=" + str(plan.pp), "chunks=" + str(shape.chunks)}) + " = " +
                   str(stages) + " stages, the model has " + str(model.layers) + " layers");
  }
  if (plan.microbatch_size < 1 || plan.microbatches < 1) {
    return invalid("mbs and the micro-batch count must be at least 1");
  }
  if (static_cast<int64_t>(plan.dp) * plan.microbatch_size * plan.microbatches !=
      training.global_batch) {
    return invalid(times({"dp=" + str(plan.dp), "mbs=" + str(plan.microbatch_size),
                          "microbatches=" + str(plan.microbatches)}) +
                   " = " + str(plan.dp * plan.microbatch_size * plan.microbatches) +
                   " sequences, the global batch is " + str(training.global_batch));
  }
  if (schedule == "Interleaved1F1B" && plan.microbatches % plan.pp != 0) {
    return invalid("the interleaved schedule needs the micro-batches (" + str(plan.microbatches) +
                   ") to be a multiple of pp=" + str(plan.pp));
  }
  if (schedule == "DualPipeV" && plan.microbatches < 2 * plan.pp) {
    return invalid("DualPipeV needs at least 2 x pp = " + str(2 * plan.pp) +
                   " micro-batches, found " + str(plan.microbatches));
  }
  if (!plan.stage_layers.empty()) {
    if (static_cast<int64_t>(plan.stage_layers.size()) != stages) {
      return invalid("the plan lists " + str(plan.stage_layers.size()) + " stages, " + schedule +
                     " on pp=" + str(plan.pp) + " has " + str(stages));
    }
    int64_t sum = 0;
    for (int32_t n : plan.stage_layers) {
      if (n < 1) return invalid("every stage needs at least one layer");
      sum += n;
    }
    if (sum != model.layers) {
      return invalid("the stages hold " + str(sum) + " layers, the model has " + str(model.layers));
    }
  }
  return Status::ok();
}

std::string plan_summary(const Plan& plan) {
  std::string out = "tp=" + std::to_string(plan.tp) + " pp=" + std::to_string(plan.pp) +
                    " dp=" + std::to_string(plan.dp);
  if (plan.ep > 1) out += " ep=" + std::to_string(plan.ep);
  out += " vpp=" + std::to_string(plan.vpp) + " sp=" + (plan.sequence_parallel ? "on" : "off") +
         " zero=" + std::to_string(plan.zero) + " " + plan.schedule +
         " mbs=" + std::to_string(plan.microbatch_size) +
         " m=" + std::to_string(plan.microbatches) + " recompute=" + recompute_name(plan.recompute);
  return out;
}

}  // namespace shardlab::plan
