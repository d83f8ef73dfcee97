// What a plan becomes outside ShardLab: the Megatron-LM command-line
// arguments that run it and a torchtitan [parallelism] TOML section.
#pragma once

#include <string>

#include "core/plan/model.h"

namespace shardlab::plan {

// "--tensor-model-parallel-size 8 --pipeline-model-parallel-size 8 ..."
// (with --num-layers-per-virtual-pipeline-stage, --sequence-parallel,
// --micro-batch-size, --global-batch-size, --recompute-granularity,
// --use-distributed-optimizer, --expert-model-parallel-size as they apply),
// one argument per line, each line ending in " \" but the last.
std::string megatron_args(const Plan& plan, const Training& training, const Transformer& model);
// "[parallelism]\ndata_parallel_shard_degree = ...\n..."
std::string torchtitan_toml(const Plan& plan, const Training& training);

}  // namespace shardlab::plan
