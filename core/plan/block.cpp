// The plan lab's blocks (block.h): a transformer layer, the embedding or the
// head (or the einsum model's repeated block, prelude and epilogue) written
// as a teaching-lab model on the mesh of one model-parallel group, solved
// exactly by the sharding solver, and priced in seconds by the teaching
// lab's cost model, split into forward, B and W. Talks to core/teach/ (model
// reader, generator, explanation) and core/sharding/ (the engine).
#include "core/plan/block.h"

#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>
#include <numeric>

#include "core/sharding/evaluate.h"
#include "core/sharding/solver.h"
#include "core/teach/explain.h"
#include "core/teach/teach.h"

namespace shardlab::plan {
namespace {

using Json = nlohmann::ordered_json;
using teach::Phase;

// The exact engine proves a layer's optimum in a few milliseconds; the cap
// only bounds pathological einsum models (about 0.4 s natively).
constexpr int32_t kMaxSteps = 200;
constexpr int64_t kStepWork = 2000;

Status bad(const std::string& message) {
  return Status(StatusCode::kInvalidArgument, "plan block: " + message);
}

// ---- the model of one block, as teaching-lab JSON ---------------------------

struct ModelText {
  Json tensors = Json::object();
  Json ops = Json::array();
  void tensor(const std::string& name, std::vector<int64_t> shape, const std::string& dims,
              bool parameter = false, int32_t dtype = 0) {
    Json t = {{"shape", shape}, {"dims", dims}};
    if (parameter) t["parameter"] = true;
    if (dtype > 0) t["dtype_bytes"] = dtype;
    tensors[name] = std::move(t);
  }
  void op(const std::string& name, const std::string& kind, const std::string& text,
          std::vector<std::string> inputs, double flops_per_element = -1, double flops = -1) {
    Json o = {{"name", name}, {kind, text}, {"inputs", inputs}};
    if (flops_per_element >= 0) o["flops_per_element"] = flops_per_element;
    if (flops >= 0) o["flops"] = flops;
    ops.push_back(std::move(o));
  }
};

// What a block's pricing needs to know about the model built for it.
struct Built {
  teach::ModelSpec model;
  std::vector<std::string> residual;  // norm/residual ops (and the input) SP splits
  // Where the block meets the layer next to it (the embedding's output, the
  // head's input): laid out as the layer's input is, replicated over tp or
  // (sequence parallelism) split along the sequence. A layer's own boundary
  // is kept consistent by the carry into its next repetition instead.
  std::vector<std::string> boundary;
  std::vector<std::string> attention;  // the attention core's forward ops
  std::string residual_dims;           // their letters
  struct Vector {                      // a bias or norm weight: elements, and the op
    int64_t elements = 0;              // whose output letters split it
    std::string op;                    // ("" : replicated)
    std::string letters;
  };
  std::vector<Vector> vectors;
  // A parameter whose real size is `scale` times what the block holds (the
  // learned position table beyond seq).
  std::vector<std::pair<std::string, double>> scaled;
};

Result<teach::ModelSpec> read_built(const ModelText& text, const teach::MeshSpec& mesh,
                                    const Training& training, const std::string& name,
                                    char batch = 'b', char sequence = 's') {
  Json root = {{"name", name},
               {"mesh",
                {{"shape", mesh.shape},
                 {"axes", mesh.axes},
                 {"bandwidth_GBps", mesh.bandwidth_GBps},
                 {"latency_us", mesh.latency_us},
                 {"device_tflops", mesh.device_tflops},
                 {"matmul_efficiency", mesh.matmul_efficiency},
                 {"comm_efficiency", mesh.comm_efficiency}}},
               {"training", true},
               {"dtype_bytes", training.dtype_bytes},
               {"optimizer_state_bytes", training.optimizer_bytes},
               {"zero", false},
               {"batch", std::string(1, batch)},
               {"tensors", text.tensors},
               {"ops", text.ops}};
  // Naming the sequence letter also offers deferred reductions (sequence parallelism).
  if (sequence) root["sequence"] = std::string(1, sequence);
  Result<teach::ModelSpec> model = teach::read_model(name, root.dump());
  if (!model.is_ok()) return bad("the block model is not valid: " + model.status().message());
  teach::ModelSpec m = std::move(model).value();
  m.mesh.axis_levels = mesh.axis_levels;
  return m;
}

// The letters of the attention heads: MHA "h"; GQA "hg" (key/value heads,
// then the queries of each).
struct Heads {
  bool grouped = false;
  std::string q;       // q's letters after "bs": "hd" or "hgd"
  std::string qw;      // Wq's: "mhd" or "mhgd"
  std::string scores;  // "bhst" or "bhgst"
  std::string wo;      // "hdm" or "hgdm"
};

Heads heads_of(const Transformer& t) {
  Heads h;
  h.grouped = t.kv_heads > 0 && t.kv_heads < t.heads;
  h.q = h.grouped ? "hgd" : "hd";
  h.qw = "m" + h.q;
  h.scores = h.grouped ? "bhgst" : "bhst";
  h.wo = h.q + "m";
  return h;
}

Result<Built> build_layer(const Transformer& t, int64_t batch, int64_t seq,
                          const teach::MeshSpec& mesh, const Training& training) {
  if (t.hidden < 1 || t.heads < 1 || t.head_dim < 1 || t.ffn_hidden < 1) {
    return bad("the transformer has no hidden size, heads, head size or FFN size");
  }
  const int64_t kv = t.kv_heads > 0 ? t.kv_heads : t.heads;
  if (t.heads % kv != 0) return bad("the heads are not a multiple of the key/value heads");
  const Heads hd = heads_of(t);
  const int64_t h = t.hidden, dh = t.head_dim, f = t.ffn_hidden;
  const bool rms = t.norm == Norm::kRmsNorm;
  const double norm_flops = rms ? 4 : 8;
  ModelText m;
  Built built;
  m.tensor("x", {batch, seq, h}, "bsm");
  std::vector<int64_t> q_shape = {h, kv};
  if (hd.grouped) q_shape.push_back(t.heads / kv);
  q_shape.push_back(dh);
  m.tensor("Wq", q_shape, hd.qw, true);
  m.tensor("Wk", {h, kv, dh}, "mhd", true);
  m.tensor("Wv", {h, kv, dh}, "mhd", true);
  std::vector<int64_t> o_shape(q_shape.begin() + 1, q_shape.end());
  o_shape.push_back(h);
  m.tensor("Wo", o_shape, hd.wo, true);
  m.op("ln1", "layernorm", "m", {"x"}, norm_flops);
  m.op("q", "einsum", "bsm," + hd.qw + "->bs" + hd.q, {"ln1", "Wq"});
  m.op("k", "einsum", "bsm,mhd->bshd", {"ln1", "Wk"});
  m.op("v", "einsum", "bsm,mhd->bshd", {"ln1", "Wv"});
  const std::string q_sub = "bs" + hd.q;
  m.op("scores", "einsum", q_sub + ",bthd->" + hd.scores, {"q", "k"});
  m.op("probs", "softmax", "t", {"scores"});
  m.op("ctx", "einsum", hd.scores + ",bthd->" + q_sub, {"probs", "v"});
  m.op("attn", "einsum", q_sub + "," + hd.wo + "->bsm", {"ctx", "Wo"});
  m.op("r1", "elementwise", "add", {"x", "attn"});
  m.op("ln2", "layernorm", "m", {"r1"}, norm_flops);
  const bool swiglu = t.ffn == Ffn::kSwiGlu;
  if (t.experts > 0) {
    const int64_t e = t.experts;
    const int64_t k = std::max<int32_t>(1, t.experts_per_token);
    const int64_t capacity = (k * seq + e - 1) / e;  // per sequence, capacity factor 1
    m.tensor("Wr", {h, e}, "me", true);
    m.tensor("D", {batch, seq, e, capacity}, "bsec", false, 1);
    m.op("router", "einsum", "bsm,me->bse", {"ln2", "Wr"});
    m.op("gates", "softmax", "e", {"router"});
    // The combine weights: each routed slot takes its token's gate (a gather).
    const double slots = static_cast<double>(batch) * e * capacity;
    m.op("weights", "einsum", "bse,bsec->bsec", {"gates", "D"}, -1, slots);
    // GShard's dispatch, run as the gather it is: one copy per routed element.
    m.op("routed", "einsum", "bsec,bsm->ebcm", {"D", "ln2"}, -1, slots * h);
    if (swiglu) {
      m.tensor("Weg", {e, h, f}, "emf", true);
      m.tensor("Weu", {e, h, f}, "emf", true);
      m.tensor("Wed", {e, f, h}, "efm", true);
      m.op("egate", "einsum", "egcm,emf->egcf", {"routed", "Weg"});
      m.op("eup", "einsum", "egcm,emf->egcf", {"routed", "Weu"});
      m.op("eact", "elementwise", "silu", {"egate"});
      m.op("eprod", "elementwise", "mul", {"eact", "eup"});
      m.op("eout", "einsum", "egcf,efm->egcm", {"eprod", "Wed"});
    } else {
      m.tensor("We1", {e, h, f}, "emf", true);
      m.tensor("We2", {e, f, h}, "efm", true);
      m.op("eh", "einsum", "egcm,emf->egcf", {"routed", "We1"});
      m.op("eact", "elementwise", "gelu", {"eh"});
      m.op("eout", "einsum", "egcf,efm->egcm", {"eact", "We2"});
    }
    m.op("o", "einsum", "bsec,ebcm->bsm", {"weights", "eout"}, -1, 2 * slots * h);
  } else if (swiglu) {
    m.tensor("Wg", {h, f}, "mf", true);
    m.tensor("Wu", {h, f}, "mf", true);
    m.tensor("Wd", {f, h}, "fm", true);
    m.op("gate", "einsum", "bsm,mf->bsf", {"ln2", "Wg"});
    m.op("up", "einsum", "bsm,mf->bsf", {"ln2", "Wu"});
    m.op("act", "elementwise", "silu", {"gate"});
    m.op("prod", "elementwise", "mul", {"act", "up"});
    m.op("o", "einsum", "bsf,fm->bsm", {"prod", "Wd"});
  } else {
    m.tensor("W1", {h, f}, "mf", true);
    m.tensor("W2", {f, h}, "fm", true);
    m.op("h", "einsum", "bsm,mf->bsf", {"ln2", "W1"});
    m.op("a", "elementwise", "gelu", {"h"});
    m.op("o", "einsum", "bsf,fm->bsm", {"a", "W2"});
  }
  m.op("r2", "elementwise", "add", {"r1", "o"});
  Result<teach::ModelSpec> model = read_built(m, mesh, training, t.name + " layer");
  if (!model.is_ok()) return model.status();
  built.model = std::move(model).value();
  built.residual = {"x", "ln1", "r1", "ln2", "r2"};
  built.residual_dims = "bsm";
  built.attention = {"scores", "probs", "ctx"};
  // Norm weights (gamma, and beta for LayerNorm) stay replicated, as Megatron keeps them.
  const int64_t norm = rms ? h : 2 * h;
  built.vectors.push_back({2 * norm, "", ""});
  const int64_t q_out = t.heads * dh, kv_out = kv * dh;
  if (t.linear_biases || t.qkv_bias) {
    built.vectors.push_back({q_out, "q", hd.q.substr(0, hd.q.size() - 1)});
    built.vectors.push_back({kv_out, "k", "h"});
    built.vectors.push_back({kv_out, "v", "h"});
  }
  if (t.linear_biases) {
    built.vectors.push_back({h, "", ""});  // the output projection's, added after the all-reduce
    if (t.experts == 0) {
      built.vectors.push_back({swiglu ? 2 * f : f, swiglu ? "gate" : "h", "f"});
      built.vectors.push_back({h, "", ""});
    }
  }
  // The whole layer reads x and writes r2: the next repetition reads r2 as x.
  teach::ModelSpec& spec = built.model;
  spec.repeat.first = 0;
  spec.repeat.last = static_cast<int32_t>(spec.ops.size()) - 1;
  spec.repeat.input = spec.find_tensor("x");
  spec.repeat.times = std::max<int32_t>(2, t.layers);
  spec.tensors[spec.repeat.input].requires_grad = true;
  spec.tensors[spec.find_tensor("r2")].gradient_given = true;
  return built;
}

Result<Built> build_embedding(const Transformer& t, int64_t batch, int64_t seq,
                              const teach::MeshSpec& mesh, const Training& training) {
  ModelText m;
  Built built;
  m.tensor("ids", {batch, seq}, "bs", false, 4);
  m.tensor("E", {t.vocab, t.hidden}, "vm", true);
  m.op("x0", "embedding", "bs,vm->bsm", {"ids", "E"});
  std::string last = "x0";
  if (t.max_positions > 0) {
    m.tensor("P", {seq, t.hidden}, "sm", true);
    m.op("x", "elementwise", "add", {"x0", "P"});
    last = "x";
    built.scaled.emplace_back("P", static_cast<double>(t.max_positions) / seq);
  }
  if (t.embedding_norm) {
    // BLOOM's LayerNorm after the lookup (its weights replicated, as the layer's norms are).
    const bool rms = t.norm == Norm::kRmsNorm;
    m.op("lne", "layernorm", "m", {last}, rms ? 4 : 8);
    last = "lne";
    built.vectors.push_back({rms ? t.hidden : 2 * t.hidden, "", ""});
  }
  // The output as the first layer reads it (a free identity, so that the
  // lookup itself may split the vocabulary and all-reduce, as Megatron's does).
  m.op("out", "elementwise", "identity", {last}, 0);
  Result<teach::ModelSpec> model = read_built(m, mesh, training, t.name + " embedding");
  if (!model.is_ok()) return model.status();
  built.model = std::move(model).value();
  built.model.tensors[built.model.find_tensor("out")].gradient_given = true;
  built.residual = {"out"};
  built.boundary = {"out"};
  built.residual_dims = "bsm";
  return built;
}

Result<Built> build_head(const Transformer& t, int64_t batch, int64_t seq,
                         const teach::MeshSpec& mesh, const Training& training) {
  ModelText m;
  Built built;
  const bool rms = t.norm == Norm::kRmsNorm;
  m.tensor("x", {batch, seq, t.hidden}, "bsm");
  m.tensor("Wout", {t.vocab, t.hidden}, "vm", true);
  m.op("lnf", "layernorm", "m", {"x"}, rms ? 4 : 8);
  m.op("logits", "einsum", "bsm,vm->bsv", {"lnf", "Wout"});
  // Softmax cross-entropy: its gradient (probabilities minus the one-hot
  // targets) is the pointwise loss gradient of the softmax's output.
  m.op("loss", "softmax", "v", {"logits"});
  Result<teach::ModelSpec> model = read_built(m, mesh, training, t.name + " head");
  if (!model.is_ok()) return model.status();
  built.model = std::move(model).value();
  built.model.tensors[built.model.find_tensor("x")].requires_grad = true;
  built.residual = {"x", "lnf"};
  built.boundary = {"x"};
  built.residual_dims = "bsm";
  built.vectors.push_back({rms ? t.hidden : 2 * t.hidden, "", ""});
  return built;
}

// A range of an einsum model's ops as a model of its own: the tensors they
// read from outside the range are declared (resized: the batch letter to
// the block's batch, the sequence letter to seq), their ops follow.
Result<Built> build_einsum(const teach::ModelSpec& full, BlockPart part, int64_t batch, int64_t seq,
                           const teach::MeshSpec& mesh, const Training& training) {
  const teach::RepeatSpec& r = full.repeat;
  if (!r.present()) return bad("an einsum model needs a \"repeat\" block for the plan lab");
  const int32_t n = static_cast<int32_t>(full.ops.size());
  const int32_t lo = part == BlockPart::kLayer  ? r.first
                     : part == BlockPart::kHead ? r.last + 1
                                                : 0;
  const int32_t hi = part == BlockPart::kLayer  ? r.last
                     : part == BlockPart::kHead ? n - 1
                                                : r.first - 1;
  Built built;
  if (lo > hi) return built;  // no prelude or no epilogue: an empty block
  ModelText m;
  auto resized = [&](const teach::TensorSpec& t) {
    std::vector<int64_t> shape = t.shape;
    for (size_t d = 0; d < shape.size() && d < t.dims.size(); ++d) {
      if (t.dims[d] == full.batch) shape[d] = batch;
      if (full.sequence && t.dims[d] == full.sequence) shape[d] = seq;
    }
    return shape;
  };
  std::vector<int32_t> declared;
  for (int32_t i = lo; i <= hi; ++i) {
    for (int32_t t : full.ops[i].inputs) {
      const teach::TensorSpec& spec = full.tensors[t];
      if (spec.producer >= lo && spec.producer <= hi) continue;
      if (std::find(declared.begin(), declared.end(), t) != declared.end()) continue;
      declared.push_back(t);
      m.tensor(spec.name, resized(spec), spec.dims, spec.parameter, spec.dtype_bytes);
    }
  }
  for (int32_t i = lo; i <= hi; ++i) {
    const teach::OpSpec& op = full.ops[i];
    std::vector<std::string> inputs;
    for (int32_t t : op.inputs) inputs.push_back(full.tensors[t].name);
    const std::string kind = teach::op_kind_name(op.kind);
    const bool einsum = op.kind == teach::OpKind::kEinsum;
    const bool pointwise =
        op.kind != teach::OpKind::kEinsum && op.kind != teach::OpKind::kEmbedding;
    // A given "flops" scales with the batch and sequence it was written for.
    double flops = -1;
    if (einsum && op.flops >= 0) {
      double scale = 1;
      const teach::TensorSpec& out = full.tensors[op.output];
      const std::vector<int64_t> now = resized(out);
      for (size_t d = 0; d < now.size(); ++d) {
        scale *= static_cast<double>(now[d]) / static_cast<double>(out.shape[d]);
      }
      flops = op.flops * scale;
    }
    m.op(op.name, kind, op.text, inputs, pointwise ? op.flops_per_element : -1, flops);
  }
  // The prelude's output as the block reads it: a free identity (so that the
  // op producing it keeps its own layout, a vocabulary-parallel lookup say).
  std::string handed = "block_input";
  while (full.find_tensor(handed) >= 0) handed += "_";
  if (part == BlockPart::kEmbedding) {
    m.op(handed, "elementwise", "identity", {full.tensors[r.input].name}, 0);
  }
  Result<teach::ModelSpec> model =
      read_built(m, mesh, training, full.name, full.batch, full.sequence);
  if (!model.is_ok()) return model.status();
  built.model = std::move(model).value();
  teach::ModelSpec& spec = built.model;
  // Inputs produced by an earlier part need their gradient; outputs read by
  // a later part get theirs from it.
  for (int32_t t : declared) {
    const teach::TensorSpec& orig = full.tensors[t];
    const bool earlier = orig.producer >= 0 || (part == BlockPart::kLayer && t == r.input);
    if (!orig.parameter && earlier) spec.tensors[spec.find_tensor(orig.name)].requires_grad = true;
  }
  for (int32_t i = lo; i <= hi; ++i) {
    const int32_t out = full.ops[i].output;
    bool later = false;
    for (int32_t j = hi + 1; j < n; ++j) {
      for (int32_t t : full.ops[j].inputs) later = later || t == out;
    }
    if (part == BlockPart::kLayer && i == r.last) later = true;
    if (part == BlockPart::kEmbedding && out == r.input) later = false;  // read by the identity
    if (later) spec.tensors[spec.find_tensor(full.ops[i].name)].gradient_given = true;
  }
  if (part == BlockPart::kEmbedding) spec.tensors[spec.find_tensor(handed)].gradient_given = true;
  if (part == BlockPart::kLayer) {
    spec.repeat.first = 0;
    spec.repeat.last = static_cast<int32_t>(spec.ops.size()) - 1;
    spec.repeat.input = spec.find_tensor(full.tensors[r.input].name);
    spec.repeat.times = std::max<int64_t>(2, r.times);
  }
  // The norm/residual region: the block input and the norms and elementwise
  // ops that keep its letters.
  const int32_t in = part == BlockPart::kLayer  ? r.input
                     : part == BlockPart::kHead ? full.ops[r.last].output
                                                : -1;
  built.residual_dims = in >= 0 ? full.tensors[in].dims : std::string();
  if (in >= 0) built.residual.push_back(full.tensors[in].name);
  if (part == BlockPart::kHead) built.boundary.push_back(full.tensors[in].name);
  if (part == BlockPart::kEmbedding) {
    built.residual_dims = full.tensors[r.input].dims;
    built.residual.push_back(handed);
    built.boundary.push_back(handed);
  }
  for (const teach::OpSpec& op : spec.ops) {
    const bool pointwise =
        op.kind == teach::OpKind::kLayernorm || op.kind == teach::OpKind::kElementwise;
    if (pointwise && op.name != handed && !built.residual_dims.empty() &&
        spec.tensors[op.output].dims == built.residual_dims) {
      built.residual.push_back(op.name);
    }
  }
  return built;
}

// ---- the mesh ------------------------------------------------------------------

struct Mesh {
  teach::MeshSpec spec;
  std::vector<int32_t> tp_axes;
  int32_t ep_axis = -1;
};

Result<Mesh> mesh_for(const Cluster& c, int32_t tp, int32_t ep) {
  if (c.gpus_per_node < 1) return bad("the cluster has no GPUs per node");
  const int32_t gpn = c.gpus_per_node;
  Mesh m;
  teach::MeshSpec& s = m.spec;
  s.device_tflops = c.peak_tflops;
  s.matmul_efficiency = c.matmul_efficiency > 0 ? c.matmul_efficiency : 1;
  s.comm_efficiency = c.comm_efficiency > 0 ? c.comm_efficiency : 1;
  if (!(s.device_tflops > 0)) return bad("the cluster's GPU has no peak_tflops");
  auto axis = [&](const std::string& name, int32_t size, const LinkSpec& link) {
    s.shape.push_back(size);
    s.axes.push_back(name);
    s.bandwidth_GBps.push_back(link.bandwidth_GBps > 0 ? link.bandwidth_GBps : 1e-6);
    s.latency_us.push_back(link.latency_us);
    return static_cast<int32_t>(s.shape.size()) - 1;
  };
  if (tp <= gpn) {
    m.tp_axes.push_back(axis("tp", tp, c.intra_node));
  } else {
    if (tp % gpn != 0) {
      return bad("tp = " + std::to_string(tp) + " spans nodes but is not a multiple of the " +
                 std::to_string(gpn) + " GPUs of a node");
    }
    m.tp_axes.push_back(axis("tp", gpn, c.intra_node));
    m.tp_axes.push_back(axis("tp_nodes", tp / gpn, c.inter_node));
  }
  if (ep > 1) {
    // Ranks of the expert-parallel group that share a node with each other.
    const int32_t room = tp < gpn ? gpn / tp : 1;
    const int32_t inside = std::gcd(room, ep);
    m.ep_axis = axis("ep", ep, inside == ep ? c.intra_node : c.inter_node);
    s.axis_levels.assign(s.shape.size(), {});
    if (inside > 1 && inside < ep) {
      s.axis_levels[m.ep_axis] = {
          {inside, s.bandwidth_GBps[m.tp_axes[0]], c.intra_node.latency_us},
          {ep / inside, c.inter_node.bandwidth_GBps, c.inter_node.latency_us}};
    }
  }
  return m;
}

// ---- pricing -------------------------------------------------------------------

std::string strategy_text(const std::vector<std::pair<char, std::string>>& splits) {
  std::string text;
  for (const auto& [letter, axes] : splits) {
    text += (text.empty() ? "" : ",") + std::string(1, letter) + ":" + axes;
  }
  return text.empty() ? "replicated" : text;
}

struct Solved {
  teach::Generated gen;
  teach::Explanation explanation;
  teach::SolveSummary summary;
};

// The engine's step loop, one of its steps at a time (the pieces of a
// block's solve: BlockCache::advance). Each call of Engine::step gets the
// same work as in one loop, so the layout found is the same however the
// pieces are spread over the search's steps.
bool engine_done(const Engine& engine, int32_t steps) {
  return steps >= kMaxSteps || engine.finished();
}

// After the engine's last step: the best layout, with fewer bytes on ties,
// explained (the price is computed from the explanation).
Status conclude(const Engine& engine, const std::string& name, Solved* out) {
  if (!engine.best().found()) return bad("no layout of " + name + " was found");
  out->summary.found = true;
  out->summary.cost = engine.best().cost;
  out->summary.lower_bound = engine.lower_bound();
  out->summary.proven_optimal = engine.lower_bound() >= engine.best().cost;
  const std::vector<int32_t> plan = teach::prefer_less_memory(out->gen, engine.best().solution);
  Result<teach::Explanation> x = teach::explain(out->gen, plan);
  if (!x.is_ok()) return x.status();
  out->explanation = std::move(x).value();
  return Status::ok();
}

int32_t node_named(const teach::Generated& gen, const std::string& name) {
  for (size_t v = 0; v < gen.graph.nodes.size(); ++v) {
    if (gen.graph.nodes[v].name == name) return static_cast<int32_t>(v);
  }
  return -1;
}

// Devices that split `letters` of node v under the plan.
int64_t split_of(const teach::Generated& gen, const std::vector<int32_t>& plan, int32_t v,
                 const std::string& letters) {
  const teach::GraphNode& node = gen.graph.nodes[v];
  const teach::Strategy& s = gen.strategies[v][plan[v]];
  int64_t split = 1;
  for (int32_t a = 0; a < gen.model.mesh.rank(); ++a) {
    const int8_t l = s.axis_letter[a];
    if (l >= 0 && letters.find(node.letters[l]) != std::string::npos)
      split *= gen.model.mesh.shape[a];
  }
  return split;
}

BlockCost price(const Solved& solved, const Built& built, const Mesh& mesh) {
  const teach::Generated& gen = solved.gen;
  const teach::Explanation& x = solved.explanation;
  const std::vector<int32_t>& np = x.node_plan;
  const std::vector<teach::GraphNode>& nodes = gen.graph.nodes;
  int64_t compute[4] = {0, 0, 0, 0};
  int64_t comm[4] = {0, 0, 0, 0};
  for (size_t v = 0; v < nodes.size(); ++v) {
    const teach::NodeCost& cost = gen.node_costs[v][np[v]];
    const int p = static_cast<int>(nodes[v].phase());
    compute[p] += cost.compute_ns;
    for (const teach::Collective& c : cost.collectives) comm[p] += c.ns;
  }
  auto add_links = [&](const std::vector<teach::Link>& links) {
    for (const teach::Link& link : links) {
      const int p = static_cast<int>(teach::link_phase(gen, link));
      if (link.operand != teach::kGradientLink || mesh.ep_axis < 0) {
        comm[p] += teach::link_collectives(gen, link, np[link.from], np[link.to], nullptr);
        continue;
      }
      // A weight gradient partial over the ep axis is reduced there by data
      // parallelism, outside the block: only the rest is the block's.
      const teach::GraphNode& from = nodes[link.from];
      const teach::GraphNode& to = nodes[link.to];
      teach::Layout have = teach::output_layout(from, gen.strategies[link.from][np[link.from]]);
      if (have[mesh.ep_axis] == teach::kPartial) have[mesh.ep_axis] = teach::kReplicated;
      comm[p] += teach::reshard(gen.costs, teach::output_shape(from), have,
                                teach::gradient_layout(to, gen.strategies[link.to][np[link.to]]),
                                "", nullptr);
    }
  };
  for (const teach::EdgeInfo& e : gen.edges) add_links(e.links);
  for (const std::vector<teach::Link>& links : gen.internal_links) add_links(links);

  BlockCost c;
  const auto s = [](int64_t ns) { return static_cast<double>(ns) * 1e-9; };
  c.forward_compute_s = s(compute[0]);
  c.forward_comm_s = s(comm[0]);
  c.backward_compute_s = s(compute[1]);
  c.backward_comm_s = s(comm[1]);
  c.weight_compute_s = s(compute[2]);
  c.weight_comm_s = s(comm[2]);
  int64_t core = 0;
  for (const std::string& name : built.attention) {
    const int32_t v = node_named(gen, name);
    if (v < 0) continue;
    core += gen.node_costs[v][np[v]].total_ns;
  }
  c.attention_core_forward_s = s(core);
  // Parameters: the matrices as laid out, the vectors as their layer's output.
  const teach::ModelSpec& model = gen.model;
  for (size_t v = 0; v < nodes.size(); ++v) {
    if (nodes[v].kind != teach::NodeKind::kParameter) continue;
    int64_t elements = 1;
    for (int64_t d : nodes[v].sizes) elements *= d;
    const int64_t split = split_of(gen, np, static_cast<int32_t>(v), nodes[v].letters);
    int64_t mine = elements / split;
    for (const auto& [name, scale] : built.scaled) {
      if (name == nodes[v].name) mine = static_cast<int64_t>(static_cast<double>(mine) * scale);
    }
    c.parameters_per_device += mine;
    if (mesh.ep_axis >= 0 && gen.strategies[v][np[v]].axis_letter[mesh.ep_axis] >= 0) {
      c.expert_parameters_per_device += mine;
    }
  }
  for (const Built::Vector& vec : built.vectors) {
    const int32_t v = vec.op.empty() ? -1 : node_named(gen, vec.op);
    c.parameters_per_device +=
        v < 0 ? vec.elements : vec.elements / split_of(gen, np, v, vec.letters);
  }
  c.grad_reduce_bytes = c.parameters_per_device * model.dtype_bytes;
  // Saved activations: forward outputs (and inputs) that a backward op reads.
  std::vector<bool> saved(nodes.size(), false);
  for (const teach::GraphNode& node : nodes) {
    const Phase p = node.phase();
    if (p != Phase::kInputGrad && p != Phase::kWeightGrad) continue;
    for (const teach::Operand& o : node.operands) {
      const teach::NodeKind k = nodes[o.node].kind;
      if (k == teach::NodeKind::kForward || k == teach::NodeKind::kShared ||
          k == teach::NodeKind::kInput) {
        saved[o.node] = true;
      }
    }
  }
  for (size_t v = 0; v < nodes.size(); ++v) {
    if (saved[v]) c.activation_bytes += gen.node_costs[v][np[v]].usage_bytes;
  }
  // Sequence parallelism: every norm/residual op splits the sequence on tp.
  const char seq = model.sequence ? model.sequence : 's';
  int32_t regions = 0;
  bool all = true;
  for (const std::string& name : built.residual) {
    const int32_t v = node_named(gen, name);
    if (v < 0) continue;
    ++regions;
    const teach::Strategy& st = gen.strategies[v][np[v]];
    bool split = false;
    for (int32_t a : mesh.tp_axes) {
      const int8_t l = st.axis_letter[a];
      split = split || (mesh.spec.shape[a] > 1 && l >= 0 && nodes[v].letters[l] == seq);
    }
    all = all && split;
  }
  c.sequence_parallel = regions > 0 && all;
  c.proven_optimal = solved.summary.proven_optimal;
  c.layout = x.textbook;
  if (c.layout.empty()) {
    for (const teach::AxisRole& role : x.axes) {
      c.layout += (c.layout.empty() ? "" : "; ") + role.text;
    }
  }
  c.report_json = teach::explanation_json(gen, x, solved.summary);
  c.solve_seconds = solved.summary.seconds;
  return c;
}

}  // namespace

teach::AxisLink cluster_link(const Cluster& cluster, bool inter_node, int64_t devices) {
  const LinkSpec& link = inter_node ? cluster.inter_node : cluster.intra_node;
  const double efficiency = cluster.comm_efficiency > 0 ? cluster.comm_efficiency : 1;
  return {devices, link.bandwidth_GBps * efficiency, link.latency_us};
}

// A block's solve between its pieces (BlockCache::advance): what the
// model was built into and generated as, and the engine with the steps it
// has run. The engine reads the generated problem, so both live here.
struct Pending {
  Built built;
  Mesh mesh;
  Solved solved;
  std::unique_ptr<Engine> engine;
  int32_t steps = 0;
  double seconds = 0;  // the pieces' time so far (BlockCost::solve_seconds)
};

struct BlockCache::Impl {
  using Key = decltype(BlockQuery().key());
  ModelInput model;
  Cluster cluster;
  Training training;
  std::map<Key, std::unique_ptr<BlockCost>> cache;
  std::map<Key, Status> failed;  // queries that cannot be laid out, and why
  std::map<Key, std::unique_ptr<Pending>> pending;
  int64_t solves = 0;
  int64_t pieces = 0;

  // The first piece: the block built as a teaching-lab model with the
  // plan's pins and generated into a sharding instance. Null with a cost
  // already (a block without ops) in *empty.
  Result<std::unique_ptr<Pending>> start(const BlockQuery& q, bool* empty) {
    if (q.tp < 1 || q.ep < 1 || q.microbatch < 1 || q.seq < 1) {
      return bad("tp, ep, the micro-batch and the sequence must be at least 1");
    }
    Result<Mesh> mesh = mesh_for(cluster, q.tp, q.ep);
    if (!mesh.is_ok()) return mesh.status();
    const Mesh& m = mesh.value();
    const int64_t batch = q.microbatch * q.ep;
    Result<Built> built = Status::ok();
    if (model.kind == ModelInput::Kind::kEinsum) {
      built = build_einsum(model.einsum, q.part, batch, q.seq, m.spec, training);
    } else if (q.part == BlockPart::kLayer) {
      built = build_layer(model.transformer, batch, q.seq, m.spec, training);
    } else if (q.part == BlockPart::kEmbedding) {
      built = build_embedding(model.transformer, batch, q.seq, m.spec, training);
    } else {
      built = build_head(model.transformer, batch, q.seq, m.spec, training);
    }
    if (!built.is_ok()) return built.status();
    const Built& b = built.value();
    *empty = b.model.ops.empty();
    if (*empty) return std::unique_ptr<Pending>();
    teach::GenerateOptions options;
    const char batch_letter = b.model.batch ? b.model.batch : 'b';
    if (m.ep_axis >= 0) options.pinned_letters.emplace_back(batch_letter, m.ep_axis);
    // Sequence parallelism pinned (or, at an embedding's or head's boundary,
    // the layer's layout: replicated over tp unless asked for).
    std::string tp_axes;
    for (int32_t a : m.tp_axes) tp_axes += (tp_axes.empty() ? "" : "+") + m.spec.axes[a];
    const char seq = b.model.sequence ? b.model.sequence : 's';
    for (const std::string& name : b.residual) {
      const bool boundary =
          std::find(b.boundary.begin(), b.boundary.end(), name) != b.boundary.end();
      if (q.sequence_parallel < 0 && !boundary) continue;
      if (b.model.find_tensor(name) < 0) continue;
      std::vector<std::pair<char, std::string>> splits;
      if (m.ep_axis >= 0) splits.emplace_back(batch_letter, "ep");
      if (q.sequence_parallel == 1) splits.emplace_back(seq, tp_axes);
      options.forces.emplace_back(name, strategy_text(splits));
    }
    // An embedding table costs no time replicated (its gradient needs no
    // reduction over tp), but holds V x h weights on every device, and a
    // block's solve has no memory limit: it is split along the vocabulary
    // over tp, as Megatron's vocabulary-parallel embedding is.
    int64_t tp = 1;
    for (int32_t a : m.tp_axes) tp *= m.spec.shape[a];
    for (const teach::OpSpec& op : b.model.ops) {
      if (op.kind != teach::OpKind::kEmbedding || tp <= 1) continue;
      const teach::TensorSpec& table = b.model.tensors[op.inputs[1]];
      if (table.shape[0] % tp != 0) continue;
      options.forces.emplace_back(table.name, strategy_text({{op.input_letters[1][0], tp_axes}}));
    }
    if (q.lean) options.sharded_parameter_axes = m.tp_axes;
    Result<teach::Generated> gen = teach::generate(b.model, options);
    if (!gen.is_ok()) return gen.status();
    auto p = std::make_unique<Pending>();
    p->built = std::move(built).value();
    p->mesh = m;
    p->solved.gen = std::move(gen).value();
    return p;
  }

  // The next piece of the solve of q: true when it is over (the cost in
  // `cache`, or the reason in `failed`).
  bool advance(const BlockQuery& q) {
    using Clock = std::chrono::steady_clock;
    const Key key = q.key();
    if (cache.count(key) > 0 || failed.count(key) > 0) return true;
    ++pieces;
    const auto started = Clock::now();
    const auto spent = [&started] {
      return std::chrono::duration<double>(Clock::now() - started).count();
    };
    const auto fail = [&](const Status& why) {
      pending.erase(key);
      failed.emplace(key, why);
      return true;
    };
    auto it = pending.find(key);
    if (it == pending.end()) {
      bool empty = false;
      Result<std::unique_ptr<Pending>> made = start(q, &empty);
      if (!made.is_ok()) return fail(made.status());
      if (empty) {
        cache.emplace(key, std::make_unique<BlockCost>());
        return true;
      }
      made.value()->seconds = spent();
      pending.emplace(key, std::move(made).value());
      return false;
    }
    Pending& p = *it->second;
    if (!p.engine) {
      // The engine's constructor: the exact presolve, and on small cores
      // the whole exact search (core/sharding/solver.h).
      Options solver;
      solver.exact_max_nodes = 200;
      p.engine = std::make_unique<Engine>(p.solved.gen.problem, solver, 0);
      p.seconds += spent();
      return false;
    }
    if (!engine_done(*p.engine, p.steps)) {
      p.engine->step(kStepWork);
      ++p.steps;
      p.seconds += spent();
      return false;
    }
    const Status concluded = conclude(*p.engine, p.built.model.name, &p.solved);
    if (!concluded.is_ok()) return fail(concluded);
    ++solves;
    p.solved.summary.seconds = p.seconds + spent();
    cache.emplace(key, std::make_unique<BlockCost>(price(p.solved, p.built, p.mesh)));
    pending.erase(key);
    return true;
  }
};

BlockCache::BlockCache(const ModelInput& model, const Cluster& cluster, const Training& training)
    : impl_(std::make_unique<Impl>()) {
  impl_->model = model;
  impl_->cluster = cluster;
  impl_->training = training;
}

BlockCache::~BlockCache() = default;

Result<const BlockCost*> BlockCache::get(const BlockQuery& query) {
  while (!impl_->advance(query)) {
  }
  const auto key = query.key();
  const auto failed = impl_->failed.find(key);
  if (failed != impl_->failed.end()) return failed->second;
  return static_cast<const BlockCost*>(impl_->cache.at(key).get());
}

bool BlockCache::advance(const BlockQuery& query) { return impl_->advance(query); }

bool BlockCache::has(const BlockQuery& query) const { return impl_->cache.count(query.key()) > 0; }

int64_t BlockCache::solves() const { return impl_->solves; }

int64_t BlockCache::pieces() const { return impl_->pieces; }

}  // namespace shardlab::plan
