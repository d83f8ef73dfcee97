// The sharding lab: boots the solver workers, opens instances (bundled
// examples, dropped or chosen files, permalinks, #src=URL), drives
// start/stop/new seed, and feeds the readouts and views. Its markup is in
// index.html (#lab-sharding); the shell (app.mjs) calls mount() once.
// data-status on #lab-sharding is the test contract: idle, loading, solving,
// stopped, done, error; data-opened counts finished opening attempts.
// Talks to solver_client.mjs (workers), model_view.mjs (page-side model),
// ../state.mjs (links), ../store.mjs (IndexedDB), ../downloads.mjs and views.mjs;
// the time, workers and seed controls come from the option schema
// (../options_form.mjs).
import {baseName, savePlots, saveText} from '../downloads.mjs';
import {applySchema, clampOption, readOption, rowOf} from '../options_form.mjs';
import {unwrap} from '../result.mjs';
import {decodeSharding, encodeSharding, instanceReference, queryControls} from '../state.mjs';
import {loadBest, saveBest} from '../store.mjs';

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
  const busy = status === 'loading' || status === 'solving';
  $('start').disabled = busy || !app.view;
  $('stop').disabled = status !== 'solving';
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

async function updateLink() {
  if (!app.reference) return;
  const best = app.client.best;
  const s = settings();
  const params = await encodeSharding({
    instance: app.reference,
    settings: {timeS: s.timeS, workers: s.workers, seed: s.seed},
    plan: best ? best.plan : null,
    cost: best ? best.cost : null
  });
  $('permalink').href = shell.setFragment('sharding', params);
}

let saveTimer = null;
function scheduleSave(delayMs = 1000) {
  clearTimeout(saveTimer);
  saveTimer = setTimeout(() => {
    const best = app.client.best;
    if (!best || !app.load) return;
    saveBest({
      sha256: app.load.sha256,
      name: app.load.name,
      cost: best.cost,
      plan: best.plan,
      bound: app.client.bound
    }).catch((e) => console.warn('IndexedDB:', e));
  }, delayMs);
}

function onImprove(best) {
  views.improve(best);
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
  let restored = false;
  if (link && link.instance && link.instance.kind === 'file' &&
      link.instance.sha256 !== result.sha256) {
    showError(
        `${result.name}: its SHA-256 is ${result.sha256}, but the link was made with ` +
        `${link.instance.sha256}; the link's plan was not applied`);
    link = null;
  }
  if (link && link.plan) restored = await restorePlan(link.plan, 'this link');
  const stored = await loadBest(result.sha256).catch(() => undefined);
  if (stored) {
    const used = await restorePlan(stored.plan, 'this browser');
    restored = restored || used;
    $('stored-note').textContent = `Best plan kept in this browser: cost ${stored.cost} ` +
        `(saved ${stored.savedAt})${used ? '' : '; the current plan is better'}.`;
  } else {
    $('stored-note').textContent = '';
  }
  await updateLink();
  if (root.dataset.status === 'error') return;
  if (autostart && !restored) {
    start();
  } else {
    setStatus(restored ? 'stopped' : 'idle');
  }
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
  try {
    app.solving = app.client.start(options, s.timeS, best);
    await app.solving;
    setStatus(app.stopReason || 'done');
  } catch (error) {
    showError(error.message);
  } finally {
    app.solving = null;
    scheduleSave(0);
    await updateLink();
  }
}

async function stopSolving(reason = 'stopped') {
  if (!app.solving) return;
  app.stopReason = reason;
  const running = app.solving;
  await app.client.stop();
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
  $('download-result').addEventListener('click', () => {
    if (!app.view) return;
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
    try {
      saveText(
          app.view.resultJson(bestPlan(), run) + '\n', `${stem()}.result.json`, 'application/json');
    } catch (error) {
      showError(error.message);
    }
  });
  $('download-line').addEventListener('click', () => {
    if (app.view) saveText(app.view.solutionLine(bestPlan()) + '\n', `${stem()}.solution.txt`);
  });
  $('download-png').addEventListener('click', () => savePlots(views.canvases(), stem()));
  $('copy-link')
      .addEventListener('click', () => navigator.clipboard.writeText($('permalink').href));
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
    try {
      link = await decodeSharding(params);
    } catch (error) {
      showError(`This link cannot be read: ${error.message}`);
    }
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
