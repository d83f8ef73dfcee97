// `shardlab plan MODEL`: the whole training plan of a model (a preset name, a
// Hugging Face config.json or a teaching-lab einsum model with a repeated
// block) on a cluster (a preset or a cluster file), from the plan lab's
// facade (core/plan/plan.h): the plan card, memory and time, the bound and
// its gap, the why-not table and sizing as text, the JSON document, or the
// Megatron-LM / torchtitan export of the plan.
#include <malloc.h>
#include <sys/stat.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <optional>

#include "core/cli/commands.h"
#include "core/plan/exports.h"
#include "core/plan/inputs.h"
#include "core/plan/model_costs.h"
#include "core/plan/plan.h"
#include "core/teach/model.h"

namespace shardlab::cli {
namespace {

const char* kPlanUsage =
    "usage: shardlab plan MODEL --global-batch B [--cluster PRESET|FILE] [--gpus N]\n"
    "                     [--seq S] [--fix k=v,...] [--time-limit S] [--json]\n"
    "                     [--export megatron|torchtitan] [--sweep] [--no-alternatives]\n"
    "                     [--no-sizing] [--work N]\n"
    "\n"
    "Plans the training of MODEL on a cluster: tensor, sequence, pipeline, data and\n"
    "expert parallelism, ZeRO, micro-batching, recomputation and the pipeline\n"
    "schedule, jointly, with the predicted step time, memory and throughput, a\n"
    "certified lower bound on the best step time and the gap to it.\n"
    "  MODEL              a preset (gpt-1.7b ... gpt-1t, gpt3-175b, llama3-8b, llama3-70b,\n"
    "                     llama3-405b, mixtral-8x7b, bloom-176b), a Hugging Face\n"
    "                     config.json, or a teaching-lab einsum model with a\n"
    "                     repeated block\n"
    "  --cluster C        a preset (dgx-a100-80gb, the default; dgx-h100-80gb; h800) or\n"
    "                     a cluster JSON file\n"
    "  --gpus N           GPUs (whole nodes beyond one node)\n"
    "  --global-batch B   sequences per step (required)\n"
    "  --seq S            tokens per sequence (default 2048)\n"
    "  --fix k=v,...      pin decisions: tp, pp, dp, ep, vpp, sp=on|off, zero=0..3,\n"
    "                     schedule=1f1b|interleaved|zb-h1|zb-h2|zbv|dualpipev|gpipe,\n"
    "                     mbs, microbatches, recompute=none|selective|full,\n"
    "                     layers=a/b/... (layers per stage); the rest is optimised\n"
    "  --time-limit S     the whole planning's time limit in seconds (default 10): the\n"
    "                     search gets up to 70% of it, the why-not rows and sizing the\n"
    "                     rest; what they have not done says 'not evaluated within the\n"
    "                     time limit'\n"
    "  --work N           stop the search after N units of work instead, and read no\n"
    "                     clock (repeatable)\n"
    "  --json             the plan as one JSON document\n"
    "  --export NAME      print the plan as Megatron-LM arguments (megatron) or a\n"
    "                     torchtitan TOML section (torchtitan)\n"
    "  --sweep            also the best plan at 1, 2, 4, ... nodes\n"
    "  --no-alternatives  skip the why-not table\n"
    "  --no-sizing        skip the search for the smallest GPU count that fits\n"
    "\n"
    "exit codes: 0 ok; 1 bad command line (also a --fix no plan can satisfy);\n"
    "2 malformed model or cluster file; 3 no plan fits; 4 file not readable\n";

int usage_error(const std::string& message) {
  return fail(kExitUsage, "plan: " + message + "\n" + kPlanUsage);
}

bool parse_number(const std::string& text, double* out) {
  char* end = nullptr;
  *out = std::strtod(text.c_str(), &end);
  return !text.empty() && end == text.c_str() + text.size() && std::isfinite(*out);
}

// A count from 1 to max; strtoll's clamping of a longer number is refused,
// not read as its largest value.
bool parse_count(const std::string& text, int64_t max, int64_t* out) {
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || end != text.c_str() + text.size() || errno == ERANGE || v < 1 || v > max) {
    return false;
  }
  *out = v;
  return true;
}

// Ranges of the counts: a million GPUs, 2^24 sequences of up to 2^23 tokens
// (at 2^24 tokens Llama 3 8B's layers no longer price within the teaching
// lab's 10^17 ns, and no plan would say what it needs).
constexpr int64_t kMaxGpus = int64_t{1} << 20;
constexpr int64_t kMaxSequences = int64_t{1} << 24;
constexpr int64_t kMaxSeq = int64_t{1} << 23;
constexpr int64_t kMaxWork = int64_t{1} << 50;

std::string count_range(int64_t max) { return "an integer from 1 to " + std::to_string(max); }

// A MODEL or --cluster argument names a file when something exists at that
// path (a directory included, which read_file then refuses with the system's
// reason) or when it cannot be a preset's name (a '/' or a ".json"); else a
// preset.
bool names_file(const std::string& arg) {
  struct stat info {};
  if (::stat(arg.c_str(), &info) == 0) return true;
  const bool json = arg.size() >= 5 && arg.compare(arg.size() - 5, 5, ".json") == 0;
  return arg.find('/') != std::string::npos || json;
}

}  // namespace

int plan_command(const std::vector<std::string>& args) {
  // The search builds and drops many pipeline expansions of a few MB each;
  // main.cpp's low mmap threshold (for the instance reader) would map and
  // fault every one of them in afresh. Setting it also froze glibc's trim
  // threshold at 128 KB: every free that left that much at the heap's top
  // gave it back to the OS, and the next allocation faulted it in again
  // (the 529.6B row spent 12 s of system time so, twice its search's own
  // CPU time); the heap keeps up to 256 MB instead.
  mallopt(M_MMAP_THRESHOLD, 32 * 1024 * 1024);
  mallopt(M_TRIM_THRESHOLD, 256 * 1024 * 1024);
  for (const std::string& arg : args) {
    if (arg == "--help" || arg == "-h") {
      std::cout << kPlanUsage;
      return kExitOk;
    }
  }
  bool json = false, sweep = false, no_alternatives = false, no_sizing = false;
  std::optional<std::string> cluster_opt, gpus_opt, batch_opt, seq_opt, fix_opt, limit_opt,
      work_opt, export_opt;
  std::vector<std::string> words;
  ArgParser parser;
  parser.flag("json", &json);
  parser.flag("sweep", &sweep);
  parser.flag("no-alternatives", &no_alternatives);
  parser.flag("no-sizing", &no_sizing);
  parser.option("cluster", &cluster_opt);
  parser.option("gpus", &gpus_opt);
  parser.option("global-batch", &batch_opt);
  parser.option("seq", &seq_opt);
  parser.option("fix", &fix_opt);
  parser.option("time-limit", &limit_opt);
  parser.option("work", &work_opt);
  parser.option("export", &export_opt);
  const Status parsed = parser.parse(args, &words);
  if (!parsed.is_ok()) return usage_error(parsed.message());
  if (words.empty()) return usage_error("plan needs a MODEL");
  if (words.size() > 1) return usage_error("unexpected argument '" + words[1] + "'");
  const std::string& model_arg = words[0];
  const std::string cluster_arg = cluster_opt.value_or("dgx-a100-80gb");
  const std::string fix_arg = fix_opt.value_or("");
  const std::string export_arg = export_opt.value_or("");
  const bool alternatives = !no_alternatives, sizing = !no_sizing;
  int64_t gpus = 0, global_batch = 0, seq = 2048, work = 0;
  double time_limit = 10;
  // A count from 1 to max, or the usage error naming the option and its range.
  const auto count = [](const std::optional<std::string>& value, const char* name, int64_t max,
                        int64_t* out) -> std::optional<int> {
    if (!value || parse_count(*value, max, out)) return std::nullopt;
    return usage_error(std::string("--") + name + " takes " + count_range(max) + ", found '" +
                       *value + "'");
  };
  if (auto bad = count(gpus_opt, "gpus", kMaxGpus, &gpus)) return *bad;
  if (auto bad = count(batch_opt, "global-batch", kMaxSequences, &global_batch)) return *bad;
  if (auto bad = count(seq_opt, "seq", kMaxSeq, &seq)) return *bad;
  if (auto bad = count(work_opt, "work", kMaxWork, &work)) return *bad;
  if (limit_opt && (!parse_number(*limit_opt, &time_limit) || time_limit <= 0)) {
    return usage_error("--time-limit takes a positive number of seconds, found '" + *limit_opt +
                       "'");
  }
  if (export_opt && export_arg != "megatron" && export_arg != "torchtitan") {
    return usage_error("--export takes megatron or torchtitan, found '" + export_arg + "'");
  }
  if (global_batch == 0) return usage_error("plan needs --global-batch B");

  // The model: a preset's name, else a file.
  plan::ModelInput model;
  if (!names_file(model_arg)) {
    Result<plan::Transformer> preset = plan::model_preset(model_arg);
    if (!preset.is_ok()) {
      return fail(kExitUsage,
                  "plan: MODEL '" + model_arg + "' is no file, and " + preset.status().message());
    }
    model.transformer = preset.value();
  } else {
    Result<std::string> text =
        read_file(model_arg, teach::kMaxModelFileBytes, "a model (config.json or einsum model)");
    if (!text.is_ok()) return fail(exit_code_for(text.status()), text.status().message());
    Result<plan::ModelInput> read = plan::read_model_input(model_arg, text.value());
    if (!read.is_ok()) return fail(exit_code_for(read.status()), read.status().message());
    model = read.value();
  }
  // The cluster: a preset's name, else a file.
  plan::Cluster cluster;
  if (!names_file(cluster_arg)) {
    Result<plan::Cluster> preset = plan::cluster_preset(cluster_arg);
    if (!preset.is_ok()) {
      return fail(kExitUsage, "plan: --cluster '" + cluster_arg + "' is no file, and " +
                                  preset.status().message());
    }
    cluster = preset.value();
  } else {
    Result<std::string> text = read_file(cluster_arg, teach::kMaxModelFileBytes, "a cluster file");
    if (!text.is_ok()) return fail(exit_code_for(text.status()), text.status().message());
    Result<plan::Cluster> read = plan::read_cluster(cluster_arg, text.value());
    if (!read.is_ok()) return fail(exit_code_for(read.status()), read.status().message());
    cluster = read.value();
  }
  if (gpus > 0) {
    const Status set = plan::set_gpu_count(&cluster, gpus);
    if (!set.is_ok()) return fail(kExitUsage, "plan: " + set.message());
  }
  plan::Training training;
  training.global_batch = global_batch;
  training.seq = seq;
  Result<plan::Fix> fix = plan::parse_fix(fix_arg);
  if (!fix.is_ok()) return fail(kExitUsage, "plan: " + fix.status().message());

  Result<std::unique_ptr<plan::ModelCosts>> costs =
      plan::ModelCosts::create(model, cluster, training);
  if (!costs.is_ok()) return fail(exit_code_for(costs.status()), costs.status().message());
  plan::PlanOptions options;
  options.time_limit_s = time_limit;
  options.work_limit = work;
  options.alternatives = alternatives && export_arg.empty();
  options.sizing = sizing && export_arg.empty();
  options.sweep = sweep;
  catch_interrupts();
  const plan::PlanResult result = plan::plan_with_costs(
      costs.value().get(), cluster, training, fix.value(), options, nullptr, interrupt_flag());
  if (!result.status.is_ok()) {
    const bool usage = result.status.code() == StatusCode::kInvalidArgument;
    return fail(usage ? kExitUsage : kExitBadInput, "plan: " + result.status.message());
  }
  if (!export_arg.empty()) {
    if (!result.found) return fail(kExitNoPlan, "plan: no plan fits, nothing to export");
    if (model.kind != plan::ModelInput::Kind::kTransformer) {
      return fail(kExitUsage, "plan: --export needs a transformer (a preset or a config.json)");
    }
    if (export_arg == "megatron") {
      std::cout << plan::megatron_args(result.best.plan, training, model.transformer) << "\n";
      for (const std::string& note :
           plan::megatron_notes(result.best.plan, training, model.transformer)) {
        std::cout << "# " << note << "\n";
      }
    } else {
      std::cout << plan::torchtitan_toml(result.best.plan, training);
    }
    return kExitOk;
  }
  if (json) {
    std::cout << plan::plan_json(result) << "\n";
  } else {
    std::cout << plan::plan_text(result);
  }
  return result.found ? kExitOk : kExitNoPlan;
}

}  // namespace shardlab::cli
