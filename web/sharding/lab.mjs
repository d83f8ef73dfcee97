// The sharding lab: boots the solver workers, opens instances (bundled
// examples, dropped or chosen files, permalinks, #src=URL), drives
// start/stop/new seed, and feeds the readouts and views. Its markup is in
// index.html (#lab-sharding); the shell (app.mjs) calls mount() once.
// data-status on #lab-sharding is the test contract: idle, loading, solving,
// stopped, done, error; data-opened counts finished opening attempts, and
// data-saved the ended runs whose link and stored record carry their end
// (written just after the status shows it).
// Talks to solver_client.mjs (workers), model_view.mjs (page-side model),
// ../state.mjs (links), ../store.mjs (IndexedDB), ../downloads.mjs and views.mjs;
// the time, workers and seed controls come from the option schema
// (../options_form.mjs). A link or the browser's stored record restores the
// plan and what its run had reached (bound, curve, status, solving time),
// said on the page as "restored from <date>"; whatever of a link could not
// be applied is listed at the top of the tab (../link_notice.mjs).
import {baseName, savePlots, saveText} from '../downloads.mjs';
import {copyText, feedbackRegion, nearby, setReason} from '../feedback.mjs';
import {elapsedOfLimit, groupedExact} from '../format.mjs';
import {showLinkProblems} from '../link_notice.mjs';
import {applySchema, clampOption, readOption, rowOf} from '../options_form.mjs';
import {unwrap} from '../result.mjs';
import {decodeSharding, encodeSharding, instanceReference, queryControls} from '../state.mjs';
import {loadBest, saveBest} from '../store.mjs';
import {nextTask} from '../worker_client.mjs';

import {EXAMPLES} from './data/examples.mjs';
import {ModelView} from './model_view.mjs';
import {SolverClient} from './solver_client.mjs';
import {Views} from './views.mjs';

const $ = (id) => document.getElementById(id);
let root = null;   // #lab-sharding
let shell = null;  // the page shell (app.mjs)
const STATUS_TEXT = {
  idle: 'idle',
  loading: 'loading',
  solving: 'solving',
  stopped: 'stopped',
  done: 'done',
  error: 'error'
};

const app = {
  M: null,
  schema: null,  // the solver's option schema (core/sharding/options.def)
  client: null,
  view: null,         // ModelView of the loaded instance
  load: null,         // the worker's load reply (name, sha256, sizes)
  source: null,       // how the instance was opened
  reference: null,    // the instance as it travels in links
  pendingLink: null,  // a link waiting for the user to choose its local file
  solving: null,      // the running start() promise
  stopReason: null,   // 'stopped' | 'done' once a stop was asked
  queue: Promise.resolve(),
};
globalThis.shardlab = app;  // for debugging and the browser benchmark

// ---- status, errors, controls ----

function setStatus(status) {
  root.dataset.status = status;
  $('status-text').textContent = STATUS_TEXT[status];
  updateButtons();
  clearInterval(clockTimer);
  if (status === 'solving') clockTimer = setInterval(showClock, 100);
  showClock();
}

// Each button is enabled, or disabled with its reason beside it (title and
// aria-describedby, ../feedback.mjs): nothing to start before an instance,
// nothing to save before a plan.
const OPEN_FIRST = 'open an instance first (an example above, a file, or drop one on the page)';
function updateButtons() {
  const status = root.dataset.status;
  const loading = status === 'loading';
  const solving = status === 'solving';
  const best = app.client && app.client.best;
  const busyReason = loading ? 'the instance is still being read' :
      solving                ? 'it is running (press Stop first)' :
                               '';
  setReason(
      $('start'),
      busyReason ? `Start: ${busyReason}` :
          !app.view ? `Start: ${OPEN_FIRST}` :
                      '');
  setReason($('stop'), solving ? '' : 'Stop: nothing is running (press Start)');
  setReason($('new-seed'), app.view && !loading ? '' : `New seed: ${OPEN_FIRST}`);
  const noPlan = !app.view ? OPEN_FIRST : !best ? 'no plan yet (press Start)' : '';
  setReason($('download-result'), noPlan && `Result JSON: ${noPlan}`);
  setReason($('download-line'), noPlan && `Solution line: ${noPlan}`);
  setReason($('download-png'), app.view ? '' : `Plots as PNG: ${OPEN_FIRST}`);
  setReason($('copy-link'), app.reference ? '' : `Copy link: ${OPEN_FIRST}`);
}

// "7.2 / 10 s": the solving time (counted from Start, across resumes) against the limit.
let clockTimer = null;
function showClock() {
  const el = $('elapsed');
  if (!el || !app.client) return;
  const solving = root.dataset.status === 'solving' && app.client.runStartedMs !== null;
  // The limit of the last run (cumulative across resumes), else the control's.
  const limitS = app.client.runLimitS || settings().timeS;
  const elapsedS = app.client.liveElapsedS();
  el.textContent = elapsedS > 0 || solving ? elapsedOfLimit(elapsedS, limitS) : '';
  el.dataset.elapsedS = String(elapsedS);
  el.dataset.limitS = String(limitS);
}

function showError(message) {
  $('error').textContent = message;
  $('error').hidden = false;
  setStatus('error');
}

function clearError() {
  $('error').hidden = true;
  $('error').textContent = '';
}

// The controls' values, each within its row of the option schema.
function settings() {
  const read = (id, name) => readOption($(id), rowOf(app.schema, name));
  return {
    timeS: read('time-limit', 'time_limit_s'),
    workers: read('workers', 'workers'),
    seed: read('seed', 'seed')
  };
}

function applySettings({timeS, workers, seed}) {
  const set = (id, name, value) => {
    if (value !== null && value !== undefined) {
      $(id).value = String(clampOption(value, rowOf(app.schema, name)));
    }
  };
  set('time-limit', 'time_limit_s', timeS);
  set('workers', 'workers', workers);
  set('seed', 'seed', seed);
}

// ---- readouts and views ----

const views = new Views(() => app);
const bestPlan = () => (app.client.best ? app.client.best.plan : null);

let linkTimer = null;
function scheduleLink() {
  clearTimeout(linkTimer);
  linkTimer = setTimeout(updateLink, 300);
}

// What the run has reached, as links and the stored record keep it. Its
// date is when it last changed: rewriting the link (a tab switch, a setting)
// keeps the date of the result it carries.
let lastRun = {key: null, savedAt: null};
function runState() {
  const status = root.dataset.status;
  const run = {
    bound: app.client.bound,
    status: ['done', 'stopped'].includes(status) ? status : null,
    elapsedS: app.client.liveElapsedS(),
    trace: app.client.trace.filter((e) => e[2]).map(([t, , , cost, bound]) => [t, cost, bound]),
  };
  const best = app.client.best;
  const key = JSON.stringify([best ? String(best.cost) : null, run]);
  if (key !== lastRun.key) lastRun = {key, savedAt: new Date().toISOString()};
  return {...run, savedAt: lastRun.savedAt};
}

async function updateLink() {
  if (!app.reference) return;
  const best = app.client.best;
  const s = settings();
  const params = await encodeSharding({
    instance: app.reference,
    settings: {timeS: s.timeS, workers: s.workers, seed: s.seed},
    plan: best ? best.plan : null,
    cost: best ? best.cost : null,
    run: best ? runState() : null,
  });
  $('permalink').href = shell.setFragment('sharding', params);
}

let saveTimer = null;
function scheduleSave(delayMs = 1000) {
  clearTimeout(saveTimer);
  saveTimer = setTimeout(saveNow, delayMs);
}

// The best plan and what its run reached, in this browser's IndexedDB.
function saveNow() {
  clearTimeout(saveTimer);
  const best = app.client.best;
  if (!best || !app.load) return Promise.resolve();
  const run = runState();
  return saveBest({
           sha256: app.load.sha256,
           name: app.load.name,
           cost: best.cost,
           plan: best.plan,
           bound: app.client.bound,
           status: run.status,
           elapsedS: run.elapsedS,
           trace: run.trace,
         })
      .catch((e) => console.warn('IndexedDB:', e));
}

// After a run has ended and the tab shows it: its link and stored record are
// written in a later task (compressing M's curve and plan, and IndexedDB,
// took up to a hundred milliseconds, which a Stop must not wait for). They
// carry the status shown (runState), unless Start was pressed meanwhile.
// data-saved then counts the run.
async function saveEnd() {
  await nextTask();
  await Promise.all([saveNow(), updateLink()]);
  root.dataset.saved = String(Number(root.dataset.saved || 0) + 1);
}

function onImprove(best) {
  views.improve(best);
  updateButtons();
  scheduleLink();
  scheduleSave();
  if (best.cost && BigInt(best.bound) >= BigInt(best.cost) && root.dataset.status === 'solving') {
    app.stopReason = 'done';  // proven optimal: nothing left to find
    app.client.stop();
  }
}

function onStats(index, msg) {
  views.stats(index, msg);
}

function onLoadProgress(bytes, total) {
  $('progress-bar').value = total ? bytes / total : 0;
  $('progress-text').textContent = total ?
      `${(bytes / 1e6).toFixed(1)} of ${(total / 1e6).toFixed(1)} MB read` :
      `${(bytes / 1e6).toFixed(1)} MB read`;
}

// ---- opening instances ----

function workerSource(source) {
  if (source.kind === 'example') {
    return {kind: 'url', url: new URL(`examples/${source.name}`, location.href).href};
  }
  return source;
}

/**
 * Opens an instance; the earlier one stays on screen if this one fails.
 * #lab-sharding[data-opened] counts finished attempts, so tests can wait for one.
 */
function open(source, options = {}) {
  app.queue = app.queue.then(() => openNow(source, options)).finally(() => {
    root.dataset.opened = String(Number(root.dataset.opened || 0) + 1);
  });
  return app.queue;
}

async function openNow(source, {autostart = true, link = null} = {}) {
  await stopSolving();
  clearError();
  setStatus('loading');
  $('progress').hidden = false;
  onLoadProgress(0, source.kind === 'file' ? source.file.size : 0);
  let result;
  try {
    result = await app.client.load(workerSource(source));
  } catch (error) {
    $('progress').hidden = true;
    showError(error.message);
    return;
  } finally {
    $('progress').hidden = true;
  }
  if (app.view) app.view.delete();
  app.view = new ModelView(app.M, result.model);
  app.load = result;
  app.source = source;
  $('examples').value = source.kind === 'example' ? source.name : '';  // the menu names it
  views.reset(result);
  app.reference = await instanceReference(
      {source, name: result.name, sha256: result.sha256, storedBytes: result.storedBytes});
  let restored = null;  // the run state shown: {status, from, savedAt}
  $('stored-note').textContent = '';
  if (link && link.instance && link.instance.kind === 'file' &&
      link.instance.sha256 !== result.sha256) {
    showError(
        `${result.name}: its SHA-256 is ${result.sha256}, but the link was made with ` +
        `${link.instance.sha256}; the link's plan was not applied`);
    link = null;
  }
  if (link && link.plan && await restorePlan(link.plan, 'this link')) {
    restored = restoreRun({...link.run, cost: link.cost}, 'this link');
  }
  const stored = await loadBest(result.sha256).catch(() => undefined);
  if (stored && await restorePlan(stored.plan, 'this browser')) {
    restored = restoreRun(stored, 'this browser');
  } else if (stored) {
    $('stored-note').textContent +=
        ` This browser keeps a plan of cost ${groupedExact(stored.cost)} for it (saved ${
            dateText(stored.savedAt)}); the plan shown is ` +
        'at least as good.';
  }
  await updateLink();
  if (root.dataset.status === 'error') return;
  if (autostart && !restored) {
    start();
  } else {
    setStatus(restored ? restored.status : 'idle');
  }
}

// "2026-11-26 15:40 UTC" from an ISO date.
const dateText = (iso) => {
  const date = new Date(iso);
  return Number.isFinite(date.getTime()) ?
      `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC` :
      'an unknown date';
};

/**
 * After restorePlan(): shows what the run behind that plan had reached, from
 * a link's keys or the stored record ({cost, bound, status, elapsedS, trace,
 * savedAt}, each maybe missing): its bound (never above the plan's cost),
 * its curve (when it ends at the plan's cost), its status and solving time.
 * Returns {status} for the page, and says "restored from <date>".
 */
function restoreRun(run, from) {
  const {client} = app;
  const cost = client.best.cost;
  const problems = [];
  if (run.bound != null) {
    if (BigInt(run.bound) <= BigInt(cost)) {
      if (BigInt(run.bound) > BigInt(client.bound)) client.bound = String(run.bound);
    } else {
      problems.push(`b=${run.bound}: above the plan's cost ${cost}; not applied`);
    }
  }
  const trace = run.trace || [];
  if (trace.length && String(trace[trace.length - 1][1]) === cost) {
    client.trace = trace.map(([t, c, b]) => [t, -1, true, String(c), String(b)]);
    views.costChart.reset(views.costChart.reference);
    for (const [t, c, b] of trace) views.costChart.addOverall(t, c, b);
  } else if (trace.length) {
    problems.push(`the curve from ${from} does not end at the plan's cost ${cost}; not applied`);
  }
  if (Number.isFinite(run.elapsedS)) {
    client.elapsedS = Math.max(client.elapsedS, run.elapsedS);
    views.costChart.setTime(client.elapsedS);
  }
  if (from === 'this link') showLinkProblems(root, problems);
  views.showReadouts();
  const status = run.status || 'stopped';
  $('stored-note').textContent = `Restored from ${from}, saved ${dateText(run.savedAt)}: ` +
      `cost ${groupedExact(cost)}, lower bound ${groupedExact(client.bound)}, ${status}.`;
  return {status};
}

/** Checks a plan against the loaded model and hands it to every engine. */
async function restorePlan(plan, from) {
  const check = app.view.evaluate(plan);
  if (!check.feasible) {
    $('stored-note').textContent = `The plan from ${from} was not used: ${check.message}`;
    return false;
  }
  const before = app.client.best;
  await app.client.offer(Int32Array.from(plan), check.cost);
  if (before === app.client.best) return false;
  onImprove({...app.client.best, bound: app.client.bound, seconds: 0});
  return true;
}

// ---- solving ----

async function start() {
  if (!app.view || app.solving) return;
  const s = settings();
  const options = {seed: s.seed, time_limit_s: s.timeS};
  try {
    unwrap(app.M.checkOptions(JSON.stringify(options)));
  } catch (error) {
    return showError(error.message);
  }
  clearError();
  if (app.client.count !== s.workers) app.client.resize(s.workers);
  app.stopReason = null;
  setStatus('solving');
  // The best plan so far is carried into the run inside client.start, so a
  // stop pressed while it is being offered still reaches the run.
  const best = app.client.best;
  let ending = null;
  try {
    app.solving = app.client.start(options, s.timeS, best);
    await app.solving;
    ending = app.stopReason || 'done';
  } catch (error) {
    showError(error.message);
  } finally {
    app.solving = null;
    if (ending) setStatus(ending);
    await saveEnd();
  }
}

// The run ends at once, in the click's task (solver_client.mjs start()),
// with its best plan; a worker still inside a long step afterwards is
// replaced by the client.
async function stopSolving(reason = 'stopped') {
  if (!app.solving) return;
  app.stopReason = reason;
  const running = app.solving;
  app.client.stop();
  await running.catch(() => {});
}

async function newSeed() {
  $('seed').value = String(1 + Math.floor(Math.random() * 1e6));
  if (app.solving) {
    await stopSolving();
    start();
  }
  scheduleLink();
}

// ---- wiring ----

function fillExamples() {
  const select = $('examples');
  const none = new Option('choose…', '');
  select.append(none);
  for (const ex of EXAMPLES) select.append(new Option(ex.title, ex.file));
  select.addEventListener('change', () => {
    if (select.value) open({kind: 'example', name: select.value});
  });
}

function openFile(file) {
  const link = app.pendingLink;
  app.pendingLink = null;
  $('file-request').hidden = true;
  open({kind: 'file', file}, {link, autostart: !link});
}

function wire() {
  fillExamples();
  $('file-input').addEventListener('change', (e) => {
    if (e.target.files.length) openFile(e.target.files[0]);
    e.target.value = '';
  });
  // A dropped file reaches file-input through the page's drop zone (../drop.mjs).
  $('start').addEventListener('click', () => start());
  $('stop').addEventListener('click', () => stopSolving());
  $('new-seed').addEventListener('click', () => newSeed());
  for (const id of ['time-limit', 'workers', 'seed'])
    $(id).addEventListener('change', scheduleLink);
  const stem = () => baseName(app.load && app.load.name);
  // Each button says beside itself what it saved, or why it could not (../feedback.mjs).
  const noPlan = () => {
    if (!app.view) throw new Error('no plan yet: open an instance and press Start');
  };
  const on = (id, action, done) => {
    feedbackRegion($(id));
    $(id).addEventListener('click', nearby($(id), action, done));
  };
  on('download-result', () => {
    noPlan();
    const s = settings();
    const run = {
      file: app.load.name,
      sha256: app.load.sha256,
      options: {seed: s.seed, workers: app.client.count, time_limit_s: s.timeS},
      wall_time_s: app.client.elapsedS,
      stats: (app.client.stats[0] || {}).stats || {},
      lower_bound: app.client.bound,
      seconds: app.client.elapsedS,
      trace: app.client.trace
    };
    saveText(
        app.view.resultJson(bestPlan(), run) + '\n', `${stem()}.result.json`, 'application/json');
  }, () => `Saved ${stem()}.result.json`);
  on('download-line', () => {
    noPlan();
    saveText(app.view.solutionLine(bestPlan()) + '\n', `${stem()}.solution.txt`);
  }, () => `Saved ${stem()}.solution.txt`);
  on('download-png', () => savePlots(views.canvases(), stem()), () => `Saved ${stem()}-plots.png`);
  feedbackRegion($('copy-link'));
  $('copy-link').addEventListener('click', () => copyText($('copy-link'), $('permalink').href, {
                                             what: 'the link'
                                           }));
}

/**
 * Called once by the shell: params holds this lab's fragment keys (an empty
 * URLSearchParams when the page opened without a sharding link).
 */
export async function mount(section, pageShell, params) {
  root = section;
  shell = pageShell;
  try {
    await boot(params);
  } catch (error) {
    showError(error.message || String(error));
  }
}

async function boot(params) {
  setStatus('idle');
  wire();
  app.M = await shell.module();
  app.schema = unwrap(app.M.optionsSchema());
  applySchema(root, app.schema);
  const cores = navigator.hardwareConcurrency || 2;
  applySettings({workers: Math.max(1, cores - 1)});
  let link = null;
  if ([...params.keys()].length) {
    link = await decodeSharding(params);
    showLinkProblems(root, link.problems);
  }
  if (link) applySettings(link.settings);
  applySettings(queryControls(location.search));
  app.client = new SolverClient(
      new URL('worker.js', import.meta.url).href, settings().workers,
      {onLoadProgress, onImprove, onStats});
  if (link && link.instance) {
    const inst = link.instance;
    if (inst.kind === 'file') {
      app.pendingLink = link;
      $('file-request-text').textContent = `This link was made with the local file ${inst.name} ` +
          `(SHA-256 ${inst.sha256}). Choose that file above to restore its plan.`;
      $('file-request').hidden = false;
      return;
    }
    const source =
        inst.kind === 'inline' ? {kind: 'bytes', bytes: inst.bytes, name: inst.name} : inst;
    await open(source, {link, autostart: !link.plan});
  } else {
    await open({kind: 'example', name: EXAMPLES.find((e) => e.default).file});
  }
}
