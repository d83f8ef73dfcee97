// The dispatch of `shardlab COMMAND ...` to the labs' subcommands, the usage
// text, and what every subcommand shares: error lines and exit codes, and
// the interrupt flag that Ctrl-C sets.
#include <csignal>
#include <iostream>
#include <string>
#include <vector>

#include "core/cli/commands.h"
#include "core/version.h"

namespace shardlab::cli {
namespace {

std::atomic<bool> g_interrupted{false};

void on_signal(int) { g_interrupted = true; }

const char* kUsage =
    "usage:\n"
    "  shardlab solve INSTANCE [--time-limit S] [--seed N] [--workers N] [--out RESULT.json]\n"
    "  shardlab eval INSTANCE SOLUTION\n"
    "  shardlab info INSTANCE\n"
    "  shardlab options       (the option table as JSON)\n"
    "  shardlab pipeline ...  (pipeline schedules and the planner; shardlab pipeline --help)\n"
    "  shardlab teach MODEL.json ...  (a model on a device mesh as a sharding instance;\n"
    "                                  shardlab teach --help)\n"
    "  shardlab plan MODEL --global-batch B ...  (the training plan of a model on a\n"
    "                                  cluster; shardlab plan --help)\n"
    "  shardlab version\n"
    "\n"
    "INSTANCE is a contest .json file or gzip of one (.json.gz). SOLUTION is a\n"
    "result JSON or a text file whose last non-empty line is a list [i, j, ...].\n"
    "solve prints progress lines starting with '#' and, last, the plan as a list\n"
    "(\"[]\" if none was found). Ctrl-C stops early and still prints the best plan.\n"
    "\n"
    "Options are written --key value or --key=value; -- ends the options.\n"
    "\n"
    "exit codes: 0 ok; 1 bad command line; 2 malformed instance or solution;\n"
    "3 no feasible plan (solve) or an infeasible plan (eval); 4 file not readable or writable;\n"
    "5 internal error (a check of the tool's own result failed: a bug, please report it)\n";

}  // namespace

const char* usage_text() { return kUsage; }

int fail(int code, const std::string& message) {
  std::cerr << "shardlab: " << message << "\n";
  return code;
}

int exit_code_for(const Status& status) {
  switch (status.code()) {
    case StatusCode::kIoError:
      return kExitIo;
    case StatusCode::kInternal:
      return kExitInternal;
    case StatusCode::kInvalidArgument:
      return kExitUsage;
    default:
      return kExitBadInput;
  }
}

int fail(const Status& status, const std::string& prefix) {
  return fail(exit_code_for(status), prefix + status.message());
}

void catch_interrupts() {
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
}

const std::atomic<bool>* interrupt_flag() { return &g_interrupted; }

int run(int argc, char** argv) {
  if (argc < 2) return fail(kExitUsage, std::string("missing command\n") + kUsage);
  const std::string command = argv[1];
  std::vector<std::string> args(argv + 2, argv + argc);
  if (command == "pipeline") return pipeline_command(args);
  if (command == "teach") return teach_command(args);
  if (command == "plan") return plan_command(args);
  if (command == "version" || command == "--version") {
    std::cout << "shardlab " << kVersion << "\n";
    return kExitOk;
  }
  if (command == "help" || command == "--help" || command == "-h") {
    std::cout << kUsage;
    return kExitOk;
  }
  const int code = sharding_command(command, args);
  if (code >= 0) return code;
  return fail(kExitUsage, "unknown command '" + command + "'\n" + kUsage);
}

}  // namespace shardlab::cli
