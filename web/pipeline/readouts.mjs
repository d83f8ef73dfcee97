// The headline readouts beside the timeline: makespan, bubble by both metrics
// (global idle: makespan - busy; span idle: last end - first start - busy),
// peak activation and parameter memory, the closed form with its assumption
// and whether it holds here, validity, and the per-device table. Numbers are
// printed exactly as the core gives them (data-value holds the raw value for
// tests). Pure formatting helpers are exported for node tests.

/** A time or memory value as the core gives it: up to 12 significant digits. */
export function num(value) {
  if (value === null || value === undefined || !Number.isFinite(Number(value))) return '\u2013';
  return String(Number(Number(value).toPrecision(12)));
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
 * The closed form's verdict: {text, detail, state} with state 'match',
 * 'differs' (the assumption holds but the simulation differs: a finding),
 * 'not-applicable' (the assumption does not hold) or 'none'.
 */
export function closedFormVerdict(schedule) {
  const cf = schedule.closed_form;
  if (!cf) return {state: 'none', text: 'no closed form for this schedule', detail: ''};
  const metric = cf.metric === 'span' ? 'span' : 'global';
  const bubble = schedule.bubble || {};
  const simulated = metric === 'span' ? bubble.span_total : bubble.global_total;
  const perDevice = metric === 'span' ? bubble.span : bubble.global;
  // The published formulas give one device's bubble; compare with the largest.
  const simulatedOne = max(perDevice);
  const text = `${cf.formula} = ${num(cf.value)}`;
  if (!cf.holds) {
    return {
      state: 'not-applicable',
      text,
      detail: `assumes ${cf.assumption}; that does not hold here (simulated: ${
          num(simulatedOne)} per device)`,
    };
  }
  const same =
      simulatedOne !== null && Math.abs(simulatedOne - cf.value) <= 1e-9 * Math.max(1, cf.value);
  return {
    state: same ? 'match' : 'differs',
    text,
    detail: `assumes ${cf.assumption}; holds here; simulated ${metric} bubble per device: ` +
        `${num(simulatedOne)}${same ? ' (equal)' : ''} (total ${num(simulated)})`,
  };
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
  set(root, 'pl-valid',
      valid ? 'valid' :
              `INVALID: ${violations.slice(0, 3).join('; ')}` +
              (violations.length > 3 ? ` (and ${violations.length - 3} more)` : ''));
  root.querySelector('[data-testid=pl-valid]').classList.toggle('bad', !valid);
  const verdict = closedFormVerdict(schedule);
  set(root, 'pl-closed-form', verdict.text);
  set(root, 'pl-closed-form-detail', verdict.detail);
  root.querySelector('[data-testid=pl-closed-form]').dataset.state = verdict.state;
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
