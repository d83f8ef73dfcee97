// Semi-active timing of slots in per-device order: a slot is an op alone or
// an overlapped pair (its F, B and W together), and each starts as soon as
// the slot before it on its device has ended and every predecessor's result
// has arrived (a delay when it ran on another device; with
// PlanGraph::serial_links, also after the results sent before it on the
// same link, in the order the sender's slots are timed). The one loop behind
// time_orders (plan/graph.cpp) and the order search's candidates
// (plan/order_search.cpp).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/pipeline/plan/graph.h"

namespace shardlab::pipeline {

struct SlotOrder {
  // Filled by the caller, per op and per slot.
  std::vector<int32_t> slot_of;  // per op: its slot
  std::vector<int32_t> device;   // per slot
  std::vector<int32_t> next;     // per slot: the next slot on its device, or -1
  std::vector<int64_t> length;   // per slot
  // Scratch, and each slot's start once timed.
  std::vector<int32_t> waiting, queue;
  std::vector<int64_t> ready;
  std::vector<int64_t> link_free;  // serial links: when each (from, to) link is free
};

// Times the slots of `t`. `members(s, m)` writes slot s's ops into m[3] and
// returns how many; `visit(s, device, end)` sees slot s as it is timed
// (t->ready[s] its start), after the slot before it on its device, and
// returns false to stop. An arc inside a slot (a pair's B to its W) is not waited for.
// Returns the number of slots timed: fewer than all on a cycle between the
// orders and the arcs, or when visit stopped.
template <class Members, class Visit>
int32_t time_slots(const PlanGraph& g, SlotOrder* t, Members&& members, Visit&& visit) {
  const int32_t slots = static_cast<int32_t>(t->device.size());
  t->waiting.assign(slots, 0);
  t->ready.assign(slots, 0);
  // Raw views: the loop below is the order search's inner loop.
  int32_t* waiting = t->waiting.data();
  int64_t* ready = t->ready.data();
  const int32_t* slot_of = t->slot_of.data();
  const int32_t* device = t->device.data();
  const int32_t* next = t->next.data();
  const int64_t* length = t->length.data();
  std::vector<int32_t>& queue = t->queue;
  int64_t* link_free = nullptr;
  if (g.serial_links) {
    t->link_free.assign(static_cast<size_t>(g.devices) * g.devices, 0);
    link_free = t->link_free.data();
  }
  int32_t m[3];
  for (int32_t s = 0; s < slots; ++s) {
    if (next[s] >= 0) ++waiting[next[s]];
    const int32_t c = members(s, m);
    for (int32_t j = 0; j < c; ++j) {
      for (int32_t k = g.succ_begin[m[j]]; k < g.succ_begin[m[j] + 1]; ++k) {
        const PlanArc& a = g.arcs[g.succ_arc[k]];
        if (slot_of[a.to] == s && g.inner(a)) continue;
        ++waiting[slot_of[a.to]];
      }
    }
  }
  queue.clear();
  for (int32_t s = 0; s < slots; ++s) {
    if (waiting[s] == 0) queue.push_back(s);
  }
  int32_t done = 0;
  while (!queue.empty()) {
    const int32_t s = queue.back();
    queue.pop_back();
    const int64_t end = ready[s] + length[s];
    const int32_t d = device[s];
    if (!visit(s, d, end)) return done;
    ++done;
    const int32_t c = members(s, m);
    for (int32_t j = 0; j < c; ++j) {
      for (int32_t k = g.succ_begin[m[j]]; k < g.succ_begin[m[j] + 1]; ++k) {
        const PlanArc& a = g.arcs[g.succ_arc[k]];
        const int32_t to = slot_of[a.to];
        if (to == s && g.inner(a)) continue;
        int64_t at = end;
        if (device[to] != d) {
          // A device's slots are timed in its order, so its sends are too.
          at = end + a.delay;
          if (link_free) {
            int64_t& link = link_free[d * g.devices + device[to]];
            at = link = std::max(link, end) + a.delay;
          }
        }
        ready[to] = std::max(ready[to], at);
        if (--waiting[to] == 0) queue.push_back(to);
      }
    }
    const int32_t after = next[s];
    if (after >= 0) {
      ready[after] = std::max(ready[after], end);
      if (--waiting[after] == 0) queue.push_back(after);
    }
  }
  return done;
}

}  // namespace shardlab::pipeline
