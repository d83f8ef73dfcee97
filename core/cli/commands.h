// The subcommands of the native `shardlab` command, one file per lab:
// sharding_command.cpp (solve, eval, info, options), pipeline_command.cpp,
// teach_command.cpp and plan_command.cpp. cli.cpp dispatches on the first argument; main.cpp only
// calls run(). The wasm build's parity driver links the same files, so node
// tests can compare the module with `parity_native cli ...`.
#pragma once

#include <atomic>
#include <string>
#include <vector>

#include "core/status.h"

namespace shardlab::cli {

// Exit codes (documented in `shardlab help`), shared by every subcommand.
constexpr int kExitOk = 0;
constexpr int kExitUsage = 1;
constexpr int kExitBadInput = 2;
constexpr int kExitNoPlan = 3;
constexpr int kExitIo = 4;

// Runs the command line argv[1..] (argv[0] is the program); returns the exit code.
int run(int argc, char** argv);

// The whole usage text, printed by `shardlab help` and after usage errors.
const char* usage_text();

// Prints "shardlab: MESSAGE" to stderr and returns code.
int fail(int code, const std::string& message);
// kExitIo for unreadable files, kExitBadInput for everything else.
int exit_code_for(const Status& status);

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
