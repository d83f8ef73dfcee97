// The summary view: instance sizes, distinct edge matrices, what presolve
// reduced (when the engine reports it), the time horizon, the limit and the
// minimum-possible peak; and one engine stats line (rounds, moves/s, wasm
// heap). Plain HTML, filled by app.mjs after a load and on progress.
import {formatBytes, formatSeconds, groupDigits} from './scales.mjs';

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
    ['usage limit', limit === null ? 'none' : groupDigits(info.limit)],
    [
      'min possible peak',
      groupDigits(info.minPeak) +
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

// Stats fields whose names mention presolve go to the summary's presolve row.
export function presolveText(stats) {
  const parts =
      Object.entries(stats || {})
          .filter(([k]) => /presolve|reduced|merged/.test(k))
          .map(
              ([k, v]) =>
                  `${k.replace(/_/g, ' ')}: ${typeof v === 'object' ? JSON.stringify(v) : v}`);
  return parts.length ? parts.join(', ') : null;
}

/** One line over all workers: rounds, moves/s, steps/s and wasm heap. */
export function statsLine(perWorker) {
  const live = perWorker.filter(Boolean);
  if (!live.length) return '';
  let rounds = 0;
  let moves = 0;
  let heap = 0;
  let seconds = 0;
  for (const s of live) {
    rounds += Number(s.stats.rounds || 0);
    moves += Number(s.stats.moves || 0);
    heap = Math.max(heap, s.heapBytes || 0);
    seconds = Math.max(seconds, s.elapsedS || 0);
  }
  const others = Object.keys(live[0].stats)
                     .filter((k) => !['rounds', 'moves'].includes(k))
                     .map(
                         (k) => `${k.replace(/_/g, ' ')} ${
                             live.reduce((a, s) => a + Number(s.stats[k] || 0), 0)}`);
  return `${live.length} engine${live.length > 1 ? 's' : ''}: rounds ${groupDigits(rounds)}, ` +
      `moves ${groupDigits(moves)} (${
             groupDigits(Math.round(moves / Math.max(seconds, 1e-3)))}/s), ` +
      `${others.join(', ')}${others.length ? ', ' : ''}wasm heap ${
             (heap / 1e6).toFixed(1)} MB per worker`;
}
