// The per-schedule order builders behind generators.h, one file per family:
// schedule_classic.cpp (GPipe, 1F1B, interleaved 1F1B), schedule_zb.cpp
// (ZB-H1, ZB-H2), schedule_zbv.cpp (ZBV), schedule_dualpipe.cpp (DualPipe,
// DualPipeV), schedule_chimera.cpp (Chimera), schedule_list.cpp (list),
// schedule_torch.cpp (PyTorch's own orders, named torch:...).
// Each takes an expansion already on the placement it needs (generators.cpp
// checks applicability) and returns the per-device order. Internal to
// core/pipeline/.
#pragma once

#include <string_view>

#include "core/pipeline/model.h"
#include "core/pipeline/simulate.h"
#include "core/status.h"

namespace shardlab::pipeline {

Order gpipe_order(const Expansion& e);         // linear
Order one_f_one_b_order(const Expansion& e);   // linear
Order interleaved_order(const Expansion& e);   // interleaved, m % p == 0
Order zb_h1_order(const Expansion& e);         // linear
Order zb_h2_order(const Expansion& e);         // linear
Result<Order> zbv_order(const Expansion& e);   // V-shape
Order dualpipe_order(const Expansion& e);      // bidirectional, p even, m even, m >= 2p
Order dualpipev_order(const Expansion& e);     // V-shape, m >= 2p
Order chimera_order(const Expansion& e);       // bidirectional, p even, m % p == 0
Result<Order> list_order(const Expansion& e);  // any
// PyTorch's order of `name` (torch:Interleaved1F1B and torch:InterleavedZeroBubble
// on the interleaved placement, torch:ZBVZeroBubble and torch:DualPipeV on the V).
Result<Order> torch_order(const Expansion& e, std::string_view name);

}  // namespace shardlab::pipeline
