// One progress record for every anytime engine (the sharding portfolio, the
// pipeline planner, the teaching lab's solve, the plan lab): data out through
// a sink, one interrupt in, after HiGHS's callback struct. The engines fill
// it; the CLI prints it, the wasm bindings hand it to the page as an object
// (web/protocol.mjs: progressPayload), so one curve and one Stop button serve
// every lab. Counters are an engine's own numbers, kept as structs here and
// serialised once at the edge (core/progress_json.h, wasm/result.h).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace shardlab {

// Named counters in the order an engine adds them: integers, reals, flags,
// words, nulls and groups of counters (e.g. the presolve's sizes).
class Counters {
 public:
  enum class Kind { kInt, kReal, kBool, kText, kNull, kGroup };
  struct Entry {
    std::string name;
    Kind kind = Kind::kNull;
    int64_t integer = 0;
    double real = 0;
    bool flag = false;
    std::string text;
    std::vector<Entry> group;
  };

  template <typename T>
  Counters& add(std::string name, T value) {
    Entry e;
    e.name = std::move(name);
    if constexpr (std::is_same_v<T, bool>) {
      e.kind = Kind::kBool;
      e.flag = value;
    } else if constexpr (std::is_integral_v<T>) {
      e.kind = Kind::kInt;
      e.integer = static_cast<int64_t>(value);
    } else if constexpr (std::is_floating_point_v<T>) {
      e.kind = Kind::kReal;
      e.real = static_cast<double>(value);
    } else if constexpr (std::is_same_v<std::decay_t<T>, Counters>) {
      e.kind = Kind::kGroup;
      e.group = std::move(value.entries_);
    } else {
      e.kind = Kind::kText;
      e.text = std::string(value);
    }
    set(std::move(e));
    return *this;
  }
  Counters& add_null(std::string name);
  // Sets every entry of `more`, in its order.
  Counters& append(const Counters& more);

  const std::vector<Entry>& entries() const { return entries_; }
  bool empty() const { return entries_.empty(); }
  // The entry of that name (groups are searched with a dotted path,
  // "presolve.core_nodes"), or null.
  const Entry* find(std::string_view path) const;

 private:
  void set(Entry entry);  // replaces an entry of the same name, else appends
  std::vector<Entry> entries_;
};

// (incumbent - bound) / incumbent, the gap every lab shows: 0 when the bound
// meets the incumbent (proven), 1 when nothing is known.
double relative_gap(bool found, double incumbent, double bound);

struct Progress {
  double elapsed_s = 0;   // solving time of the run (a resumed run keeps counting)
  bool found = false;     // an incumbent exists
  double incumbent = 0;   // its objective: a cost, a makespan (exact below 2^53)
  double bound = 0;       // the best proven lower bound on the objective
  double gap = 1;         // relative_gap(found, incumbent, bound)
  bool finished = false;  // nothing left to do: proven optimal or infeasible
  Counters counters;      // the engine's own numbers (phase, nodes, ...)
};

// Fills gap from the other fields; engines call it once per record.
Progress& with_gap(Progress& progress);

// What a sink answers: go on, or stop the run (as the interrupt does).
enum class SinkReply { kContinue, kStop };
// Called by the one-call loops after every improvement of the incumbent or
// the bound (and once at the start and the end).
using ProgressSink = std::function<SinkReply(const Progress&)>;
// Set from anywhere (a signal handler, another thread, the page's STOP);
// the loops check it between steps and return their best so far.
using Interrupt = std::atomic<bool>;

}  // namespace shardlab
