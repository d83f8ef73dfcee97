// The page's own copy of the model, in the page's wasm module, for the views:
// evaluation, usage profiles, live nodes at a time, cost shares, neighbours,
// and the CLI's result JSON. Columns come out once as typed arrays so the
// plots can read strategies and intervals without calling into wasm.
import {describeModel, importModel} from '../files.mjs';

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
    this.strategyBegin = this.model.column('strategy_begin');
    this.strategyCost = this.model.column('strategy_cost');
    this.strategyUsage = this.model.column('strategy_usage');
    this.lo = this.model.column('interval_lo');
    this.hi = this.model.column('interval_hi');
    this.minProfile = splitProfile(M.minUsageProfile(this.model));
  }

  numStrategies(v) {
    return this.strategyBegin[v + 1] - this.strategyBegin[v];
  }

  /** {verdict, feasible, message, cost, peak, peakTime, forbidden} */
  evaluate(plan) {
    if (!plan || plan.length !== this.info.nodes) {
      return {
        feasible: false,
        verdict: 'wrong_length',
        message:
            `the plan has ${plan ? plan.length : 0} entries, the instance ${this.info.nodes} nodes`
      };
    }
    for (let v = 0; v < plan.length; ++v) {
      if (!(plan[v] >= 0 && plan[v] < this.numStrategies(v))) {
        return {
          feasible: false,
          verdict: 'strategy_out_of_range',
          message: `node ${v} has no strategy ${plan[v]}`
        };
      }
    }
    return JSON.parse(this.M.evaluatePlan(this.model, plan));
  }

  profile(plan) {
    return splitProfile(this.M.usageProfile(this.model, plan));
  }

  liveNodes(plan, t) {
    return this.M.liveNodesAt(this.model, plan, t);
  }

  costShares(plan) {
    return this.M.costShares(this.model, plan);
  }

  /** [{node, cost}] for the edges of v under the plan. */
  neighbours(plan, v) {
    const flat = this.M.neighboursOf(this.model, plan, v);
    const out = [];
    for (let i = 0; i < flat.length; i += 2) out.push({node: flat[i], cost: flat[i + 1]});
    return out;
  }

  usageOf(plan, v) {
    return this.strategyUsage[this.strategyBegin[v] + plan[v]];
  }

  resultJson(plan, run, trace) {
    return this.M.resultJson(
        this.model, plan || new Int32Array(0), JSON.stringify(run), JSON.stringify(trace));
  }

  solutionLine(plan) {
    return this.M.solutionLine(plan || new Int32Array(0));
  }

  delete() {
    this.model.delete();
  }
}
