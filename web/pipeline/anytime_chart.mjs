// The planner's (or the MIP's) anytime curve: best makespan and lower bound
// over time with the gap on a log axis, as web/plots/cost_chart.mjs draws it
// for the sharding solver; the reference lines here are the lab's own (the
// best generated schedule, the planner's result beside the MIP's).
import {CostChart} from '../plots/cost_chart.mjs';

export class AnytimeChart extends CostChart {
  /** refs: [[label, makespan, color], ...] drawn as dashed lines. */
  setReferences(refs) {
    this.refs = refs;
    this.plot.request();
  }

  references() {
    return (this.refs || []).filter(([, v]) => Number.isFinite(v));
  }
}
