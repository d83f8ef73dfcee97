// `shardlab pipeline`: a placeholder until the pipeline lab's command lands.
#include "core/cli/commands.h"

namespace shardlab::cli {

int pipeline_command(const std::vector<std::string>& args) {
  return fail(kExitUsage, "pipeline: this command is not built yet");
}

}  // namespace shardlab::cli
