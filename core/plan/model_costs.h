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
#include <unordered_map>

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

  int64_t solves() const override;        // distinct block solves
  int64_t solve_pieces() const override;  // their pieces (block.h BlockCache::advance)
  void set_solve_gate(std::function<bool()> gate) override;
  bool deferred() const override { return deferred_; }
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
  std::function<bool()> gate_;  // set_solve_gate
  bool deferred_ = false;
  std::map<std::tuple<BlockPart, int32_t, bool, int32_t, int64_t, Recompute, bool>,
           Result<PartCosts>>
      memo_;
  // Collective and p2p prices by (kind, group, bytes): the search asks for
  // the same few thousand many times over (every configuration's stages),
  // and pricing one sorts the levels' links (core/teach/collectives.h).
  struct PriceKey {
    int64_t bytes;
    int32_t per_node, nodes;
    int32_t kind;  // Collective, or 16 + inter_node for p2p
    bool operator==(const PriceKey& o) const {
      return bytes == o.bytes && per_node == o.per_node && nodes == o.nodes && kind == o.kind;
    }
  };
  struct PriceHash {
    size_t operator()(const PriceKey& k) const {
      // splitmix64's finaliser over the fields.
      uint64_t x = static_cast<uint64_t>(k.bytes) ^
                   static_cast<uint64_t>(k.per_node) * 0x9E3779B97F4A7C15ull ^
                   static_cast<uint64_t>(k.nodes) * 0xC2B2AE3D27D4EB4Full ^
                   static_cast<uint64_t>(k.kind) * 0x165667B19E3779F9ull;
      x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
      x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
      return static_cast<size_t>(x ^ (x >> 31));
    }
  };
  mutable std::unordered_map<PriceKey, double, PriceHash> prices_;
  double memo_price(const PriceKey& key, double (*price)(const ModelCosts&, const PriceKey&)) const;
};

}  // namespace shardlab::plan
