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
// "gpt-1.7b", "gpt-3.6b", "gpt-7.5b", "gpt-18.4b", "gpt-39.1b", "gpt-76.1b",
// "gpt-145.6b", "gpt-310.1b", "gpt-529.6b", "gpt-1t"), "gpt3-175b" (V padded
// to 51,200 as Megatron runs it), "llama3-8b", "llama3-70b", "llama3-405b"
// (Llama 3.1's), "mixtral-8x7b". Names match ignoring case.
std::vector<std::string> model_preset_names();
// kInvalidArgument "model preset: expected one of ..., found "x" (did you
// mean "y"?)" on an unknown name.
Result<Transformer> model_preset(std::string_view name);

// A Hugging Face config.json of the decoder families gpt2, llama, mistral,
// qwen2 and mixtral (GQA, SwiGLU, tied embeddings and MoE honoured). Unlike
// every other reader here it ignores keys it does not use (real configs
// carry dozens: torch_dtype, rope_theta, architectures, ...), but the keys
// it uses must have the right type and range.
Result<Transformer> read_hf_config(const std::string& source, std::string_view text);

// Either file form from its text: an HF config (has "model_type") or a
// teaching-lab einsum model (has "ops", read by teach::read_model);
// kInvalidInput naming what was expected otherwise. (Preset names are
// resolved by the caller, before any file is read.)
Result<ModelInput> read_model_input(const std::string& source, std::string_view text);

// Bundled clusters: "dgx-a100-80gb", "dgx-h100-80gb", "h800" (one node of
// 8 GPUs each; set nodes or use --gpus). Names match ignoring case.
std::vector<std::string> cluster_preset_names();
Result<Cluster> cluster_preset(std::string_view name);
// {"name"?, "nodes"?, "gpus_per_node", "gpu": {"name", "peak_tflops",
//  "memory_GB"}, "intra_node": {"bandwidth_GBps", "latency_us"?},
//  "inter_node": {...}, "matmul_efficiency"?, "comm_efficiency"?}, every key
// checked (unknown keys are errors); nodes defaults to 1, name to the file's
// stem, latencies to 2 us inside a node and 5 us across; missing
// efficiencies come from default_efficiency(gpu.name).
Result<Cluster> read_cluster(const std::string& source, std::string_view text);
// --gpus N: at most gpus_per_node is part of one node (nodes 1,
// gpus_per_node N); more must be whole nodes, nodes = N / gpus_per_node
// (kInvalidArgument otherwise).
Status set_gpu_count(Cluster* cluster, int64_t gpus);

// The default efficiencies of a GPU, from one table in cluster.cpp (the
// place to calibrate): by the first known GPU its name contains, ignoring
// case and punctuation (A100, H100, H800, H200), else a general default
// (matmul 0.5, comm 0.7).
struct Efficiency {
  double matmul = 0;  // of the dense 16-bit peak
  double comm = 0;    // of the link bandwidths
};
Efficiency default_efficiency(std::string_view gpu_name);

}  // namespace shardlab::plan
