// The exports of exports.h: a plan as Megatron-LM arguments and as
// torchtitan TOML, with notes on what each cannot express. The names were
// read from the frameworks' sources (see exports.h for the commits):
// Megatron-LM turns its config dataclasses into flags (field foo_bar ->
// --foo-bar, booleans that default to true -> --no-foo-bar), so
// --tensor-model-parallel-size, --sequence-parallel, --recompute-granularity
// come from ModelParallelConfig/TransformerConfig, --micro-batch-size and
// --global-batch-size from TrainingConfig, --use-megatron-fsdp from
// DistributedInitConfig; torchtitan's [parallelism] keys are the fields of
// its Parallelism dataclass, and PyTorch's get_schedule_class names the
// schedules it runs (1F1B, Interleaved1F1B, GPipe, LoopedBFS,
// InterleavedZeroBubble, ZBVZeroBubble, DualPipeV).
#include "core/plan/exports.h"

#include <algorithm>
#include <numeric>

#include "core/pipeline/generators.h"

namespace shardlab::plan {
namespace {

std::string canonical_schedule(const std::string& name) {
  std::string canonical;
  return pipeline::find_schedule(name, &canonical) ? canonical : name;
}

// Schedules whose second chunk runs back down the devices (stage k on device
// 2p - 1 - k for k >= p), as the pipeline lab places them.
bool v_shape(const std::string& schedule) { return schedule == "ZBV" || schedule == "DualPipeV"; }

// The plan's stage split, or an even one (the first stages take the
// remainder) when the plan leaves it empty.
std::vector<int32_t> stages_of(const Plan& plan, int32_t layers) {
  if (!plan.stage_layers.empty()) return plan.stage_layers;
  const int32_t n = std::max(1, plan.pp * plan.vpp);
  std::vector<int32_t> out(n, layers / n);
  for (int32_t i = 0; i < layers % n; ++i) ++out[i];
  return out;
}

int32_t total_layers(const std::vector<int32_t>& stages) {
  return std::accumulate(stages.begin(), stages.end(), 0);
}

bool all_equal(const std::vector<int32_t>& v, size_t from, size_t to) {
  for (size_t i = from; i < to; ++i) {
    if (v[i] != v[from]) return false;
  }
  return true;
}

// Megatron's --pipeline-model-parallel-layout: stages in model order split by
// '|', "E" the embedding, "t" a transformer layer ("t*n": n of them), "L" the
// loss (with the head); runs of three or more equal middle stages are written
// "(t*n|)*r" and a cosmetic ',' follows, as Megatron's own examples do.
// Megatron places stage k on device k mod p.
std::string megatron_layout(const std::vector<int32_t>& stages) {
  auto layers = [](int32_t n) {
    return n == 0 ? std::string() : n == 1 ? std::string("t") : "t*" + std::to_string(n);
  };
  const size_t n = stages.size();
  std::string out;
  size_t i = 0;
  while (i < n) {
    std::string segment = layers(stages[i]);
    if (i == 0) segment = "E" + segment;
    if (i + 1 == n) segment += "L";
    size_t run = 1;
    if (i > 0) {
      while (i + run + 1 < n && stages[i + run] == stages[i]) ++run;
    }
    if (run >= 3) {
      out += "(" + segment + "|)*" + std::to_string(run) + ",";
      i += run;
      continue;
    }
    out += segment;
    if (i + 1 < n) out += "|";
    ++i;
  }
  return out;
}

// For the Megatron schedule the plan's schedule becomes, or "" when it is
// Megatron's own (1F1B, interleaved 1F1B).
std::string megatron_schedule_note(const std::string& schedule, int32_t vpp) {
  if (schedule == "1F1B" || schedule == "Interleaved1F1B") return "";
  std::string note = "Megatron-LM has no " + schedule + " schedule: these arguments run " +
                     (vpp > 1 ? "interleaved 1F1B" : "1F1B") + " on the same stages";
  if (v_shape(schedule)) {
    note +=
        ", placing stage k on device k mod p where the plan's V puts stages p to 2p - 1 "
        "back down the devices";
  }
  return note;
}

}  // namespace

std::string megatron_args(const Plan& plan, const Training& training, const Transformer& model) {
  std::vector<std::string> args;
  auto add = [&](const std::string& flag, const std::string& value = "") {
    args.push_back(value.empty() ? flag : flag + " " + value);
  };
  auto num = [](int64_t v) { return std::to_string(v); };
  const std::vector<int32_t> stages = stages_of(plan, model.layers);
  const size_t n = stages.size();

  add("--tensor-model-parallel-size", num(plan.tp));
  add("--pipeline-model-parallel-size", num(plan.pp));
  if (plan.pp > 1 || plan.vpp > 1) {
    if (all_equal(stages, 0, n)) {
      if (plan.vpp > 1) add("--num-layers-per-virtual-pipeline-stage", num(stages[0]));
    } else if (plan.vpp == 1 && n == 2) {
      add("--decoder-first-pipeline-num-layers", num(stages[0]));
    } else if (plan.vpp == 1 && all_equal(stages, 1, n - 1)) {
      // Megatron spreads the rest evenly over the middle stages.
      if (stages[0] != stages[1]) add("--decoder-first-pipeline-num-layers", num(stages[0]));
      if (stages[n - 1] != stages[1]) add("--decoder-last-pipeline-num-layers", num(stages[n - 1]));
    } else {
      add("--pipeline-model-parallel-layout", "\"" + megatron_layout(stages) + "\"");
    }
  }
  if (plan.sequence_parallel && plan.tp > 1) add("--sequence-parallel");
  if (plan.ep > 1) add("--expert-model-parallel-size", num(plan.ep));
  add("--micro-batch-size", num(plan.microbatch_size));
  add("--global-batch-size", num(training.global_batch));
  if (plan.recompute == Recompute::kSelective) {
    // Megatron's selective recomputation ("core_attn" by default) is
    // Korthikanti et al.'s: the attention core.
    add("--recompute-granularity", "selective");
  } else if (plan.recompute == Recompute::kFull) {
    add("--recompute-granularity", "full");
    add("--recompute-method", "uniform");
    add("--recompute-num-layers", "1");
  }
  if (plan.zero == 1) {
    add("--use-distributed-optimizer");
  } else if (plan.zero >= 2) {
    // Megatron-FSDP's sharding strategies: optim (ZeRO-1), optim_grads
    // (ZeRO-2), optim_grads_params (ZeRO-3); it checkpoints as fsdp_dtensor.
    add("--use-megatron-fsdp");
    add("--data-parallel-sharding-strategy", plan.zero == 2 ? "optim_grads" : "optim_grads_params");
    add("--ckpt-format", "fsdp_dtensor");
  }

  const int64_t head_dim = model.head_dim > 0 ? model.head_dim : model.hidden / model.heads;
  add("--num-layers", num(model.layers));
  add("--hidden-size", num(model.hidden));
  add("--ffn-hidden-size", num(model.ffn_hidden));
  add("--num-attention-heads", num(model.heads));
  if (model.kv_heads > 0 && model.kv_heads != model.heads) {
    add("--group-query-attention");
    add("--num-query-groups", num(model.kv_heads));
  }
  if (head_dim * model.heads != model.hidden) add("--kv-channels", num(head_dim));
  add("--seq-length", num(training.seq));
  if (model.max_positions > 0) {
    add("--max-position-embeddings", num(std::max(model.max_positions, training.seq)));
  } else {
    add("--max-position-embeddings", num(training.seq));
    add("--position-embedding-type", "rope");
  }
  if (model.ffn == Ffn::kSwiGlu) add("--swiglu");
  if (model.norm == Norm::kRmsNorm) add("--normalization", "RMSNorm");
  if (!model.linear_biases) {
    add("--disable-bias-linear");
    if (model.qkv_bias) add("--add-qkv-bias");
  }
  if (!model.tied_embeddings) add("--untie-embeddings-and-output-weights");
  if (model.experts > 0) {
    add("--num-experts", num(model.experts));
    add("--moe-router-topk", num(model.experts_per_token));
  }
  if (!model.dropout) {
    add("--attention-dropout", "0");
    add("--hidden-dropout", "0");
  }
  if (training.dtype_bytes == 2) add("--bf16");

  std::string out;
  for (size_t i = 0; i < args.size(); ++i) out += args[i] + (i + 1 < args.size() ? " \\\n" : "\n");
  return out;
}

std::vector<std::string> megatron_notes(const Plan& plan, const Training& training,
                                        const Transformer& model) {
  std::vector<std::string> notes;
  const std::string schedule = canonical_schedule(plan.schedule);
  const std::string schedule_note = megatron_schedule_note(schedule, plan.vpp);
  if (!schedule_note.empty()) notes.push_back(schedule_note);
  const std::vector<int32_t> stages = stages_of(plan, model.layers);
  if (total_layers(stages) != model.layers) {
    notes.push_back("the plan's stages hold " + std::to_string(total_layers(stages)) +
                    " layers but the model has " + std::to_string(model.layers) +
                    ": Megatron will reject the split");
  }
  const int64_t per_step = plan.microbatch_size * plan.microbatches * plan.dp;
  if (per_step != training.global_batch) {
    notes.push_back("Megatron derives the micro-batch count from the global batch (" +
                    std::to_string(training.global_batch) + " sequences); the plan's " +
                    std::to_string(plan.microbatches) + " micro-batches of " +
                    std::to_string(plan.microbatch_size) + " over d = " + std::to_string(plan.dp) +
                    " make " + std::to_string(per_step));
  }
  if (!model.linear_biases && (model.out_bias || model.mlp_bias)) {
    notes.push_back(
        "Megatron has no flag for a bias on the attention output or the FFN alone: "
        "--disable-bias-linear drops it");
  }
  notes.push_back("the vocabulary (V = " + std::to_string(model.vocab) +
                  ") comes from the tokenizer arguments, which Megatron pads to a multiple of "
                  "--make-vocab-size-divisible-by (128) x t");
  return notes;
}

namespace {

std::string torchtitan_schedule(const std::string& schedule, int32_t vpp) {
  if (schedule == "GPipe") return "GPipe";
  if (schedule == "ZB-H1" || schedule == "ZB-H2") return "InterleavedZeroBubble";
  if (schedule == "ZBV") return "ZBVZeroBubble";
  if (schedule == "DualPipeV" || schedule == "DualPipe") return "DualPipeV";
  if (schedule == "Interleaved1F1B" || vpp > 1) return "Interleaved1F1B";
  return "1F1B";
}

}  // namespace

// ZeRO as torchtitan's FSDP2 (data_parallel_shard_degree): stage 3 is FSDP
// with parameters resharded after the forward; stage 2 keeps them gathered
// from the forward to the end of the backward (fsdp_reshard_after_forward =
// "never"), which has ZeRO-2's peak; stage 1 has no FSDP form and gets the
// stage-2 one (less memory than planned, the same traffic); stage 0 is DDP
// (data_parallel_replicate_degree).
std::string torchtitan_toml(const Plan& plan, const Training& training) {
  const std::string schedule = canonical_schedule(plan.schedule);
  std::string out = "[parallelism]\n";
  auto line = [&](const std::string& key, const std::string& value) {
    out += key + " = " + value + "\n";
  };
  auto num = [](int64_t v) { return std::to_string(v); };
  const bool sharded = plan.zero >= 1 && plan.dp > 1;
  line("data_parallel_replicate_degree", num(sharded ? 1 : plan.dp));
  line("data_parallel_shard_degree", num(sharded ? plan.dp : 1));
  if (sharded) line("fsdp_reshard_after_forward", plan.zero >= 3 ? "\"default\"" : "\"never\"");
  line("tensor_parallel_degree", num(plan.tp));
  line("pipeline_parallel_degree", num(plan.pp));
  if (plan.pp > 1) {
    line("pipeline_parallel_schedule", "\"" + torchtitan_schedule(schedule, plan.vpp) + "\"");
    line("pipeline_parallel_microbatch_size", num(plan.microbatch_size));
  }
  if (plan.pp > 1 && !plan.stage_layers.empty()) {
    // Each model part's modules by name (torchtitan's Llama names), in model
    // order; torchtitan places the parts on the ranks as the schedule says
    // (looped, or V-shaped for ZBVZeroBubble and DualPipeV). Without a split
    // torchtitan makes its own.
    const std::vector<int32_t>& stages = plan.stage_layers;
    out += "module_fqns_per_model_part = [\n";
    int32_t next = 0;
    for (size_t k = 0; k < stages.size(); ++k) {
      std::string part;
      if (k == 0) part += "\"tok_embeddings\"";
      for (int32_t i = 0; i < stages[k]; ++i) {
        part += std::string(part.empty() ? "" : ", ") + "\"layers." + num(next++) + "\"";
      }
      if (k + 1 == stages.size())
        part += std::string(part.empty() ? "" : ", ") + "\"norm\", \"output\"";
      out += "  [" + part + "],\n";
    }
    out += "]\n";
  }
  line("context_parallel_degree", "1");
  line("expert_parallel_degree", num(plan.ep));

  out += "\n[activation_checkpoint]\n";
  line("mode", std::string("\"") + recompute_name(plan.recompute) + "\"");
  if (plan.recompute == Recompute::kSelective) line("selective_ac_option", "\"op\"");

  // local_batch_size is per data-parallel rank and step; with pipelining it
  // is cut into micro-batches, without it the global batch adds gradient
  // accumulation steps (global / (local x d)).
  out += "\n[training]\n";
  const int64_t local =
      plan.pp > 1 ? plan.microbatch_size * plan.microbatches : plan.microbatch_size;
  line("local_batch_size", num(local));
  line("global_batch_size", num(training.global_batch));
  line("seq_len", num(training.seq));

  const std::vector<std::string> notes = torchtitan_notes(plan, training);
  if (!notes.empty()) out += "\n";
  for (const std::string& note : notes) out += "# " + note + "\n";
  return out;
}

std::vector<std::string> torchtitan_notes(const Plan& plan, const Training& training) {
  std::vector<std::string> notes;
  const std::string schedule = canonical_schedule(plan.schedule);
  if (plan.pp > 1) {
    const std::string mapped = torchtitan_schedule(schedule, plan.vpp);
    if (schedule == "ZB-H2" || schedule == "DualPipe" || schedule == "Chimera" ||
        schedule == "list") {
      notes.push_back("torch.distributed.pipelining has no " + schedule + " schedule: " + mapped +
                      " stands in for it");
    } else if (schedule == "ZB-H1" && plan.vpp == 1) {
      notes.push_back(
          "torch's ZB-H1 (InterleavedZeroBubble) is a looped schedule; with one stage per rank "
          "check that your torchtitan accepts it");
    }
    notes.push_back(
        "module_fqns_per_model_part names torchtitan's Llama modules (tok_embeddings, layers.N, "
        "norm, output); other models name theirs differently");
  }
  if (plan.tp > 1 && !plan.sequence_parallel) {
    notes.push_back(
        "torchtitan applies sequence parallelism with every tensor-parallel plan: it will store "
        "less activation memory than this plan counts");
  }
  if (plan.dp > 1 && (plan.zero == 1 || plan.zero == 2)) {
    notes.push_back("ZeRO-" + std::to_string(plan.zero) +
                    " runs as FSDP with fsdp_reshard_after_forward = \"never\"" +
                    (plan.zero == 1 ? ", which also shards the gradients (ZeRO-2)" : "") +
                    "; between steps FSDP keeps the parameters sharded");
  }
  if (plan.ep > 1 && !(plan.zero >= 1 && plan.dp > 1)) {
    notes.push_back(
        "torchtitan carves expert parallelism out of data_parallel_shard_degree (FSDP): with "
        "ZeRO-0 (DDP) it has no ranks to take");
  }
  if (plan.recompute == Recompute::kSelective) {
    notes.push_back(
        "torchtitan's selective checkpointing (\"op\") recomputes by an operator policy, not "
        "exactly the attention core that Korthikanti et al. recompute");
  }
  const int64_t local =
      plan.pp > 1 ? plan.microbatch_size * plan.microbatches : plan.microbatch_size;
  const int64_t accumulation = plan.pp > 1 ? 1 : plan.microbatches;
  if (local * accumulation * plan.dp != training.global_batch) {
    notes.push_back("local_batch_size x d x accumulation steps = " +
                    std::to_string(local * accumulation * plan.dp) + " is not the global batch " +
                    std::to_string(training.global_batch));
  }
  return notes;
}

}  // namespace shardlab::plan
