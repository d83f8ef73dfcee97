// `shardlab pipeline`: pipeline problems from flags or a problem file; one
// schedule (a published generator, the planner, an imported CSV or schedule
// JSON) as a readable table or the schedule JSON, every schedule side by
// side with --compare, and the exports (Chrome trace, PyTorch CSV). Every
// schedule it writes has passed the independent check (core/pipeline/
// check.h); one that fails it is reported and not written (exit 3).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>

#include "core/cli/commands.h"
#include "core/json_doc.h"
#include "core/pipeline/export.h"
#include "core/pipeline/memory.h"
#include "core/pipeline/numbers.h"
#include "core/pipeline/pipeline.h"
#include "core/pipeline/planner.h"
#include "core/utf8.h"

namespace shardlab::cli {
namespace {

using namespace shardlab::pipeline;

const char* kPipelineUsage =
    "usage:\n"
    "  shardlab pipeline [PROBLEM.json] [problem flags] [action] [outputs]\n"
    "\n"
    "problem (a file, or flags for a uniform problem; flags override the file):\n"
    "  --stages P         devices (pipeline degree); each holds 1/P of the model\n"
    "  --microbatches M   micro-batches per step\n"
    "  --F T --B T --W T  forward, input-gradient and weight-gradient time of one\n"
    "                     device's share per micro-batch (default 1 each)\n"
    "  --FB T             an F overlapped with a full backward (default F+B+W)\n"
    "  --comm C           delay of a transfer between devices (default 0)\n"
    "  --links MODE       parallel (default) or serial: one transfer at a time from a device\n"
    "                     to another, in the order it computed them\n"
    "  --mem-cap K        memory cap per device (activations + parameters)\n"
    "  --act A --keep K --param X  activation per micro-batch, the part kept until\n"
    "                     W, parameter memory per copy (defaults 1, 0, 0)\n"
    "  --transformer h=H,s=S,a=A[,b=B,t=T,layers=L,bytes_per_param=N]\n"
    "                     act, keep and param in bytes from a transformer layer (hidden\n"
    "                     size, sequence length, heads, sequences per micro-batch,\n"
    "                     tensor parallelism, layers per device, 16 bytes a parameter);\n"
    "                     --mem-cap is then in bytes\n"
    "  --chunks V         model chunks per device for Interleaved1F1B (default 2)\n"
    "  --placement NAME   linear, interleaved, v-shape, bidirectional or free\n"
    "\n"
    "action (one):\n"
    "  --schedule NAME    a published schedule (default 1F1B; list for operator\n"
    "                     graphs): GPipe 1F1B Interleaved1F1B ZB-H1 ZB-H2 ZBV\n"
    "                     DualPipe DualPipeV Chimera list, or PyTorch's own orders\n"
    "                     torch:Interleaved1F1B torch:InterleavedZeroBubble\n"
    "                     torch:ZBVZeroBubble torch:DualPipeV\n"
    "  --compare          every schedule side by side\n"
    "  --list             the schedules and whether each applies\n"
    "  --plan             the planner (exact branch and bound, anytime); with\n"
    "                     --time-limit S (default 10), --seed N and the other\n"
    "                     planner options (shardlab pipeline --plan-options)\n"
    "  --import-csv FILE  a PyTorch pipelining schedule CSV (either form), timed on\n"
    "                     the problem\n"
    "  --check FILE       a schedule JSON, re-timed and checked\n"
    "  --normalize        print the problem file with every default filled in\n"
    "\n"
    "outputs:\n"
    "  --json             the schedule JSON instead of the table (--out FILE to\n"
    "                     write it to a file)\n"
    "  --trace FILE       Chrome trace JSON (chrome://tracing, ui.perfetto.dev)\n"
    "  --csv FILE         PyTorch pipelining schedule CSV, as its _dump_csv writes it\n"
    "  --csv-format FORM  compute_only (default) or compute_comms (lowered: UNSHARD,\n"
    "                     RESHARD, REDUCE_GRAD, SEND/RECV); for --import-csv, the\n"
    "                     form the file must have\n"
    "  --emit-lp FILE     the job-shop MIP as CPLEX-LP text (the planner's MIP mode)\n"
    "\n"
    "Options are written --key value or --key=value.\n"
    "\n"
    "exit codes: 0 ok; 1 bad command line; 2 malformed input; 3 no valid schedule\n"
    "(the schedule breaks the memory cap or another rule, or the planner found\n"
    "none); 4 file not readable or writable; 5 internal error (a bug)\n";

struct Args {
  std::string problem_file;
  ProblemFlags flags;
  std::string schedule;
  bool compare = false, list = false, plan = false, json = false, normalize = false;
  std::string out, trace, csv, import_csv, check, emit_lp;
  std::optional<CsvFormat> csv_format;
  std::vector<std::pair<std::string, std::string>> plan_options;
};

int usage_error(const std::string& message) {
  return fail(kExitUsage, "pipeline: " + message + "\n" + kPipelineUsage);
}

bool parse_int(const std::string& text, int64_t lo, int64_t hi, int64_t* out) {
  char* end = nullptr;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || end != text.c_str() + text.size() || v < lo || v > hi) return false;
  *out = v;
  return true;
}

bool parse_real(const std::string& text, double* out) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(v) || v < 0 || v > 1e12) {
    return false;
  }
  *out = v;
  return true;
}

// Parses the command line; returns an exit code >= 0 on error, -1 when fine.
int parse_args(const std::vector<std::string>& args, Args* a) {
  ArgParser parser;
  std::optional<std::string> stages, devices, microbatches, chunks, placement, links, schedule, out,
      trace, csv, import_csv, check, emit_lp, transformer, csv_format;
  struct Real {
    const char* name;
    std::optional<double>* slot;
    std::optional<std::string> text;
  };
  Real reals[] = {
      {"F", &a->flags.f, {}},     {"B", &a->flags.b, {}},       {"W", &a->flags.w, {}},
      {"FB", &a->flags.fb, {}},   {"comm", &a->flags.comm, {}}, {"mem-cap", &a->flags.mem_cap, {}},
      {"act", &a->flags.act, {}}, {"keep", &a->flags.keep, {}}, {"param", &a->flags.param, {}}};
  parser.option("stages", &stages);
  parser.option("devices", &devices);
  parser.option("microbatches", &microbatches);
  parser.option("chunks", &chunks);
  for (Real& r : reals) parser.option(r.name, &r.text);
  parser.option("placement", &placement);
  parser.option("links", &links);
  parser.option("schedule", &schedule);
  parser.option("out", &out);
  parser.option("trace", &trace);
  parser.option("csv", &csv);
  parser.option("csv-format", &csv_format);
  parser.option("import-csv", &import_csv);
  parser.option("transformer", &transformer);
  parser.option("check", &check);
  parser.option("emit-lp", &emit_lp);
  parser.flag("compare", &a->compare);
  parser.flag("list", &a->list);
  parser.flag("plan", &a->plan);
  parser.flag("json", &a->json);
  parser.flag("normalize", &a->normalize);
  // Everything else is a planner option (--time-limit, --seed, ...),
  // checked against the planner's table below.
  parser.others(&a->plan_options);
  std::vector<std::string> words;
  const Status parsed = parser.parse(args, &words);
  if (!parsed.is_ok()) return usage_error(parsed.message());
  if (words.size() > 1) {
    return usage_error("one problem file only (got '" + words[0] + "' and '" + words[1] + "')");
  }
  if (!words.empty()) a->problem_file = words[0];
  if (stages && devices) return usage_error("--stages and --devices are the same; give one");
  auto integer = [&](const char* name, const std::optional<std::string>& text,
                     std::optional<int64_t>* slot, int64_t lo, int64_t hi) -> int {
    if (!text) return -1;
    int64_t x = 0;
    if (!parse_int(*text, lo, hi, &x)) {
      return usage_error(std::string("--") + name + " needs an integer from " + std::to_string(lo) +
                         " to " + std::to_string(hi) + ", got '" + *text + "'");
    }
    *slot = x;
    return -1;
  };
  int code =
      integer(stages ? "stages" : "devices", stages ? stages : devices, &a->flags.devices, 1, 1024);
  if (code < 0) code = integer("microbatches", microbatches, &a->flags.microbatches, 1, 100000);
  if (code < 0) code = integer("chunks", chunks, &a->flags.chunks, 1, 64);
  if (code >= 0) return code;
  for (const Real& r : reals) {
    if (!r.text) continue;
    double x = 0;
    if (!parse_real(*r.text, &x)) {
      return usage_error(std::string("--") + r.name + " needs a number from 0 to 1e12, got '" +
                         *r.text + "'");
    }
    *r.slot = x;
  }
  if (transformer) {
    Result<TransformerSpec> t = parse_transformer(*transformer);
    if (!t.is_ok()) return usage_error(t.status().message());
    a->flags.transformer = t.value();
  }
  if (csv_format) {
    CsvFormat format;
    if (!parse_csv_format(*csv_format, &format)) {
      return usage_error("--csv-format takes compute_only or compute_comms, not '" + *csv_format +
                         "'");
    }
    a->csv_format = format;
  }
  a->flags.placement = placement.value_or("");
  a->flags.links = links.value_or("");
  a->schedule = schedule.value_or("");
  a->out = out.value_or("");
  a->trace = trace.value_or("");
  a->csv = csv.value_or("");
  a->import_csv = import_csv.value_or("");
  a->check = check.value_or("");
  a->emit_lp = emit_lp.value_or("");
  for (const auto& [key, value] : a->plan_options) {
    PlannerOptions probe;
    const Status status = set_plan_option(&probe, key, value);
    if (!status.is_ok()) {
      return usage_error(status.message().rfind("unknown", 0) == 0 ? "unknown option --" + key
                                                                   : status.message());
    }
  }
  const int actions = (a->compare ? 1 : 0) + (a->list ? 1 : 0) + (a->plan ? 1 : 0) +
                      (!a->schedule.empty() ? 1 : 0) + (!a->import_csv.empty() ? 1 : 0) +
                      (!a->check.empty() ? 1 : 0) + (a->normalize ? 1 : 0);
  if (actions > 1) {
    return usage_error(
        "choose one of --schedule, --compare, --list, --plan, --import-csv, --check, "
        "--normalize");
  }
  if (a->csv_format && a->csv.empty() && a->import_csv.empty()) {
    return usage_error("--csv-format goes with --csv or --import-csv");
  }
  if (!a->plan_options.empty() && !a->plan && a->emit_lp.empty()) {
    return usage_error("--" + a->plan_options[0].first + " is a planner option; add --plan");
  }
  return -1;
}

// A schedule that does not fit the problem file (too few stages for its
// placement, a placement the file fixes, too many operations), at the key
// of the file it is about: "p.json:3:12 (byte 40): at stages: expected 4
// stages (...), found 2 (schedule 1F1B, the default)". Other messages, and
// problems from flags alone, stay as the schedule wrote them (they name it).
std::string schedule_misfit(const Args& a, const std::string& text, const std::string& name,
                            std::string message) {
  const std::string original = message;
  if (message.compare(0, name.size() + 2, name + ": ") == 0) message.erase(0, name.size() + 2);
  const std::string which =
      "schedule " + name + (a.schedule.empty() ? ", the default" : ", from --schedule");
  if (a.problem_file.empty() || message.compare(0, 9, "expected ") != 0) return original;
  Result<json::Document> doc = json::Document::parse(a.problem_file, text);
  if (!doc.is_ok()) return which + ": " + message;
  const json::JsonAt root = doc.value().root();
  std::vector<const char*> keys;
  if (message.find("in the expansion") != std::string::npos) {
    keys = {"microbatches"};
  } else {
    keys = {"placement", "stages", "operators", "devices"};
  }
  for (const char* key : keys) {
    if (!root.has(key)) continue;
    return doc.value().where(root[key].offset()) + ": at " + key + ": " + message + " (" + which +
           ")";
  }
  return doc.value().where(root.offset()) + ": " + message + " (" + which + ")";
}

// The problem from the file and the flags; an exit code on failure.
int build_problem(const Args& a, Problem* problem, std::string* problem_text) {
  if (!a.problem_file.empty()) {
    Result<std::string> text = read_file(a.problem_file, kMaxProblemBytes, "a pipeline problem");
    if (!text.is_ok()) return fail(text.status());
    Result<Problem> read = read_problem_json(a.problem_file, text.value());
    if (!read.is_ok()) return fail(read.status());
    *problem = read.value();
    *problem_text = std::move(text).value();
  } else {
    if (!a.flags.devices) return usage_error("give a problem file or --stages P");
    if (!a.flags.microbatches) return usage_error("give a problem file or --microbatches M");
    *problem = uniform_problem(1, 1, StageSpec{});
  }
  const Status applied = apply_flags(a.flags, a.problem_file, problem);
  // The file was valid when read, so what fails now is a flag's fault: one
  // line naming it (the usage text is for the grammar's errors).
  if (!applied.is_ok()) return fail(kExitUsage, "pipeline: " + applied.message());
  return -1;
}

std::string percent(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", 100.0 * x);
  return buf;
}

std::string describe_problem(const ScheduleResult& s) {
  const Problem& p = s.problem;
  const Expansion& e = s.expansion;
  std::string text =
      std::to_string(e.devices) + " devices, " + std::to_string(e.microbatches) + " micro-batches";
  if (p.form == Form::kOperators) {
    text += ", " + std::to_string(p.operators.size()) + " operators";
  } else if (p.uniform) {
    const StageSpec& st = p.stages[0];
    text += ", uniform (a device's share: F " + number_text(st.f) + ", B " + number_text(st.b) +
            ", W " + number_text(st.w) + ", F&B " +
            number_text(st.fb < 0 ? st.f + st.b + st.w : st.fb) + ", act " + number_text(st.act);
    if (st.keep > 0) text += ", keep " + number_text(st.keep);
    if (st.param > 0) text += ", param " + number_text(st.param);
    text += ")";
  } else {
    text += ", " + std::to_string(p.stages.size()) + " stages";
  }
  text += ", comm " + number_text(p.comm);
  if (p.mem_cap.empty()) {
    text += ", no memory cap";
  } else {
    text += ", memory cap " + number_text(*std::max_element(p.mem_cap.begin(), p.mem_cap.end()));
  }
  text += "; " + std::string(placement_name(e.placement)) + " placement";
  if (e.form == Form::kStages) {
    text += " of " + std::to_string(e.stages) + " stages" + (e.copies == 2 ? " x 2 copies" : "");
  }
  return text;
}

int64_t max_of(const std::vector<int64_t>& v) {
  return v.empty() ? 0 : *std::max_element(v.begin(), v.end());
}

void print_table(const ScheduleResult& s) {
  const Expansion& e = s.expansion;
  const Metrics& m = s.metrics;
  std::printf("%s on %s\n", s.name.c_str(), describe_problem(s).c_str());
  std::printf("makespan %s\n", time_text(e, m.makespan).c_str());
  // Memory in bytes (a transformer layer's, memory.h) needs wider columns.
  const int mem_width = s.problem.transformer ? 12 : 10;
  std::printf("%6s %10s %12s %12s %*s %*s\n", "device", "busy", "idle global", "idle span",
              mem_width, "peak act", mem_width, "peak param");
  for (int32_t d = 0; d < e.devices; ++d) {
    std::printf("%6d %10s %12s %12s %*s %*s\n", d, time_text(e, m.busy[d]).c_str(),
                time_text(e, m.global_idle[d]).c_str(), time_text(e, m.span_idle[d]).c_str(),
                mem_width, mem_text(e, m.peak_activation[d]).c_str(), mem_width,
                mem_text(e, m.peak_parameter[d]).c_str());
  }
  std::printf("%6s %10s %12s %12s\n", "total", time_text(e, m.total_busy()).c_str(),
              time_text(e, m.global_total()).c_str(), time_text(e, m.span_total()).c_str());
  int64_t spans = 0;
  for (int32_t d = 0; d < e.devices; ++d) spans += m.busy[d] + m.span_idle[d];
  const double global_rate =
      m.makespan > 0 ? static_cast<double>(m.global_total()) / (m.makespan * e.devices) : 0;
  const double span_rate = spans > 0 ? static_cast<double>(m.span_total()) / spans : 0;
  std::printf("bubble rate: global %s, span %s\n", percent(global_rate).c_str(),
              percent(span_rate).c_str());
  if (s.closed) {
    const ClosedForm& c = *s.closed;
    const int64_t simulated = max_of(c.metric == "span" ? m.span_idle : m.global_idle);
    std::printf(
        "closed form: %s = %s (%s idle, largest over devices; assumes %s): %s\n", c.formula.c_str(),
        time_text(e, c.value).c_str(), c.metric.c_str(), c.assumption.c_str(),
        c.holds
            ? (simulated == c.value ? "holds, simulated the same" : "holds, but simulated differs")
            : ("does not hold here; simulated " + time_text(e, simulated)).c_str());
    const int64_t peak = max_of(m.peak_activation);
    std::printf("peak activation: %s = %s (assumes %s): %s\n", c.peak_formula.c_str(),
                mem_text(e, c.peak_value).c_str(), c.peak_assumption.c_str(),
                c.peak_holds ? (peak == c.peak_value ? "holds, simulated the same"
                                                     : "holds, but simulated differs")
                             : ("does not hold here; simulated " + mem_text(e, peak)).c_str());
  }
  if (s.lower_bound) {
    const double mk = e.time_value(m.makespan);
    std::printf("lower bound %s (%s)\n", number_text(*s.lower_bound).c_str(),
                s.optimal && *s.optimal
                    ? "proven optimal"
                    : ("gap " + percent(mk > 0 ? (mk - *s.lower_bound) / mk : 0)).c_str());
  }
  std::printf(
      "check: valid (every operation once, dependencies with delays, one operation at "
      "a time per device, memory within the cap)\n");
}

constexpr int64_t kMaxJsonOps = 250'000;

// Writes the outputs of a checked schedule; an exit code.
int emit(const Args& a, const ScheduleResult& s) {
  if (!s.check.valid) {
    // The name may be the user's (an imported schedule): printed escaped.
    const std::string name = utf8::printable(s.name, 80);
    if (s.check.violation_count == 1) {
      return fail(kExitNoPlan,
                  "pipeline: " + name + " is not a valid schedule: " + s.check.violations[0]);
    }
    std::string message = name + " is not a valid schedule (" +
                          std::to_string(s.check.violation_count) + " violations):";
    for (const std::string& v : s.check.violations) message += "\n  " + v;
    return fail(kExitNoPlan, "pipeline: " + message);
  }
  // The JSON writers build the whole document in memory (about 1.6 KB per
  // operation: 2.4 million operations took 3.9 GB), so their output is
  // capped; the table and the summary have no such limit.
  const int64_t ops = static_cast<int64_t>(s.expansion.ops.size());
  if (ops > kMaxJsonOps && (a.json || !a.out.empty() || !a.trace.empty())) {
    const std::string flag = a.json ? "--json" : !a.out.empty() ? "--out" : "--trace";
    return fail(kExitUsage, "pipeline: " + flag + ": expected a schedule of at most " +
                                std::to_string(kMaxJsonOps) +
                                " operations to write as JSON, found " + std::to_string(ops) +
                                " (drop " + flag + " for the table, or use fewer micro-batches)");
  }
  if (!a.trace.empty()) {
    const Status written = write_file(a.trace, chrome_trace_json(s) + "\n", "trace");
    if (!written.is_ok()) return fail(written);
  }
  if (!a.csv.empty()) {
    Result<std::string> csv = pytorch_csv(s, a.csv_format.value_or(CsvFormat::kComputeOnly));
    if (!csv.is_ok()) return fail(kExitUsage, "pipeline: --csv: " + csv.status().message());
    const Status written = write_file(a.csv, csv.value(), "CSV");
    if (!written.is_ok()) return fail(written);
  }
  if (a.json || !a.out.empty()) {
    const std::string json = schedule_json(s) + "\n";
    if (!a.out.empty()) {
      const Status written = write_file(a.out, json, "schedule");
      if (!written.is_ok()) return fail(written);
      if (!a.json) print_table(s);
    } else {
      std::fwrite(json.data(), 1, json.size(), stdout);
    }
  } else {
    print_table(s);
  }
  return kExitOk;
}

int list_command(const Problem& problem) {
  for (const ScheduleInfo& info : list_schedules(problem)) {
    std::printf(
        "%-28s %s\n", info.name.c_str(),
        info.applicable ? info.summary.c_str() : ("not applicable: " + info.reason).c_str());
  }
  return kExitOk;
}

int compare_command(const Args& a, const Problem& problem) {
  if (a.json) {
    std::printf("%s\n", compare_json(problem).c_str());
    return kExitOk;
  }
  bool header = false;
  for (const ScheduleInfo& info : list_schedules(problem)) {
    Result<ScheduleResult> run =
        info.applicable ? run_schedule(problem, info.name)
                        : Result<ScheduleResult>(Status(StatusCode::kInvalidArgument, info.reason));
    if (!run.is_ok()) {
      std::printf("%-28s not applicable: %s\n", info.name.c_str(), run.status().message().c_str());
      continue;
    }
    const ScheduleResult& s = run.value();
    const Expansion& e = s.expansion;
    const Metrics& m = s.metrics;
    std::string closed = "-";
    if (s.closed) {
      const int64_t simulated = max_of(s.closed->metric == "span" ? m.span_idle : m.global_idle);
      closed = s.closed->formula + " = " + time_text(e, s.closed->value) + " " +
               (s.closed->holds ? (simulated == s.closed->value ? "(holds)" : "(holds, differs)")
                                : "(n/a)");
    }
    // Memory in bytes (a transformer layer's, memory.h) needs wider columns.
    const int act_width = problem.transformer ? 12 : 8, param_width = problem.transformer ? 12 : 9;
    if (!header) {
      std::printf("%-28s %9s %11s %9s %*s %*s  %-40s %s\n", "schedule", "makespan", "idle global",
                  "idle span", act_width, "peak act", param_width, "peak param",
                  "closed form (bubble per device)", "check");
      header = true;
    }
    std::printf("%-28s %9s %11s %9s %*s %*s  %-40s %s\n", s.name.c_str(),
                time_text(e, m.makespan).c_str(), time_text(e, max_of(m.global_idle)).c_str(),
                time_text(e, max_of(m.span_idle)).c_str(), act_width,
                mem_text(e, max_of(m.peak_activation)).c_str(), param_width,
                mem_text(e, max_of(m.peak_parameter)).c_str(), closed.c_str(),
                s.check.valid ? "valid" : ("INVALID: " + s.check.violations[0]).c_str());
  }
  std::printf("(idle and peaks: the largest over devices)\n");
  return kExitOk;
}

// The planner's options from the command line (and the placement flag).
Status planner_options(const Args& a, PlannerOptions* options) {
  for (const auto& [key, value] : a.plan_options) {
    const Status status = set_plan_option(options, key, value);
    if (!status.is_ok()) return status;
  }
  if (!a.flags.placement.empty()) parse_placement(a.flags.placement, &options->placement.kind);
  return Status::ok();
}

int plan_command(const Args& a, const Problem& problem) {
  PlannerOptions options;
  const Status status = planner_options(a, &options);
  if (!status.is_ok()) return usage_error(status.message());
  catch_interrupts();
  const bool quiet = a.json && a.out.empty();
  const ProgressSink sink = [&](const Progress& p) {
    std::FILE* to = quiet ? stderr : stdout;
    if (p.found) {
      const Counters::Entry* source = p.counters.find("best_source");
      std::fprintf(to, "# %.3f s makespan %s bound %s gap %s (%s)\n", p.elapsed_s,
                   number_text(p.incumbent).c_str(), number_text(p.bound).c_str(),
                   percent(p.gap).c_str(), source ? source->text.c_str() : "");
    } else {
      std::fprintf(to, "# %.3f s bound %s, no schedule yet\n", p.elapsed_s,
                   number_text(p.bound).c_str());
    }
    return SinkReply::kContinue;
  };
  PlanResult result = plan(problem, options, options.time_limit_s, sink, interrupt_flag());
  if (!result.status.is_ok()) return fail(result.status, "pipeline: ");
  if (!result.found) {
    return fail(kExitNoPlan,
                std::string("pipeline: ") +
                    (result.infeasible ? "no schedule fits the memory caps (proven)"
                                       : "the planner found no schedule in the time limit") +
                    "; lower bound " + number_text(result.lower_bound));
  }
  ScheduleResult s =
      evaluate_timeline(problem, std::move(result.expansion), std::move(result.best), "planned");
  s.lower_bound = result.lower_bound;
  s.optimal = result.optimal;
  s.planner_counters = result.counters;
  s.seconds = result.seconds;
  return emit(a, s);
}

int emit_lp_command(const Args& a, const Problem& problem) {
  PlannerOptions options;
  const Status status = planner_options(a, &options);
  if (!status.is_ok()) return usage_error(status.message());
  Planner planner(problem, options);
  if (!planner.status().is_ok()) return fail(planner.status(), "pipeline: ");
  const MipModel model = planner.emit_lp();
  const Status written = write_file(a.emit_lp, model.lp, "LP");
  if (!written.is_ok()) return fail(written);
  std::printf("LP written to %s: %lld rows, %lld columns (%lld binaries), horizon %s\n",
              a.emit_lp.c_str(), static_cast<long long>(model.rows),
              static_cast<long long>(model.columns), static_cast<long long>(model.binaries),
              time_text(planner.mip_expansion(), model.horizon).c_str());
  return kExitOk;
}

}  // namespace

int pipeline_command(const std::vector<std::string>& args) {
  for (const std::string& arg : args) {
    if (arg == "--help" || arg == "-h" || arg == "help") {
      std::cout << kPipelineUsage;
      return kExitOk;
    }
    if (arg == "--plan-options") {
      std::cout << plan_options_schema().dump() << "\n";
      return kExitOk;
    }
  }
  Args a;
  const int parsed = parse_args(args, &a);
  if (parsed >= 0) return parsed;
  Problem problem;
  std::string problem_text;
  const int built = build_problem(a, &problem, &problem_text);
  if (built >= 0) return built;
  if (!a.emit_lp.empty()) return emit_lp_command(a, problem);
  if (a.normalize) {
    std::cout << problem_json(problem) << "\n";
    return kExitOk;
  }
  if (a.list) return list_command(problem);
  if (a.compare) return compare_command(a, problem);
  if (a.plan) return plan_command(a, problem);
  if (!a.import_csv.empty() || !a.check.empty()) {
    const std::string& path = a.import_csv.empty() ? a.check : a.import_csv;
    Result<std::string> text = read_file(path, json::kMaxDocumentBytes,
                                         a.import_csv.empty() ? "a schedule JSON" : "a CSV");
    if (!text.is_ok()) return fail(text.status());
    Result<ScheduleResult> read = a.import_csv.empty()
                                      ? read_schedule_json(problem, path, text.value())
                                      : read_pytorch_csv(problem, path, text.value(), a.csv_format);
    if (!read.is_ok()) return fail(read.status());
    return emit(a, read.value());
  }
  const std::string name =
      !a.schedule.empty() ? a.schedule : (problem.form == Form::kStages ? "1F1B" : "list");
  Result<ScheduleResult> run = run_schedule(problem, name);
  if (!run.is_ok()) {
    // Unknown names and inapplicable schedules are the command line's fault.
    if (run.status().code() == StatusCode::kInternal) return fail(run.status(), "pipeline: ");
    return fail(kExitUsage,
                "pipeline: " + schedule_misfit(a, problem_text, name, run.status().message()));
  }
  return emit(a, run.value());
}

}  // namespace shardlab::cli
