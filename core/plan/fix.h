// --fix: decisions pinned by the user, so that a published configuration can
// be evaluated as it was run while the rest is still optimised. The grammar
// is a comma-separated list of key=value:
//   tp=8 pp=8 dp=48 ep=8 vpp=3      sizes (vpp: model chunks per device)
//   sp=on|off                       sequence parallelism
//   zero=0..3                       ZeRO stage over data parallelism
//   schedule=1f1b|interleaved|zb-h1|zb-h2|zbv|dualpipev|gpipe (any pipeline-lab alias)
//   mbs=N  microbatches=N (or m=N)  micro-batch size and count
//   recompute=none|selective|full
//   layers=5/5/6/...                layers of each stage in chain order
// e.g. "tp=8,pp=8,dp=48,schedule=interleaved,vpp=3,mbs=1,recompute=selective,sp=on,zero=1".
// A fix that contradicts itself, the model or the cluster gets one line
// (check_fix), e.g. "tp=8 x pp=8 x dp=48 = 3072 GPUs, the cluster has 64".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/plan/costs.h"
#include "core/plan/model.h"
#include "core/status.h"

namespace shardlab::plan {

struct Fix {
  std::optional<int32_t> tp, pp, dp, ep, vpp;
  std::optional<bool> sequence_parallel;
  std::optional<int32_t> zero;
  std::optional<std::string> schedule;  // canonical (config.h)
  std::optional<int64_t> microbatch_size, microbatches;
  std::optional<Recompute> recompute;
  std::optional<std::vector<int32_t>> stage_layers;
  bool empty() const;
};

// kInvalidArgument naming the item: "--fix: at 'tp=x': expected a positive integer".
Result<Fix> parse_fix(std::string_view text);
// Back to the grammar, in the order above ("" for an empty fix).
std::string fix_text(const Fix& fix);
// True when the plan agrees with every pinned decision (stage layers are
// compared only when the plan has them).
bool fix_admits(const Fix& fix, const Plan& plan);
// One line when no plan can satisfy the fix on this model, cluster and batch.
Status check_fix(const Fix& fix, const ModelFacts& model, const Cluster& cluster,
                 const Training& training);

}  // namespace shardlab::plan
