// A plan of a teaching model as a runnable JAX script: a jax.sharding.Mesh of
// jax.devices() in the model's mesh shape and axis names, one
// NamedSharding(mesh, PartitionSpec(...)) per tensor (inputs, parameters,
// each op's output) and example arrays created in those shardings. Each
// layout is marked as forced by the user (--force, the page's chips), fixed
// by the model (an input's "layout") or chosen by the solver. One text for
// the CLI (`shardlab teach --jax FILE`, and "jax" in --json) and the page
// (teachExplain's "jax"), so both export the same script.
#pragma once

#include <string>

#include "core/teach/explain.h"
#include "core/teach/teach.h"

namespace shardlab::teach {

// The script for plan x of gen (explain()'s answer); solve says whether the
// plan is proven optimal. Tensor names and axis names are identifiers
// (model.h), so they are written as Python strings as they are.
std::string jax_script(const Generated& gen, const Explanation& x, const SolveSummary& solve);

}  // namespace shardlab::teach
