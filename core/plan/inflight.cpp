// In-flight activation counts from a schedule's order (inflight.h).
#include "core/plan/inflight.h"

#include <algorithm>

#include "core/pipeline/generators.h"

namespace shardlab::plan {
namespace {

// Adds a point to a set of points none of which dominates another (every
// count <=): dropped when dominated, else replaces the points it dominates.
// The set stays small (the counts of a schedule's steady state repeat).
void add_point(std::vector<std::vector<int32_t>>* set, const std::vector<int32_t>& point) {
  for (const std::vector<int32_t>& q : *set) {
    bool covered = true;
    for (size_t c = 0; c < point.size() && covered; ++c) covered = point[c] <= q[c];
    if (covered) return;
  }
  set->erase(std::remove_if(set->begin(), set->end(),
                            [&point](const std::vector<int32_t>& q) {
                              for (size_t c = 0; c < point.size(); ++c) {
                                if (q[c] > point[c]) return false;
                              }
                              return true;
                            }),
             set->end());
  set->push_back(point);
}

}  // namespace

int64_t InflightProfile::peak_bytes(int32_t device, const std::vector<int64_t>& act_by_stage,
                                    const std::vector<int64_t>& keep_by_stage) const {
  int64_t best = 0;
  const std::vector<int32_t>& stages = stage_of[device];
  for (const std::vector<int32_t>& point : points[device]) {
    int64_t total = 0;
    for (int32_t c = 0; c < chunks; ++c) {
      total += point[c] * act_by_stage[stages[c]] + point[chunks + c] * keep_by_stage[stages[c]];
    }
    best = std::max(best, total);
  }
  return best;
}

int32_t InflightProfile::peak_microbatches(int32_t device) const {
  int32_t best = 0;
  for (const std::vector<int32_t>& point : points[device]) {
    int32_t total = 0;
    for (int32_t c = 0; c < chunks; ++c) total += point[c];
    best = std::max(best, total);
  }
  return best;
}

InflightProfile profile_of_order(const pipeline::Expansion& e, const pipeline::Order& order) {
  InflightProfile profile;
  profile.devices = e.devices;
  profile.chunks = e.chunks;
  profile.stage_of.assign(e.devices, std::vector<int32_t>(e.chunks, 0));
  for (int32_t u = 0; u < e.num_units(); ++u) {
    const pipeline::Unit& unit = e.units[u];
    profile.stage_of[order.unit_device[u]][unit.chunk] = unit.stage;
  }
  profile.points.assign(e.devices, {});
  for (int32_t d = 0; d < e.devices; ++d) {
    const int32_t v = e.chunks;
    std::vector<int32_t> counts(2 * v, 0);
    std::vector<std::vector<int32_t>>& points = profile.points[d];
    add_point(&points, counts);
    for (const pipeline::Slot& slot : order.device_slots[d]) {
      int32_t ops[3] = {-1, -1, -1};
      const int32_t n = pipeline::slot_ops(e, slot, ops);
      bool allocated = false;
      for (int32_t i = 0; i < n; ++i) {
        const pipeline::Op& op = e.ops[ops[i]];
        if (op.kind == pipeline::OpKind::kF) {
          ++counts[e.units[op.unit].chunk];
          allocated = true;
        }
      }
      if (allocated) add_point(&points, counts);
      for (int32_t i = 0; i < n; ++i) {
        const pipeline::Op& op = e.ops[ops[i]];
        const int32_t c = e.units[op.unit].chunk;
        if (op.kind == pipeline::OpKind::kB) {
          --counts[c];
          ++counts[v + c];
        } else if (op.kind == pipeline::OpKind::kW) {
          --counts[v + c];
        }
      }
    }
    std::sort(points.begin(), points.end());
  }
  return profile;
}

InflightProfile zbv_budget_profile(int32_t pp) {
  InflightProfile profile;
  profile.devices = pp;
  profile.chunks = 2;
  profile.stage_of.assign(pp, {0, 0});
  profile.points.assign(pp, {});
  for (int32_t d = 0; d < pp; ++d) {
    profile.stage_of[d] = {d, 2 * pp - 1 - d};
    profile.points[d] = {{pp, pp, 0, 0}};
  }
  return profile;
}

bool InflightCache::has(const ScheduleShape& shape, int32_t pp, int64_t microbatches) const {
  return shape.name == "ZBV" ||
         cache_.count(std::tuple(shape.name, pp, shape.chunks, microbatches)) > 0;
}

Result<const InflightProfile*> InflightCache::get(const ScheduleShape& shape, int32_t pp,
                                                  int64_t microbatches) {
  const auto key = std::tuple(shape.name, pp, shape.chunks, microbatches);
  auto it = cache_.find(key);
  if (it == cache_.end()) {
    std::unique_ptr<Result<InflightProfile>> made;
    if (shape.name == "ZBV") {
      made = std::make_unique<Result<InflightProfile>>(zbv_budget_profile(pp));
    } else {
      ++generated_;
      pipeline::Problem problem;
      problem.form = pipeline::Form::kStages;
      problem.devices = pp;
      problem.microbatches = static_cast<int32_t>(microbatches);
      problem.uniform = false;
      problem.placement.chunks = shape.chunks;
      problem.stages.assign(static_cast<size_t>(pp) * shape.chunks, pipeline::StageSpec{});
      for (pipeline::StageSpec& s : problem.stages) s.keep = 0.5;
      Result<pipeline::Generated> g = pipeline::generate(problem, shape.name);
      if (!g.is_ok()) {
        made = std::make_unique<Result<InflightProfile>>(g.status());
      } else {
        generated_ops_ += g.value().expansion.num_ops();
        made = std::make_unique<Result<InflightProfile>>(
            profile_of_order(g.value().expansion, g.value().order));
      }
    }
    it = cache_.emplace(key, std::move(made)).first;
  }
  if (!it->second->is_ok()) return it->second->status();
  return &it->second->value();
}

}  // namespace shardlab::plan
