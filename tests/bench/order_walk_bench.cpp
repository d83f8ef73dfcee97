// The planner's order search (core/pipeline/plan/order_search.h) run alone,
// as a walk: from DualPipe's schedule, mirror-symmetric moves only, started
// again from its own best whenever `--stall` moves pass without a gain.
// `--start FILE` starts from a schedule JSON instead (its device orders and
// pairs, re-timed on the problem), e.g. a schedule found at another comm;
// `--mirror 0` lets the walk leave mirror-symmetric orders; with `--links
// serial` it times its candidates on serial links (PlanGraph::serial_links).
// Moves are counted, not timed, so a seed gives the same schedule on every
// machine. Prints one table row per seed; --out writes the best schedule
// found (a schedule JSON that `shardlab pipeline ... --check` re-checks).
//
//   order_walk_bench examples/pipeline/dualpipe_example.json --FB 2.5
//       --comm 0.5 --seeds 24-24 --moves 10000000 --out best.json   (63.5, README)
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "core/pipeline/pipeline.h"
#include "core/pipeline/plan/graph.h"
#include "core/pipeline/plan/order_search.h"
#include "core/pipeline/plan/problem.h"
#include "core/rng.h"

using namespace shardlab;
using namespace shardlab::pipeline;

namespace {

int usage(const std::string& why) {
  std::fprintf(stderr,
               "order_walk_bench: %s\n"
               "usage: order_walk_bench PROBLEM.json [--FB X] [--comm C] [--mem-cap K]\n"
               "       [--links parallel|serial]\n"
               "       [--seeds A-B] [--moves N] [--stall N] [--start FILE] [--mirror 0|1]\n"
               "       [--out FILE]\n",
               why.c_str());
  return 1;
}

bool read_text(const std::string& path, std::string* out) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return false;
  std::stringstream text;
  text << file.rdbuf();
  *out = text.str();
  return true;
}

bool read_number(const char* text, double* out) {
  char* end = nullptr;
  *out = std::strtod(text, &end);
  return end != text && *end == '\0' && *out >= 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return usage("give a problem file");
  const std::string path = argv[1];
  ProblemFlags flags;
  double seed_lo = 1, seed_hi = 1, moves = 10'000'000, stall = 400'000, mirror = 1;
  std::string out, start_path;
  for (int i = 2; i < argc; ++i) {
    const std::string flag = argv[i];
    if (i + 1 >= argc) return usage(flag + " needs a value");
    const char* value = argv[++i];
    double x = 0;
    if (flag == "--out") {
      out = value;
    } else if (flag == "--links") {
      flags.links = value;
    } else if (flag == "--start") {
      start_path = value;
    } else if (flag == "--seeds") {
      if (std::sscanf(value, "%lf-%lf", &seed_lo, &seed_hi) != 2 || seed_lo > seed_hi) {
        return usage("--seeds takes A-B with A <= B, not '" + std::string(value) + "'");
      }
    } else if (!read_number(value, &x)) {
      return usage(flag + " takes a number >= 0, not '" + value + "'");
    } else if (flag == "--FB") {
      flags.fb = x;
    } else if (flag == "--comm") {
      flags.comm = x;
    } else if (flag == "--mem-cap") {
      flags.mem_cap = x;
    } else if (flag == "--moves") {
      moves = x;
    } else if (flag == "--stall") {
      stall = x;
    } else if (flag == "--mirror") {
      mirror = x;
    } else {
      return usage("unknown option " + flag);
    }
  }
  std::string text;
  if (!read_text(path, &text)) return usage("cannot open " + path);
  Result<Problem> read = read_problem_json(path, text);
  if (!read.is_ok()) return usage(read.status().message());
  Problem problem = read.value();
  const Status applied = apply_flags(flags, path, &problem);
  if (!applied.is_ok()) return usage(applied.message());
  Result<Generated> dualpipe = generate(problem, "DualPipe");
  if (!dualpipe.is_ok()) return usage("DualPipe: " + dualpipe.status().message());
  Expansion e = dualpipe.value().expansion;
  Result<Timeline> t = simulate(e, dualpipe.value().order);
  if (!start_path.empty()) {
    std::string start_text;
    if (!read_text(start_path, &start_text)) return usage("cannot open " + start_path);
    Result<ScheduleResult> s = read_schedule_json(problem, start_path, start_text);
    if (!s.is_ok()) return usage(s.status().message());
    e = s.value().expansion;
    t = s.value().timeline;
  }
  Result<PlanGraph> g = plan_graph_of(e);
  if (!t.is_ok() || !g.is_ok()) return usage("the start schedule does not run");
  g.value().serial_links = e.serial_links;
  Result<PlanSchedule> held = plan_schedule_of(e, g.value(), t.value());
  if (!held.is_ok()) return usage(held.status().message());
  // Re-timed as the walk times (a start made for other delays or links
  // keeps its orders and pairs only).
  Result<PlanSchedule> start =
      time_orders(g.value(), orders_of(g.value(), held.value()), held.value().partner);
  if (!start.is_ok()) return usage("the start schedule: " + start.status().message());
  const double unit = static_cast<double>(e.time_scale);
  std::printf("| seed | best | moves to it | restarts |\n|---|---|---|---|\n");
  PlanSchedule overall;
  const int64_t chunk = 50'000;
  for (auto seed = static_cast<int64_t>(seed_lo); seed <= static_cast<int64_t>(seed_hi); ++seed) {
    OrderSearch search(g.value());
    search.reset(start.value(), mirror != 0);
    if (mirror != 0 && !search.mirrored())
      return usage("the problem has no mirror image (DualPipe's placement)");
    Rng rng(static_cast<uint64_t>(seed));
    PlanSchedule best = start.value();
    int64_t done = 0, at = 0, restarts = 0;
    while (done < static_cast<int64_t>(moves)) {
      PlanSchedule found;
      if (search.run(chunk, best.makespan, &rng, &found)) best = found, at = done + chunk;
      done += chunk;
      if (search.stalled() > static_cast<int64_t>(stall))
        search.reset(best, mirror != 0), ++restarts;
    }
    std::printf("| %lld | %g | %lld | %lld |\n", static_cast<long long>(seed),
                static_cast<double>(best.makespan) / unit, static_cast<long long>(at),
                static_cast<long long>(restarts));
    std::fflush(stdout);
    if (overall.empty() || best.makespan < overall.makespan) overall = best;
  }
  if (!out.empty()) {
    const char* name = mirror != 0 ? "planned (mirrored order search)" : "planned (order search)";
    ScheduleResult s = evaluate_timeline(problem, e, timeline_of(e, g.value(), overall), name);
    std::ofstream(out) << schedule_json(s, 1) << "\n";
    if (!s.check.valid)
      return usage("the best schedule fails the checker: " + s.check.violations[0]);
  }
  return 0;
}
