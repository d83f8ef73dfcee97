// The readouts and the four views of one page: cost curve, memory profile,
// strategies with the node panel, and the summary. app.mjs calls reset() when
// an instance opens, improve() on every better plan or bound, and stats() on
// worker counters; views redraw the current best plan at most once a frame.
import {bytes, gapPercent, groupedExact} from '../format.mjs';
import {CostChart} from '../plots/cost_chart.mjs';
import {relativeGap} from '../plots/scales.mjs';

import {contestReference} from './data/contest_refs.mjs';
import {MemoryChart} from './plots/memory_chart.mjs';
import {NodePanel} from './plots/node_panel.mjs';
import {StrategyView} from './plots/strategy_view.mjs';
import {presolveText, renderSummary, statsLine} from './plots/summary.mjs';

const $ = (id) => document.getElementById(id);

export class Views {
  /** source() returns {view: ModelView|null, client: SolverClient}. */
  constructor(source) {
    this.source = source;
    this.pending = false;
    this.costChart = new CostChart($('cost-chart'));
    this.nodePanel = new NodePanel($('node-panel'), $('node-title'), (v) => this.openNode(v));
    this.strategyView = new StrategyView($('strategy-view'), (v) => this.openNode(v));
    this.memoryChart = new MemoryChart($('memory-chart'), $('memory-tooltip'), {
      liveNodes: (t) => this.view.liveNodes(this.plan, t),
      describe: (v) =>
          `node ${v}: usage ${bytes(this.view.usageOf(this.plan, v))} (strategy ${this.plan[v]})`,
      onSelect: (t, nodes) => this.nodePanel.showLive(this.view, this.plan, t, nodes),
    });
  }

  get view() {
    return this.source().view;
  }

  get plan() {
    const {best} = this.source().client;
    return best ? best.plan : null;
  }

  /** A new instance: empty views, its summary and its contest reference lines. */
  reset(load) {
    const {info} = this.view;
    $('instance-name').textContent = info.name || load.name;
    this.costChart.reset(contestReference(info));
    this.memoryChart.clear();
    this.strategyView.clear();
    this.nodePanel.clear();
    renderSummary($('summary'), info, load);
    this.showReadouts();
  }

  openNode(v) {
    if (this.view && this.plan) this.nodePanel.showNode(this.view, this.plan, v);
  }

  showReadouts() {
    const {client} = this.source();
    const best = client.best;
    // Costs and bounds are exact integers (decimal strings past 2^53): grouped in full.
    $('best-cost').textContent = best ? groupedExact(best.cost) : '';
    $('best-cost').dataset.value = best ? best.cost : '';
    $('lower-bound').textContent = this.view ? groupedExact(client.bound) : '';
    $('lower-bound').dataset.value = this.view ? client.bound : '';
    $('gap').textContent =
        best ? gapPercent(relativeGap(Number(best.cost), Number(client.bound))) : '';
  }

  /** A better plan or bound: {seconds, cost, bound}. */
  improve(best) {
    this.costChart.addOverall(best.seconds, best.cost, best.bound);
    this.showReadouts();
    this.schedule();
  }

  /** Counters from worker `index` (a progress or incumbent message). */
  stats(index, msg) {
    if (msg.type === 'incumbent' && msg.cost) {
      this.costChart.addEngineCost(index, msg.improvedS, msg.cost);
    }
    this.costChart.setTime(msg.elapsedS);
    $('engine-stats').textContent = statsLine(this.source().client.stats);
    const presolve = presolveText(msg.stats);
    if (presolve && $('summary-presolve')) $('summary-presolve').textContent = presolve;
  }

  // Memory and strategy views follow the best plan, once per animation frame.
  schedule() {
    if (this.pending) return;
    this.pending = true;
    requestAnimationFrame(() => {
      this.pending = false;
      const {view, plan} = this;
      if (!view || !plan) return;
      const check = view.evaluate(plan);
      this.memoryChart.setData({
        profile: view.profile(plan),
        floor: view.minProfile,
        limit: view.info.hasLimit ? Number(view.info.limit) : null,
        peak: {time: check.peakTime, usage: Number(check.peak)},
        horizon: view.info.horizon,
      });
      this.strategyView.setData(view, plan, view.costShares(plan));
    });
  }

  canvases() {
    return [
      ['cost', $('cost-chart')], ['memory', $('memory-chart')], ['strategies', $('strategy-view')]
    ];
  }
}
