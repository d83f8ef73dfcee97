// ShardLab's version, recorded in every result JSON and shown by the CLI.
#pragma once

namespace shardlab {
constexpr const char* kVersion = "0.1.0";
constexpr int kResultFormatVersion = 1;
}  // namespace shardlab
