// What a plan becomes outside ShardLab: the Megatron-LM command-line
// arguments that run it and torchtitan's TOML sections, each with the notes
// that say what the target cannot express (a schedule it does not have, a
// ZeRO stage it maps only approximately, ...). Flag and key names as of
// NVIDIA/Megatron-LM d98e8a6 (megatron/training/arguments.py and the config
// dataclasses it turns into flags) and pytorch/torchtitan 238fa99 (the last
// release configured by TOML, torchtitan/config/job_config.py).
#pragma once

#include <string>
#include <vector>

#include "core/plan/model.h"

namespace shardlab::plan {

// "--tensor-model-parallel-size 8 --pipeline-model-parallel-size 8 ..."
// (with the stage split, --sequence-parallel, --expert-model-parallel-size,
// --micro-batch-size, --global-batch-size, --recompute-granularity, the ZeRO
// stage and the model's shape as they apply), one argument per line, each
// line ending in " \" but the last. The stage split: even ->
// --num-layers-per-virtual-pipeline-stage (with v > 1); uneven only at the
// end stages (v = 1) -> --decoder-first/last-pipeline-num-layers; any other
// split -> --pipeline-model-parallel-layout.
std::string megatron_args(const Plan& plan, const Training& training, const Transformer& model);
// What the Megatron arguments cannot say about the plan, one sentence each
// (empty when they say everything).
std::vector<std::string> megatron_notes(const Plan& plan, const Training& training,
                                        const Transformer& model);

// "[parallelism]\ndata_parallel_replicate_degree = ...\n...", then the
// [activation_checkpoint] and [training] sections, then torchtitan_notes as
// "# " comment lines.
std::string torchtitan_toml(const Plan& plan, const Training& training);
std::vector<std::string> torchtitan_notes(const Plan& plan, const Training& training);

}  // namespace shardlab::plan
