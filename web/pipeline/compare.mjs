// Schedules side by side: a table with one row per schedule (every generator
// the core lists, applicable or not with its reason, plus the planned and
// MIP schedules when they exist) giving makespan, both bubble metrics, peak
// memory, the closed form and the cap. A row's radio shows that schedule;
// its checkbox stacks it under the shown one on the same time scale. Rows
// sort by clicking a column head. compareRows() is pure (node-tested).
import {num, percent} from './readouts.mjs';

const max = (list) => (list && list.length ? Math.max(...list) : null);

/**
 * Table rows from the core's list ({name, applicable, reason, summary}) and
 * the simulated schedules by name (their numbers: the schedule JSON without
 * its ops is enough); an applicable one not there yet is being simulated;
 * extra (planned, mip) come last.
 */
export function compareRows(list, schedules, extra = []) {
  const rows = list.map((info) => {
    const s = schedules.get(info.name);
    const reason = !info.applicable ? info.reason : !s ? 'simulating\u2026' : s.error || '';
    return {...rowOf(info.name, s, reason, info.summary), pending: info.applicable && !s};
  });
  for (const s of extra) rows.push(rowOf(s.name, s, '', s.summary || ''));
  return rows;
}

function rowOf(name, s, reason, summary = '') {
  const ok = Boolean(s && !s.error && Number.isFinite(s.makespan));
  const totals =
      ok ? (s.peak_activation || []).map((a, d) => a + ((s.peak_parameter || [])[d] || 0)) : [];
  const cap = ok && s.mem_cap !== null && s.mem_cap !== undefined ? [].concat(s.mem_cap) : null;
  const fits = cap ? totals.every((t, d) => t <= cap[Math.min(d, cap.length - 1)] + 1e-9) : null;
  return {
    name,
    ok,
    reason,
    summary,
    makespan: ok ? s.makespan : null,
    globalTotal: ok ? s.bubble.global_total : null,
    globalRate: ok ? s.bubble.global_rate : null,
    spanTotal: ok ? s.bubble.span_total : null,
    spanRate: ok ? s.bubble.span_rate : null,
    peakAct: ok ? max(s.peak_activation) : null,
    peakParam: ok ? max(s.peak_parameter) : null,
    closedForm: ok && s.closed_form ? s.closed_form : null,
    fits,
    valid: ok ? s.valid !== false : null,
    placement: ok && s.problem ? s.problem.placement || '' : '',
  };
}

const COLUMNS = [
  ['name', 'schedule'],
  ['makespan', 'makespan'],
  ['globalTotal', 'bubble (global)'],
  ['spanTotal', 'bubble (span)'],
  ['peakAct', 'peak act'],
  ['peakParam', 'params'],
  ['closedForm', 'closed form'],
  ['fits', 'cap'],
];

export class CompareTable {
  /** onShow(name), onStack(name | null): the user's choices. */
  constructor(table, {onShow, onStack}) {
    this.table = table;
    this.onShow = onShow;
    this.onStack = onStack;
    this.rows = [];
    this.sortKey = null;
    this.shown = null;
    this.stacked = null;
  }

  /** New rows, and the shown and stacked ones when given (one render either way). */
  setRows(rows, shown = this.shown, stacked = this.stacked) {
    this.rows = rows;
    this.shown = shown;
    this.stacked = stacked;
    this.render();
  }

  select(shown, stacked) {
    this.shown = shown;
    this.stacked = stacked;
    this.render();
  }

  sorted() {
    if (!this.sortKey) return this.rows;
    const key = this.sortKey;
    const value = (r) => (key === 'name' ? r.name : r[key] === null ? Infinity : Number(r[key]));
    return [...this.rows].sort((a, b) => {
      const va = value(a);
      const vb = value(b);
      return va < vb ? -1 : va > vb ? 1 : 0;
    });
  }

  // Re-renders in place: the head when the sort changes, and only the rows
  // whose content changed (a schedule arriving replaces its own row), so the
  // browser styles and lays out a few new cells rather than the whole table
  // on every update while a large problem's schedules come in.
  render() {
    const table = this.table;
    const head = table.createTHead();
    if (this.headSort !== this.sortKey || !head.rows.length) {
      this.headSort = this.sortKey;
      head.replaceChildren();
      this.renderHead(head.insertRow());
    }
    // The best makespan among schedules that pass the check (within the cap).
    const best = Math.min(...this.rows.filter((r) => r.ok && r.valid).map((r) => r.makespan));
    const body = table.tBodies[0] || table.createTBody();
    const kept = this.rowCache || new Map();
    this.rowCache = new Map();
    const trs = this.sorted().map((r) => {
      const key =
          JSON.stringify([r, r.name === this.shown, r.name === this.stacked, r.makespan === best]);
      const old = kept.get(r.name);
      const tr = old && old.key === key ? old.tr : this.renderRow(r, best);
      this.rowCache.set(r.name, {key, tr});
      return tr;
    });
    // The replaced rows go first, so the kept ones never move.
    const next = new Set(trs);
    for (const tr of [...body.children]) {
      if (!next.has(tr)) tr.remove();
    }
    trs.forEach((tr, i) => {
      if (body.children[i] !== tr) body.insertBefore(tr, body.children[i] || null);
    });
  }

  renderHead(head) {
    for (const label of ['show', 'stack']) {
      const th = document.createElement('th');
      th.textContent = label;
      head.append(th);
    }
    for (const [key, label] of COLUMNS) {
      const th = document.createElement('th');
      const button = document.createElement('button');
      button.type = 'button';
      button.className = 'sort';
      button.textContent = label + (this.sortKey === key ? ' \u25b2' : '');
      button.addEventListener('click', () => {
        this.sortKey = this.sortKey === key ? null : key;
        this.render();
      });
      th.append(button);
      head.append(th);
    }
  }

  renderRow(r, best) {
    const tr = document.createElement('tr');
    tr.dataset.schedule = r.name;
    tr.classList.toggle('off', !r.ok);
    tr.classList.toggle('shown', r.name === this.shown);
    if (r.pending) tr.dataset.pending = 'true';
    const radio = document.createElement('input');
    radio.type = 'radio';
    radio.name = 'pl-show';
    radio.checked = r.name === this.shown;
    radio.disabled = !r.ok;
    radio.setAttribute('aria-label', `show ${r.name}`);
    radio.addEventListener('change', () => this.onShow(r.name));
    tr.insertCell().append(radio);
    const box = document.createElement('input');
    box.type = 'checkbox';
    box.checked = r.name === this.stacked;
    box.disabled = !r.ok || r.name === this.shown;
    box.setAttribute('aria-label', `stack ${r.name} under the shown schedule`);
    box.addEventListener('change', () => this.onStack(box.checked ? r.name : null));
    tr.insertCell().append(box);
    const name = tr.insertCell();
    name.textContent = r.name;
    name.title = r.summary || '';
    if (r.placement) {
      const where = document.createElement('span');
      where.className = 'hint';
      where.textContent = ` ${r.placement}`;
      name.append(where);
    }
    if (!r.ok) {
      const why = tr.insertCell();
      why.colSpan = COLUMNS.length - 1;
      why.className = 'reason';
      why.textContent = r.reason || 'not simulated';
      return tr;
    }
    const cell = (text, cls = '') => {
      const td = tr.insertCell();
      td.textContent = text;
      if (cls) td.className = cls;
      return td;
    };
    cell(num(r.makespan), r.makespan === best ? 'num best' : 'num');
    cell(`${num(r.globalTotal)} (${percent(r.globalRate)})`, 'num');
    cell(`${num(r.spanTotal)} (${percent(r.spanRate)})`, 'num');
    cell(num(r.peakAct), 'num');
    cell(num(r.peakParam), 'num');
    const cf = r.closedForm;
    const td = cell(cf ? `${cf.formula} = ${num(cf.value)}${cf.holds ? '' : ' (n/a)'}` : '\u2013');
    if (cf) td.title = `assumes ${cf.assumption}`;
    cell(r.fits === null ? '\u2013' : r.fits ? 'fits' : 'over', r.fits === false ? 'bad' : '');
    if (r.valid === false) name.prepend('(invalid) ');
    return tr;
  }
}
