// The headline readouts beside the timeline: makespan, bubble by both metrics
// (global idle: makespan - busy; span idle: last end - first start - busy),
// peak activation and parameter memory, the closed form with its assumption
// and whether it holds here, validity, and the per-device table. Numbers are
// printed as the core gives them, to 12 significant digits and grouped
// (data-value holds the raw value for tests). Pure formatting helpers are
// exported for node tests.

const TWELVE = new Intl.NumberFormat('en-US', {maximumSignificantDigits: 12});

/** A time or memory value as the core gives it: up to 12 significant digits, grouped. */
export function num(value) {
  if (value === null || value === undefined || !Number.isFinite(Number(value))) return '\u2013';
  return TWELVE.format(Number(Number(value).toPrecision(12)));
}

export function percent(rate) {
  if (!Number.isFinite(rate)) return '\u2013';
  return `${(100 * rate).toFixed(rate < 0.001 && rate > 0 ? 3 : 1)}%`;
}

const max = (list) => (list && list.length ? Math.max(...list) : null);
const sum = (list) => (list || []).reduce((a, b) => a + b, 0);

function set(root, testid, text, value = null) {
  const el = root.querySelector(`[data-testid=${testid}]`);
  if (!el) return;
  el.textContent = text;
  if (value === null)
    delete el.dataset.value;
  else
    el.dataset.value = String(value);
}

/**
 * A closed form's verdict: {state, text, detail} with state 'match', 'differs'
 * (its assumption holds but the simulation differs: a finding), 'not-applicable'
 * (the assumption does not hold here) or 'none'. The core gives the formula,
 * its value and assumption, whether it holds, and the simulated value it is
 * compared with (the largest per-device bubble, or the peak activations);
 * older schedule JSON without "simulated" is compared here.
 */
export function verdictOf({formula, value, assumption, holds, simulated, matches}, what) {
  const text = `${formula} = ${num(value)}`;
  if (!holds) {
    return {
      state: 'not-applicable',
      text,
      detail:
          `assumes ${assumption}; that does not hold here (simulated ${what}: ${num(simulated)})`,
    };
  }
  const same =
      matches ?? (simulated !== null && Math.abs(simulated - value) <= 1e-9 * Math.max(1, value));
  return {
    state: same ? 'match' : 'differs',
    text,
    detail: `assumes ${assumption}; holds here; simulated ${what}: ${num(simulated)}` +
        (same ? ' (equal)' : ''),
  };
}

/** The bubble formula's verdict for a schedule (see verdictOf). */
export function closedFormVerdict(schedule) {
  const cf = schedule.closed_form;
  if (!cf) return {state: 'none', text: 'no closed form for this schedule', detail: ''};
  const metric = cf.metric === 'span' ? 'span' : 'global';
  const bubble = schedule.bubble || {};
  // The published formulas give one device's bubble: the largest is compared.
  const simulated = cf.simulated ?? max(metric === 'span' ? bubble.span : bubble.global);
  const verdict = verdictOf({...cf, simulated}, `${metric} bubble per device`);
  const total = metric === 'span' ? bubble.span_total : bubble.global_total;
  return {...verdict, detail: `${verdict.detail} (total ${num(total)})`};
}

/** The peak-activation formula's verdict, or null when the core gives none. */
export function peakVerdict(schedule) {
  const cf = schedule.closed_form;
  if (!cf || !cf.peak_activation_formula) return null;
  return verdictOf(
      {
        formula: cf.peak_activation_formula,
        value: cf.peak_activation_value,
        assumption: cf.peak_activation_assumption,
        holds: cf.peak_activation_holds,
        simulated: cf.peak_activation_simulated ?? max(schedule.peak_activation),
        matches: cf.peak_activation_matches,
      },
      'peak activations');
}

/**
 * Fills the readouts panel (root holds the data-testid elements) and the
 * per-device table.
 */
export function renderReadouts(root, table, schedule) {
  const b = schedule.bubble || {};
  set(root, 'pl-schedule-name', schedule.name || '');
  set(root, 'pl-makespan', num(schedule.makespan), schedule.makespan);
  set(root, 'pl-bubble-global', `${num(b.global_total)} (${percent(b.global_rate)})`,
      b.global_total);
  set(root, 'pl-bubble-span', `${num(b.span_total)} (${percent(b.span_rate)})`, b.span_total);
  const act = max(schedule.peak_activation);
  const par = max(schedule.peak_parameter);
  set(root, 'pl-peak-act', num(act), act);
  set(root, 'pl-peak-param', num(par), par);
  const cap = schedule.mem_cap;
  const caps = cap === null || cap === undefined ? null : [].concat(cap);
  const totals =
      (schedule.peak_activation || []).map((a, d) => a + ((schedule.peak_parameter || [])[d] || 0));
  const worst = max(totals);
  set(root, 'pl-cap',
      caps ? `${num(worst)} of ${caps.map(num).join(', ')}` : `${num(worst)} (no cap)`);
  const valid = schedule.valid !== false;
  const violations = schedule.violations || [];
  const count = schedule.violation_count ?? violations.length;  // a summary keeps a few
  set(root, 'pl-valid',
      valid ? 'valid' :
              `INVALID: ${violations.slice(0, 3).join('; ')}` +
              (count > 3 ? ` (and ${count - 3} more)` : ''));
  root.querySelector('[data-testid=pl-valid]').classList.toggle('bad', !valid);
  const verdict = closedFormVerdict(schedule);
  set(root, 'pl-closed-form', verdict.text);
  set(root, 'pl-closed-form-detail', verdict.detail);
  root.querySelector('[data-testid=pl-closed-form]').dataset.state = verdict.state;
  const peak = peakVerdict(schedule);
  set(root, 'pl-peak-form', peak ? peak.text : '');
  set(root, 'pl-peak-form-detail', peak ? peak.detail : '');
  root.querySelector('[data-testid=pl-peak-form]').dataset.state = peak ? peak.state : 'none';
  const extra = [];
  if (Number.isFinite(schedule.lower_bound)) extra.push(`lower bound ${num(schedule.lower_bound)}`);
  if (schedule.optimal === true) extra.push('proven optimal');
  set(root, 'pl-schedule-proof', extra.join(' \u00b7 '));
  renderDevices(table, schedule);
}

/** The per-device table: busy, both idles, peak activation, parameters, total vs cap. */
export function renderDevices(table, schedule) {
  const b = schedule.bubble || {};
  const act = schedule.peak_activation || [];
  const par = schedule.peak_parameter || [];
  const cap = schedule.mem_cap === null || schedule.mem_cap === undefined ?
      null :
      [].concat(schedule.mem_cap);
  const n = Math.max(act.length, (b.global || []).length);
  const head =
      ['device', 'busy', 'idle (global)', 'idle (span)', 'peak act', 'params', 'peak total'];
  const rows = [];
  for (let d = 0; d < n; ++d) {
    const busy = Number(schedule.makespan) - (b.global || [])[d];
    const total = (act[d] || 0) + (par[d] || 0);
    const limit = cap ? cap[Math.min(d, cap.length - 1)] : null;
    rows.push([
      d, num(busy), num((b.global || [])[d]), num((b.span || [])[d]), num(act[d]), num(par[d]),
      limit !== null && total > limit ? `${num(total)} > ${num(limit)}` : num(total)
    ]);
  }
  rows.push([
    'all', num(sum(rows.map((r) => Number(r[1])))), num(b.global_total), num(b.span_total),
    num(max(act)), num(max(par)), ''
  ]);
  table.replaceChildren();
  const thead = table.createTHead().insertRow();
  for (const h of head) {
    const th = document.createElement('th');
    th.textContent = h;
    thead.append(th);
  }
  const body = table.createTBody();
  for (const r of rows) {
    const tr = body.insertRow();
    for (const c of r) tr.insertCell().textContent = String(c);
  }
}
