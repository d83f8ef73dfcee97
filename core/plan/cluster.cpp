// The clusters of inputs.h: the bundled presets (one node each; --gpus or
// "nodes" scales them), the default efficiencies by GPU name, the cluster
// file reader (core/json_doc.h, so every mistake is positioned) and --gpus.
#include <array>
#include <cctype>
#include <climits>

#include "core/json_doc.h"
#include "core/plan/inputs.h"
#include "core/plan/suggest.h"

namespace shardlab::plan {
namespace {

// Default achievable fractions of the peaks, by GPU: the ONE table to edit
// when a cluster is calibrated (README, "Calibration": once per cluster,
// never per model). matmul_efficiency multiplies the dense 16-bit peak;
// comm_efficiency multiplies both link bandwidths (NCCL's bus bandwidth
// reaches about 80% of the NVLink and InfiniBand line rates). The A100's
// 0.52 is calibrated once on Narayanan et al.'s Table 1 (SC'21; all ten rows
// at their published t, p, d with full recomputation): the least squares of
// log(predicted / measured) TFLOP/s per GPU under this cost model
// (tests/bench/plan_bench.py --calibrate; 0.51 and 0.53 give mean log errors
// of -0.018 and +0.018). It stands for everything the model leaves out
// (kernels other than GEMMs, launch gaps, non-overlapped optimizer steps),
// not for GEMM efficiency alone. Hopper's 0.65 is a rule of thumb, not
// fitted: Llama 3 405B's two published H100 runs (tests/bench/plan_runs.csv,
// README "Published runs beyond Table 1") check it but did not set it.
// Matched by name: the first key the GPU's name contains, ignoring case and
// punctuation ("NVIDIA A100-SXM4-80GB" is an A100). Any other GPU gets
// kGeneralEfficiency.
struct GpuEfficiency {
  const char* key;
  Efficiency efficiency;
};
constexpr std::array<GpuEfficiency, 4> kGpuEfficiency = {{
    {"a100", {0.52, 0.80}},
    {"h100", {0.65, 0.80}},
    {"h800", {0.65, 0.80}},
    {"h200", {0.65, 0.80}},
}};
constexpr Efficiency kGeneralEfficiency = {0.50, 0.70};

// Per-message latencies (alpha) when a file states none, and for the
// presets: a few microseconds per step over NVLink/NVSwitch and more across
// the network, the order of NCCL's own tuning model; they matter for small
// messages only (pipeline p2p of small micro-batches, TP at tiny shapes).
constexpr double kIntraLatencyUs = 2.0;
constexpr double kInterLatencyUs = 5.0;

std::string alnum_lower(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
  }
  return out;
}

Cluster node_of(const char* name, const char* gpu, double tflops, double intra_GBps,
                double inter_GBps) {
  Cluster c;
  c.name = name;
  c.nodes = 1;
  c.gpus_per_node = 8;
  c.gpu_name = gpu;
  c.peak_tflops = tflops;
  c.memory_GB = 80;
  c.intra_node = {intra_GBps, kIntraLatencyUs};
  c.inter_node = {inter_GBps, kInterLatencyUs};
  const Efficiency e = default_efficiency(gpu);
  c.matmul_efficiency = e.matmul;
  c.comm_efficiency = e.comm;
  return c;
}

// Bandwidths are per GPU and per direction (1e9 bytes/s).
std::vector<Cluster> all_presets() {
  return {
      // DGX A100 80GB, as on Selene (Narayanan et al., SC'21, Section 5):
      // 312 TFLOP/s dense bf16; NVLink 3 through NVSwitch, 12 links of 50 GB/s
      // both ways = 600 GB/s, 300 per direction; 8 x 200 Gb/s HDR InfiniBand
      // per node, one per GPU: 25 GB/s per direction.
      node_of("dgx-a100-80gb", "A100-80GB", 312, 300, 25),
      // DGX H100: 989 TFLOP/s dense bf16 (1,979 with sparsity); NVLink 4,
      // 18 links, 900 GB/s both ways = 450 per direction; NVIDIA's DGX
      // BasePOD guide: four OSFP ports serving eight single-port ConnectX-7,
      // 400 Gb/s InfiniBand each, one per GPU: 50 GB/s.
      node_of("dgx-h100-80gb", "H100-80GB", 989, 450, 50),
      // H800 SXM: the H100's compute and 80 GB, NVLink cut to 400 GB/s both
      // ways (200 per direction); DeepSeek's DeepEP README measures "~160 GB/s
      // NVLink maximum bandwidth" on it, and gives each GPU "a CX7 InfiniBand
      // 400 Gb/s RDMA network card (~50 GB/s maximum bandwidth)".
      node_of("h800", "H800", 989, 200, 50),
  };
}

}  // namespace

Efficiency default_efficiency(std::string_view gpu_name) {
  const std::string name = alnum_lower(gpu_name);
  for (const GpuEfficiency& row : kGpuEfficiency) {
    if (name.find(row.key) != std::string::npos) return row.efficiency;
  }
  return kGeneralEfficiency;
}

std::vector<std::string> cluster_preset_names() {
  std::vector<std::string> names;
  for (const Cluster& c : all_presets()) names.push_back(c.name);
  return names;
}

Result<Cluster> cluster_preset(std::string_view name) {
  for (Cluster& c : all_presets()) {
    if (detail::lower(name) == c.name) return std::move(c);
  }
  return Status(StatusCode::kInvalidArgument,
                "cluster preset: " + detail::expected_one_of(cluster_preset_names(), name));
}

namespace {

LinkSpec read_link(const json::JsonAt& at, double default_latency_us, json::Errors* errors) {
  LinkSpec link;
  errors->add(at.only_keys({"bandwidth_GBps", "latency_us"}));
  if (!errors->ok()) return link;
  link.bandwidth_GBps = errors->take(at["bandwidth_GBps"].number(0.001, 1e6));
  link.latency_us = errors->take(at.number_or("latency_us", default_latency_us, 0, 1e6));
  return link;
}

std::string file_stem(const std::string& source) {
  const size_t slash = source.find_last_of("/\\");
  std::string name = slash == std::string::npos ? source : source.substr(slash + 1);
  const size_t dot = name.rfind('.');
  if (dot != std::string::npos && dot > 0) name.resize(dot);
  return name;
}

}  // namespace

// Strict: a cluster file is ours, so an unknown key is a mistake (named with
// the closest allowed key). "nodes" defaults to 1 and the latencies to the
// presets' values; the efficiencies default to the GPU's (default_efficiency).
Result<Cluster> read_cluster(const std::string& source, std::string_view text) {
  Result<json::Document> doc = json::Document::parse(source, text);
  if (!doc.is_ok()) return doc.status();
  const json::JsonAt root = doc.value().root();
  json::Errors errors;
  errors.add(root.only_keys({"name", "nodes", "gpus_per_node", "gpu", "intra_node", "inter_node",
                             "matmul_efficiency", "comm_efficiency"}));
  if (!errors.ok()) return errors.status();

  Cluster c;
  c.name = errors.take(root.string_or("name", file_stem(source)));
  c.nodes = static_cast<int32_t>(errors.take(root.integer_or("nodes", 1, 1, 1000000)));
  c.gpus_per_node = static_cast<int32_t>(errors.take(root["gpus_per_node"].integer(1, 1024)));
  const json::JsonAt gpu = root["gpu"];
  errors.add(gpu.only_keys({"name", "peak_tflops", "memory_GB"}));
  if (!errors.ok()) return errors.status();
  c.gpu_name = errors.take(gpu["name"].string());
  c.peak_tflops = errors.take(gpu["peak_tflops"].number(0.001, 1e6));
  c.memory_GB = errors.take(gpu["memory_GB"].number(0.001, 1e6));
  c.intra_node = read_link(root["intra_node"], kIntraLatencyUs, &errors);
  c.inter_node = read_link(root["inter_node"], kInterLatencyUs, &errors);
  const Efficiency defaults = default_efficiency(c.gpu_name);
  c.matmul_efficiency = errors.take(root.number_or("matmul_efficiency", defaults.matmul, 0.01, 1));
  c.comm_efficiency = errors.take(root.number_or("comm_efficiency", defaults.comm, 0.01, 1));
  if (!errors.ok()) return errors.status();
  return c;
}

// Up to one node's worth is a part of one node (4 GPUs of a DGX: nodes 1,
// gpus_per_node 4); beyond it, whole nodes only.
Status set_gpu_count(Cluster* cluster, int64_t gpus) {
  const int64_t per_node = cluster->gpus_per_node;
  if (gpus >= 1 && gpus <= per_node) {
    cluster->nodes = 1;
    cluster->gpus_per_node = static_cast<int32_t>(gpus);
    return Status::ok();
  }
  if (gpus > per_node && gpus % per_node == 0 && gpus / per_node <= INT32_MAX) {
    cluster->nodes = static_cast<int32_t>(gpus / per_node);
    return Status::ok();
  }
  const std::string n = std::to_string(per_node);
  return Status(StatusCode::kInvalidArgument,
                "--gpus: expected at most " + n + " (part of one node of " + cluster->name +
                    ") or a multiple of " + n + " (whole nodes), found " + std::to_string(gpus));
}

}  // namespace shardlab::plan
