// The production costs of the plan lab (costs.h's PlanCosts) for a model on
// a cluster: each part (a transformer layer, or an einsum model's repeated
// block; the embedding; the head) laid out by the sharding solver through
// the teaching lab's generator and priced by the cost model the two labs
// share (block.h's BlockCache, memoised per query), activation and state
// bytes from formulas.h (Korthikanti et al.; ZeRO), and data-parallel and
// stage-to-stage traffic priced by the hierarchical collectives of
// core/teach/collectives.h over the cluster's two link levels.
#pragma once

#include <map>
#include <memory>
#include <tuple>

#include "core/plan/block.h"
#include "core/plan/costs.h"
#include "core/plan/model.h"
#include "core/status.h"

namespace shardlab::plan {

class ModelCosts : public PlanCosts {
 public:
  // kInvalidInput when the model cannot be priced (e.g. an einsum model
  // without a repeated block). An einsum model's FLOPs are what the cost
  // model charges its parts solved on one GPU (three solves here).
  static Result<std::unique_ptr<ModelCosts>> create(const ModelInput& model, const Cluster& cluster,
                                                    const Training& training);
  ~ModelCosts() override;

  const ModelFacts& facts() const override { return facts_; }
  Result<PartCosts> part(BlockPart part, const PartConfig& config) override;
  StateBytes state(int64_t parameters, int32_t zero, int32_t dp) const override;
  double collective_s(Collective kind, int64_t bytes, GroupShape group) const override;
  double p2p_s(int64_t bytes, bool inter_node) const override;

  int64_t solves() const;  // distinct block solves
  // The teaching lab's report of one solved part (for the page's stage view).
  std::string report_json(BlockPart part, const PartConfig& config);

 private:
  ModelCosts(const ModelInput& model, const Cluster& cluster, const Training& training);
  Result<PartCosts> price(BlockPart part, const PartConfig& config);

  ModelInput model_;
  Cluster cluster_;
  Training training_;
  ModelFacts facts_;
  std::unique_ptr<BlockCache> blocks_;
  std::map<std::tuple<BlockPart, int32_t, bool, int32_t, int64_t, Recompute>, Result<PartCosts>>
      memo_;
};

}  // namespace shardlab::plan
