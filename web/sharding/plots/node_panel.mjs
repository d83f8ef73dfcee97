// The node panel: for one node, a cost-vs-usage scatter of its strategies
// (the chosen one and the Pareto front highlighted), its live interval, and
// its neighbours with the edge costs the plan pays. Also lists the nodes a
// click in the memory view selected. Opened from strategy_view / memory_chart.
import {bytes, grouped} from '../../format.mjs';
import {COLORS, drawAxes, FONT} from '../../plots/canvas.mjs';
import {compactNumber, extent, linearScale} from '../../plots/scales.mjs';

const FORBIDDEN = 1e18;

// Indices of the strategies no other one beats on both cost and usage.
export function paretoFront(costs, usages) {
  const order = [...costs.keys()].filter((s) => costs[s] < FORBIDDEN);
  order.sort((a, b) => usages[a] - usages[b] || costs[a] - costs[b]);
  const front = [];
  let best = Infinity;
  for (const s of order) {
    if (costs[s] < best) {
      front.push(s);
      best = costs[s];
    }
  }
  return front;
}

function scatter(canvas, costs, usages, chosen, front) {
  const ratio = window.devicePixelRatio || 1;
  const width = canvas.clientWidth;
  const height = canvas.clientHeight;
  canvas.width = width * ratio;
  canvas.height = height * ratio;
  const ctx = canvas.getContext('2d');
  ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
  ctx.font = FONT;
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, width, height);
  const finite = costs.filter((c) => c < FORBIDDEN);
  const box = {left: 56, right: width - 8, top: 8, bottom: height - 18};
  const [ulo, uhi] = extent([usages], 0.08);
  const [clo, chi] = extent([finite.length ? finite : [0, 1]], 0.08);
  const x = linearScale(ulo, uhi, box.left, box.right);
  const y = linearScale(clo, chi, box.bottom, box.top);
  drawAxes(ctx, box, x, y, {xFormat: bytes, yFormat: compactNumber});
  const onFront = new Set(front);
  costs.forEach((c, s) => {
    if (c >= FORBIDDEN) return;
    ctx.fillStyle = s === chosen ? COLORS.chosen : onFront.has(s) ? COLORS.pareto : COLORS.muted;
    ctx.beginPath();
    ctx.arc(x(usages[s]), y(c), s === chosen ? 5 : 3, 0, 2 * Math.PI);
    ctx.fill();
  });
  ctx.fillStyle = COLORS.muted;
  ctx.textAlign = 'right';
  ctx.fillText('cost vs usage (orange: chosen, green: Pareto front)', box.right, box.top + 6);
}

function cell(tag, text) {
  const el = document.createElement(tag);
  el.textContent = text;
  return el;
}

export class NodePanel {
  /** onOpen(node) lets neighbour links open another node. */
  constructor(container, title, onOpen) {
    this.container = container;
    this.title = title;
    this.onOpen = onOpen;
  }

  clear(text = 'Click a node in the strategy view or a time in the memory view.') {
    this.title.textContent = 'Node';
    this.container.textContent = text;
  }

  link(node) {
    const a = cell('a', String(node));
    a.tabIndex = 0;
    a.addEventListener('click', () => this.onOpen(node));
    a.addEventListener('keydown', (e) => e.key === 'Enter' && this.onOpen(node));
    return a;
  }

  table(headers, rows) {
    const table = document.createElement('table');
    const head = document.createElement('tr');
    for (const h of headers) head.append(cell('th', h));
    table.append(head);
    for (const row of rows) {
      const tr = document.createElement('tr');
      for (const v of row) {
        const td = document.createElement('td');
        td.append(v instanceof Node ? v : String(v));
        tr.append(td);
      }
      table.append(tr);
    }
    return table;
  }

  showNode(view, plan, v) {
    const begin = view.strategyBegin[v];
    const k = view.numStrategies(v);
    const costs = Array.from(view.strategyCost.subarray(begin, begin + k));
    const usages = Array.from(view.strategyUsage.subarray(begin, begin + k));
    const front = paretoFront(costs, usages);
    const forbidden = costs.filter((c) => c >= FORBIDDEN).length;
    this.title.textContent = `Node ${v}`;
    this.container.textContent = '';
    this.container.append(cell(
        'p',
        `live on [${grouped(view.lo[v])}, ${grouped(view.hi[v])}); strategy ${plan[v]} of ${k} ` +
            `(cost ${grouped(costs[plan[v]])}, usage ${bytes(usages[plan[v]])}); ${
                front.length} on the Pareto front` +
            (forbidden ? `, ${forbidden} forbidden` : '')));
    const canvas = document.createElement('canvas');
    this.container.append(canvas);
    scatter(canvas, costs, usages, plan[v], front);
    const neighbours = view.neighbours(plan, v).sort((a, b) => b.cost - a.cost);
    this.container.append(cell('p', `${neighbours.length} neighbours, by edge cost paid:`));
    this.container.append(this.table(
        ['neighbour', 'its strategy', 'edge cost'],
        neighbours.slice(0, 200).map((n) => [this.link(n.node), plan[n.node], grouped(n.cost)])));
  }

  showLive(view, plan, t, nodes) {
    this.title.textContent = `${grouped(nodes.length)} nodes live at t = ${grouped(t)}`;
    this.container.textContent = '';
    const rows = Array.from(
        nodes.slice(0, 500), (v) => [this.link(v), bytes(view.usageOf(plan, v)), plan[v]]);
    this.container.append(this.table(['node', 'usage', 'strategy'], rows));
  }
}
