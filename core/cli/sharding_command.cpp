// The sharding commands of `shardlab`: solve, eval, info and options on
// contest instances. `shardlab solve FILE --time-limit T` follows the contest's
// convention: progress lines start with '#', the last stdout line is the plan
// [i, j, ...] ("[]" when none was found). Errors go to stderr.
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "core/cli/commands.h"
#include "core/json_doc.h"
#include "core/sharding/evaluate.h"
#include "core/sharding/io.h"
#include "core/sharding/options.h"
#include "core/sharding/result.h"
#include "core/sharding/solver.h"
#include "core/version.h"

namespace shardlab::cli {
namespace {

std::string megabytes(int64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f MB", static_cast<double>(bytes) / 1e6);
  return text;
}

std::string fixed(double value, int digits) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", digits, value);
  return text;
}

std::string gap_text(int64_t cost, int64_t bound) {
  if (cost <= 0) return "0%";
  return fixed(100.0 * static_cast<double>(cost - bound) / static_cast<double>(cost), 4) + "%";
}

struct Loaded {
  Problem problem;
  ReadStats stats;
};

Result<Loaded> load(const std::string& path) {
  Loaded loaded;
  Result<Problem> problem = read_instance_file(path, &loaded.stats);
  if (!problem.is_ok()) return problem.status();
  loaded.problem = std::move(problem).value();
  return loaded;
}

// The words of a command that takes only `count` positional arguments.
Status positional_only(const std::vector<std::string>& args, size_t count, const char* usage,
                       std::vector<std::string>* words) {
  ArgParser parser;
  Status status = parser.parse(args, words);
  if (status.is_ok() && words->size() != count) {
    status = Status(StatusCode::kInvalidArgument, usage);
  }
  return status;
}

int cmd_info(const std::vector<std::string>& args) {
  std::vector<std::string> words;
  const Status parsed = positional_only(args, 1, "info takes one INSTANCE", &words);
  if (!parsed.is_ok()) return fail(kExitUsage, parsed.message() + "\n" + usage_text());
  Result<Loaded> loaded = load(words[0]);
  if (!loaded.is_ok()) return fail(loaded.status());
  const Problem& p = loaded.value().problem;
  const ReadStats& s = loaded.value().stats;
  int32_t max_k = 0;
  for (int32_t v = 0; v < p.num_nodes(); ++v) max_k = std::max(max_k, p.num_strategies(v));
  const int64_t min_peak = min_possible_peak(p);
  auto row = [](const char* key, const std::string& value) {
    std::printf("%-16s %s\n", key, value.c_str());
  };
  row("name", p.name.empty() ? "(none)" : p.name);
  row("file",
      words[0] + " (" + megabytes(s.file_bytes) +
          (s.json_bytes != s.file_bytes ? " gzip, " + megabytes(s.json_bytes) + " JSON)" : ")"));
  row("sha256", s.sha256);
  row("nodes", std::to_string(p.num_nodes()));
  row("strategies",
      std::to_string(p.total_strategies()) + " (at most " + std::to_string(max_k) + " per node)");
  row("edges", std::to_string(p.num_edges()));
  row("edge matrices", std::to_string(p.num_matrices()) + " distinct");
  row("time horizon", "[" + std::to_string(p.horizon_begin()) + ", " +
                          std::to_string(p.horizon_end()) + "), " +
                          std::to_string(p.num_checkpoints()) + " distinct interval starts");
  row("usage limit", p.has_usage_limit ? std::to_string(p.usage_limit) : "none");
  row("min peak usage",
      std::to_string(min_peak) +
          (p.has_usage_limit && p.usage_limit > 0
               ? " (" +
                     fixed(static_cast<double>(min_peak) / static_cast<double>(p.usage_limit), 3) +
                     " of the limit)"
               : ""));
  row("model memory", megabytes(p.memory_bytes()));
  row("parse", fixed(s.seconds, 3) + " s, " +
                   fixed(static_cast<double>(s.json_bytes) / 1e6 / std::max(s.seconds, 1e-9), 1) +
                   " MB/s of JSON");
  return kExitOk;
}

int cmd_solve(const std::vector<std::string>& args) {
  const auto started = std::chrono::steady_clock::now();
  Options options;
  std::optional<std::string> out;
  std::vector<std::pair<std::string, std::string>> settings;
  std::vector<std::string> words;
  ArgParser parser;
  parser.option("out", &out);
  parser.others(&settings);
  const Status parsed = parser.parse(args, &words);
  if (!parsed.is_ok()) return fail(kExitUsage, parsed.message() + "\n" + usage_text());
  for (const auto& [key, value] : settings) {
    const Status status = set_option(&options, key, value);
    if (!status.is_ok()) return fail(kExitUsage, status.message());
  }
  if (words.empty())
    return fail(kExitUsage, std::string("solve needs an INSTANCE\n") + usage_text());
  if (words.size() > 2) {
    return fail(kExitUsage, "unexpected argument '" + words[2] + "'\n" + usage_text());
  }
  if (words.size() == 2) {
    // The contest harness passes the time limit as a second argument.
    const Status status = set_option(&options, "time_limit_s", words[1]);
    if (!status.is_ok()) return fail(kExitUsage, status.message());
  }
  const std::string& instance = words[0];
  const std::string out_path = out.value_or("");

  Result<Loaded> loaded = load(instance);
  if (!loaded.is_ok()) {
    std::cout << "[]" << std::endl;
    return fail(loaded.status());
  }
  const Problem& problem = loaded.value().problem;
  const ReadStats& stats = loaded.value().stats;
  std::printf("# shardlab %s: %s, %d nodes, %d edges (%d distinct matrices), limit %s\n", kVersion,
              problem.name.empty() ? instance.c_str() : problem.name.c_str(), problem.num_nodes(),
              problem.num_edges(), problem.num_matrices(),
              problem.has_usage_limit ? std::to_string(problem.usage_limit).c_str() : "none");
  std::printf("# read %s in %.3f s; %lld worker(s), seed %lld, time limit %g s\n",
              megabytes(stats.json_bytes).c_str(), stats.seconds,
              static_cast<long long>(options.workers), static_cast<long long>(options.seed),
              options.time_limit_s);
  std::fflush(stdout);

  // The limit counts from the start, parsing included; keep a margin for
  // writing the answer so a harness with a hard kill still gets it.
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  const double margin = std::min(0.5, 0.05 * options.time_limit_s);
  const double budget = std::max(0.0, options.time_limit_s - elapsed - margin);
  catch_interrupts();
  const ProgressSink sink = [&](const Progress& p) {
    const double t = elapsed + p.elapsed_s;
    const Counters::Entry* engine = p.counters.find("engine");
    const long long cost = std::llround(p.incumbent), bound = std::llround(p.bound);
    if (p.found) {
      std::printf("# %8.3fs  cost %lld  bound %lld  gap %s  (engine %lld)\n", t, cost, bound,
                  gap_text(cost, bound).c_str(),
                  static_cast<long long>(engine ? engine->integer : 0));
    } else {
      std::printf("# %8.3fs  no plan yet  bound %lld\n", t, bound);
    }
    std::fflush(stdout);
    return SinkReply::kContinue;
  };
  SolveResult result = solve(problem, options, budget, sink, interrupt_flag());
  for (SolveEvent& e : result.trace) e.seconds += elapsed;
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();

  int code = kExitOk;
  if (result.best.found()) {
    const Evaluation check = evaluate(problem, result.best.solution);
    if (!check.feasible() || check.cost != result.best.cost) {
      return fail(kExitInternal, "internal check failed: the solver's plan evaluates to " +
                                     to_decimal(check.cost) + " (" + verdict_name(check.verdict) +
                                     "), not " + std::to_string(result.best.cost));
    }
    std::printf("# %s: cost %lld, bound %lld, gap %s, peak %s at time %lld, %.3f s%s\n",
                result.proven_optimal ? "optimal" : "best",
                static_cast<long long>(result.best.cost),
                static_cast<long long>(result.lower_bound),
                gap_text(result.best.cost, result.lower_bound).c_str(),
                to_decimal(check.peak_usage).c_str(), static_cast<long long>(check.peak_time), wall,
                *interrupt_flag() ? " (interrupted)" : "");
  } else {
    const int64_t floor = min_possible_peak(problem);
    if (problem.has_usage_limit && floor > problem.usage_limit) {
      std::printf("# no plan fits: even the least-usage plan peaks at %lld > limit %lld\n",
                  static_cast<long long>(floor), static_cast<long long>(problem.usage_limit));
    } else {
      std::printf("# no feasible plan found in %.3f s\n", wall);
    }
    code = kExitNoPlan;
  }
  if (!out_path.empty()) {
    RunInfo run;
    run.instance_file = instance;
    run.sha256 = stats.sha256;
    run.options = options;
    run.wall_time_s = wall;
    run.counters = result.counters;
    const Status written = write_file(out_path, result_json(problem, result, run) + "\n", "result");
    if (!written.is_ok()) {
      std::cout << solution_line(result.best.solution) << std::endl;
      return fail(written);
    }
    std::printf("# result written to %s\n", out_path.c_str());
  }
  std::cout << solution_line(result.best.solution) << std::endl;
  return code;
}

int cmd_eval(const std::vector<std::string>& args) {
  std::vector<std::string> words;
  const Status usage = positional_only(args, 2, "eval takes INSTANCE SOLUTION", &words);
  if (!usage.is_ok()) return fail(kExitUsage, usage.message() + "\n" + usage_text());
  Result<Loaded> loaded = load(words[0]);
  if (!loaded.is_ok()) return fail(loaded.status());
  Result<std::string> text = read_file(words[1], json::kMaxDocumentBytes, "a solution");
  if (!text.is_ok()) return fail(text.status());
  Result<ParsedSolution> parsed = parse_solution_text(words[1], text.value());
  if (!parsed.is_ok()) return fail(kExitBadInput, parsed.status().message());
  const Problem& problem = loaded.value().problem;
  if (!parsed.value().sha256.empty() && parsed.value().sha256 != loaded.value().stats.sha256) {
    std::cerr << "shardlab: note: " << words[1] << " records a different instance file (sha256 "
              << parsed.value().sha256.substr(0, 12) << "...)\n";
  }
  const Evaluation result = evaluate(problem, parsed.value().solution);
  if (result.verdict == Verdict::kWrongLength || result.verdict == Verdict::kStrategyOutOfRange) {
    return fail(kExitBadInput, words[1] + ": " + result.message);
  }
  std::printf("cost %s\n", to_decimal(result.cost).c_str());
  std::printf("verdict %s\n", verdict_name(result.verdict));
  std::printf("peak %s at time %lld (limit %s)\n", to_decimal(result.peak_usage).c_str(),
              static_cast<long long>(result.peak_time),
              problem.has_usage_limit ? std::to_string(problem.usage_limit).c_str() : "none");
  if (!result.feasible()) {
    std::printf("# %s\n", result.message.c_str());
    return kExitNoPlan;
  }
  return kExitOk;
}

}  // namespace

int sharding_command(const std::string& command, const std::vector<std::string>& args) {
  if (command == "solve") return cmd_solve(args);
  if (command == "eval") return cmd_eval(args);
  if (command == "info") return cmd_info(args);
  if (command == "options") {
    std::cout << options_schema().dump() << "\n";
    return kExitOk;
  }
  return -1;
}

}  // namespace shardlab::cli
