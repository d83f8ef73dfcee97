// `shardlab teach`: a placeholder until the teach lab's command lands.
#include "core/cli/commands.h"

namespace shardlab::cli {

int teach_command(const std::vector<std::string>& args) {
  return fail(kExitUsage, "teach: this command is not built yet");
}

}  // namespace shardlab::cli
