// Problem invariants and derived index arrays (adjacency, time checkpoints).
// finalize() is the single place that decides whether a model is usable; the
// streaming reader reports positional errors first, this re-checks the rest.
#include "core/sharding/model.h"

#include <algorithm>

namespace shardlab {

std::string to_decimal(Int128 value) {
  if (value == 0) return "0";
  bool negative = value < 0;
  unsigned __int128 magnitude =
      negative ? -static_cast<unsigned __int128>(value) : static_cast<unsigned __int128>(value);
  std::string digits;
  while (magnitude > 0) {
    digits.push_back(static_cast<char>('0' + static_cast<int>(magnitude % 10)));
    magnitude /= 10;
  }
  if (negative) digits.push_back('-');
  std::reverse(digits.begin(), digits.end());
  return digits;
}

Time Problem::horizon_begin() const {
  return checkpoint_time.empty() ? 0 : checkpoint_time.front();
}

Time Problem::horizon_end() const {
  Time end = 0;
  for (Time hi : interval_hi) end = std::max(end, hi);
  return end;
}

namespace {

Status invalid(const std::string& message) { return Status(StatusCode::kInvalidInput, message); }

// Usages and finite costs are summed in int64 by the incremental structures,
// so the model promises both worst-case totals stay below 2^62.
constexpr Int128 kTotalLimit = Int128(1) << 62;

}  // namespace

Status Problem::finalize() {
  const int32_t n = num_nodes();
  if (n == 0) return invalid("the instance has no nodes");
  if (static_cast<int32_t>(interval_hi.size()) != n ||
      static_cast<int32_t>(strategy_begin.size()) != n + 1 || strategy_begin.front() != 0 ||
      strategy_begin.back() != static_cast<int64_t>(strategy_cost.size()) ||
      strategy_cost.size() != strategy_usage.size()) {
    return invalid("node arrays have inconsistent sizes");
  }
  Int128 usage_total = 0;
  Int128 cost_total = 0;
  for (int32_t v = 0; v < n; ++v) {
    if (num_strategies(v) <= 0) {
      return invalid("node " + std::to_string(v) + " has no strategies");
    }
    if (interval_hi[v] < interval_lo[v]) {
      return invalid("node " + std::to_string(v) + " has an interval with hi " +
                     std::to_string(interval_hi[v]) + " < lo " + std::to_string(interval_lo[v]));
    }
    Usage max_usage = 0;
    Cost max_cost = 0;
    for (int32_t s = 0; s < num_strategies(v); ++s) {
      if (node_usage(v, s) < 0) {
        return invalid("node " + std::to_string(v) + " has a negative usage");
      }
      if (node_cost(v, s) < 0) {
        return invalid("node " + std::to_string(v) + " has a negative cost");
      }
      max_usage = std::max(max_usage, node_usage(v, s));
      if (!is_forbidden(node_cost(v, s))) {
        max_cost = std::max(max_cost, node_cost(v, s));
      }
    }
    usage_total += max_usage;
    cost_total += max_cost;
  }
  if (usage_total >= kTotalLimit) {
    return invalid("the usages can total more than 2^62, which is not supported");
  }
  const int32_t m = num_edges();
  if (static_cast<int32_t>(edge_v.size()) != m || static_cast<int32_t>(edge_matrix.size()) != m ||
      matrix_begin.empty() || matrix_begin.front() != 0 ||
      matrix_begin.back() != static_cast<int64_t>(matrix_cost.size())) {
    return invalid("edge arrays have inconsistent sizes");
  }
  std::vector<Cost> matrix_max(num_matrices(), 0);
  for (int32_t k = 0; k < num_matrices(); ++k) {
    for (int64_t i = matrix_begin[k]; i < matrix_begin[k + 1]; ++i) {
      if (matrix_cost[i] < 0) {
        return invalid("edge matrix " + std::to_string(k) + " has a negative cost");
      }
      if (!is_forbidden(matrix_cost[i])) {
        matrix_max[k] = std::max(matrix_max[k], matrix_cost[i]);
      }
    }
  }
  for (int32_t e = 0; e < m; ++e) {
    const int32_t u = edge_u[e];
    const int32_t v = edge_v[e];
    if (u < 0 || u >= n || v < 0 || v >= n) {
      return invalid("edge " + std::to_string(e) + " names a node out of range");
    }
    if (u == v) {
      return invalid("edge " + std::to_string(e) + " joins node " + std::to_string(u) +
                     " to itself");
    }
    const int32_t k = edge_matrix[e];
    if (k < 0 || k >= num_matrices() ||
        matrix_begin[k + 1] - matrix_begin[k] !=
            static_cast<int64_t>(num_strategies(u)) * num_strategies(v)) {
      return invalid("edge " + std::to_string(e) + " has a cost matrix of the wrong size");
    }
    cost_total += matrix_max[k];
  }
  if (cost_total >= kTotalLimit) {
    return invalid("the finite costs can total more than 2^62, which is not supported");
  }
  if (has_usage_limit && usage_limit < 0) {
    return invalid("the usage limit is negative");
  }

  build_incidence(n, edge_u, edge_v, &adj_begin, &adj_edge);

  // Checkpoints: distinct starts of non-empty intervals.
  checkpoint_time.clear();
  for (int32_t v = 0; v < n; ++v) {
    if (interval_lo[v] < interval_hi[v]) checkpoint_time.push_back(interval_lo[v]);
  }
  std::sort(checkpoint_time.begin(), checkpoint_time.end());
  checkpoint_time.erase(std::unique(checkpoint_time.begin(), checkpoint_time.end()),
                        checkpoint_time.end());
  checkpoint_time.shrink_to_fit();
  checkpoint_lo.assign(n, 0);
  checkpoint_hi.assign(n, 0);
  for (int32_t v = 0; v < n; ++v) {
    if (interval_lo[v] >= interval_hi[v]) continue;  // empty: covers nothing
    checkpoint_lo[v] = static_cast<int32_t>(
        std::lower_bound(checkpoint_time.begin(), checkpoint_time.end(), interval_lo[v]) -
        checkpoint_time.begin());
    checkpoint_hi[v] = static_cast<int32_t>(
        std::lower_bound(checkpoint_time.begin(), checkpoint_time.end(), interval_hi[v]) -
        checkpoint_time.begin());
  }
  return Status::ok();
}

int64_t Problem::memory_bytes() const {
  auto bytes = [](const auto& vec) { return static_cast<int64_t>(vec.size() * sizeof(vec[0])); };
  return bytes(strategy_begin) + bytes(strategy_cost) + bytes(strategy_usage) + bytes(interval_lo) +
         bytes(interval_hi) + bytes(edge_u) + bytes(edge_v) + bytes(edge_matrix) +
         bytes(matrix_begin) + bytes(matrix_cost) + bytes(adj_begin) + bytes(adj_edge) +
         bytes(checkpoint_time) + bytes(checkpoint_lo) + bytes(checkpoint_hi) +
         static_cast<int64_t>(name.size());
}

int32_t ProblemBuilder::add_node(Time lo, Time hi, const std::vector<Cost>& costs,
                                 const std::vector<Usage>& usages) {
  if (problem.strategy_begin.empty()) problem.strategy_begin.push_back(0);
  problem.interval_lo.push_back(lo);
  problem.interval_hi.push_back(hi);
  problem.strategy_cost.insert(problem.strategy_cost.end(), costs.begin(), costs.end());
  problem.strategy_usage.insert(problem.strategy_usage.end(), usages.begin(), usages.end());
  problem.strategy_begin.push_back(static_cast<int32_t>(problem.strategy_cost.size()));
  return problem.num_nodes() - 1;
}

void ProblemBuilder::add_edge(int32_t u, int32_t v, const std::vector<Cost>& costs) {
  if (problem.matrix_begin.empty()) problem.matrix_begin.push_back(0);
  int32_t found = -1;
  for (int32_t k = 0; k < problem.num_matrices() && found < 0; ++k) {
    const int64_t b = problem.matrix_begin[k];
    if (problem.matrix_begin[k + 1] - b == static_cast<int64_t>(costs.size()) &&
        std::equal(costs.begin(), costs.end(), problem.matrix_cost.begin() + b)) {
      found = k;
    }
  }
  if (found < 0) {
    problem.matrix_cost.insert(problem.matrix_cost.end(), costs.begin(), costs.end());
    problem.matrix_begin.push_back(static_cast<int64_t>(problem.matrix_cost.size()));
    found = problem.num_matrices() - 1;
  }
  problem.edge_u.push_back(u);
  problem.edge_v.push_back(v);
  problem.edge_matrix.push_back(found);
}

void ProblemBuilder::set_usage_limit(Usage limit) {
  problem.has_usage_limit = true;
  problem.usage_limit = limit;
}

Result<Problem> ProblemBuilder::build() {
  if (problem.strategy_begin.empty()) problem.strategy_begin.push_back(0);
  if (problem.matrix_begin.empty()) problem.matrix_begin.push_back(0);
  for (Cost& c : problem.strategy_cost) c = std::min(c, kForbidden);
  for (Cost& c : problem.matrix_cost) c = std::min(c, kForbidden);
  Status status = problem.finalize();
  if (!status.is_ok()) return status;
  return std::move(problem);
}

void build_incidence(int32_t n, const std::vector<int32_t>& edge_u,
                     const std::vector<int32_t>& edge_v, std::vector<int32_t>* adj_begin,
                     std::vector<int32_t>* adj_edge) {
  const auto m = static_cast<int32_t>(edge_u.size());
  adj_begin->assign(n + 1, 0);
  for (int32_t e = 0; e < m; ++e) {
    ++(*adj_begin)[edge_u[e] + 1];
    ++(*adj_begin)[edge_v[e] + 1];
  }
  for (int32_t v = 0; v < n; ++v) (*adj_begin)[v + 1] += (*adj_begin)[v];
  adj_edge->assign((*adj_begin)[n], 0);
  std::vector<int32_t> fill(adj_begin->begin(), adj_begin->end() - 1);
  for (int32_t e = 0; e < m; ++e) {
    (*adj_edge)[fill[edge_u[e]]++] = e;
    (*adj_edge)[fill[edge_v[e]]++] = e;
  }
}

}  // namespace shardlab
