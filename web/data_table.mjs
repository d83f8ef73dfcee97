// The data behind a canvas plot as a table a screen reader (or anyone) can
// read: a <details> "Data table" placed right after the canvas, filled from
// the chart's own numbers when opened and kept current while open (at most
// once a frame). Used by plots/cost_chart.mjs, sharding/plots/memory_chart.mjs,
// pipeline/timeline.mjs and plan/bars.mjs; a closed table costs nothing.

// Long series are thinned to this many rows (evenly, keeping the last).
export const MAX_ROWS = 200;

/** Evenly picks at most `max` of `n` indices, always keeping the last (pure). */
export function thinIndices(n, max = MAX_ROWS) {
  if (n <= max) return Array.from({length: n}, (_, i) => i);
  const out = [];
  for (let k = 0; k < max - 1; ++k) out.push(Math.floor((k * (n - 1)) / (max - 1)));
  out.push(n - 1);
  return out;
}

export class DataTable {
  /**
   * after: the element the table follows (a canvas); caption: what it shows;
   * read(): {columns: [names], rows: [[cells]]} or null when there is no data.
   */
  constructor(after, caption, read) {
    this.read = read;
    this.pending = false;
    this.details = document.createElement('details');
    this.details.className = 'data-table';
    const id = after.dataset.testid || after.id || 'plot';
    this.details.dataset.testid = `${id}-table`;
    const summary = document.createElement('summary');
    summary.textContent = `Data table: ${caption}`;
    this.wrap = document.createElement('div');
    this.wrap.className = 'table-wrap';
    this.wrap.tabIndex = 0;  // it scrolls: keyboards must reach it
    this.table = document.createElement('table');
    this.table.createCaption().textContent = caption;
    this.table.caption.className = 'visually-hidden';
    this.wrap.append(this.table);
    this.details.append(summary, this.wrap);
    after.after(this.details);
    this.details.addEventListener('toggle', () => this.refresh());
  }

  /** Redraws the table from read() when it is open (at most once a frame). */
  refresh() {
    if (!this.details.open || this.pending) return;
    this.pending = true;
    requestAnimationFrame(() => {
      this.pending = false;
      this.render();
    });
  }

  render() {
    const data = this.read();
    const head = document.createElement('thead');
    const body = document.createElement('tbody');
    if (!data || !data.rows.length) {
      body.insertRow().insertCell().textContent = 'no data yet';
    } else {
      const tr = head.insertRow();
      for (const name of data.columns) {
        const th = document.createElement('th');
        th.scope = 'col';
        th.textContent = name;
        tr.append(th);
      }
      for (const row of data.rows) {
        const line = body.insertRow();
        for (const cell of row) line.insertCell().textContent = String(cell);
      }
    }
    this.table.replaceChildren(this.table.caption, head, body);
  }
}
