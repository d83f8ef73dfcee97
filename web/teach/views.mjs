// The teaching lab's result views: the readouts, the per-op layout table
// (letters to mesh axes, the collectives each op and each edge into it
// pays, rows that changed since the last solve highlighted), parameters and
// inputs, every collective, the JAX script. Renders teachExplain's JSON
// (report.mjs reads it); lab.mjs calls render() after each solve.
import {grouped} from '../format.mjs';

import {backwardOf, changedNodes, changeLines, collectivesByTarget, collectiveText, dimsText, formatBytes, formatNs} from './report.mjs';

function cell(tr, text, className = '') {
  const td = document.createElement('td');
  td.textContent = text;
  if (className) td.className = className;
  tr.append(td);
  return td;
}

function fill(root, testid, rows) {
  const body = root.querySelector(`[data-testid=${testid}] tbody`);
  body.replaceChildren(...rows);
}

function listCell(tr, list) {
  const td = cell(tr, '');
  if (list.length === 0) {
    td.textContent = '–';
    td.className = 'none';
  }
  for (const c of list) {
    const div = document.createElement('div');
    div.textContent = collectiveText(c);
    td.append(div);
  }
}

// An op's own collectives and its backward ops'; `on` maps a node to its
// collectives, `backward` is backwardOf's.
function opCollectives(on, backward, name) {
  return [name, ...backward.get(name)].flatMap((n) => on.get(n) || []);
}

/**
 * Renders a report into root's elements (data-testid teach-...; another
 * prefix serves a copy of the markup elsewhere: the Plan tab's stage
 * layout uses 'plan-layout').
 */
export function render(root, report, previous, prefix = 'teach') {
  const as = (testid) => testid.replace(/^teach-/, `${prefix}-`);
  const q = (testid) => root.querySelector(`[data-testid=${as (testid)}]`);
  q('teach-textbook').textContent =
      report.textbook ? `Textbook: ${report.textbook}` : 'No textbook strategy matches (mixed)';
  q('teach-cost').textContent = `${formatNs(report.cost)} (${grouped(report.cost)} ns)`;
  q('teach-bound').textContent =
      `${formatNs(report.lower_bound)}${report.proven_optimal ? ' — proven optimal' : ''}`;
  const b = report.breakdown;
  q('teach-breakdown').textContent = `compute ${formatNs(b.compute_ns)} + op collectives ` +
      `${formatNs(b.op_collectives_ns)} + edge collectives ${formatNs(b.edge_collectives_ns)}`;
  q('teach-peak').textContent = `${formatBytes(report.peak_bytes_per_device)}` +
      (report.memory_limit_bytes ? ` of ${formatBytes(report.memory_limit_bytes)}` : '');
  q('teach-instance').textContent =
      `${grouped(report.instance.nodes)} nodes, ${grouped(report.instance.edges)} edges, ` +
      `${grouped(report.instance.strategies)} strategies`;
  q('teach-changes').replaceChildren(...changeLines(previous, report).map((line) => {
    const li = document.createElement('li');
    li.textContent = line;
    return li;
  }));

  const changed = previous ? changedNodes(previous, report) : new Set();
  const on = collectivesByTarget(report);
  const backward = backwardOf(report);
  const row = (name, entry) => {
    const tr = document.createElement('tr');
    tr.dataset.op = name;
    tr.dataset.changed = String(changed.has(name));
    if (changed.has(name)) tr.classList.add('changed');
    if (entry.forced) tr.classList.add('forced');
    return tr;
  };
  fill(root, as ('teach-ops'), Object.entries(report.ops).map(([name, op]) => {
    const tr = row(name, op);
    cell(tr, name);
    cell(tr, op.detail);
    cell(tr, op.strategy, 'strategy');
    cell(tr, dimsText(op.dims), 'dims');
    listCell(tr, opCollectives(on, backward, name));
    return tr;
  }));
  const tensors = [...Object.entries(report.parameters), ...Object.entries(report.inputs)];
  fill(root, as ('teach-params'), tensors.map(([name, t]) => {
    const tr = row(name, t);
    cell(tr, name);
    cell(tr, t.strategy, 'strategy');
    cell(tr, t.zero_stage === undefined ? '–' : String(t.zero_stage));
    cell(tr, t.partition_spec, 'dims');
    cell(tr, formatBytes(t.usage_bytes));
    listCell(tr, on.get(name) || []);
    return tr;
  }));
  fill(root, as ('teach-collectives'), report.collectives.map((c) => {
    const tr = document.createElement('tr');
    for (const text
             of [c.kind, [].concat(c.axis).join('+'), formatBytes(c.bytes), formatNs(c.ns), c.what,
                 c.on, c.pass]) {
      cell(tr, text);
    }
    return tr;
  }));
  const zero = report.zero_table;
  const names =
      ['data parallel (16P)', 'ZeRO-1 (4P + 12P/N)', 'ZeRO-2 (2P + 14P/N)', 'ZeRO-3 (16P/N)'];
  q('teach-zero-box').hidden = !zero;
  fill(
      root, as ('teach-zero'),
      zero ? zero.rows.map((row) => {
        const tr = document.createElement('tr');
        cell(tr, names[row.stage]);
        cell(tr, formatBytes(row.generator_bytes));
        cell(tr, formatBytes(row.formula_bytes));
        return tr;
      }) :
             []);
  // The core's script (core/teach/jax_export.h), as the CLI's --jax writes it.
  q('teach-jax').textContent = report.jax || '';
}

export function clear(root) {
  for (const id of ['teach-textbook', 'teach-changes', 'teach-jax', 'teach-force']) {
    root.querySelector(`[data-testid=${id}]`).replaceChildren();
  }
  for (const id
           of ['teach-cost', 'teach-bound', 'teach-breakdown', 'teach-peak', 'teach-instance']) {
    root.querySelector(`[data-testid=${id}]`).textContent = '–';
  }
  for (const id of ['teach-ops', 'teach-params', 'teach-collectives', 'teach-zero'])
    fill(root, id, []);
}
