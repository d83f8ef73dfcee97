// The plan lab's clusters: the presets' figures, the default efficiencies by
// GPU name, the cluster files in examples/plan/clusters/, the exact message
// of every kind of bad cluster file, and --gpus.
#include <doctest/doctest.h>

#include <string>

#include "core/plan/inputs.h"
#include "helpers.h"

namespace shardlab::plan {
namespace {

Cluster preset(const std::string& name) {
  Result<Cluster> c = cluster_preset(name);
  REQUIRE_MESSAGE(c.is_ok(), c.status().message());
  return c.value();
}

Cluster sample(const std::string& file) {
  const std::string text = test::read_bytes(test::source_path("examples/plan/clusters/" + file));
  Result<Cluster> c = read_cluster(file, text);
  REQUIRE_MESSAGE(c.is_ok(), c.status().message());
  return c.value();
}

std::string error_of(const std::string& text) {
  const Result<Cluster> c = read_cluster("cluster.json", text);
  REQUIRE_FALSE(c.is_ok());
  CHECK(c.status().code() == StatusCode::kInvalidInput);
  return c.status().message();
}

TEST_CASE("plan cluster: the presets") {
  CHECK(cluster_preset_names() ==
        std::vector<std::string>{"dgx-a100-80gb", "dgx-h100-80gb", "h800"});
  const Cluster a100 = preset("dgx-a100-80gb");
  CHECK(a100.nodes == 1);
  CHECK(a100.gpus_per_node == 8);
  CHECK(a100.gpus() == 8);
  CHECK(a100.gpu_name == "A100-80GB");
  CHECK(a100.peak_tflops == 312);
  CHECK(a100.memory_GB == 80);
  CHECK(a100.intra_node.bandwidth_GBps == 300);
  CHECK(a100.inter_node.bandwidth_GBps == 25);  // 200 Gb/s per GPU
  CHECK(a100.intra_node.latency_us == 2);
  CHECK(a100.inter_node.latency_us == 5);
  CHECK(a100.matmul_efficiency == 0.70);
  CHECK(a100.comm_efficiency == 0.80);

  const Cluster h100 = preset("DGX-H100-80GB");
  CHECK(h100.peak_tflops == 989);
  CHECK(h100.intra_node.bandwidth_GBps == 450);
  CHECK(h100.inter_node.bandwidth_GBps == 50);  // 400 Gb/s per GPU

  const Cluster h800 = preset("h800");
  CHECK(h800.peak_tflops == h100.peak_tflops);
  CHECK(h800.intra_node.bandwidth_GBps == 200);
  CHECK(h800.inter_node.bandwidth_GBps == 50);
  CHECK(h800.gpu_name == "H800");

  const Result<Cluster> miss = cluster_preset("dgx-h100-80g");
  REQUIRE_FALSE(miss.is_ok());
  CHECK(miss.status().code() == StatusCode::kInvalidArgument);
  CHECK(miss.status().message() ==
        "cluster preset: expected one of dgx-a100-80gb, dgx-h100-80gb, h800, found "
        "\"dgx-h100-80g\" (did you mean \"dgx-h100-80gb\"?)");
}

TEST_CASE("plan cluster: default efficiencies by GPU name, and the general default") {
  CHECK(default_efficiency("A100-80GB").matmul == 0.70);
  CHECK(default_efficiency("NVIDIA A100-SXM4-40GB").matmul == 0.70);
  CHECK(default_efficiency("h100 80gb hbm3").matmul == 0.65);
  CHECK(default_efficiency("H800").comm == 0.80);
  CHECK(default_efficiency("H200-141GB").matmul == 0.65);
  CHECK(default_efficiency("MI300X").matmul == 0.50);
  CHECK(default_efficiency("MI300X").comm == 0.70);
  CHECK(default_efficiency("").matmul == 0.50);
}

TEST_CASE("plan cluster: the sample files") {
  const Cluster course = sample("dgx-a100-80gb-8-nodes.json");
  CHECK(course.name == "dgx-a100-80gb x 8");
  CHECK(course.gpus() == 64);
  CHECK(course.matmul_efficiency == 0.7);
  const Cluster h100 = sample("dgx-h100-80gb.json");
  CHECK(h100.name == "dgx-h100-80gb");     // the file's stem
  CHECK(h100.intra_node.latency_us == 2);  // defaults
  CHECK(h100.inter_node.latency_us == 5);
  CHECK(h100.matmul_efficiency == 0.65);  // the H100's
  const Cluster h800 = sample("h800-2048.json");
  CHECK(h800.gpus() == 2048);
  CHECK(h800.intra_node.bandwidth_GBps == 200);
}

const char* kCluster = R"({
  "nodes": 2,
  "gpus_per_node": 8,
  "gpu": {"name": "A100-80GB", "peak_tflops": 312, "memory_GB": 80},
  "intra_node": {"bandwidth_GBps": 300, "latency_us": 2},
  "inter_node": {"bandwidth_GBps": 25, "latency_us": 5}
})";

std::string edited(const std::string& from, const std::string& to) {
  std::string text = kCluster;
  const size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

TEST_CASE("plan cluster: exact messages for bad cluster files") {
  const Result<Cluster> good = read_cluster("cluster.json", kCluster);
  REQUIRE_MESSAGE(good.is_ok(), good.status().message());
  CHECK(good.value().gpus() == 16);
  CHECK(good.value().name == "cluster");
  CHECK(good.value().comm_efficiency == 0.80);

  CHECK(error_of(edited("\"gpus_per_node\"", "\"gpus_per_nod\"")) ==
        "cluster.json:3:3 (byte 18): expected one of the keys name, nodes, gpus_per_node, gpu, "
        "intra_node, inter_node, matmul_efficiency, comm_efficiency, found the key "
        "\"gpus_per_nod\" (did you mean \"gpus_per_node\"?)");
  CHECK(error_of(edited("\"peak_tflops\": 312, ", "")) ==
        "cluster.json:4:47 (byte 84): at gpu: expected the key \"peak_tflops\", found '}'");
  CHECK(error_of(edited("\"memory_GB\": 80", "\"memory_GB\": \"80\"")) ==
        "cluster.json:4:65 (byte 102): at gpu.memory_GB: expected a number, found the string "
        "\"80\"");
  CHECK(error_of(edited("\"nodes\": 2", "\"nodes\": 0")) ==
        "cluster.json:2:12 (byte 13): at nodes: expected an integer from 1 to 1000000, found the "
        "number 0");
  CHECK(error_of(edited("\"latency_us\": 5", "\"latency_us\": -5")) ==
        "cluster.json:6:54 (byte 218): at inter_node.latency_us: expected a number from 0 to "
        "1000000, found the number -5");
  CHECK(error_of(edited("\"bandwidth_GBps\": 300, ", "\"bandwith_GBps\": 300, ")) ==
        "cluster.json:5:18 (byte 124): at intra_node: expected one of the keys bandwidth_GBps, "
        "latency_us, found the key \"bandwith_GBps\" (did you mean \"bandwidth_GBps\"?)");
  CHECK(error_of(edited("\"nodes\": 2", "\"nodes\": 2, \"matmul_efficiency\": 1.5")) ==
        "cluster.json:2:36 (byte 37): at matmul_efficiency: expected a number from 0.01 to 1, "
        "found the number 1.5");
  CHECK(error_of(edited("\"memory_GB\": 80}", "\"memory_GB\": 80}]").replace(47, 0, "[")) ==
        "cluster.json:4:10 (byte 47): at gpu: expected an object, found an array of 1 item");
  CHECK(error_of(edited(",\n  \"inter_node\": {\"bandwidth_GBps\": 25, \"latency_us\": 5}", "")) ==
        "cluster.json:6:1 (byte 164): expected the key \"inter_node\", found '}'");
  CHECK(error_of("{\"gpus_per_node\": 8,}") ==
        "cluster.json:1:21 (byte 20): expected a key string, found '}'");
}

TEST_CASE("plan cluster: --gpus sets whole nodes, or part of one node") {
  Cluster c = preset("dgx-a100-80gb");
  REQUIRE(set_gpu_count(&c, 64).is_ok());
  CHECK(c.nodes == 8);
  CHECK(c.gpus_per_node == 8);
  CHECK(c.gpus() == 64);
  REQUIRE(set_gpu_count(&c, 3072).is_ok());
  CHECK(c.nodes == 384);

  Cluster part = preset("dgx-a100-80gb");
  REQUIRE(set_gpu_count(&part, 4).is_ok());
  CHECK(part.nodes == 1);
  CHECK(part.gpus_per_node == 4);
  // The count applies to the cluster as it stands: now 4 per node, 8 is two nodes.
  REQUIRE(set_gpu_count(&part, 8).is_ok());
  CHECK(part.nodes == 2);

  Cluster bad = preset("dgx-a100-80gb");
  const Status uneven = set_gpu_count(&bad, 12);
  CHECK(uneven.code() == StatusCode::kInvalidArgument);
  CHECK(uneven.message() ==
        "--gpus: expected at most 8 (part of one node of dgx-a100-80gb) or a multiple of 8 "
        "(whole nodes), found 12");
  CHECK(bad.nodes == 1);  // untouched
  CHECK(set_gpu_count(&bad, 0).message() ==
        "--gpus: expected at most 8 (part of one node of dgx-a100-80gb) or a multiple of 8 "
        "(whole nodes), found 0");
}

}  // namespace
}  // namespace shardlab::plan
