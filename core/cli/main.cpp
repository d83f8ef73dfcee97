// The native `shardlab` command. Everything but the process set-up lives in
// cli.cpp and the per-lab *_command.cpp files (see commands.h).
#include <malloc.h>

#include "core/cli/commands.h"

int main(int argc, char** argv) {
  // glibc raises its mmap threshold after the first large free, after which
  // the reader's freed blocks stay in the heap; a fixed threshold returns
  // them to the OS and keeps the peak RSS near the model's size.
  mallopt(M_MMAP_THRESHOLD, 128 * 1024);
  return shardlab::cli::run(argc, argv);
}
