// The plan lab's readers and presets: a model (a bundled preset's name, a
// Hugging Face config.json, or a teaching-lab einsum model with a repeated
// block), a cluster (a preset's name or a JSON file) and the --fix list.
// Every reader goes through core/json_doc.h, so a bad file gets
// "FILE:LINE:COL (byte B): at PATH: expected X, found Y".
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/plan/model.h"
#include "core/status.h"

namespace shardlab::plan {

// Bundled models: the GPT family of Narayanan et al. (SC'21, Table 1:
// "gpt-1.7b" ... "gpt-1t"), "gpt3-175b", "llama3-8b", "llama3-70b",
// "llama3-405b", "mixtral-8x7b".
std::vector<std::string> model_preset_names();
Result<Transformer> model_preset(std::string_view name);  // "did you mean" on a near miss

// A Hugging Face config.json of the decoder families gpt2, llama, mistral,
// qwen2 and mixtral (GQA, SwiGLU, tied embeddings and MoE honoured).
Result<Transformer> read_hf_config(const std::string& source, std::string_view text);

// Any of the three forms from a file's text: an HF config (has "model_type"),
// or an einsum model (has "ops"); kInvalidInput naming what was expected.
Result<ModelInput> read_model_input(const std::string& source, std::string_view text);

// Bundled clusters: "dgx-a100-80gb", "dgx-h100-80gb", "h800" (one node
// each; set nodes or use --gpus).
std::vector<std::string> cluster_preset_names();
Result<Cluster> cluster_preset(std::string_view name);
// {"nodes", "gpus_per_node", "gpu": {"name", "peak_tflops", "memory_GB"},
//  "intra_node": {"bandwidth_GBps", "latency_us"}, "inter_node": {...},
//  "matmul_efficiency"?, "comm_efficiency"?}; missing efficiencies come
// from the GPU's defaults (by gpu.name), else the documented general ones.
Result<Cluster> read_cluster(const std::string& source, std::string_view text);
// --gpus N: nodes = N / gpus_per_node (kInvalidArgument unless it divides).
Status set_gpu_count(Cluster* cluster, int64_t gpus);

}  // namespace shardlab::plan
