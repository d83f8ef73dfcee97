// `shardlab teach MODEL.json`: reads a teaching model (core/teach/model.h),
// generates its sharding instance, solves it with the sharding portfolio and
// explains the plan: each op's layout and the collectives it pays, the cost
// breakdown, peak memory per device, the textbook strategy it matches.
// --force OP=STRATEGY solves again with a strategy imposed and reports the
// difference to the free optimum; --jax FILE writes the layout as a runnable
// JAX script (jax_export.h, the page's export).
#include <cstdio>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "core/cli/commands.h"
#include "core/sharding/options.h"
#include "core/sharding/solver.h"
#include "core/teach/explain.h"
#include "core/teach/jax_export.h"
#include "core/teach/session.h"
#include "core/teach/teach.h"

namespace shardlab::cli {
namespace {

const char* kTeachUsage =
    "usage: shardlab teach MODEL.json [--emit INSTANCE.json] [--jax FILE.py] [--time-limit S] "
    "[--json]\n"
    "                     [--force NODE=STRATEGY]... [--cost-model NAME] [--seed N] [--workers N]\n"
    "\n"
    "Generates the sharding instance of a model on a device mesh (examples/teach/),\n"
    "solves it and prints each node's layout with the collectives it pays, the cost\n"
    "breakdown (integer nanoseconds), the peak memory per device and the textbook\n"
    "strategy the plan matches.\n"
    "  --emit FILE        also write the contest instance to FILE and the sidecar that\n"
    "                     names its nodes and strategies to FILE with .sidecar.json\n"
    "  --jax FILE         also write the layout as a runnable JAX script (a Mesh of\n"
    "                     jax.devices(), a NamedSharding per tensor, example arrays)\n"
    "  --time-limit S     solver time limit (default 10); it stops once optimal\n"
    "  --json             print the explanation as one JSON document\n"
    "  --force N=S        impose strategy S on node N (e.g. h=b:x, W1=zero3,\n"
    "                     y=replicated) and compare with the free optimum\n"
    "  --cost-model NAME  alpha-beta (default), bandwidth (no latency) or\n"
    "                     communication (no compute, as Alpa's ILP)\n"
    "  --OPTION VALUE     any solver option of `shardlab options` (--seed, --workers, ...);\n"
    "                     --exact-max-nodes defaults to 200 here\n"
    "Options are written --key value or --key=value. Exit codes as for `shardlab help`.\n";

std::string sidecar_path(const std::string& path) {
  const std::string suffix = ".json";
  if (path.size() > suffix.size() &&
      path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0) {
    return path.substr(0, path.size() - suffix.size()) + ".sidecar.json";
  }
  return path + ".sidecar.json";
}

}  // namespace

int teach_command(const std::vector<std::string>& args) {
  for (const std::string& arg : args) {
    if (arg == "--help" || arg == "-h") {
      std::cout << kTeachUsage;
      return kExitOk;
    }
  }
  bool as_json = false;
  std::optional<std::string> emit, jax, cost_model;
  std::vector<std::string> forces, words;
  std::vector<std::pair<std::string, std::string>> settings;
  ArgParser parser;
  parser.flag("json", &as_json);
  parser.option("emit", &emit);
  parser.option("jax", &jax);
  parser.option("cost-model", &cost_model);
  parser.repeated("force", &forces);
  parser.others(&settings);  // the solver's options (shardlab options lists them)
  const Status parsed = parser.parse(args, &words);
  if (!parsed.is_ok()) return fail(kExitUsage, "teach: " + parsed.message() + "\n" + kTeachUsage);
  if (words.empty()) {
    return fail(kExitUsage, std::string("teach needs a MODEL.json\n") + kTeachUsage);
  }
  if (words.size() > 1) {
    return fail(kExitUsage, "teach: unexpected argument '" + words[1] + "'\n" + kTeachUsage);
  }
  const std::string& model_path = words[0];
  const std::string emit_path = emit.value_or("");
  Options options = teach::teach_solver_options();
  teach::GenerateOptions generate;
  for (const std::string& force : forces) {
    const size_t at = force.find('=');
    if (at == std::string::npos || at == 0) {
      return fail(kExitUsage, "teach: --force takes NODE=STRATEGY, found '" + force + "'");
    }
    generate.forces.emplace_back(force.substr(0, at), force.substr(at + 1));
  }
  if (cost_model) {
    Result<teach::CostModel> model = teach::parse_cost_model(*cost_model);
    if (!model.is_ok()) return fail(kExitUsage, "teach: " + model.status().message());
    generate.override_cost_model = true;
    generate.cost_model = model.value();
  }
  for (const auto& [key, value] : settings) {
    const Status status = set_option(&options, key, value);
    if (!status.is_ok()) return fail(kExitUsage, "teach: " + status.message());
  }

  Result<std::string> text = read_file(model_path, teach::kMaxModelFileBytes, "a teaching model");
  if (!text.is_ok()) return fail(text.status());
  Result<teach::ModelSpec> model = teach::read_model(model_path, text.value());
  if (!model.is_ok()) return fail(model.status());

  if (!generate.forces.empty()) {
    // A bad --force is a command-line error (1), found before any solving.
    Result<teach::Generated> check = teach::generate(model.value(), generate);
    if (!check.is_ok()) {
      const bool usage = check.status().code() == StatusCode::kInvalidArgument;
      return fail(check.status(), usage ? "teach: " : "");
    }
  }
  catch_interrupts();
  Result<teach::Session> session =
      teach::solve_model(model.value(), generate, options, nullptr, interrupt_flag());
  if (!session.is_ok()) return fail(session.status());
  const teach::Generated& gen = session.value().gen;
  if (!emit_path.empty()) {
    Status written = write_file(emit_path, teach::instance_json(gen), "instance");
    if (written.is_ok()) {
      written = write_file(sidecar_path(emit_path), teach::sidecar_json(gen) + "\n", "sidecar");
    }
    if (!written.is_ok()) return fail(written);
  }
  const teach::SolveSummary& summary = session.value().summary;
  if (!summary.found) {
    return fail(kExitNoPlan, "teach: no plan fits: " +
                                 std::string(gen.problem.has_usage_limit
                                                 ? "the memory limit is too tight for every plan"
                                                 : "no feasible plan was found") +
                                 " (time limit " + std::to_string(options.time_limit_s) + " s)");
  }
  const teach::Explanation& x = session.value().explanation;
  if (jax) {
    const Status written = write_file(*jax, teach::jax_script(gen, x, summary), "JAX script");
    if (!written.is_ok()) return fail(written);
  }
  if (as_json) {
    std::cout << teach::explanation_json(gen, x, summary) << "\n";
  } else {
    const teach::ModelSpec& m = gen.model;
    std::string shape;
    for (size_t a = 0; a < m.mesh.shape.size(); ++a) {
      shape += (a ? ", " : "") + std::to_string(m.mesh.shape[a]) + " " + m.mesh.axes[a];
    }
    std::printf("# %s on a [%s] mesh, %s, cost model %s: %d nodes, %d edges, %lld strategies\n",
                m.name.c_str(), shape.c_str(), m.training ? "training" : "inference",
                teach::cost_model_name(m.cost_model), gen.problem.num_nodes(),
                gen.problem.num_edges(), static_cast<long long>(gen.problem.total_strategies()));
    if (!emit_path.empty()) {
      std::printf("# instance written to %s, sidecar to %s\n", emit_path.c_str(),
                  sidecar_path(emit_path).c_str());
    }
    std::cout << teach::explanation_text(gen, x, summary);
  }
  return kExitOk;
}

}  // namespace shardlab::cli
