// The pipeline lab: a problem (the parameter form, a bundled example, a
// problem JSON typed, opened or dropped) opened once per change as a session
// in the pipeline worker (session_client.mjs), which simulates every
// schedule the core generates for it off the main thread; one shown on the
// timeline with its headline numbers and another stacked under it, all of
// them in the compare table; the planner (same worker) and the MIP
// (plan_panel.mjs); permalinks, IndexedDB and downloads. The shell
// (../app.mjs) calls mount() once.
//
// data-status on #lab-pipeline (the test contract):
//   idle      mounted, nothing computed yet
//   working   reading a problem and simulating its schedules
//   ready     schedules drawn with their numbers; nothing running
//   planning  the branch and bound runs        solving   the MIP runs
//   done      the run ended (proof or time limit)
//   stopped   the run was stopped (its best schedule is kept)
//   error     the last action failed; [data-testid=pl-error] gives the
//             core's message, and the previous view stays (an import's
//             refusal shows beside the import control instead:
//             [data-testid=pl-import-feedback], the status unchanged)
// data-computed counts finished problem computations (tests wait on it).
import {clearNear, feedbackRegion, showNear} from '../feedback.mjs';
import {showLinkProblems} from '../link_notice.mjs';

import {compareRows, CompareTable} from './compare.mjs';
import {FILES, PRESETS} from './examples.mjs';
import * as exports from './exports.mjs';
import {ParamsForm, paramsFromProblem, problemFromParams} from './params.mjs';
import {decodePipeline, encodePipeline} from './permalink.mjs';
import {PlanPanel} from './plan_panel.mjs';
import {num, renderReadouts} from './readouts.mjs';
import {loadPlanned, problemKey, savePlanned} from './saved.mjs';
import {SessionClient} from './session_client.mjs';
import {Timeline, TIMELINE_LEGEND} from './timeline.mjs';

const EXTRA = ['planned', 'mip', 'imported'];  // schedules not from a generator

const app = {
  section: null,
  shell: null,
  sessions: null,        // the pipeline worker's session client
  mode: 'form',          // 'form': the problem is the parameters; 'json': the editor's text
  example: null,         // the bundled file the problem came from
  problemText: null,     // the problem applied (JSON text)
  key: null,             // SHA-256 of the normalized problem
  list: [],              // the core's schedules with applicability
  schedules: new Map(),  // name -> {text, schedule} | {error}
  extra: new Map(),      // planned / mip / imported -> {text, schedule}
  shown: null,
  stacked: null,
  wanted: {shown: null, stacked: null},  // a link's or a preset's choice
  queue: Promise.resolve(),
  generation: 0,                 // of the latest compute(); an older one stops simulating
  viewKey: null,                 // the shown|stacked pair the timeline and readouts show
  viewDrawn: Promise.resolve(),  // settles once that pair is drawn
};
globalThis.shardlabPipeline = app;  // for debugging

const $ = (id) => app.section.querySelector(`#${id}`);

function setStatus(status) {
  app.section.dataset.status = status;
  $('pl-status-text').textContent = status;
}

function showError(message) {
  $('pl-error').textContent = message;
  $('pl-error').hidden = false;
  setStatus('error');
}

function clearError() {
  $('pl-error').hidden = true;
  $('pl-error').textContent = '';
}

// A schedule's numbers without parsing its whole JSON (a ScheduleEntry's
// summary; planned, MIP and imported entries are parsed anyway).
const summaryOf = (entry) => entry.summary || entry.schedule;

function entryOf(name) {
  if (!name) return null;
  const entry = app.extra.get(name) || app.schedules.get(name);
  return entry && entry.error === undefined && summaryOf(entry) ? entry : null;
}

function bestGenerated() {
  let best = null;
  for (const entry of app.schedules.values()) {
    if (entry.error !== undefined) continue;
    const s = summaryOf(entry);
    if (s && s.valid !== false && (!best || s.makespan < summaryOf(best).makespan)) best = entry;
  }
  return best;
}

// ---- the problem ----

function currentProblemText() {
  return app.mode === 'form' ? JSON.stringify(problemFromParams(form.read()), null, 2) :
                               $('pl-problem').value;
}

/**
 * Recomputes everything for the problem text; the old view stays on error.
 * A newer problem supersedes a computation still simulating: it ends
 * between two schedules (resolving to null, not counted in data-computed).
 */
function compute(text) {
  const generation = ++app.generation;
  const run = app.queue.then(() => computeNow(text, generation)).catch((error) => {
    showError(error.message || String(error));
    return false;
  });
  app.queue = run.then((done) => {
    if (done === null) return null;
    app.section.dataset.computed = String(Number(app.section.dataset.computed || 0) + 1);
    return done;
  });
  return app.queue;
}

async function computeNow(text, generation) {
  if (generation !== app.generation) return null;
  clearError();
  setStatus('working');
  let opened;
  try {
    opened = await app.sessions.open(text, app.sourceName || 'problem');
  } catch (error) {
    showError(error.message);
    return false;
  }
  const {normalized, list, schedules} = opened;
  const key = await problemKey(normalized);
  // A run on the old problem ends first: its last schedule belongs to it.
  if (key !== app.key) await plan.reset(key);
  app.problemText = text;
  app.normalized = normalized;
  app.list = list;
  app.schedules = schedules;
  if (key !== app.key) {
    app.key = key;
    app.extra.clear();
    note('');
    await restoreStored(key);
  }
  if (app.linkedPlan) await restoreLinked();
  if (app.mode === 'form') $('pl-problem').value = normalized;
  if (!(await simulateAll(generation))) return null;
  choose();
  renderLists();
  // The view drawn while the schedules came in stays when it shows the same pair.
  if (`${app.shown}|${app.stacked}` !== app.viewKey) renderView();
  await app.viewDrawn;
  setStatus('ready');
  scheduleLink();
  plan.setButtons();
  return true;
}

// Simulates the problem's schedules one call each in the worker, the ones
// to show first (a link's or preset's choice, the current ones), then the
// others in the core's order: the compare table fills row by row, and the
// timeline is drawn as soon as what it shows is there. False when a newer
// problem superseded this one.
async function simulateAll(generation) {
  const names = app.list.filter((i) => i.applicable).map((i) => i.name);
  const first = [app.wanted.shown, app.shown, app.wanted.stacked, app.stacked].filter(
      (n) => names.includes(n));
  const order = [...new Set([...first, ...names])];
  app.viewKey = null;
  const update = () => {
    renderLists();
    if (first.some((n) => !app.schedules.has(n)) || !choose(true)) return;
    if (`${app.shown}|${app.stacked}` !== app.viewKey) renderView();
  };
  update();
  for (const name of order) {
    if (app.schedules.has(name)) continue;
    if (generation !== app.generation) return false;
    // The layout comes along while it may be drawn at once (a wanted one,
    // or any until the view is chosen); the others' come when drawn.
    const drawn = first.includes(name) || app.viewKey === null;
    const entry =
        await app.sessions.simulate(name, drawn).catch((error) => ({error: error.message}));
    app.schedules.set(name, entry);
    update();
  }
  return generation === app.generation;
}

// The schedules shown: a wanted one when it exists, else the current, else
// the first generated one that is valid (a schedule above the cap is not
// what a problem file should open on), else the first that applies. While
// schedules are still being simulated (`partial`), nothing is chosen until
// that first valid one is known: false then, true once chosen.
function choose(partial = false) {
  const exists = (name) => Boolean(entryOf(name));
  const valid = (name) => exists(name) && summaryOf(entryOf(name)).valid !== false;
  const pending = (info) => info.applicable && !app.schedules.has(info.name);
  const names = app.list.map((i) => i.name);
  let shown = [app.wanted.shown, app.shown].find(exists);
  if (!shown) {
    const first = app.list.find((i) => pending(i) || valid(i.name));
    if (partial && first && pending(first)) return false;
    shown = (first && first.name) || names.find(exists) || null;
  }
  let stacked = app.wanted.stacked !== null && app.wanted.stacked !== undefined ?
      app.wanted.stacked :
      app.stacked;
  if (!exists(stacked) || stacked === shown) stacked = null;
  app.shown = shown;
  app.stacked = stacked;
  if (exists(app.wanted.shown)) app.wanted.shown = null;
  if (app.wanted.stacked === null || exists(app.wanted.stacked)) app.wanted.stacked = null;
  return true;
}

async function restoreStored(key) {
  const stored = await loadPlanned(key).catch(() => undefined);
  if (!stored) return;
  try {
    const entry = await app.sessions.check(stored.schedule);
    if (entry.summary.valid === false) return;
    app.extra.set('planned', entry);
    plan.offer(entry, stored.bound);
    const bound = Number.isFinite(stored.bound) ? `, lower bound ${num(stored.bound)}` : '';
    note(`The best planned schedule kept in this browser (makespan ${num(entry.summary.makespan)}${
        bound}, restored from ${
        stored.savedAt.slice(0, 16).replace('T', ' ')} UTC) is the 'planned' row.`);
  } catch (error) {
    note(`The schedule kept in this browser was not used: ${error.message}`);
  }
}

// A link's planned schedule, checked by the core against the problem.
async function restoreLinked() {
  const linked = app.linkedPlan;
  app.linkedPlan = null;
  try {
    const entry = await app.sessions.check(JSON.stringify(linked));
    if (entry.summary.valid === false) {
      throw new Error((entry.summary.violations || []).slice(0, 2).join('; ') || 'it is not valid');
    }
    const kept = app.extra.get('planned');  // from IndexedDB: the better one stays
    if (!kept || kept.summary.makespan > entry.summary.makespan) app.extra.set('planned', entry);
    plan.offer(entry);
  } catch (error) {
    note(`The link's planned schedule was not used: ${error.message}`);
  }
}

function note(text) {
  $('pl-note').textContent = text;
  $('pl-note').hidden = !text;
}

// ---- views ----

// A menu is refilled only when its options or choice changed (it is asked
// on every schedule that arrives).
const filled = new WeakMap();
function fillSelect(select, names, value, none = null) {
  const key = JSON.stringify([names, value || '', none]);
  if (filled.get(select) === key) return;
  filled.set(select, key);
  select.replaceChildren();
  if (none) select.append(new Option(none, ''));
  for (const name of names) select.append(new Option(name, name));
  select.value = value || '';
}

function render() {
  renderLists();
  renderView();
}

// The schedule menus and the compare table (cheap: summaries only).
function renderLists() {
  const names = [
    ...app.list.filter((i) => entryOf(i.name)).map((i) => i.name),
    ...EXTRA.filter((n) => app.extra.has(n))
  ];
  fillSelect($('pl-schedule'), names, app.shown);
  fillSelect($('pl-compare-select'), names.filter((n) => n !== app.shown), app.stacked, 'none');
  const extras =
      EXTRA.filter((n) => app.extra.has(n)).map((n) => ({...summaryOf(app.extra.get(n)), name: n}));
  compare.setRows(
      compareRows(
          app.list, new Map([...app.schedules].map(([k, v]) => [k, v.error ? v : summaryOf(v)])),
          extras),
      app.shown, app.stacked);
}

// What the timeline draws of an entry: the worker's packed layout with the
// numbers, else the schedule (parsed here, and packed by the timeline).
const drawnOf = (e) => (e.layout ? {summary: e.summary, layout: e.layout} : {schedule: e.schedule});

// The readouts and the timeline of the shown and stacked schedules (from
// their summaries and packed layouts: nothing here parses a schedule the
// worker simulated). A generated schedule's layout is asked of the worker
// when it is drawn, and the page lets go of the layouts it no longer draws
// (a p 64, m 512 schedule's is about 10 MB): resolves once drawn.
function renderView() {
  const key = `${app.shown}|${app.stacked}`;
  app.viewKey = key;
  const shown = entryOf(app.shown);
  const drawn = [shown, entryOf(app.stacked)].filter(Boolean);
  for (const entry of app.schedules.values()) {
    if (entry.held && !drawn.includes(entry)) entry.layout = null;
  }
  if (shown) renderReadouts($('pl-readouts'), $('pl-devices'), summaryOf(shown));
  $('pl-readouts').hidden = !shown;
  renderDevicesTitle(shown);
  exports.updateDownloads(app.section, shown);
  const missing = drawn.filter((e) => !e.layout && e.held);
  // Still this view of these entries (not a later choice or problem).
  const current = () => app.viewKey === key && entryOf(app.shown) === shown;
  const draw = () => {
    if (!current()) return;
    const problem = shown && summaryOf(shown).problem;
    const comm = Number((problem && problem.comm) || 0);
    timeline.setSchedules(drawn.map(drawnOf), {comm, keepZoom: true});
  };
  if (!missing.length) {
    draw();
    app.viewDrawn = Promise.resolve();
  } else {
    app.viewDrawn =
        Promise.all(missing.map((e) => app.sessions.layoutOf(e))).then(draw, (error) => {
          if (current()) showError(error.message || String(error));
        });
  }
  return app.viewDrawn;
}

function renderDevicesTitle(shown) {
  $('pl-devices').closest('section').querySelector('[data-testid=pl-devices-title]').textContent =
      shown ? `of ${summaryOf(shown).name}` : '';
}

function show(name) {
  app.shown = name;
  if (app.stacked === name) app.stacked = null;
  render();
  scheduleLink();
}

function stack(name) {
  app.stacked = name || null;
  render();
  scheduleLink();
}

// A planned, MIP or imported schedule arrives: it is kept, shown, linked and stored.
function onSchedule(kind, entry) {
  const first = !app.extra.has(kind);
  app.extra.set(kind, entry);
  if (first && kind !== 'imported') {
    app.stacked = app.shown !== kind ? app.shown : app.stacked;
    app.shown = kind;
  }
  if (kind === 'imported') app.shown = kind;
  render();
  scheduleLink();
  if (kind !== 'imported') scheduleSave(entry);
}

// Better schedules are stored at most twice a second while a run goes on,
// and at once when it ends (flushSave), so a closed tab loses little.
let saveTimer = null;
let pendingSave = null;
function scheduleSave(entry) {
  pendingSave = {key: app.key, entry};
  if (!saveTimer) saveTimer = setTimeout(flushSave, 500);
}

function flushSave() {
  clearTimeout(saveTimer);
  saveTimer = null;
  const pending = pendingSave;
  pendingSave = null;
  if (!pending) return Promise.resolve();
  const schedule = summaryOf(pending.entry);
  return savePlanned(pending.key, {
           name: schedule.name,
           makespan: schedule.makespan,
           bound: plan.planner.bound,
           json: pending.entry.raw
         })
      .catch((error) => console.warn('IndexedDB:', error));
}

// ---- the link ----

let linkTimer = null;
function scheduleLink() {
  clearTimeout(linkTimer);
  linkTimer = setTimeout(updateLink, 200);
}

// A planned schedule whose JSON is longer than this never packs into a link
// (PLAN_MAX_CHARS): it is left out without parsing and compressing it here.
const LINK_PLAN_MAX_BYTES = 2 << 20;

async function updateLink() {
  const s = plan.settings();
  let planned = app.extra.get('planned');
  const tooLong = planned && planned.raw.length > LINK_PLAN_MAX_BYTES;
  if (tooLong) planned = null;
  const {params, omitted} = await encodePipeline({
    params: app.mode === 'form' ? form.read() : {},
    example: app.mode === 'json' ? app.example : null,
    problemText: app.mode === 'json' && !app.example ? app.problemText : null,
    schedule: app.shown,
    compare: app.stacked,
    plan: planned ? planned.schedule : null,
    timeS: s.timeS,
    mip: s.mip,
    placement: s.placement,
    zoom: timeline.zoomed ? timeline.domain : null,
    memory: timeline.showMemory,
  });
  $('pl-permalink').href = app.shell.setFragment('pipeline', params);
  if (tooLong) omitted.push('plan');
  $('pl-link-note').textContent =
      omitted.length ? `The link leaves out the ${omitted.join(' and ')}: too long for a URL.` : '';
}

// ---- wiring ----

let form = null;
let compare = null;
let timeline = null;
let plan = null;

function useForm() {
  app.mode = 'form';
  app.example = null;
  app.sourceName = 'problem';
  form.setEnabled(true);
  $('pl-problem-mode').textContent = 'from the parameters';
  return compute(currentProblemText());
}

async function useJson(text, example = null, sourceName = null) {
  app.mode = 'json';
  app.example = example;
  app.sourceName = sourceName || example || 'problem';
  $('pl-problem').value = text;
  let parsed = null;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    parsed = null;  // the core reports where the text is wrong
  }
  form.setEnabled(false);
  $('pl-problem-mode').textContent = example ? `example ${example}` : 'typed or opened here';
  const done = await compute(text);
  if (done) {
    // The (disabled) form shows what it can say of the problem: all of a
    // uniform one, the devices and micro-batches of the others.
    const params = paramsFromProblem(parsed);
    if (params)
      form.write(params);
    else
      form.showCounts(JSON.parse(app.normalized));
  }
  return done;
}

// An example starts a fresh view: the previous one's stacked schedule goes
// (a preset then stacks its own comparison, if it has one).
async function openExample(value) {
  const preset = PRESETS.find((p) => p.id === value);
  app.stacked = null;
  if (preset) {
    form.write(preset.params);
    plan.applySettings({placement: preset.placement || null});
    app.wanted = {shown: preset.schedule, stacked: preset.compare};
    return useForm();
  }
  const file = FILES.find(([name]) => name === value);
  if (!file) return null;
  const response = await fetch(new URL(`../examples/pipeline/${file[0]}`, import.meta.url));
  if (!response.ok)
    return showError(`examples/pipeline/${file[0]}: the server answered ${response.status}`);
  return useJson(await response.text(), file[0]);
}

async function openFile(file) {
  const text = await file.text();
  if (/\.csv$/i.test(file.name) || exports.isScheduleJson(text)) return importFile(file);
  $('pl-problem-box').open = true;
  $('pl-example').value = '';
  return useJson(text, null, file.name);
}

// An import's refusal (the core's: file, row, what is wrong) shows beside
// the import control; the lab and its status stay as they were.
async function importFile(file) {
  const control = $('pl-import');
  clearNear(control);
  try {
    const entry = await exports.importSchedule(app.sessions, file);
    onSchedule('imported', entry);
    if (app.section.dataset.status === 'error' && app.problemText) {
      clearError();
      setStatus('ready');
    }
    showNear(control, `Imported ${file.name}: the 'imported' row`, 'ok');
  } catch (error) {
    showNear(control, error.message, 'error');
  }
}

function stem() {
  const problem = app.example ? app.example.replace(/\.json$/, '') :
      app.mode === 'form'     ? `p${form.read().p}-m${form.read().m}` :
                                'problem';
  return exports.fileStem(problem, app.shown);
}

function wire() {
  const select = $('pl-example');
  select.append(new Option('custom', ''));
  for (const preset of PRESETS) select.append(new Option(preset.title, preset.id));
  for (const [name, title] of FILES) select.append(new Option(title, name));
  select.addEventListener('change', () => select.value && openExample(select.value));
  form = new ParamsForm(app.section, () => {
    $('pl-example').value = '';
    if (app.mode === 'form') compute(currentProblemText());
  });
  compare = new CompareTable($('pl-compare'), {onShow: show, onStack: stack});
  timeline = new Timeline($('pl-timeline'), $('pl-tooltip'));
  timeline.onZoom = scheduleLink;
  $('pl-legend').replaceChildren(...TIMELINE_LEGEND.map(([color, label]) => {
    const item = document.createElement('span');
    const swatch = document.createElement('i');
    swatch.style.background = color;
    item.append(swatch, label);
    return item;
  }));
  $('pl-schedule').addEventListener('change', (e) => show(e.target.value));
  $('pl-compare-select').addEventListener('change', (e) => stack(e.target.value));
  $('pl-zoom-in').addEventListener('click', () => timeline.zoom(0.7));
  $('pl-zoom-out').addEventListener('click', () => timeline.zoom(1 / 0.7));
  $('pl-fit').addEventListener('click', () => timeline.fit());
  $('pl-memory').addEventListener('change', (e) => {
    timeline.setMemory(e.target.checked);
    scheduleLink();
  });
  $('pl-apply').addEventListener('click', () => {
    $('pl-example').value = '';
    useJson($('pl-problem').value, null);
  });
  $('pl-use-form').addEventListener('click', () => useForm());
  $('pl-problem-file').addEventListener('change', (e) => {
    if (e.target.files.length) openFile(e.target.files[0]);
    e.target.value = '';
  });
  feedbackRegion($('pl-import'));
  $('pl-import').addEventListener('change', (e) => {
    if (e.target.files.length) importFile(e.target.files[0]);
    e.target.value = '';
  });
  // Dropped files reach pl-problem-file or pl-import through the page's drop zone.
  exports.wireDownloads(app.section, {
    entry: () => entryOf(app.shown),
    stem,
    sessions: () => app.sessions,
    problemText: () => app.problemText,
    canvases: () => [['timeline', $('pl-timeline')], ['anytime', $('pl-anytime')]],
    link: () => $('pl-permalink').href,
  });
  app.sessions = new SessionClient(
      new URL('worker.js', import.meta.url).href, (msg) => plan.planner.onEvent(msg));
  plan = new PlanPanel({
    section: app.section,
    sessions: app.sessions,
    problem: () => (app.problemText ? {key: app.key, normalized: app.normalized} : null),
    bestGenerated,
    onSchedule,
    // A run's status, unless the problem changed under it (which stopped
    // it); an ended run's best is stored right after the status shows, not
    // waiting for IndexedDB (a Stop shows within the bar of 200 ms).
    onRun: async (status, key) => {
      if (status !== 'error' && key === app.key) setStatus(status);
      if (['done', 'stopped', 'error'].includes(status)) await flushSave();
    },
    onError: showError,
    onSettings: scheduleLink,
  });
}

/** Called once by the shell; params: this lab's fragment keys (maybe empty). */
export async function mount(section, shell, params) {
  app.section = section;
  app.shell = shell;
  setStatus('idle');
  wire();
  let link = null;
  if ([...params.keys()].length) {
    link = await decodePipeline(params);
    showLinkProblems(section, link.problems);
  }
  try {
    const ready = await app.sessions.ready();
    plan.applySchema(ready.planOptions);
  } catch (error) {
    showError(error.message || String(error));
    return;
  }
  if (!link) {
    $('pl-example').value = PRESETS[0].id;
    await openExample(PRESETS[0].id);
    return;
  }
  plan.applySettings({timeS: link.timeS, mip: link.mip, placement: link.placement});
  $('pl-memory').checked = link.memory;
  timeline.setMemory(link.memory);
  app.wanted = {shown: link.schedule, stacked: link.compare || null};
  app.linkedPlan = link.plan;
  if (link.example) {
    $('pl-example').value = link.example;
    await openExample(link.example);
  } else if (link.problemText !== null) {
    $('pl-problem-box').open = true;
    await useJson(link.problemText, null);
  } else {
    form.write(link.params);
    await useForm();
  }
  if (link.zoom) timeline.setDomain(link.zoom);
}
