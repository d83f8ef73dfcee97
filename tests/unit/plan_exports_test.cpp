// The plan lab's exports: Megatron-LM arguments and torchtitan TOML as exact
// text for one plan each, every way of writing a stage split (checked by
// expanding Megatron's layout string the way Megatron does), the model's
// shape flags, the ZeRO stages, and the notes on what a target cannot say.
#include <doctest/doctest.h>

#include <regex>
#include <string>
#include <vector>

#include "core/plan/exports.h"
#include "core/plan/inputs.h"

namespace shardlab::plan {
namespace {

Transformer preset(const std::string& name) {
  Result<Transformer> m = model_preset(name);
  REQUIRE_MESSAGE(m.is_ok(), m.status().message());
  return m.value();
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// GPT-3 175B on 512 GPUs the way Korthikanti et al. run it: t = 8, p = 8,
// three chunks per device, sequence parallelism, selective recomputation and
// the distributed optimizer.
Plan gpt3_plan() {
  Plan plan;
  plan.tp = 8;
  plan.pp = 8;
  plan.dp = 8;
  plan.vpp = 3;
  plan.sequence_parallel = true;
  plan.zero = 1;
  plan.schedule = "Interleaved1F1B";
  plan.microbatch_size = 1;
  plan.microbatches = 192;
  plan.recompute = Recompute::kSelective;
  plan.stage_layers.assign(24, 4);
  return plan;
}

Training training_of(int64_t global_batch, int64_t seq) {
  Training t;
  t.global_batch = global_batch;
  t.seq = seq;
  return t;
}

TEST_CASE("plan exports: Megatron-LM arguments for GPT-3 175B, exactly") {
  const Plan plan = gpt3_plan();
  const Training training = training_of(1536, 2048);
  const Transformer model = preset("gpt3-175b");
  CHECK(megatron_args(plan, training, model) ==
        "--tensor-model-parallel-size 8 \\\n"
        "--pipeline-model-parallel-size 8 \\\n"
        "--num-layers-per-virtual-pipeline-stage 4 \\\n"
        "--sequence-parallel \\\n"
        "--micro-batch-size 1 \\\n"
        "--global-batch-size 1536 \\\n"
        "--recompute-granularity selective \\\n"
        "--use-distributed-optimizer \\\n"
        "--num-layers 96 \\\n"
        "--hidden-size 12288 \\\n"
        "--ffn-hidden-size 49152 \\\n"
        "--num-attention-heads 96 \\\n"
        "--seq-length 2048 \\\n"
        "--max-position-embeddings 2048 \\\n"
        "--bf16\n");
  CHECK(megatron_notes(plan, training, model) ==
        std::vector<std::string>{"the vocabulary (V = 51200) comes from the tokenizer arguments, "
                                 "which Megatron pads to a multiple of "
                                 "--make-vocab-size-divisible-by (128) x t"});
}

TEST_CASE("plan exports: torchtitan TOML, exactly") {
  Plan plan;
  plan.tp = 2;
  plan.pp = 2;
  plan.dp = 4;
  plan.zero = 3;
  plan.sequence_parallel = true;
  plan.schedule = "1F1B";
  plan.microbatch_size = 2;
  plan.microbatches = 4;
  plan.recompute = Recompute::kFull;
  plan.stage_layers = {2, 4};
  const Training training = training_of(32, 4096);
  CHECK(torchtitan_toml(plan, training) ==
        "[parallelism]\n"
        "data_parallel_replicate_degree = 1\n"
        "data_parallel_shard_degree = 4\n"
        "fsdp_reshard_after_forward = \"default\"\n"
        "tensor_parallel_degree = 2\n"
        "pipeline_parallel_degree = 2\n"
        "pipeline_parallel_schedule = \"1F1B\"\n"
        "pipeline_parallel_microbatch_size = 2\n"
        "module_fqns_per_model_part = [\n"
        "  [\"tok_embeddings\", \"layers.0\", \"layers.1\"],\n"
        "  [\"layers.2\", \"layers.3\", \"layers.4\", \"layers.5\", \"norm\", \"output\"],\n"
        "]\n"
        "context_parallel_degree = 1\n"
        "expert_parallel_degree = 1\n"
        "\n"
        "[activation_checkpoint]\n"
        "mode = \"full\"\n"
        "\n"
        "[training]\n"
        "local_batch_size = 8\n"
        "global_batch_size = 32\n"
        "seq_len = 4096\n"
        "\n"
        "# module_fqns_per_model_part names torchtitan's Llama modules (tok_embeddings, "
        "layers.N, norm, output); other models name theirs differently\n");

  // The same plan for Megatron: an uneven split of two stages, ZeRO-3 as
  // Megatron-FSDP, full recomputation of every layer.
  Transformer tiny = preset("llama3-8b");
  tiny.layers = 6;
  const std::string args = megatron_args(plan, training, tiny);
  CHECK(contains(args, "--decoder-first-pipeline-num-layers 2 \\\n"));
  CHECK_FALSE(contains(args, "--decoder-last-pipeline-num-layers"));
  CHECK(contains(args,
                 "--use-megatron-fsdp \\\n--data-parallel-sharding-strategy optim_grads_params "
                 "\\\n--ckpt-format fsdp_dtensor \\\n"));
  CHECK(contains(args,
                 "--recompute-granularity full \\\n--recompute-method uniform \\\n"
                 "--recompute-num-layers 1 \\\n"));
  CHECK_FALSE(contains(args, "--use-distributed-optimizer"));
}

// Megatron's own expansion of --pipeline-model-parallel-layout
// (PipelineParallelLayerLayout.parse_str_to_list): drop commas, unroll
// "(...)*n", then "x*n", split on '|'.
std::vector<std::string> expand_layout(std::string layout) {
  layout = std::regex_replace(layout, std::regex(","), "");
  auto unroll = [](std::string text, const std::regex& pattern) {
    std::smatch m;
    while (std::regex_search(text, m, pattern)) {
      std::string repeated;
      for (int i = 0; i < std::stoi(m[2].str()); ++i) repeated += m[1].str();
      text = m.prefix().str() + repeated + m.suffix().str();
    }
    return text;
  };
  layout = unroll(layout, std::regex(R"(\(([^)]+)\)\*(\d+))"));
  layout = unroll(layout, std::regex(R"((.)\*(\d+))"));
  std::vector<std::string> stages;
  size_t from = 0;
  while (true) {
    const size_t bar = layout.find('|', from);
    stages.push_back(layout.substr(from, bar - from));
    if (bar == std::string::npos) break;
    from = bar + 1;
  }
  return stages;
}

TEST_CASE("plan exports: every way of writing the stage split for Megatron") {
  const Training training = training_of(512, 2048);
  Transformer model = preset("gpt-39.1b");  // 48 layers
  Plan plan;
  plan.tp = 8;
  plan.pp = 4;
  plan.dp = 16;
  plan.microbatches = 32;

  // Even, one chunk: nothing to say.
  plan.stage_layers = {12, 12, 12, 12};
  std::string args = megatron_args(plan, training, model);
  CHECK_FALSE(contains(args, "pipeline-num-layers"));
  CHECK_FALSE(contains(args, "layout"));
  CHECK_FALSE(contains(args, "virtual"));

  // Lighter end stages (embedding and head): first and last.
  plan.stage_layers = {11, 13, 13, 11};
  args = megatron_args(plan, training, model);
  CHECK(contains(args, "--decoder-first-pipeline-num-layers 11 \\\n"));
  CHECK(contains(args, "--decoder-last-pipeline-num-layers 11 \\\n"));
  plan.stage_layers = {13, 13, 13, 9};
  args = megatron_args(plan, training, model);
  CHECK_FALSE(contains(args, "--decoder-first-pipeline-num-layers"));
  CHECK(contains(args, "--decoder-last-pipeline-num-layers 9 \\\n"));

  // Uneven in the middle: the explicit layout.
  plan.stage_layers = {12, 11, 13, 12};
  args = megatron_args(plan, training, model);
  CHECK(contains(args, "--pipeline-model-parallel-layout \"Et*12|t*11|t*13|t*12L\" \\\n"));

  // Interleaved with lighter ends: the layout, runs written once.
  plan.vpp = 2;
  plan.stage_layers = {5, 6, 6, 6, 6, 6, 6, 7};
  args = megatron_args(plan, training, model);
  const std::string flag = "--pipeline-model-parallel-layout \"";
  REQUIRE(contains(args, flag));
  const size_t at = args.find(flag) + flag.size();
  const std::string layout = args.substr(at, args.find('"', at) - at);
  CHECK(layout == "Et*5|(t*6|)*6,t*7L");
  const std::vector<std::string> stages = expand_layout(layout);
  REQUIRE(stages.size() == 8);
  CHECK(stages[0] == "Ettttt");
  for (int k = 1; k < 7; ++k) CHECK(stages[k] == "tttttt");
  CHECK(stages[7] == "tttttttL");

  // Interleaved and even: layers per virtual stage.
  plan.stage_layers.assign(8, 6);
  args = megatron_args(plan, training, model);
  CHECK(contains(args, "--num-layers-per-virtual-pipeline-stage 6 \\\n"));

  // No split in the plan: an even one is assumed.
  plan.vpp = 1;
  plan.stage_layers.clear();
  args = megatron_args(plan, training, model);
  CHECK_FALSE(contains(args, "layout"));
  CHECK_FALSE(contains(args, "pipeline-num-layers"));
}

TEST_CASE("plan exports: the model's shape flags") {
  const Training training = training_of(1024, 8192);
  Plan plan;
  plan.tp = 8;
  plan.pp = 1;
  plan.dp = 8;
  plan.zero = 2;
  plan.microbatches = 128;
  const std::string llama = megatron_args(plan, training, preset("llama3-70b"));
  for (const char* flag :
       {"--num-layers 80 \\\n", "--hidden-size 8192 \\\n", "--ffn-hidden-size 28672 \\\n",
        "--num-attention-heads 64 \\\n", "--group-query-attention \\\n",
        "--num-query-groups 8 \\\n", "--seq-length 8192 \\\n",
        "--max-position-embeddings 8192 \\\n", "--position-embedding-type rope \\\n",
        "--swiglu \\\n", "--normalization RMSNorm \\\n", "--disable-bias-linear \\\n",
        "--untie-embeddings-and-output-weights \\\n", "--attention-dropout 0 \\\n",
        "--hidden-dropout 0 \\\n", "--data-parallel-sharding-strategy optim_grads \\\n"}) {
    CAPTURE(flag);
    CHECK(contains(llama, flag));
  }
  CHECK_FALSE(contains(llama, "--kv-channels"));
  CHECK_FALSE(contains(llama, "--add-qkv-bias"));
  CHECK_FALSE(contains(llama, "--sequence-parallel"));  // the plan has no SP

  plan.ep = 8;
  const std::string mixtral = megatron_args(plan, training, preset("mixtral-8x7b"));
  CHECK(contains(mixtral, "--expert-model-parallel-size 8 \\\n"));
  CHECK(contains(mixtral, "--num-experts 8 \\\n--moe-router-topk 2 \\\n"));

  Transformer qwen = preset("llama3-8b");
  qwen.qkv_bias = true;
  qwen.head_dim = 96;  // heads x head_dim != hidden
  const std::string q = megatron_args(plan, training, qwen);
  CHECK(contains(q, "--disable-bias-linear \\\n--add-qkv-bias \\\n"));
  CHECK(contains(q, "--kv-channels 96 \\\n"));

  Training fp32 = training;
  fp32.dtype_bytes = 4;
  CHECK_FALSE(contains(megatron_args(plan, fp32, qwen), "--bf16"));
}

TEST_CASE("plan exports: what Megatron and torchtitan cannot say") {
  const Transformer model = preset("gpt-39.1b");
  Plan plan;
  plan.tp = 8;
  plan.pp = 4;
  plan.dp = 16;
  plan.vpp = 2;
  plan.schedule = "ZBV";
  plan.microbatch_size = 1;
  plan.microbatches = 32;
  plan.stage_layers.assign(8, 6);
  const Training training = training_of(512, 2048);
  std::vector<std::string> notes = megatron_notes(plan, training, model);
  REQUIRE(notes.size() == 2);
  CHECK(notes[0] ==
        "Megatron-LM has no ZBV schedule: these arguments run interleaved 1F1B on the same "
        "stages, placing stage k on device k mod p where the plan's V puts stages p to 2p - 1 "
        "back down the devices");
  CHECK(contains(torchtitan_toml(plan, training),
                 "pipeline_parallel_schedule = \"ZBVZeroBubble\"\n"));

  plan.schedule = "zb-h1";  // aliases resolve through the pipeline lab's names
  plan.vpp = 1;
  plan.stage_layers.assign(4, 12);
  notes = megatron_notes(plan, training, model);
  CHECK(notes[0] ==
        "Megatron-LM has no ZB-H1 schedule: these arguments run 1F1B on the same stages");
  const std::vector<std::string> titan = torchtitan_notes(plan, training);
  CHECK(titan[0] ==
        "torch's ZB-H1 (InterleavedZeroBubble) is a looped schedule; with one stage per rank "
        "check that your torchtitan accepts it");
  CHECK(contains(torchtitan_toml(plan, training),
                 "pipeline_parallel_schedule = \"InterleavedZeroBubble\"\n"));

  plan.schedule = "DualPipe";
  CHECK(torchtitan_notes(plan, training)[0] ==
        "torch.distributed.pipelining has no DualPipe schedule: DualPipeV stands in for it");

  // The micro-batches do not make the global batch; the split misses layers.
  plan.schedule = "1F1B";
  plan.microbatches = 30;
  plan.stage_layers = {12, 12, 12, 11};
  notes = megatron_notes(plan, training, model);
  REQUIRE(notes.size() == 3);
  CHECK(notes[0] ==
        "the plan's stages hold 47 layers but the model has 48: Megatron will reject "
        "the split");
  CHECK(notes[1] ==
        "Megatron derives the micro-batch count from the global batch (512 sequences); the "
        "plan's 30 micro-batches of 1 over d = 16 make 480");

  // torchtitan: no TP without SP, ZeRO-1 as FSDP, EP needs FSDP ranks.
  Plan titan_plan;
  titan_plan.tp = 4;
  titan_plan.dp = 8;
  titan_plan.zero = 1;
  titan_plan.microbatches = 64;
  const std::vector<std::string> more = torchtitan_notes(titan_plan, training);
  REQUIRE(more.size() == 2);
  CHECK(more[0] ==
        "torchtitan applies sequence parallelism with every tensor-parallel plan: it will store "
        "less activation memory than this plan counts");
  CHECK(more[1] ==
        "ZeRO-1 runs as FSDP with fsdp_reshard_after_forward = \"never\", which also shards the "
        "gradients (ZeRO-2); between steps FSDP keeps the parameters sharded");
  const std::string toml = torchtitan_toml(titan_plan, training);
  CHECK(contains(toml, "data_parallel_shard_degree = 8\nfsdp_reshard_after_forward = \"never\"\n"));
  CHECK(contains(toml, "[training]\nlocal_batch_size = 1\nglobal_batch_size = 512\n"));
  titan_plan.zero = 0;
  titan_plan.ep = 4;
  const std::string ddp = torchtitan_toml(titan_plan, training);
  CHECK(contains(ddp, "data_parallel_replicate_degree = 8\ndata_parallel_shard_degree = 1\n"));
  CHECK(contains(ddp, "# torchtitan carves expert parallelism out of data_parallel_shard_degree"));
}

}  // namespace
}  // namespace shardlab::plan
