// When a search must return early: a wall-clock deadline (the page's time
// limit, the native --time-limit) and an interrupt flag (Ctrl-C, a portfolio
// stop). The Engine (core/sharding/solver.cpp) owns one; its long inner loops
// (message passing, repair, descent) poll it every few thousand entry visits
// and return their best so far. Until it trips, nothing reads it but the
// clock, so the search does exactly what it does without one.
#pragma once

#include <chrono>
#include <cstdint>

#include "core/progress.h"

namespace shardlab {

class Cutoff {
 public:
  // A deadline time_left_s from now; a negative or non-finite value removes it.
  void set_time_left(double time_left_s);
  void set_interrupt(const Interrupt* interrupt) {
    interrupt_ = interrupt;
    tripped_ = false;
  }
  bool armed() const { return has_deadline_ || interrupt_ != nullptr; }

  // True once the deadline has passed or the interrupt is set (reads the
  // clock at every call: for the places between rounds).
  bool reached() const {
    if (tripped_) return true;
    if (interrupt_ != nullptr && interrupt_->load(std::memory_order_relaxed))
      return tripped_ = true;
    if (has_deadline_ && std::chrono::steady_clock::now() >= deadline_) return tripped_ = true;
    return false;
  }

  // For inner loops: `visits` entry visits were spent since the last call.
  // Reads the clock only once kPollVisits visits have added up (about 30
  // microseconds natively), so a poll per node or per move costs nothing.
  bool poll(int64_t visits) {
    if (!armed()) return false;
    if (tripped_) return true;
    pending_visits_ += visits < 1 ? 1 : visits;
    if (pending_visits_ < kPollVisits) return false;
    pending_visits_ = 0;
    return reached();
  }

  static constexpr int64_t kPollVisits = 1 << 15;

 private:
  bool has_deadline_ = false;
  std::chrono::steady_clock::time_point deadline_;
  const Interrupt* interrupt_ = nullptr;
  mutable bool tripped_ = false;  // sticky until the next set_*
  int64_t pending_visits_ = 0;
};

inline void Cutoff::set_time_left(double time_left_s) {
  tripped_ = false;
  pending_visits_ = 0;
  // (Written as a negated comparison so NaN also removes the deadline.)
  has_deadline_ = time_left_s >= 0 && time_left_s < 1e15;
  if (!has_deadline_) return;
  deadline_ = std::chrono::steady_clock::now() +
              std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                  std::chrono::duration<double>(time_left_s));
}

}  // namespace shardlab
