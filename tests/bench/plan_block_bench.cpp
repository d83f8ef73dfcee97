// Solve times of the plan lab's blocks (core/plan/block.h): every layer,
// embedding and head of the GPT family of Narayanan et al. (SC'21, Table 1:
// 1.7B to 1T, s 2048, V 51,200) at the tensor-parallel sizes a plan search
// asks about, then Llama 3 70B and Mixtral 8x7B with expert parallelism.
// Each solve runs piece by piece (BlockCache::advance, as the page's
// stepped search runs it), with its pieces and the longest one timed.
// Prints a table (never fails on time); tests/bench/teach_bench.sh builds
// and runs it. Clusters and models are written here, as the presets are
// the plan-inputs part's.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>

#include "core/plan/block.h"

using namespace shardlab;
using namespace shardlab::plan;

namespace {

Cluster dgx_a100() {
  Cluster c;
  c.name = "dgx-a100-like";
  c.nodes = 16;
  c.gpus_per_node = 8;
  c.peak_tflops = 312;
  c.memory_GB = 80;
  c.intra_node = {300, 3};
  c.inter_node = {25, 5};
  c.matmul_efficiency = 0.5;
  c.comm_efficiency = 0.8;
  return c;
}

Transformer gpt(const char* name, int32_t heads, int64_t hidden, int32_t layers) {
  Transformer t;
  t.name = name;
  t.family = "gpt";
  t.layers = layers;
  t.hidden = hidden;
  t.heads = heads;
  t.kv_heads = heads;
  t.head_dim = hidden / heads;
  t.ffn_hidden = 4 * hidden;
  t.vocab = 51200;
  t.max_positions = 2048;
  return t;
}

void run(const Transformer& t, int32_t tp, int32_t ep, int64_t b, int64_t seq, double* total,
         int32_t* blocks, double* longest_piece_ms) {
  ModelInput in;
  in.transformer = t;
  BlockCache cache(in, dgx_a100(), Training{});
  for (BlockPart part : {BlockPart::kLayer, BlockPart::kEmbedding, BlockPart::kHead}) {
    BlockQuery q;
    q.part = part;
    q.tp = tp;
    q.ep = ep;
    q.microbatch = b;
    q.seq = seq;
    // Piece by piece, as the page's stepped search runs it (block.h advance):
    // the longest piece is what one step of that search may hold.
    using Clock = std::chrono::steady_clock;
    const auto started = Clock::now();
    int32_t pieces = 0;
    double longest_ms = 0;
    for (bool done = false; !done; ++pieces) {
      const auto piece = Clock::now();
      done = cache.advance(q);
      longest_ms = std::max(
          longest_ms, std::chrono::duration<double, std::milli>(Clock::now() - piece).count());
    }
    const Result<const BlockCost*> got = cache.get(q);
    const double s = std::chrono::duration<double>(Clock::now() - started).count();
    *longest_piece_ms = std::max(*longest_piece_ms, longest_ms);
    *total += s;
    ++*blocks;
    const char* names[] = {"layer", "embedding", "head"};
    if (!got.is_ok()) {
      std::printf("| %s | %s | %d | %d | %lld | error: %s |\n", t.name.c_str(),
                  names[static_cast<int>(part)], tp, ep, static_cast<long long>(b),
                  got.status().message().c_str());
      continue;
    }
    const BlockCost& c = *got.value();
    std::printf(
        "| %s | %s | %d | %d | %lld | %.4f | %d | %.1f | %s | %.3f | %.3f | %.3f | %s | %s |\n",
        t.name.c_str(), names[static_cast<int>(part)], tp, ep, static_cast<long long>(b), s, pieces,
        longest_ms, c.proven_optimal ? "yes" : "no", c.forward_s() * 1e3, c.backward_s() * 1e3,
        c.weight_s() * 1e3, c.sequence_parallel ? "yes" : "no", c.layout.c_str());
  }
}

}  // namespace

int main() {
  std::printf(
      "| model | block | tp | ep | b | solve s | pieces | longest piece ms | proven | F ms | B ms "
      "| "
      "W ms | SP | layout |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  const Transformer family[] = {gpt("gpt-1.7b", 24, 2304, 24),    gpt("gpt-3.6b", 32, 3072, 30),
                                gpt("gpt-7.5b", 32, 4096, 36),    gpt("gpt-18b", 48, 6144, 40),
                                gpt("gpt-39b", 64, 8192, 48),     gpt("gpt-76b", 80, 10240, 60),
                                gpt("gpt-145b", 96, 12288, 80),   gpt("gpt-310b", 128, 16384, 96),
                                gpt("gpt-530b", 128, 20480, 105), gpt("gpt-1t", 160, 25600, 128)};
  double total = 0, longest = 0;
  int32_t blocks = 0;
  for (const Transformer& t : family) {
    for (int32_t tp : {1, 2, 4, 8}) run(t, tp, 1, 1, 2048, &total, &blocks, &longest);
  }
  run(family[9], 16, 1, 1, 2048, &total, &blocks, &longest);
  Transformer llama;
  llama.name = "llama3-70b";
  llama.layers = 80;
  llama.hidden = 8192;
  llama.heads = 64;
  llama.kv_heads = 8;
  llama.head_dim = 128;
  llama.ffn_hidden = 28672;
  llama.ffn = Ffn::kSwiGlu;
  llama.norm = Norm::kRmsNorm;
  llama.linear_biases = false;
  llama.vocab = 128256;
  for (int32_t tp : {4, 8}) run(llama, tp, 1, 1, 8192, &total, &blocks, &longest);
  Transformer mixtral = llama;
  mixtral.name = "mixtral-8x7b";
  mixtral.layers = 32;
  mixtral.hidden = 4096;
  mixtral.heads = 32;
  mixtral.ffn_hidden = 14336;
  mixtral.vocab = 32000;
  mixtral.experts = 8;
  mixtral.experts_per_token = 2;
  for (int32_t ep : {2, 4, 8}) run(mixtral, 2, ep, 1, 4096, &total, &blocks, &longest);
  run(mixtral, 8, 8, 1, 4096, &total, &blocks, &longest);
  std::printf("\n%d blocks in %.3f s (%.4f s each on average); the longest piece %.1f ms\n", blocks,
              total, total / blocks, longest);
  return 0;
}
