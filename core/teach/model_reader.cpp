// Reads a teaching model (model.h) from JSON text with core/json_doc.h and
// validates it: names, shapes, mesh arrays, einsum signatures with
// consistent letter sizes, broadcasting of elementwise inputs, the named
// dimension of reduce/softmax/layernorm, embedding signatures and pinned
// input layouts. Every error is one line in the house format, at the value
// that is wrong.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/json_doc.h"
#include "core/teach/model.h"
#include "core/utf8.h"

namespace shardlab::teach {
namespace {

using json::JsonAt;
using json::Kind;

constexpr int64_t kMaxDim = int64_t{1} << 40;
constexpr int32_t kMaxTensorRank = 8;
constexpr size_t kMaxTensors = 10000;  // declared tensors
constexpr size_t kMaxOps = 10000;      // ops listed in the file
constexpr size_t kMaxInputs = 16;      // inputs of one op
// Costs that add up to at most 1e17 ns over the whole model: every cost the
// generator forms (a node's compute and collectives, an edge's matrix, a
// plan's total) then stays far inside int64 and below the instance's
// "forbidden" cost of 1e18.
constexpr double kMaxModelNs = 1e17;
// A tensor's bytes stay below 2^53, so that every product of bytes, shards
// and ZeRO factors in the generator fits in int64 (and in a double exactly).
constexpr int64_t kMaxTensorBytes = int64_t{1} << 53;
// And all of them below 2^56, so that ZeRO's 16 bytes per parameter and the
// sums of usages at a peak stay below 2^63.
constexpr int64_t kMaxModelBytes = int64_t{1} << 56;

// Bytes of a tensor of this shape, or -1 beyond kMaxTensorBytes.
int64_t tensor_bytes(const std::vector<int64_t>& shape, int32_t dtype_bytes) {
  unsigned __int128 bytes = static_cast<unsigned>(dtype_bytes);
  for (int64_t d : shape) {
    bytes *= static_cast<unsigned __int128>(d);
    if (bytes > static_cast<unsigned __int128>(kMaxTensorBytes)) return -1;
  }
  return static_cast<int64_t>(bytes);
}

std::string size_text(const std::vector<int64_t>& shape, int32_t dtype_bytes) {
  std::string text;
  for (size_t i = 0; i < shape.size(); ++i) text += (i ? " x " : "") + std::to_string(shape[i]);
  return text + " elements of " + std::to_string(dtype_bytes) + " bytes";
}

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    text += (i ? ", " : "") + std::to_string(shape[i]);
  }
  return text + "]";
}

std::string quoted(const std::string& text) { return json::quote(text); }

std::string scientific(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", value);
  return text;
}

bool is_identifier(const std::string& name) {
  if (name.empty() || name.size() > 64) return false;
  if (!(std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_')) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

constexpr const char* kIdentifierRule =
    "a name of letters, digits and '_' (at most 64, not starting with a digit)";

// Elementwise work per output element, for the functions a course uses; any
// other name costs 1 (override with "flops_per_element").
double default_flops(OpKind kind, const std::string& function) {
  if (kind == OpKind::kSoftmax) return 5;    // max, subtract, exp, sum, divide
  if (kind == OpKind::kLayernorm) return 8;  // mean, variance, normalise
  if (kind == OpKind::kReduce) return 1;
  static const std::map<std::string, double> kTable = {
      {"gelu", 8}, {"silu", 4}, {"sigmoid", 4}, {"tanh", 4}, {"exp", 2},  {"relu", 1},
      {"add", 1},  {"sub", 1},  {"mul", 1},     {"div", 1},  {"scale", 1}};
  const auto it = kTable.find(function);
  return it == kTable.end() ? 1 : it->second;
}

class Reader {
 public:
  explicit Reader(const json::Document& doc) : root_(doc.root()) {}

  Result<ModelSpec> read() {
    Status s = root_.only_keys({"name", "description", "mesh", "training", "dtype_bytes",
                                "optimizer_state_bytes", "zero", "cost_model", "batch", "sequence",
                                "tensors", "ops", "repeat"});
    if (!s.is_ok()) return s;
    json::Errors e;
    model_.name = e.take(root_.string_or("name", "model"));
    model_.description = e.take(root_.string_or("description", ""));
    model_.training = e.take(root_.boolean_or("training", false));
    model_.dtype_bytes = static_cast<int32_t>(e.take(root_.integer_or("dtype_bytes", 2, 1, 8)));
    model_.optimizer_state_bytes =
        static_cast<int32_t>(e.take(root_.integer_or("optimizer_state_bytes", 12, 0, 64)));
    model_.zero = e.take(root_.boolean_or("zero", true));
    if (!e.ok()) return e.status();
    if (root_.has("cost_model")) {
      Result<std::string> name = root_["cost_model"].string();
      if (!name.is_ok()) return name.status();
      Result<CostModel> cost = parse_cost_model(name.value());
      if (!cost.is_ok()) {
        return root_["cost_model"].error("one of \"alpha-beta\", \"bandwidth\", \"communication\"");
      }
      model_.cost_model = cost.value();
    }
    if (!(s = read_mesh(root_["mesh"])).is_ok()) return s;
    if (!(s = read_tensors(root_["tensors"])).is_ok()) return s;
    if (!(s = read_ops(root_["ops"])).is_ok()) return s;
    if (!(s = read_layouts()).is_ok()) return s;
    if (!(s = read_batch()).is_ok()) return s;
    if (!(s = read_sequence()).is_ok()) return s;
    if (root_.has("repeat") && !(s = read_repeat(root_["repeat"])).is_ok()) return s;
    if (!(s = check_magnitudes()).is_ok()) return s;
    return std::move(model_);
  }

 private:
  // ---- mesh ----------------------------------------------------------------

  Status read_mesh(const JsonAt& mesh) {
    Status s = mesh.only_keys({"shape", "axes", "bandwidth_GBps", "latency_us", "device_tflops",
                               "device_memory_GB", "matmul_efficiency", "comm_efficiency"});
    if (!s.is_ok()) return s;
    MeshSpec& m = model_.mesh;
    const JsonAt shape = mesh["shape"];
    if (!(s = shape.expect(Kind::kArray)).is_ok()) return s;
    if (shape.size() < 1 || shape.size() > kMaxMeshRank) {
      return shape.error("an array of 1 to " + std::to_string(kMaxMeshRank) + " axis sizes");
    }
    int64_t devices = 1;
    for (size_t a = 0; a < shape.size(); ++a) {
      Result<int64_t> n = shape[a].integer(1, 65536);
      if (!n.is_ok()) return n.status();
      devices *= n.value();
      if (devices > 65536) return shape[a].error("a mesh of at most 65536 devices");
      m.shape.push_back(static_cast<int32_t>(n.value()));
    }
    const size_t rank = m.shape.size();
    if (mesh.has("axes")) {
      const JsonAt axes = mesh["axes"];
      if (!(s = axes.expect(Kind::kArray)).is_ok()) return s;
      if (axes.size() != rank) {
        return axes.error(std::to_string(rank) + " axis names (one per entry of mesh.shape)",
                          std::to_string(axes.size()));
      }
      for (size_t a = 0; a < rank; ++a) {
        Result<std::string> name = axes[a].string();
        if (!name.is_ok()) return name.status();
        if (!is_identifier(name.value())) return axes[a].error(kIdentifierRule);
        if (std::find(m.axes.begin(), m.axes.end(), name.value()) != m.axes.end()) {
          return axes[a].error("each axis name once", quoted(name.value()) + " a second time");
        }
        m.axes.push_back(name.value());
      }
    } else {
      static const char* kDefault[] = {"x", "y", "z", "w"};
      for (size_t a = 0; a < rank; ++a) m.axes.push_back(kDefault[a]);
    }
    if (!(s = per_axis(mesh["bandwidth_GBps"], rank, 1e-6, 1e9, &m.bandwidth_GBps)).is_ok()) {
      return s;
    }
    if (!(s = per_axis(mesh["latency_us"], rank, 0, 1e9, &m.latency_us)).is_ok()) return s;
    Result<double> tflops = mesh["device_tflops"].number(1e-9, 1e9);
    if (!tflops.is_ok()) return tflops.status();
    m.device_tflops = tflops.value();
    if (mesh.has("device_memory_GB")) {
      Result<double> memory = mesh["device_memory_GB"].number(1e-9, 1e9);
      if (!memory.is_ok()) return memory.status();
      m.has_memory = true;
      m.device_memory_GB = memory.value();
    }
    json::Errors e;
    m.matmul_efficiency = e.take(mesh.number_or("matmul_efficiency", 1, 1e-6, 1));
    m.comm_efficiency = e.take(mesh.number_or("comm_efficiency", 1, 1e-6, 1));
    return e.status();
  }

  // A number for every axis, or an array with one number per axis.
  static Status per_axis(const JsonAt& at, size_t rank, double min, double max,
                         std::vector<double>* out) {
    if (at.is(Kind::kNumber) || !at.exists()) {
      Result<double> v = at.number(min, max);
      if (!v.is_ok()) return v.status();
      out->assign(rank, v.value());
      return Status::ok();
    }
    if (!at.is(Kind::kArray) || at.size() != rank) {
      return at.error("a number or an array of " + std::to_string(rank) +
                      " numbers (one per mesh axis)");
    }
    for (size_t a = 0; a < rank; ++a) {
      Result<double> v = at[a].number(min, max);
      if (!v.is_ok()) return v.status();
      out->push_back(v.value());
    }
    return Status::ok();
  }

  // ---- tensors -------------------------------------------------------------

  Status read_tensors(const JsonAt& tensors) {
    Status s = tensors.expect(Kind::kObject);
    if (!s.is_ok()) return s;
    if (tensors.size() > kMaxTensors) {
      return tensors.error("at most " + std::to_string(kMaxTensors) + " tensors",
                           std::to_string(tensors.size()));
    }
    for (size_t i = 0; i < tensors.size(); ++i) {
      const JsonAt t = tensors.member(i);
      TensorSpec spec;
      spec.name = tensors.key(i);
      if (!is_identifier(spec.name)) {
        return t.error("a tensor named by " + std::string(kIdentifierRule),
                       "the key " + quoted(spec.name));
      }
      if (!(s = t.only_keys({"shape", "parameter", "dims", "dtype_bytes", "layout"})).is_ok()) {
        return s;
      }
      const JsonAt shape = t["shape"];
      if (!(s = shape.expect(Kind::kArray)).is_ok()) return s;
      if (shape.size() < 1 || shape.size() > kMaxTensorRank) {
        return shape.error("an array of 1 to " + std::to_string(kMaxTensorRank) + " sizes");
      }
      for (size_t d = 0; d < shape.size(); ++d) {
        Result<int64_t> n = shape[d].integer(1, kMaxDim);
        if (!n.is_ok()) return n.status();
        spec.shape.push_back(n.value());
      }
      json::Errors e;
      spec.parameter = e.take(t.boolean_or("parameter", false));
      spec.dtype_bytes =
          static_cast<int32_t>(e.take(t.integer_or("dtype_bytes", model_.dtype_bytes, 1, 8)));
      if (!e.ok()) return e.status();
      const int64_t bytes = tensor_bytes(spec.shape, spec.dtype_bytes);
      if (bytes < 0) {
        return shape.error("a tensor of at most 2^53 bytes",
                           size_text(spec.shape, spec.dtype_bytes));
      }
      if ((total_bytes_ += bytes) > kMaxModelBytes) {
        return shape.error("tensors of at most 2^56 bytes in all",
                           std::to_string(total_bytes_) + " bytes up to here");
      }
      if (t.has("dims")) {
        Result<std::string> dims = t["dims"].string();
        if (!dims.is_ok()) return dims.status();
        if (!(s = check_letters(t["dims"], dims.value(), spec)).is_ok()) return s;
        spec.dims = dims.value();
      }
      if (t.has("layout")) {
        if (spec.parameter) {
          return t["layout"].error("no layout for a parameter (the solver chooses it)", "a layout");
        }
        layouts_.emplace_back(static_cast<int32_t>(model_.tensors.size()), t["layout"]);
      }
      tensor_at_.push_back(shape);
      model_.tensors.push_back(std::move(spec));
    }
    if (model_.tensors.empty()) return tensors.error("at least one tensor", "an empty object");
    return Status::ok();
  }

  // Dimension names: one distinct letter per dimension of `spec`.
  static Status check_letters(const JsonAt& at, const std::string& letters,
                              const TensorSpec& spec) {
    if (letters.size() != spec.shape.size()) {
      return at.error(std::to_string(spec.shape.size()) + " letters (one per dimension of " +
                      shape_text(spec.shape) + ")");
    }
    for (size_t i = 0; i < letters.size(); ++i) {
      if (!std::isalpha(static_cast<unsigned char>(letters[i]))) {
        return at.error("letters a-z or A-Z", utf8::describe_char(letters, i));
      }
      if (letters.find(letters[i]) != i) {
        return at.error("each letter once", "'" + std::string(1, letters[i]) + "' twice");
      }
    }
    return Status::ok();
  }

  // ---- ops -----------------------------------------------------------------

  struct Signature {
    std::vector<std::string> inputs;
    std::string output;
  };

  // "bd,df->bf" with one subscript per input; letters only, each once per
  // subscript, every output letter among the inputs'.
  static Result<Signature> parse_signature(const JsonAt& at, const std::string& text,
                                           size_t inputs) {
    const std::string example = "a signature such as \"bd,df->bf\"";
    const size_t arrow = text.find("->");
    if (arrow == std::string::npos) return at.error(example);
    Signature sig;
    sig.output = text.substr(arrow + 2);
    std::string operands = text.substr(0, arrow);
    size_t start = 0;
    while (true) {
      const size_t comma = operands.find(',', start);
      sig.inputs.push_back(operands.substr(start, comma - start));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    if (sig.inputs.size() != inputs) {
      return at.error(std::to_string(inputs) + " operand subscript" + (inputs == 1 ? "" : "s") +
                          " (one per input)",
                      std::to_string(sig.inputs.size()));
    }
    std::vector<std::string> all = sig.inputs;
    all.push_back(sig.output);
    for (const std::string& sub : all) {
      for (size_t i = 0; i < sub.size(); ++i) {
        if (!std::isalpha(static_cast<unsigned char>(sub[i]))) {
          return at.error("letters a-z or A-Z in each subscript", utf8::describe_char(sub, i));
        }
        if (sub.find(sub[i]) != i) {
          return at.error("each letter once per subscript",
                          "'" + std::string(1, sub[i]) + "' twice in " + quoted(sub));
        }
      }
    }
    for (char c : sig.output) {
      bool found = false;
      for (const std::string& sub : sig.inputs) found = found || sub.find(c) != std::string::npos;
      if (!found) {
        return at.error("every output letter among the inputs' letters",
                        "'" + std::string(1, c) + "' only in the output");
      }
    }
    return sig;
  }

  Status read_ops(const JsonAt& ops) {
    Status s = ops.expect(Kind::kArray);
    if (!s.is_ok()) return s;
    if (ops.size() == 0) return ops.error("at least one op", "an empty array");
    if (ops.size() > kMaxOps) {
      return ops.error("at most " + std::to_string(kMaxOps) + " ops",
                       "an array of " + std::to_string(ops.size()));
    }
    // Pass 1: declared tensors take the letters of their first einsum or
    // embedding subscript, so elementwise ops may use them later in any order.
    for (size_t i = 0; i < ops.size(); ++i) {
      const JsonAt op = ops[i];
      const char* key = op.has("einsum") ? "einsum" : op.has("embedding") ? "embedding" : nullptr;
      if (!key || !op[key].is(Kind::kString) || !op["inputs"].is(Kind::kArray)) continue;
      const std::string text = op[key].value().text;
      Result<Signature> sig = parse_signature(op[key], text, op["inputs"].size());
      if (!sig.is_ok()) continue;  // reported in order by pass 2
      for (size_t k = 0; k < op["inputs"].size(); ++k) {
        if (!op["inputs"][k].is(Kind::kString)) continue;
        const int32_t t = model_.find_tensor(op["inputs"][k].value().text);
        if (t < 0 || !model_.tensors[t].dims.empty()) continue;
        if (sig.value().inputs[k].size() == model_.tensors[t].shape.size()) {
          model_.tensors[t].dims = sig.value().inputs[k];
        }
      }
    }
    for (size_t i = 0; i < ops.size(); ++i) {
      if (!(s = read_op(ops[i])).is_ok()) return s;
    }
    return Status::ok();
  }

  Status read_op(const JsonAt& at) {
    static constexpr std::pair<const char*, OpKind> kKinds[] = {
        {"einsum", OpKind::kEinsum},       {"elementwise", OpKind::kElementwise},
        {"reduce", OpKind::kReduce},       {"softmax", OpKind::kSoftmax},
        {"layernorm", OpKind::kLayernorm}, {"embedding", OpKind::kEmbedding}};
    Status s = at.only_keys({"name", "inputs", "einsum", "elementwise", "reduce", "softmax",
                             "layernorm", "embedding", "flops_per_element", "flops"});
    if (!s.is_ok()) return s;
    OpSpec op;
    Result<std::string> name = at["name"].string();
    if (!name.is_ok()) return name.status();
    op.name = name.value();
    if (!is_identifier(op.name)) return at["name"].error(kIdentifierRule);
    if (model_.find_tensor(op.name) >= 0) {
      return at["name"].error("a name not used by another tensor or op",
                              quoted(op.name) + ", already used");
    }
    const char* kind_key = nullptr;
    for (const auto& [key, kind] : kKinds) {
      if (!at.has(key)) continue;
      if (kind_key) {
        return at[key].error("one of einsum, elementwise, reduce, softmax, layernorm, embedding",
                             "both \"" + std::string(kind_key) + "\" and \"" + key + "\"");
      }
      kind_key = key;
      op.kind = kind;
    }
    if (!kind_key) {
      return at.error("one of the keys einsum, elementwise, reduce, softmax, layernorm, embedding");
    }
    const JsonAt kind_at = at[kind_key];
    Result<std::string> text = kind_at.string();
    if (!text.is_ok()) return text.status();
    op.text = text.value();

    const JsonAt inputs = at["inputs"];
    if (!(s = inputs.expect(Kind::kArray)).is_ok()) return s;
    if (inputs.size() == 0) return inputs.error("at least one input", "an empty array");
    if (inputs.size() > kMaxInputs) {
      return inputs.error("at most " + std::to_string(kMaxInputs) + " inputs",
                          "an array of " + std::to_string(inputs.size()));
    }
    for (size_t k = 0; k < inputs.size(); ++k) {
      Result<std::string> input = inputs[k].string();
      if (!input.is_ok()) return input.status();
      const int32_t t = model_.find_tensor(input.value());
      if (t < 0) {
        return inputs[k].error("the name of a declared tensor or of an earlier op",
                               quoted(input.value()) + later_op_note(input.value()));
      }
      op.inputs.push_back(t);
    }
    auto input_count = [&](size_t lo, size_t hi) -> Status {
      if (inputs.size() >= lo && inputs.size() <= hi) return Status::ok();
      const std::string want =
          lo == hi ? std::to_string(lo) : std::to_string(lo) + " or " + std::to_string(hi);
      return inputs.error(want + " input" + (hi == 1 ? "" : "s") + " for " + kind_key,
                          std::to_string(inputs.size()));
    };
    std::vector<int64_t> out_shape;
    switch (op.kind) {
      case OpKind::kEinsum:
      case OpKind::kEmbedding: {
        if (!(s = input_count(op.kind == OpKind::kEinsum ? 1 : 2, 2)).is_ok()) return s;
        Result<Signature> sig = parse_signature(kind_at, op.text, op.inputs.size());
        if (!sig.is_ok()) return sig.status();
        std::map<char, std::pair<int64_t, std::string>> sizes;  // letter -> size, where
        for (size_t k = 0; k < op.inputs.size(); ++k) {
          const TensorSpec& t = model_.tensors[op.inputs[k]];
          const std::string& sub = sig.value().inputs[k];
          if (sub.size() != t.shape.size()) {
            return kind_at.error("subscript " + std::to_string(k) + " to have " +
                                     std::to_string(t.shape.size()) + " letters, as " + t.name +
                                     " has shape " + shape_text(t.shape),
                                 quoted(sub));
          }
          for (size_t d = 0; d < sub.size(); ++d) {
            const std::string where = t.name + ".shape[" + std::to_string(d) + "]";
            const auto [it, fresh] = sizes.emplace(sub[d], std::make_pair(t.shape[d], where));
            if (!fresh && it->second.first != t.shape[d]) {
              return kind_at.error("letter '" + std::string(1, sub[d]) + "' to have one size",
                                   std::to_string(it->second.first) + " (" + it->second.second +
                                       ") and " + std::to_string(t.shape[d]) + " (" + where + ")");
            }
          }
        }
        op.input_letters = sig.value().inputs;
        op.output_letters = sig.value().output;
        if (op.kind == OpKind::kEmbedding) {
          const std::string& ids = op.input_letters[0];
          const std::string& table = op.input_letters[1];
          if (table.size() != 2 || ids.find(table[0]) != std::string::npos ||
              ids.find(table[1]) != std::string::npos || op.output_letters != ids + table[1]) {
            return kind_at.error(
                "an embedding signature IDS,vd->IDSd (the table's rows v are "
                "looked up by the ids; each output position gets a row of d)",
                quoted(op.text));
          }
        }
        for (char c : op.output_letters) out_shape.push_back(sizes.at(c).first);
        break;
      }
      case OpKind::kElementwise: {
        if (op.text.empty()) return kind_at.error("a function name such as \"gelu\"");
        // The widest input names the output; the others broadcast from the right.
        size_t widest = 0;
        for (size_t k = 0; k < op.inputs.size(); ++k) {
          if (model_.tensors[op.inputs[k]].shape.size() >
              model_.tensors[op.inputs[widest]].shape.size()) {
            widest = k;
          }
        }
        const TensorSpec& w = model_.tensors[op.inputs[widest]];
        if (w.dims.empty()) return unnamed(inputs[widest], w);
        out_shape = w.shape;
        op.output_letters = w.dims;
        for (size_t k = 0; k < op.inputs.size(); ++k) {
          TensorSpec& t = model_.tensors[op.inputs[k]];
          const size_t skip = w.shape.size() - t.shape.size();
          if (!std::equal(t.shape.begin(), t.shape.end(), w.shape.begin() + skip)) {
            return inputs[k].error("a tensor whose shape broadcasts to " + shape_text(w.shape) +
                                       " (equal to its trailing dimensions)",
                                   t.name + " of shape " + shape_text(t.shape));
          }
          if (t.dims.empty()) t.dims = w.dims.substr(skip);  // named by alignment
          op.input_letters.push_back(w.dims.substr(skip));
        }
        break;
      }
      case OpKind::kReduce:
      case OpKind::kSoftmax:
      case OpKind::kLayernorm: {
        if (!(s = input_count(1, 1)).is_ok()) return s;
        const TensorSpec& t = model_.tensors[op.inputs[0]];
        if (t.dims.empty()) return unnamed(inputs[0], t);
        if (op.text.size() != 1 || t.dims.find(op.text[0]) == std::string::npos) {
          return kind_at.error("one of the dimension names of " + t.name + " " + quoted(t.dims),
                               quoted(op.text));
        }
        op.along = op.text[0];
        op.input_letters.push_back(t.dims);
        for (size_t d = 0; d < t.dims.size(); ++d) {
          if (op.kind == OpKind::kReduce && t.dims[d] == op.along) continue;
          op.output_letters += t.dims[d];
          out_shape.push_back(t.shape[d]);
        }
        if (out_shape.empty()) {
          return kind_at.error(
              "a tensor of rank 2 or more to reduce (a scalar result has no "
              "dimension to shard)",
              t.name + " of shape " + shape_text(t.shape));
        }
        break;
      }
    }
    op.flops_per_element = default_flops(op.kind, op.text);
    if (at.has("flops_per_element")) {
      Result<double> f = at["flops_per_element"].number(0, 1e6);
      if (!f.is_ok()) return f.status();
      op.flops_per_element = f.value();
    }
    if (at.has("flops")) {
      if (op.kind != OpKind::kEinsum) {
        return at["flops"].error("\"flops\" on einsums only (other ops take flops_per_element)",
                                 "it on " + std::string(kind_key));
      }
      Result<double> f = at["flops"].number(0, 1e30);
      if (!f.is_ok()) return f.status();
      op.flops = f.value();
    }
    const int64_t out_bytes = tensor_bytes(out_shape, model_.dtype_bytes);
    if (out_bytes < 0) {
      return kind_at.error("an output of at most 2^53 bytes",
                           size_text(out_shape, model_.dtype_bytes));
    }
    if ((total_bytes_ += out_bytes) > kMaxModelBytes) {
      return kind_at.error("tensors of at most 2^56 bytes in all",
                           std::to_string(total_bytes_) + " bytes up to here");
    }
    TensorSpec out;
    out.name = op.name;
    out.shape = std::move(out_shape);
    out.dims = op.output_letters;
    out.dtype_bytes = model_.dtype_bytes;
    out.producer = static_cast<int32_t>(model_.ops.size());
    op.output = static_cast<int32_t>(model_.tensors.size());
    tensor_at_.push_back(kind_at);
    op_at_.push_back(kind_at);
    model_.tensors.push_back(std::move(out));
    model_.ops.push_back(std::move(op));
    return Status::ok();
  }

  static Status unnamed(const JsonAt& at, const TensorSpec& t) {
    return at.error("a tensor whose dimensions have names (give tensors." + t.name +
                        ".dims, or use it in an einsum)",
                    quoted(t.name));
  }

  std::string later_op_note(const std::string& name) const {
    const JsonAt ops = root_["ops"];
    for (size_t i = 0; i < ops.size(); ++i) {
      if (ops[i]["name"].is(Kind::kString) && ops[i]["name"].value().text == name) {
        return " (ops[" + std::to_string(i) + "] comes later: list ops inputs first)";
      }
    }
    return "";
  }

  // ---- pinned input layouts and the batch letter ---------------------------

  Status read_layouts() {
    const MeshSpec& mesh = model_.mesh;
    for (const auto& [index, at] : layouts_) {
      TensorSpec& t = model_.tensors[index];
      Status s = at.expect(Kind::kObject);
      if (!s.is_ok()) return s;
      if (t.dims.empty()) return unnamed(at, t);
      t.pinned.assign(mesh.rank(), -1);
      const std::vector<std::string> keys = at.keys();
      for (size_t i = 0; i < keys.size(); ++i) {
        const JsonAt entry = at.member(i);
        const size_t dim = keys[i].size() == 1 ? t.dims.find(keys[i][0]) : std::string::npos;
        if (dim == std::string::npos) {
          return entry.error("a key among the dimension names of " + t.name + " " + quoted(t.dims),
                             "the key " + quoted(keys[i]));
        }
        std::vector<JsonAt> names;
        if (entry.is(Kind::kArray)) {
          for (size_t k = 0; k < entry.size(); ++k) names.push_back(entry[k]);
        } else {
          names.push_back(entry);
        }
        int64_t split = 1;
        for (const JsonAt& name_at : names) {
          Result<std::string> name = name_at.string();
          if (!name.is_ok()) return name.status();
          const auto it = std::find(mesh.axes.begin(), mesh.axes.end(), name.value());
          if (it == mesh.axes.end()) return name_at.error("a mesh axis name");
          const size_t axis = static_cast<size_t>(it - mesh.axes.begin());
          if (t.pinned[axis] >= 0) {
            return name_at.error("each mesh axis once", quoted(name.value()) + " a second time");
          }
          t.pinned[axis] = static_cast<int32_t>(dim);
          split *= mesh.shape[axis];
        }
        if (t.shape[dim] % split != 0) {
          return entry.error("axes whose sizes divide " + t.name + ".shape[" + std::to_string(dim) +
                                 "] = " + std::to_string(t.shape[dim]),
                             std::to_string(split) + " shards");
        }
      }
    }
    return Status::ok();
  }

  Status read_batch() {
    if (root_.has("batch")) {
      Result<std::string> batch = root_["batch"].string();
      if (!batch.is_ok()) return batch.status();
      bool known = false;
      for (const TensorSpec& t : model_.tensors) {
        known = known ||
                (batch.value().size() == 1 && t.dims.find(batch.value()[0]) != std::string::npos);
      }
      if (!known) return root_["batch"].error("a dimension letter used by the model");
      model_.batch = batch.value()[0];
      return Status::ok();
    }
    for (const TensorSpec& t : model_.tensors) {
      if (t.producer < 0 && !t.parameter && !t.dims.empty()) {
        model_.batch = t.dims[0];
        break;
      }
    }
    return Status::ok();
  }

  // ---- sizes and costs within int64 ----------------------------------------

  // The largest values the generator computes, bounded in doubles before it
  // forms them in int64 (tensor bytes are capped as they are read): a generous bound on every
  // nanosecond the instance can charge (each op's forward and backward
  // compute on one device, and each tensor moved by up to four collectives
  // for each of its uses and its gradient, over the slowest link).
  Status check_magnitudes() const {
    const MeshSpec& mesh = model_.mesh;
    double slowest = mesh.bandwidth_GBps.empty() ? 1 : mesh.bandwidth_GBps[0];
    double latency = 0;
    for (double b : mesh.bandwidth_GBps) slowest = std::min(slowest, b);
    for (double l : mesh.latency_us) latency = std::max(latency, l);
    // The rates the generator prices with (collectives.cpp): both
    // efficiencies scale them down, so they scale the costs up.
    slowest *= mesh.comm_efficiency;
    const double tflops = mesh.device_tflops * mesh.matmul_efficiency;
    std::vector<int32_t> uses(model_.tensors.size(), 0);
    for (const OpSpec& op : model_.ops) {
      for (int32_t t : op.inputs) ++uses[t];
    }
    double total_ns = 0;
    for (size_t t = 0; t < model_.tensors.size() && t < tensor_at_.size(); ++t) {
      const TensorSpec& spec = model_.tensors[t];
      double elements = 1;
      for (int64_t d : spec.shape) elements *= static_cast<double>(d);
      const double bytes = elements * spec.dtype_bytes;
      total_ns += 4.0 * (uses[t] + 2) * (2 * bytes / slowest + latency * 1e3);
      if (total_ns > kMaxModelNs) {
        return tensor_at_[t].error(
            "a model whose costs fit 64-bit nanoseconds (at most " + scientific(kMaxModelNs) +
                " ns of communication and compute in all)",
            "a tensor of " + scientific(bytes) + " bytes over links of " + scientific(slowest) +
                " GB/s (about " + scientific(2 * bytes / slowest) + " ns per collective)");
      }
    }
    for (size_t i = 0; i < model_.ops.size() && i < op_at_.size(); ++i) {
      const OpSpec& op = model_.ops[i];
      const double flops = op_flops(op);
      total_ns += 3 * flops / (tflops * 1e3);
      if (total_ns > kMaxModelNs) {
        return op_at_[i].error("a model whose costs fit 64-bit nanoseconds (at most " +
                                   scientific(kMaxModelNs) +
                                   " ns of communication and compute in all)",
                               "an op of " + scientific(flops) + " floating-point operations at " +
                                   scientific(tflops) + " TFLOP/s (about " +
                                   scientific(flops / (tflops * 1e3)) + " ns)");
      }
    }
    return Status::ok();
  }

  // An upper bound on an op's forward work: 2 per point of an einsum's
  // index space, the function's work per element otherwise.
  // An op's forward work as graph.cpp prices it: the einsum's "flops" when
  // given, else its points times the flops per element.
  double op_flops(const OpSpec& op) const {
    if (op.flops >= 0) return op.flops;
    double points = 1;
    std::string letters;
    for (size_t k = 0; k < op.inputs.size(); ++k) {
      const TensorSpec& t = model_.tensors[op.inputs[k]];
      for (size_t d = 0; d < t.shape.size(); ++d) {
        const char letter = k < op.input_letters.size() && d < op.input_letters[k].size()
                                ? op.input_letters[k][d]
                                : static_cast<char>(0);
        if (letter != 0 && letters.find(letter) != std::string::npos) continue;
        if (letter != 0) letters += letter;
        points *= static_cast<double>(t.shape[d]);
      }
    }
    return std::max(2.0, op.flops_per_element) * points;
  }

  Status read_sequence() {
    if (!root_.has("sequence")) return Status::ok();
    Result<std::string> letter = root_["sequence"].string();
    if (!letter.is_ok()) return letter.status();
    bool known = false;
    for (const TensorSpec& t : model_.tensors) {
      known = known ||
              (letter.value().size() == 1 && t.dims.find(letter.value()[0]) != std::string::npos);
    }
    if (!known) return root_["sequence"].error("a dimension letter used by the model");
    model_.sequence = letter.value()[0];
    return Status::ok();
  }

  // ---- the repeated block --------------------------------------------------

  int32_t find_op(const std::string& name) const {
    for (size_t i = 0; i < model_.ops.size(); ++i) {
      if (model_.ops[i].name == name) return static_cast<int32_t>(i);
    }
    return -1;
  }

  Result<int32_t> op_named(const JsonAt& at) const {
    Result<std::string> name = at.string();
    if (!name.is_ok()) return name.status();
    const int32_t op = find_op(name.value());
    if (op < 0) return at.error("the name of an op");
    return op;
  }

  std::string op_list(int32_t first, int32_t last) const {
    return model_.ops[first].name + " .. " + model_.ops[last].name;
  }

  Status read_repeat(const JsonAt& at) {
    Status s = at.expect(Kind::kObject);
    if (!s.is_ok()) return s;
    if (!(s = at.only_keys({"first", "last", "times", "input"})).is_ok()) return s;
    RepeatSpec r;
    Result<int32_t> first = op_named(at["first"]);
    if (!first.is_ok()) return first.status();
    Result<int32_t> last = op_named(at["last"]);
    if (!last.is_ok()) return last.status();
    r.first = first.value();
    r.last = last.value();
    if (r.last < r.first) {
      return at["last"].error(
          "an op at or after repeat.first (" + model_.ops[r.first].name + ", ops[" +
              std::to_string(r.first) + "])",
          quoted(model_.ops[r.last].name) + " (ops[" + std::to_string(r.last) + "])");
    }
    Result<int64_t> times = at["times"].integer(1, 1000000);
    if (!times.is_ok()) return times.status();
    r.times = times.value();
    // The tensors the block reads from outside it that are not parameters:
    // one is the block's input (what the previous repetition's output
    // replaces); the others (a mask, say) every repetition shares.
    std::vector<int32_t> outside;
    for (int32_t i = r.first; i <= r.last; ++i) {
      for (int32_t t : model_.ops[i].inputs) {
        const TensorSpec& spec = model_.tensors[t];
        const bool inside = spec.producer >= r.first && spec.producer <= r.last;
        if (spec.parameter || inside) continue;
        if (std::find(outside.begin(), outside.end(), t) == outside.end()) outside.push_back(t);
      }
    }
    std::string names;
    for (int32_t t : outside) names += (names.empty() ? "" : ", ") + model_.tensors[t].name;
    if (at.has("input")) {
      Result<std::string> name = at["input"].string();
      if (!name.is_ok()) return name.status();
      const int32_t t = model_.find_tensor(name.value());
      if (t < 0 || std::find(outside.begin(), outside.end(), t) == outside.end()) {
        return at["input"].error(
            outside.empty() ? "a tensor the block reads from outside it (it reads none)"
                            : "a tensor the block reads from outside it (one of " + names + ")");
      }
      r.input = t;
    } else if (outside.size() == 1) {
      r.input = outside[0];
    } else if (outside.empty()) {
      return at.error("a block that reads a tensor from before it (its input)",
                      "none in " + op_list(r.first, r.last));
    } else {
      return at.error("\"input\": the block reads several tensors from outside it (" + names +
                          "); name the one the previous repetition's output replaces",
                      "no \"input\"");
    }
    const TensorSpec& input = model_.tensors[r.input];
    const TensorSpec& output = model_.tensors[model_.ops[r.last].output];
    if (output.shape != input.shape) {
      return at["last"].error("an op whose output has the shape of the block's input " +
                                  input.name + " " + shape_text(input.shape),
                              output.name + " of shape " + shape_text(output.shape));
    }
    // After the block, only its output may be read from inside it.
    const JsonAt ops = root_["ops"];
    for (size_t i = static_cast<size_t>(r.last) + 1; i < model_.ops.size(); ++i) {
      const OpSpec& op = model_.ops[i];
      for (size_t k = 0; k < op.inputs.size(); ++k) {
        const int32_t producer = model_.tensors[op.inputs[k]].producer;
        if (producer >= r.first && producer < r.last) {
          return ops[i]["inputs"][k].error(
              "a tensor from outside the repeated block, or its output (" +
                  model_.ops[r.last].name + ")",
              quoted(model_.tensors[op.inputs[k]].name) + " (inside the block " +
                  op_list(r.first, r.last) + ")");
        }
      }
    }
    // Earlier repetitions need the input's gradient.
    if (model_.training && r.times > 1 && input.producer < 0) {
      model_.tensors[r.input].requires_grad = true;
    }
    model_.repeat = r;
    return Status::ok();
  }

  JsonAt root_;
  ModelSpec model_;
  int64_t total_bytes_ = 0;  // declared tensors and op outputs so far (each below 2^53)
  std::vector<std::pair<int32_t, JsonAt>> layouts_;
  std::vector<JsonAt> tensor_at_;  // where each tensor's size is set (its shape, or its op)
  std::vector<JsonAt> op_at_;      // each op's kind key
};

}  // namespace

int64_t MeshSpec::devices() const {
  int64_t n = 1;
  for (int32_t s : shape) n *= s;
  return n;
}

const char* op_kind_name(OpKind kind) {
  switch (kind) {
    case OpKind::kEinsum:
      return "einsum";
    case OpKind::kElementwise:
      return "elementwise";
    case OpKind::kReduce:
      return "reduce";
    case OpKind::kSoftmax:
      return "softmax";
    case OpKind::kLayernorm:
      return "layernorm";
    case OpKind::kEmbedding:
      return "embedding";
  }
  return "?";
}

const char* cost_model_name(CostModel model) {
  switch (model) {
    case CostModel::kAlphaBeta:
      return "alpha-beta";
    case CostModel::kBandwidth:
      return "bandwidth";
    case CostModel::kCommunication:
      return "communication";
  }
  return "?";
}

Result<CostModel> parse_cost_model(const std::string& name) {
  for (CostModel m : {CostModel::kAlphaBeta, CostModel::kBandwidth, CostModel::kCommunication}) {
    if (name == cost_model_name(m)) return m;
  }
  return Status(
      StatusCode::kInvalidArgument,
      "unknown cost model '" + name + "' (expected alpha-beta, bandwidth or communication)");
}

int32_t ModelSpec::find_tensor(std::string_view name) const {
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (tensors[i].name == name) return static_cast<int32_t>(i);
  }
  return -1;
}

Result<ModelSpec> read_model(const std::string& source_name, std::string_view text) {
  json::Limits limits;
  limits.max_bytes = kMaxModelFileBytes;
  Result<json::Document> doc = json::Document::parse(source_name, text, limits);
  if (!doc.is_ok()) return doc.status();
  return Reader(doc.value()).read();
}

}  // namespace shardlab::teach
