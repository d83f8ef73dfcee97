// The page's own copy of the model, in the page's wasm module, for the views:
// evaluation, usage profiles, live nodes at a time, cost shares, neighbours
// (core/sharding/inspect.h), and the CLI's result JSON. Columns come out once
// as typed arrays so the plots can read strategies and intervals without
// calling into wasm. Module calls return the one result shape; unwrap()
// throws the core's error.
import {describeModel, importModel} from '../files.mjs';
import {unwrap} from '../result.mjs';

// A step function from the bindings' [times..., usages...] layout.
function splitProfile(flat) {
  const n = flat.length / 2;
  return {times: flat.subarray(0, n), usage: flat.subarray(n)};
}

export class ModelView {
  constructor(M, exported) {
    this.M = M;
    this.model = importModel(M, exported);
    this.info = describeModel(this.model);
    const column = (name) => unwrap(this.model.column(name));
    this.strategyBegin = column('strategy_begin');
    this.strategyCost = column('strategy_cost');
    this.strategyUsage = column('strategy_usage');
    this.lo = column('interval_lo');
    this.hi = column('interval_hi');
    this.minProfile = splitProfile(unwrap(M.minUsageProfile(this.model)));
  }

  numStrategies(v) {
    return this.strategyBegin[v + 1] - this.strategyBegin[v];
  }

  /** {verdict, feasible, message, cost, peak, peakTime, forbidden} (any plan shape). */
  evaluate(plan) {
    return unwrap(this.M.evaluatePlan(this.model, plan || new Int32Array(0)));
  }

  profile(plan) {
    return splitProfile(unwrap(this.M.usageProfile(this.model, plan)));
  }

  liveNodes(plan, t) {
    return unwrap(this.M.liveNodesAt(this.model, plan, t));
  }

  costShares(plan) {
    return unwrap(this.M.costShares(this.model, plan));
  }

  /** [{node, cost}] for the edges of v under the plan. */
  neighbours(plan, v) {
    return unwrap(this.M.neighboursOf(this.model, plan, v));
  }

  usageOf(plan, v) {
    return this.strategyUsage[this.strategyBegin[v] + plan[v]];
  }

  /** run: {file, sha256, options, wall_time_s, stats, lower_bound, seconds, trace}. */
  resultJson(plan, run) {
    return unwrap(this.M.resultJson(this.model, plan || new Int32Array(0), JSON.stringify(run)));
  }

  solutionLine(plan) {
    return unwrap(this.M.solutionLine(plan || new Int32Array(0)));
  }

  delete() {
    this.model.delete();
  }
}
