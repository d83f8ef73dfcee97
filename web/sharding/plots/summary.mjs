// The summary view: instance sizes, distinct edge matrices, what presolve
// reduced (when the engine reports it), the time horizon, the limit and the
// minimum-possible peak; and one engine stats line (rounds, moves/s, wasm
// heap). Plain HTML, filled by app.mjs after a load and on progress.
import {bytes} from '../../format.mjs';
import {formatBytes, formatSeconds, groupDigits} from '../../plots/scales.mjs';

export function renderSummary(table, info, load) {
  const limit = info.hasLimit ? Number(info.limit) : null;
  const rows = [
    ['name', info.name || '(none)'],
    [
      'file',
      `${load.name}: ${formatBytes(load.fileBytes)}` +
          (load.gzip ? ` gzip, ${formatBytes(load.jsonBytes)} JSON` : '')
    ],
    ['sha256', load.sha256],
    ['nodes', groupDigits(info.nodes)],
    ['strategies', `${groupDigits(info.strategies)} (at most ${info.maxStrategies} per node)`],
    ['edges', groupDigits(info.edges)],
    ['edge matrices', `${groupDigits(info.matrices)} distinct`],
    [
      'time horizon',
      `[${info.horizon[0]}, ${info.horizon[1]}), ${
          groupDigits(info.checkpoints)} distinct interval starts`
    ],
    [
      'usage limit', limit === null ? 'none' : `${bytes(info.limit)} (${groupDigits(info.limit)} B)`
    ],
    [
      'min possible peak',
      `${bytes(info.minPeak)}` +
          (limit ? ` (${(Number(info.minPeak) / limit).toFixed(3)} of the limit)` : '')
    ],
    ['compact model', formatBytes(info.memoryBytes)],
    [
      'read',
      `${formatSeconds(load.seconds)}, ${
          (load.jsonBytes / 1e6 / Math.max(load.seconds, 1e-6)).toFixed(0)} MB/s of JSON in wasm`
    ],
    ['presolve', 'not reported by this engine'],
  ];
  table.textContent = '';
  for (const [key, value] of rows) {
    const tr = document.createElement('tr');
    const th = document.createElement('th');
    const td = document.createElement('td');
    th.textContent = key;
    td.textContent = value;
    if (key === 'presolve') td.id = 'summary-presolve';
    tr.append(th, td);
    table.append(tr);
  }
}

// The engine's presolve report (stats.presolve, when it has one) as text:
// "nodes 32 894 -> 4 405, edges 47 067 -> 13 488, ...; merged 27 530, ...".
export function presolveText(stats) {
  const p = stats && stats.presolve;
  if (!p || typeof p !== 'object') return null;
  const pairs = [
    ['nodes', 'original_nodes', 'core_nodes'], ['edges', 'original_edges', 'core_edges'],
    ['time points', 'original_times', 'core_times']
  ];
  const used = new Set();
  const parts = [];
  for (const [label, from, to] of pairs) {
    if (from in p && to in p) {
      parts.push(`${label} ${groupDigits(p[from])} \u2192 ${groupDigits(p[to])}`);
      used.add(from).add(to);
    }
  }
  const rest =
      Object.entries(p)
          .filter(([k, v]) => !used.has(k) && typeof v !== 'object')
          .map(([k, v]) => `${k.replace(/_/g, ' ')} ${typeof v === 'number' ? groupDigits(v) : v}`);
  return [parts.join(', '), rest.join(', ')].filter(Boolean).join('; ');
}

// One counter over all workers: numbers are summed, text (a phase) is worker 0's.
function counter(live, key) {
  const value = live[0].stats[key];
  const label = key.replace(/_/g, ' ');
  if (typeof value === 'string') return `${label} ${value}`;
  if (typeof value !== 'number') return null;
  return `${label} ${groupDigits(live.reduce((a, s) => a + Number(s.stats[key] || 0), 0))}`;
}

/** One line over all workers: rounds, moves/s, other counters and wasm heap. */
export function statsLine(perWorker) {
  const live = perWorker.filter(Boolean);
  if (!live.length) return '';
  let moves = 0;
  let heap = 0;
  let seconds = 0;
  for (const s of live) {
    moves += Number(s.stats.moves || 0);
    heap = Math.max(heap, s.heapBytes || 0);
    seconds = Math.max(seconds, s.elapsedS || 0);
  }
  const parts = Object.keys(live[0].stats)
                    .filter((k) => k !== 'moves')
                    .map((k) => counter(live, k))
                    .filter(Boolean);
  parts.splice(
      1, 0,
      `moves ${groupDigits(moves)} (${
          groupDigits(Math.round(moves / Math.max(seconds, 1e-3)))}/s)`);
  return `${live.length} engine${live.length > 1 ? 's' : ''}: ${parts.join(', ')}, ` +
      `wasm heap ${(heap / 1e6).toFixed(1)} MB per worker`;
}
