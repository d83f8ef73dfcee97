// The plan's two tables: "why not ...?" (each textbook alternative, planned
// with its decisions pinned: its predicted step time against the plan's, or
// why it cannot run, e.g. "needs 93.1 GB per GPU") and the sizing sweep (the
// smallest GPU count that fits, and the best plan at 1, 2, 4, ... nodes).
// whyNotRows() and sweepRows() read the core's plan JSON into cell texts:
// pure; render*() fill tables.
import * as f from '../format.mjs';

import {planSummary} from './card.mjs';

/** [{name, fix, time, difference, plan, note, fits}] of the alternatives. */
export function whyNotRows(result) {
  return (result.alternatives || []).map((a) => {
    if (!a.applicable) {
      return {
        name: a.name,
        fix: a.fix,
        time: '–',
        difference: '–',
        plan: '',
        note: a.reason,
        fits: false
      };
    }
    if (!a.fits) {
      const needs = a.needs_bytes ? `needs ${f.bytes(a.needs_bytes)} per GPU` : '';
      return {
        name: a.name,
        fix: a.fix,
        time: '–',
        difference: '–',
        plan: '',
        note: needs || a.reason || 'does not fit',
        fits: false,
      };
    }
    return {
      name: a.name,
      fix: a.fix,
      time: f.seconds(a.step_time_s),
      difference: f.difference(a.difference),
      plan: planSummary(a.plan),
      note: '',
      fits: true,
    };
  });
}

/** [{gpus, time, plan, note, smallest, current}] of the sizing sweep. */
export function sweepRows(result) {
  const sizing = result.sizing || {};
  const current = result.cluster ? result.cluster.gpus : null;
  return (sizing.sweep || []).map((p) => ({
                                    gpus: f.grouped(p.gpus),
                                    time: p.fits ? f.seconds(p.step_time_s) : '–',
                                    plan: p.fits ? planSummary(p.plan) : '',
                                    note: p.fits      ? '' :
                                        p.needs_bytes ? `needs ${f.bytes(p.needs_bytes)} per GPU` :
                                                        'no plan fits',
                                    smallest: p.gpus === sizing.smallest_gpus,
                                    current: p.gpus === current,
                                  }));
}

/**
 * "The smallest GPU count that fits: 16 (2 nodes)." or what sizing found, or
 * why it was not done ("Sizing: not evaluated within the time limit.").
 */
export function sizingText(result) {
  const sizing = result.sizing || {};
  const perNode = result.cluster ? result.cluster.gpus_per_node : 0;
  if (!sizing.smallest_gpus && sizing.reason) return `Sizing: ${sizing.reason}.`;
  if (!sizing.smallest_gpus) return 'No GPU count that sizing tried fits this model.';
  const n = perNode ? sizing.smallest_gpus / perNode : 0;
  const nodes = n >= 1 ? ` (${f.grouped(n)} node${n === 1 ? '' : 's'})` : '';
  return `The smallest GPU count that fits: ${f.grouped(sizing.smallest_gpus)}${nodes}.`;
}

function row(cells, className = '') {
  const tr = document.createElement('tr');
  if (className) tr.className = className;
  for (const text of cells) {
    const td = document.createElement('td');
    td.textContent = text;
    tr.append(td);
  }
  return tr;
}

export function renderWhyNot(table, result) {
  table.tBodies[0].replaceChildren(...whyNotRows(result).map((r) => {
    const tr = row([r.name, r.time, r.difference, r.fits ? r.plan : r.note], r.fits ? '' : 'nofit');
    tr.title = r.fix ? `--fix ${r.fix}` : '';
    return tr;
  }));
}

export function renderSweep(table, result) {
  table.tBodies[0].replaceChildren(...sweepRows(result).map((r) => {
    const tr = row([r.gpus, r.time, r.plan || r.note]);
    if (r.current) tr.classList.add('current');
    if (r.smallest) tr.classList.add('smallest');
    return tr;
  }));
}
