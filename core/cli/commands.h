// The subcommands of the native `shardlab` command, one file per lab:
// sharding_command.cpp (solve, eval, info, options), pipeline_command.cpp,
// teach_command.cpp and plan_command.cpp. cli.cpp dispatches on the first
// argument; main.cpp only calls run(). What every subcommand shares is
// declared here: exit codes, the argument grammar (args.cpp) and the file
// reader (files.cpp). The wasm build's parity driver links the same files, so
// node tests can compare the module with `parity_native cli ...`.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/status.h"

namespace shardlab::cli {

// Exit codes (documented in `shardlab help`), shared by every subcommand.
constexpr int kExitOk = 0;
constexpr int kExitUsage = 1;
constexpr int kExitBadInput = 2;
constexpr int kExitNoPlan = 3;
constexpr int kExitIo = 4;
constexpr int kExitInternal =
    5;  // a checker found an inconsistency: a bug, never the input's fault

// Runs the command line argv[1..] (argv[0] is the program); returns the exit code.
int run(int argc, char** argv);

// The whole usage text, printed by `shardlab help` and after usage errors.
const char* usage_text();

// Prints "shardlab: MESSAGE" to stderr and returns code.
int fail(int code, const std::string& message);
// The exit code of a failed Status: kIoError -> kExitIo, kInternal ->
// kExitInternal, kInvalidArgument -> kExitUsage, anything else kExitBadInput.
int exit_code_for(const Status& status);
// fail(exit_code_for(status), prefix + status.message()).
int fail(const Status& status, const std::string& prefix = "");

// ---- The argument grammar, one for every subcommand --------------------
// `--key=value` and `--key value` mean the same everywhere; a flag takes no
// value (`--json`); `--` ends the options; every other word is positional.
// A value never starts with "--" unless written `--key=--value`.
//
//   ArgParser args;
//   bool as_json = false;
//   std::optional<std::string> out;                         // unset unless given
//   std::vector<std::string> forces;
//   std::vector<std::pair<std::string, std::string>> extra;  // checked by the caller
//   args.flag("json", &as_json);
//   args.option("out", &out);
//   args.repeated("force", &forces);
//   args.others(&extra);             // without this, an unknown option is an error
//   std::vector<std::string> words;
//   Status s = args.parse(argv_after_the_command, &words);   // kInvalidArgument
//
// Errors name the option: "--out needs a value", "--json takes no value
// (found --json=yes)", "--out is given twice", "unknown option --jsn (did
// you mean --json?)".
class ArgParser {
 public:
  void flag(const std::string& name, bool* out);
  void option(const std::string& name, std::optional<std::string>* out);
  void repeated(const std::string& name, std::vector<std::string>* out);
  // Options not declared, each with a value, in order (the solver's and the
  // planner's option tables check them); names without the leading "--".
  void others(std::vector<std::pair<std::string, std::string>>* out);
  Status parse(const std::vector<std::string>& args, std::vector<std::string>* positional) const;

 private:
  struct Spec {
    std::string name;
    bool* flag = nullptr;
    std::optional<std::string>* value = nullptr;
    std::vector<std::string>* values = nullptr;
  };
  std::vector<Spec> specs_;
  std::vector<std::pair<std::string, std::string>>* others_ = nullptr;
};

// ---- Files ---------------------------------------------------------------
// Reads a whole file of at most max_bytes. Errors, one line each: the
// system's reason (kIoError: "FILE: cannot open the file (No such file or
// directory)", "FILE: cannot read the file (Is a directory)"), or the cap
// (kInvalidInput: "FILE: expected WHAT of at most 16777216 bytes (16 MiB),
// found 70000000 bytes"; a device or a pipe is read up to the cap, so a link
// to /dev/zero ends there).
Result<std::string> read_file(const std::string& path, int64_t max_bytes, const std::string& what);
// Writes a whole file; kIoError with the system's reason when it cannot.
Status write_file(const std::string& path, const std::string& text, const std::string& what);

// Ctrl-C and SIGTERM set the flag instead of killing the process, so a
// long run still prints its best answer.
void catch_interrupts();
const std::atomic<bool>* interrupt_flag();

// Each returns an exit code; sharding_command returns -1 for a command it
// does not know. args excludes the command word.
int sharding_command(const std::string& command, const std::vector<std::string>& args);
int pipeline_command(const std::vector<std::string>& args);  // `shardlab pipeline ...`
int teach_command(const std::vector<std::string>& args);     // `shardlab teach ...`
int plan_command(const std::vector<std::string>& args);      // `shardlab plan ...`

}  // namespace shardlab::cli
