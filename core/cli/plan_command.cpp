// `shardlab plan MODEL`: the whole training plan of a model (a preset name, a
// Hugging Face config.json or a teaching-lab einsum model with a repeated
// block) on a cluster (a preset or a cluster file), from the plan lab's
// facade (core/plan/plan.h): the plan card, memory and time, the bound and
// its gap, the why-not table and sizing as text, the JSON document, or the
// Megatron-LM / torchtitan export of the plan.
#include <malloc.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>

#include "core/cli/commands.h"
#include "core/plan/exports.h"
#include "core/plan/inputs.h"
#include "core/plan/model_costs.h"
#include "core/plan/plan.h"

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
    "  --time-limit S     search time limit in seconds (default 10)\n"
    "  --work N           stop the search after N units of work instead (repeatable)\n"
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

bool parse_count(const std::string& text, int64_t* out) {
  char* end = nullptr;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || end != text.c_str() + text.size() || v < 1) return false;
  *out = v;
  return true;
}

Result<std::string> read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status(StatusCode::kIoError, path + ": cannot open the file");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

bool file_exists(const std::string& path) { return std::ifstream(path).good(); }

}  // namespace

int plan_command(const std::vector<std::string>& args) {
  // The search builds and drops many pipeline expansions of a few MB each;
  // main.cpp's low mmap threshold (for the instance reader) would map and
  // fault every one of them in afresh.
  mallopt(M_MMAP_THRESHOLD, 32 * 1024 * 1024);
  std::string model_arg, cluster_arg = "dgx-a100-80gb", fix_arg, export_arg;
  int64_t gpus = 0, global_batch = 0, seq = 2048, work = 0;
  double time_limit = 10;
  bool json = false, sweep = false, alternatives = true, sizing = true;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--help" || arg == "-h") {
      std::cout << kPlanUsage;
      return kExitOk;
    }
    if (arg == "--json") {
      json = true;
      continue;
    }
    if (arg == "--sweep") {
      sweep = true;
      continue;
    }
    if (arg == "--no-alternatives") {
      alternatives = false;
      continue;
    }
    if (arg == "--no-sizing") {
      sizing = false;
      continue;
    }
    if (arg.rfind("--", 0) == 0) {
      std::string key = arg.substr(2), value;
      const size_t eq = key.find('=');
      if (eq != std::string::npos) {
        value = key.substr(eq + 1);
        key = key.substr(0, eq);
      } else {
        if (i + 1 >= args.size()) return usage_error("option --" + key + " needs a value");
        value = args[++i];
      }
      if (key == "cluster") {
        cluster_arg = value;
      } else if (key == "gpus") {
        if (!parse_count(value, &gpus))
          return usage_error("--gpus takes a positive integer, found '" + value + "'");
      } else if (key == "global-batch") {
        if (!parse_count(value, &global_batch)) {
          return usage_error("--global-batch takes a positive integer, found '" + value + "'");
        }
      } else if (key == "seq") {
        if (!parse_count(value, &seq))
          return usage_error("--seq takes a positive integer, found '" + value + "'");
      } else if (key == "fix") {
        fix_arg = value;
      } else if (key == "time-limit") {
        if (!parse_number(value, &time_limit) || time_limit <= 0) {
          return usage_error("--time-limit takes a positive number of seconds, found '" + value +
                             "'");
        }
      } else if (key == "work") {
        if (!parse_count(value, &work))
          return usage_error("--work takes a positive integer, found '" + value + "'");
      } else if (key == "export") {
        if (value != "megatron" && value != "torchtitan") {
          return usage_error("--export takes megatron or torchtitan, found '" + value + "'");
        }
        export_arg = value;
      } else {
        return usage_error("unknown option --" + key);
      }
    } else if (model_arg.empty()) {
      model_arg = arg;
    } else {
      return usage_error("unexpected argument '" + arg + "'");
    }
  }
  if (model_arg.empty()) return usage_error("plan needs a MODEL");
  if (global_batch == 0) return usage_error("plan needs --global-batch B");

  // The model: a preset's name, else a file.
  plan::ModelInput model;
  if (!file_exists(model_arg)) {
    Result<plan::Transformer> preset = plan::model_preset(model_arg);
    if (!preset.is_ok()) {
      return fail(kExitUsage, "plan: MODEL '" + model_arg + "' is no readable file, and " +
                                  preset.status().message());
    }
    model.transformer = preset.value();
  } else {
    Result<std::string> text = read_text(model_arg);
    if (!text.is_ok()) return fail(kExitIo, text.status().message());
    Result<plan::ModelInput> read = plan::read_model_input(model_arg, text.value());
    if (!read.is_ok()) return fail(exit_code_for(read.status()), read.status().message());
    model = read.value();
  }
  // The cluster: a preset's name, else a file.
  plan::Cluster cluster;
  if (!file_exists(cluster_arg)) {
    Result<plan::Cluster> preset = plan::cluster_preset(cluster_arg);
    if (!preset.is_ok()) {
      return fail(kExitUsage, "plan: --cluster '" + cluster_arg + "' is no readable file, and " +
                                  preset.status().message());
    }
    cluster = preset.value();
  } else {
    Result<std::string> text = read_text(cluster_arg);
    if (!text.is_ok()) return fail(kExitIo, text.status().message());
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
