// The planner's order search (core/pipeline/plan/order_search.h) run alone,
// as a walk: from DualPipe's schedule, mirror-symmetric moves only, started
// again from its own best whenever `--stall` moves pass without a gain.
// `--start FILE` starts from a schedule JSON instead (its device orders and
// pairs, re-timed on the problem), e.g. a schedule found at another comm or
// under a higher cap (a start above the cap is walked back under it by the
// search's penalty on memory; the table says "none within the caps" for a
// seed that never gets there);
// `--mirror 0` lets the walk leave mirror-symmetric orders; with `--links
// serial` it times its candidates on serial links (PlanGraph::serial_links).
// Moves are counted, not timed, so a seed gives the same schedule on every
// machine. Prints one table row per seed; --out writes the best schedule
// found (a schedule JSON that `shardlab pipeline ... --check` re-checks).
//
//   order_walk_bench examples/pipeline/dualpipe_example.json --FB 2.5
//       --comm 0.5 --seeds 24-24 --moves 10000000 --out best.json   (63.5, README)
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "core/cli/commands.h"
#include "core/json_doc.h"
#include "core/pipeline/numbers.h"
#include "core/pipeline/pipeline.h"
#include "core/pipeline/plan/graph.h"
#include "core/pipeline/plan/order_search.h"
#include "core/pipeline/plan/problem.h"
#include "core/rng.h"

using namespace shardlab;
using namespace shardlab::pipeline;

namespace {

constexpr const char* kUsage =
    "usage: order_walk_bench PROBLEM.json [--FB X] [--comm C] [--mem-cap K]\n"
    "       [--links parallel|serial]\n"
    "       [--seeds A-B] [--moves N] [--stall N] [--start FILE] [--mirror 0|1]\n"
    "       [--out FILE]\n";

int usage(const std::string& why) {
  std::fprintf(stderr, "order_walk_bench: %s\n%s", why.c_str(), kUsage);
  return 1;
}

bool read_number(const std::string& text, double* out) {
  char* end = nullptr;
  *out = std::strtod(text.c_str(), &end);
  return !text.empty() && *end == '\0' && *out >= 0;
}

}  // namespace

int main(int argc, char** argv) {
  // The CLI's grammar (core/cli/args.cpp): --key value or --key=value.
  cli::ArgParser parser;
  std::optional<std::string> fb, comm, mem_cap, links, seeds, moves_text, stall_text, mirror_text,
      start_path, out;
  parser.option("FB", &fb);
  parser.option("comm", &comm);
  parser.option("mem-cap", &mem_cap);
  parser.option("links", &links);
  parser.option("seeds", &seeds);
  parser.option("moves", &moves_text);
  parser.option("stall", &stall_text);
  parser.option("mirror", &mirror_text);
  parser.option("start", &start_path);
  parser.option("out", &out);
  bool help = false;
  parser.flag("help", &help);
  std::vector<std::string> words;
  const Status parsed = parser.parse(std::vector<std::string>(argv + 1, argv + argc), &words);
  if (!parsed.is_ok()) return usage(parsed.message());
  if (help) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  if (words.size() != 1) return usage("give one problem file");
  const std::string path = words[0];
  ProblemFlags flags;
  flags.links = links.value_or("");
  double seed_lo = 1, seed_hi = 1;
  if (seeds &&
      (std::sscanf(seeds->c_str(), "%lf-%lf", &seed_lo, &seed_hi) != 2 || seed_lo > seed_hi)) {
    return usage("--seeds takes A-B with A <= B, not '" + *seeds + "'");
  }
  std::optional<double> moves_given, stall_given, mirror_given;
  struct Number {
    const char* name;
    const std::optional<std::string>& text;
    std::optional<double>* value;
  };
  for (const Number& n :
       {Number{"FB", fb, &flags.fb}, Number{"comm", comm, &flags.comm},
        Number{"mem-cap", mem_cap, &flags.mem_cap}, Number{"moves", moves_text, &moves_given},
        Number{"stall", stall_text, &stall_given}, Number{"mirror", mirror_text, &mirror_given}}) {
    if (!n.text) continue;
    double x = 0;
    if (!read_number(*n.text, &x)) {
      return usage(std::string("--") + n.name + " takes a number >= 0, not '" + *n.text + "'");
    }
    *n.value = x;
  }
  const double moves = moves_given.value_or(10'000'000), stall = stall_given.value_or(400'000);
  const bool mirror = mirror_given.value_or(1) != 0;
  Result<std::string> text = cli::read_file(path, json::kMaxDocumentBytes, "a pipeline problem");
  if (!text.is_ok()) return usage(text.status().message());
  Result<Problem> read = read_problem_json(path, text.value());
  if (!read.is_ok()) return usage(read.status().message());
  Problem problem = read.value();
  const Status applied = apply_flags(flags, path, &problem);
  if (!applied.is_ok()) return usage(applied.message());
  Result<Generated> dualpipe = generate(problem, "DualPipe");
  if (!dualpipe.is_ok()) return usage("DualPipe: " + dualpipe.status().message());
  Expansion e = dualpipe.value().expansion;
  Result<Timeline> t = simulate(e, dualpipe.value().order);
  if (start_path) {
    Result<std::string> start_text =
        cli::read_file(*start_path, json::kMaxDocumentBytes, "a schedule JSON");
    if (!start_text.is_ok()) return usage(start_text.status().message());
    Result<ScheduleResult> s = read_schedule_json(problem, *start_path, start_text.value());
    if (!s.is_ok()) return usage(s.status().message());
    e = s.value().expansion;
    t = s.value().timeline;
  }
  Result<PlanGraph> g = plan_graph_of(e);
  if (!t.is_ok() || !g.is_ok()) return usage("the start schedule does not run");
  g.value().serial_links = e.serial_links;
  // The start is taken and re-timed without the caps (a start made for
  // other delays or links keeps its orders and pairs only).
  PlanGraph free_graph = g.value();
  std::fill(free_graph.mem_cap.begin(), free_graph.mem_cap.end(), kNoCap);
  Result<PlanSchedule> held = plan_schedule_of(e, free_graph, t.value());
  if (!held.is_ok()) return usage(held.status().message());
  Result<PlanSchedule> start =
      time_orders(free_graph, orders_of(g.value(), held.value()), held.value().partner);
  if (!start.is_ok()) return usage("the start schedule: " + start.status().message());
  const bool start_fits = check_plan(g.value(), start.value()).empty();
  const double unit = static_cast<double>(e.time_scale);
  std::printf("| seed | best | moves to it | restarts |\n|---|---|---|---|\n");
  PlanSchedule overall;
  const int64_t chunk = 50'000;
  for (auto seed = static_cast<int64_t>(seed_lo); seed <= static_cast<int64_t>(seed_hi); ++seed) {
    OrderSearch search(g.value());
    search.reset(start.value(), mirror);
    if (mirror && !search.mirrored())
      return usage("the problem has no mirror image (DualPipe's placement)");
    Rng rng(static_cast<uint64_t>(seed));
    PlanSchedule best = start.value();
    int64_t upper = start_fits ? best.makespan : kNoCap;
    int64_t done = 0, at = 0, restarts = 0;
    while (done < static_cast<int64_t>(moves)) {
      PlanSchedule found;
      if (search.run(chunk, upper, &rng, &found)) {
        best = found, at = done + chunk, upper = found.makespan;
      }
      done += chunk;
      if (search.stalled() > static_cast<int64_t>(stall)) search.reset(best, mirror), ++restarts;
    }
    const std::string shown =
        upper == kNoCap ? "none within the caps" : number_text(static_cast<double>(upper) / unit);
    std::printf("| %lld | %s | %lld | %lld |\n", static_cast<long long>(seed), shown.c_str(),
                static_cast<long long>(at), static_cast<long long>(restarts));
    std::fflush(stdout);
    if (upper != kNoCap && (overall.empty() || best.makespan < overall.makespan)) overall = best;
  }
  if (out && overall.empty()) return usage("no schedule within the caps to write");
  if (out) {
    const char* name = mirror ? "planned (mirrored order search)" : "planned (order search)";
    ScheduleResult s = evaluate_timeline(problem, e, timeline_of(e, g.value(), overall), name);
    const Status written = cli::write_file(*out, schedule_json(s, 1) + "\n", "schedule");
    if (!written.is_ok()) return usage(written.message());
    if (!s.check.valid)
      return usage("the best schedule fails the checker: " + s.check.violations[0]);
  }
  return 0;
}
