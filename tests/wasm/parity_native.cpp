// Native oracle for the wasm node tests (a target of the native build,
// tests/CMakeLists.txt). It prints, as one JSON line, what the module must match:
//   parity_native digest FILE                     model sizes and digest
//   parity_native run FILE SEED INDEX STEPS WORK  a seeded engine run (with its
//                                                 construction and step times)
//   parity_native error FILE                      the reader's message ("" if ok)
//   parity_native cli ARGS...                     the native `shardlab ARGS...`
//                                                 (every lab's subcommands)
#include <chrono>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "core/cli/commands.h"
#include "core/sharding/evaluate.h"
#include "core/sharding/io.h"
#include "core/sharding/options.h"
#include "core/sharding/solver.h"
#include "wasm/model_fields.h"

using namespace shardlab;

namespace {

int usage() {
  std::fprintf(stderr,
               "usage: parity_native digest|error FILE | run FILE SEED INDEX STEPS WORK | cli "
               "ARGS...\n");
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 2 && std::string(argv[1]) == "cli") return cli::run(argc - 1, argv + 1);
  if (argc < 3) return usage();
  const std::string command = argv[1];
  const std::string path = argv[2];
  ReadStats stats;
  Result<Problem> read = read_instance_file(path, &stats);
  nlohmann::ordered_json out;
  if (command == "error") {
    out["message"] = read.is_ok() ? "" : read.status().message();
    std::printf("%s\n", out.dump().c_str());
    return 0;
  }
  if (!read.is_ok()) {
    std::fprintf(stderr, "%s\n", read.status().message().c_str());
    return 2;
  }
  const Problem& p = read.value();
  if (command == "digest") {
    out["name"] = p.name;
    out["nodes"] = p.num_nodes();
    out["edges"] = p.num_edges();
    out["matrices"] = p.num_matrices();
    out["strategies"] = p.total_strategies();
    out["checkpoints"] = p.num_checkpoints();
    out["memory_bytes"] = p.memory_bytes();
    out["usage_limit"] = std::to_string(p.usage_limit);
    out["min_peak"] = std::to_string(min_possible_peak(p));
    out["sha256"] = stats.sha256;
    out["digest"] = web::model_digest(p);
    out["read_seconds"] = stats.seconds;
  } else if (command == "run" && argc == 7) {
    Options options;
    if (!set_option(&options, "seed", argv[3]).is_ok()) return usage();
    const int32_t index = std::stoi(argv[4]);
    const int64_t steps = std::stoll(argv[5]);
    const int64_t work = std::stoll(argv[6]);
    using Clock = std::chrono::steady_clock;
    const auto seconds_since = [](Clock::time_point t) {
      return std::chrono::duration<double>(Clock::now() - t).count();
    };
    const auto started = Clock::now();
    Engine engine(p, options, index);
    out["construct_seconds"] = seconds_since(started);  // presolve and first plan
    const auto stepping = Clock::now();
    int64_t done = 0;
    while (done < steps && !engine.finished()) {
      engine.step(work);
      ++done;
    }
    out["step_seconds"] = seconds_since(stepping);
    out["seconds"] = seconds_since(started);
    out["steps"] = done;
    out["cost"] = engine.best().found() ? std::to_string(engine.best().cost) : "";
    out["bound"] = std::to_string(engine.lower_bound());
    out["plan"] = engine.best().solution;
  } else {
    return usage();
  }
  std::printf("%s\n", out.dump().c_str());
  return 0;
}
