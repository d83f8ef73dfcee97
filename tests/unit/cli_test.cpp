// The command line's shared parts (core/cli/commands.h): the one argument
// grammar every subcommand uses, the file reader's system reasons and caps,
// and the exit codes of failed statuses. Native only (the wasm module has no
// command line); in the sanitizer preset these run under ASan and UBSan.
#ifndef __EMSCRIPTEN__
#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "core/cli/commands.h"

namespace shardlab::cli {
namespace {

struct Parsed {
  Status status;
  bool json = false;
  std::optional<std::string> out;
  std::vector<std::string> forces, words;
  std::vector<std::pair<std::string, std::string>> others;
};

Parsed parse(const std::vector<std::string>& args, bool with_others) {
  Parsed p;
  ArgParser parser;
  parser.flag("json", &p.json);
  parser.option("out", &p.out);
  parser.repeated("force", &p.forces);
  if (with_others) parser.others(&p.others);
  p.status = parser.parse(args, &p.words);
  return p;
}

TEST_CASE("cli: --key=value and --key value mean the same; flags, repeats, positionals") {
  const Parsed a = parse({"model.json", "--out", "x.json", "--json", "--force", "h=b:x"}, false);
  const Parsed b = parse({"--out=x.json", "model.json", "--force=h=b:x", "--json"}, false);
  for (const Parsed* p : {&a, &b}) {
    REQUIRE(p->status.is_ok());
    CHECK(p->json);
    CHECK(p->out == std::optional<std::string>("x.json"));
    CHECK(p->forces == std::vector<std::string>{"h=b:x"});
    CHECK(p->words == std::vector<std::string>{"model.json"});
  }
  const Parsed c = parse({"--time-limit=5", "a", "--seed", "-3", "--", "--json"}, true);
  REQUIRE(c.status.is_ok());
  CHECK(c.others ==
        std::vector<std::pair<std::string, std::string>>{{"time-limit", "5"}, {"seed", "-3"}});
  CHECK(c.words == std::vector<std::string>{"a", "--json"});  // after --, words only
  CHECK_FALSE(c.json);
  CHECK(parse({"--force", "a=b", "--force=c=d"}, false).forces ==
        std::vector<std::string>{"a=b", "c=d"});
  CHECK_FALSE(parse({}, false).out.has_value());
}

TEST_CASE("cli: the argument errors name the option") {
  CHECK(parse({"--out"}, false).status.message() == "--out needs a value");
  CHECK(parse({"--out", "--json"}, false).status.message() == "--out needs a value (found --json)");
  CHECK(parse({"--json=yes"}, false).status.message() ==
        "--json takes no value (found --json=yes)");
  CHECK(parse({"--out", "a", "--out=b"}, false).status.message() == "--out is given twice");
  CHECK(parse({"--jsn"}, false).status.message() == "unknown option --jsn (did you mean --json?)");
  CHECK(parse({"--speed", "3"}, false).status.message() == "unknown option --speed");
  CHECK(parse({"--jsn"}, false).status.code() == StatusCode::kInvalidArgument);
  CHECK(parse({"--speed"}, true).status.message() == "--speed needs a value");
  CHECK(parse({"--out=--json"}, false).out == std::optional<std::string>("--json"));
}

TEST_CASE("cli: the file reader gives the system's reason and caps every kind of file") {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("shardlab_cli_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string file = (dir / "ten.json").string();
  std::ofstream(file) << "0123456789";
  CHECK(read_file(file, 10, "a test file").value() == "0123456789");
  const Result<std::string> big = read_file(file, 9, "a test file");
  CHECK(big.status().code() == StatusCode::kInvalidInput);
  CHECK(big.status().message() ==
        file + ": expected a test file of at most 9 bytes, found 10 bytes");
  const Result<std::string> folder = read_file(dir.string(), 10, "a test file");
  CHECK(folder.status().code() == StatusCode::kIoError);
  CHECK(folder.status().message() == dir.string() + ": cannot read the file (Is a directory)");
  const Result<std::string> missing = read_file((dir / "no.json").string(), 10, "a test file");
  CHECK(missing.status().message() ==
        (dir / "no.json").string() + ": cannot open the file (No such file or directory)");
  const Result<std::string> zero = read_file("/dev/zero", int64_t{1} << 20, "a test file");
  CHECK(zero.status().code() == StatusCode::kInvalidInput);
  CHECK(zero.status().message() ==
        "/dev/zero: expected a test file of at most 1048576 bytes (1 MiB), found more than 1048576 "
        "bytes (it is not a regular file: a device or a pipe?)");
  CHECK(write_file(dir.string(), "x", "result").message() ==
        dir.string() + ": cannot write the result (Is a directory)");
  CHECK(write_file((dir / "out.txt").string(), "hello", "result").is_ok());
  CHECK(read_file((dir / "out.txt").string(), 10, "a test file").value() == "hello");
  std::filesystem::remove_all(dir);
}

TEST_CASE("cli: exit codes of failed statuses") {
  CHECK(exit_code_for(Status(StatusCode::kIoError, "")) == kExitIo);
  CHECK(exit_code_for(Status(StatusCode::kInvalidInput, "")) == kExitBadInput);
  CHECK(exit_code_for(Status(StatusCode::kInvalidArgument, "")) == kExitUsage);
  CHECK(exit_code_for(Status(StatusCode::kInternal, "")) == kExitInternal);
  CHECK(kExitInternal == 5);
}

}  // namespace
}  // namespace shardlab::cli
#endif
