// The plan lab's tab: pick a model (a preset, or a config.json / einsum
// model dropped or uploaded) and a cluster, the GPU count, global batch and
// sequence length; the worker (worker.js via plan_client.mjs) plans it with
// the CLI's engine and the tab shows the plan card, memory bars, the time
// breakdown, the why-not table, sizing, the exports and the winning plan's
// pipeline timeline (the pipeline lab's Timeline) and a part's layout (the
// teaching lab's view). data-status on #lab-plan (the test contract):
// starting, planning, done, stopped, error; data-runs counts finished runs.
// State: the URL fragment (permalink.mjs) and the last answers in IndexedDB
// (saved.mjs).
import {saveText} from '../downloads.mjs';
import * as f from '../format.mjs';
import {Timeline} from '../pipeline/timeline.mjs';
import {render as renderLayout} from '../teach/views.mjs';
import {nextTask} from '../worker_client.mjs';

import {renderMemory, renderTime} from './bars.mjs';
import {cardRows, noFitText, numberRows, renderRows} from './card.mjs';
import {decodePlan, encodePlan} from './permalink.mjs';
import {PlanClient} from './plan_client.mjs';
import {loadPlan, requestKey, savePlan} from './saved.mjs';
import {renderSweep, renderWhyNot, sizingText} from './tables.mjs';

export const DEFAULTS = Object.freeze({
  model: {preset: 'gpt-1.7b'},
  cluster: {preset: 'dgx-a100-80gb'},
  gpus: 32,
  batch: 512,
  seq: 2048,
  fix: '',
  timeS: 10,
  sweep: false,
  part: 'layer',
});

const app = {
  root: null,
  shell: null,
  client: null,
  state: {...DEFAULTS},  // what the controls say (permalink.mjs's fields)
  sent: {},              // what the worker's session holds: JSON of each input
  done: null,            // the last answer shown: {text, result, megatron, ...}
  timeline: null,
  link: '',
  queue: Promise.resolve(),
  stopped: false,  // Stop was pressed during the current run
  record: null,    // the current run's last progress record
  pending: 0,      // runs queued behind the current one
};
globalThis.shardlabPlan = app;  // for debugging

const $ = (id) => app.root.querySelector(`#${id}`);
const q = (testid) => app.root.querySelector(`[data-testid=${testid}]`);

function setStatus(status, text = status) {
  app.root.dataset.status = status;
  q('plan-status-text').textContent = text;
  $('plan-stop').disabled = status !== 'planning';
}

function showError(message) {
  q('plan-error').textContent = message;
  q('plan-error').hidden = false;
  setStatus('error');
}

// ---- the controls <-> app.state ----

function inputOption(select, input) {
  const file = [...select.options].find((o) => o.dataset.file);
  if (input && input.text !== undefined) {
    const option = file || new Option('', '__file__');
    option.dataset.file = 'true';
    option.textContent = `file: ${input.name}`;
    option.value = '__file__';
    if (!file) select.append(option);
    select.value = '__file__';
  } else {
    if (file) file.remove();
    select.value = input ? input.preset : '';
  }
}

function showState() {
  const s = app.state;
  inputOption($('plan-model'), s.model);
  inputOption($('plan-cluster'), s.cluster);
  $('plan-gpus').value = s.gpus ? String(s.gpus) : '';
  $('plan-batch').value = String(s.batch);
  $('plan-seq').value = String(s.seq);
  $('plan-fix').value = s.fix;
  $('plan-time').value = String(s.timeS);
  $('plan-sweep').checked = s.sweep;
  $('plan-layout-part').value = s.part;
}

function positive(input, name) {
  const v = Number(input.value);
  if (!Number.isSafeInteger(v) || v < 1)
    throw new Error(`${name}: expected a positive integer, found "${input.value}"`);
  return v;
}

function readControls() {
  const s = app.state;
  if ($('plan-model').value !== '__file__') s.model = {preset: $('plan-model').value};
  if ($('plan-cluster').value !== '__file__') s.cluster = {preset: $('plan-cluster').value};
  s.gpus = $('plan-gpus').value === '' ? 0 : positive($('plan-gpus'), 'GPUs');
  s.batch = positive($('plan-batch'), 'Global batch');
  s.seq = positive($('plan-seq'), 'Sequence');
  s.fix = $('plan-fix').value.trim();
  const t = Number($('plan-time').value);
  if (!(t > 0))
    throw new Error(
        `Time limit: expected a positive number of seconds, found "${$('plan-time').value}"`);
  s.timeS = t;
  s.sweep = $('plan-sweep').checked;
}

// ---- the session's inputs, then a run ----

function wireInput(input) {
  return input.preset !== undefined ? {preset: input.preset} :
                                      {text: input.text, source: input.name};
}

// Sends the inputs the worker's session does not hold yet (text crosses once).
async function sendInputs() {
  const s = app.state;
  const wanted = {
    model: JSON.stringify(wireInput(s.model)),
    cluster: JSON.stringify(wireInput(s.cluster)),
    training: JSON.stringify({gpus: s.gpus || 0, global_batch: s.batch, seq: s.seq, fix: s.fix}),
  };
  if (wanted.model !== app.sent.model) {
    app.sent.model = null;
    app.model = await app.client.setModel(wireInput(s.model));
    app.sent.model = wanted.model;
  }
  if (wanted.cluster !== app.sent.cluster) {
    app.sent.cluster = null;
    app.cluster = await app.client.setCluster(wireInput(s.cluster));
    app.sent.cluster = wanted.cluster;
  }
  if (wanted.training !== app.sent.training) {
    app.sent.training = null;
    await app.client.setTraining(JSON.parse(wanted.training));
    app.sent.training = wanted.training;
  }
  describeInputs();
}

function describeInputs() {
  const m = app.model;
  const c = app.cluster;
  if (!m || !c) return;
  const model = m.kind === 'einsum' ? `${m.name} (einsum model, ${m.ops} ops)` :
                                      `${m.name}: ${f.count(m.parameters)} parameters, ${
                                          m.layers} layers, hidden ${f.grouped(m.hidden)}` +
          (m.experts ? `, ${m.experts} experts` : '');
  const gpus = app.state.gpus || c.nodes * c.gpusPerNode;
  q('plan-inputs').textContent = `${model} · ${c.name}: ${f.grouped(gpus)} × ${c.gpu} ` +
      `(${c.memoryGB} GB, ${c.peakTflops} TFLOP/s) · ${f.grouped(app.state.batch)} sequences of ` +
      `${f.grouped(app.state.seq)} tokens`;
}

// Runs are queued; a change while planning stops the current run first.
// data-runs counts finished runs (done, stopped or error), so tests wait
// for the next one without sleeping.
function plan() {
  if (app.root.dataset.status === 'planning') stop();
  const counted = () => runOnce().finally(() => {
    app.root.dataset.runs = String(Number(app.root.dataset.runs || 0) + 1);
  });
  app.queue = app.queue.then(counted, counted);
  return app.queue;
}

// Stops the run being planned; one still sending its inputs (the worker
// has no search to stop yet) ends before its search starts.
function stop() {
  app.stopped = true;
  app.client.stop().catch(() => {});
}

function onRecord(record, improved, early) {
  if (app.root.dataset.status !== 'planning') return;
  app.record = record;
  // The plan as soon as it is evaluated; the why-not rows, sizing and the
  // timeline follow with the run's answer.
  if (early) {
    const result = JSON.parse(early.json);
    if (result.found) show({...early, text: early.json, result, early: true});
  }
  const phase = record.counters && record.counters.phase;
  const side = phase === 'alternatives' || phase === 'sizing' || phase === 'sweep';
  const best = side ? `plan shown; now the ${phase === 'alternatives' ? 'why-not rows' : phase}` :
      record.found  ? `best ${f.seconds(record.incumbent)}` :
                      'no plan that fits yet';
  q('plan-progress').textContent =
      `${f.seconds(record.elapsedS)} / ${f.seconds(app.state.timeS)}: ` +
      `${best}, bound ${f.seconds(record.bound)}` +
      (record.found ? `, gap ${f.percent(record.gap, 2)}` : '');
}

async function runOnce() {
  q('plan-error').hidden = true;
  try {
    readControls();
  } catch (error) {
    return showError(error.message);
  }
  const request = {...app.state};
  app.stopped = false;
  setStatus('planning', 'planning…');
  q('plan-progress').textContent = '';
  app.record = null;
  try {
    await sendInputs();
    await remember(request);
    if (app.stopped) return setStatus('stopped', 'stopped: no plan found yet');
    const done = await app.client.plan({sweep: request.sweep}, request.timeS);
    // A stopped run's answer lacks the side searches: not kept.
    if (done.reason === 'stopped') return showStopped(done);
    show(done);
    q('plan-progress').textContent = `planned in ${f.seconds(done.elapsedS)}`;
    // A finished one is stored before its status says so: a reload after
    // 'done' restores it, and data-runs (counted as runOnce returns) moves
    // in the same task as the status, never a task later.
    try {
      await savePlan(await requestKey(request), done);
    } catch (error) {
      // Private windows may refuse IndexedDB; the fragment still holds the request.
    }
    setStatus('done', `done: ${foundText(done)}`);
  } catch (error) {
    app.sent = {};  // the session may hold part of a rejected input
    showError(error.message);
  }
}

// What a run's plan reached, for the status line.
function foundText(done) {
  const r = done.result;
  return !r.found ? (done.reason === 'stopped' ? 'no plan found yet' : 'no plan fits') :
      r.proven    ? 'proven optimal' :
                    `gap ${f.percent(r.gap, 2)}`;
}

// A Stop shows 'stopped' in the click's own task (plan_client.mjs resolves
// the run there); the plan is drawn in a later task (the card, bars, tables
// and timeline take tens of milliseconds), or, when the worker had not yet
// sent an evaluated plan, once its stopped answer comes. A worker that did
// not answer within the grace was replaced: no plan to show.
async function showStopped(done) {
  if (done.result) {
    setStatus('stopped', `stopped: ${foundText(done)}`);
    await nextTask();
  } else {
    setStatus('stopped', 'stopped: finishing the best plan so far…');
    done = await done.later;
    if (!done) {
      const found = app.record && app.record.found;
      return setStatus(
          'stopped', `stopped: ${found ? 'its plan was not evaluated yet' : 'no plan found yet'}`);
    }
  }
  show(done);
  q('plan-progress').textContent = `planned in ${f.seconds(done.elapsedS)}`;
  setStatus('stopped', `stopped: ${foundText(done)}`);
}

// ---- the views ----

function show(done) {
  app.done = done;
  const r = done.result;
  q('plan-restored').hidden = !done.savedAt;
  q('plan-restored').textContent =
      done.savedAt ? `restored from ${new Date(done.savedAt).toLocaleString()}` : '';
  q('plan-nofit').hidden = r.found;
  // A Stop before the first plan says so: "no plan fits" would be a claim.
  const early = !r.found && done.reason === 'stopped';
  q('plan-nofit').textContent = r.found ? '' :
      early ? 'Stopped before the search found a plan; press Plan to search again.' :
              noFitText(r);
  renderRows(q('plan-card'), r.found ? cardRows(r.plan) : []);
  renderRows(q('plan-numbers'), r.found ? numberRows(r) : []);
  if (r.found) {
    renderMemory(q('plan-memory'), r);
    renderTime(q('plan-time-breakdown'), r);
  } else {
    q('plan-memory').replaceChildren();
    q('plan-time-breakdown').replaceChildren();
  }
  renderWhyNot(q('plan-whynot'), r);
  q('plan-sizing').textContent = done.early ? 'Sizing follows the why-not rows.' : sizingText(r);
  renderSweep(q('plan-sweep-table'), r);
  q('plan-sweep-table').hidden = !((r.sizing || {}).sweep || []).length;
  q('plan-megatron').textContent = done.megatron || 'No Megatron-LM arguments for this model.';
  q('plan-megatron-notes').replaceChildren(...(done.megatronNotes || []).map((note) => {
    const li = document.createElement('li');
    li.textContent = note;
    return li;
  }));
  q('plan-torchtitan').textContent = done.torchtitan || 'No torchtitan section for this model.';
  for (const id of ['plan-copy-megatron', 'plan-save-megatron']) $(id).disabled = !done.megatron;
  for (const id of ['plan-copy-torchtitan', 'plan-save-torchtitan']) {
    $(id).disabled = !done.torchtitan;
  }
  showTimeline(done);
  showLayout();
}

function showTimeline(done) {
  let schedule = null;
  if (done.timeline) {
    schedule = typeof done.timeline === 'string' ? JSON.parse(done.timeline) : done.timeline;
  }
  const devices = schedule && schedule.memory ? schedule.memory.length : 0;
  q('plan-timeline-note').textContent = schedule ?
      `${schedule.name} on ${devices} pipeline device${devices === 1 ? '' : 's'}, ` +
          `${done.result.plan.microbatches} micro-batches of ${done.result.plan.microbatch_size}` :
      done.early ? 'The timeline follows when the why-not rows and sizing are done.' :
                   (done.timelineError || 'No timeline: no plan fits.');
  app.timeline.setSchedules(schedule ? [{schedule}] : []);
}

async function showLayout() {
  const box = q('plan-layout-box');
  const r = app.done && app.done.result;
  if (!box.open || !r || !r.found) return;
  const part = $('plan-layout-part').value;
  const config = {
    tp: r.plan.tp,
    sp: r.plan.sequence_parallel,
    ep: r.plan.ep,
    microbatch_size: r.plan.microbatch_size,
    recompute: r.plan.recompute,
    lean: Boolean(r.plan.lean_layout),
  };
  q('plan-layout-note').textContent = `solving the ${part}'s layout on t = ${config.tp}…`;
  try {
    const report = JSON.parse(await app.client.layout(part, config));
    if (!report.ops) {
      q('plan-layout-view').hidden = true;
      q('plan-layout-note').textContent =
          'This build prices parts without the sharding solver: no layout to show.';
      return;
    }
    renderLayout(app.root, report, null, 'plan-layout');
    q('plan-layout-view').hidden = false;
    q('plan-layout-note').textContent = `The ${part} on t = ${config.tp}` +
        (config.sp ? ' with sequence parallelism' : '') +
        `, micro-batch ${config.microbatch_size}.`;
  } catch (error) {
    q('plan-layout-view').hidden = true;
    q('plan-layout-note').textContent = error.message;
  }
}

// ---- state: fragment, IndexedDB, downloads, copy ----

async function remember(request) {
  const {params, omitted} = await encodePlan(request);
  app.link = app.shell.setFragment('plan', params);
  if (omitted.length) {
    q('plan-share-feedback').textContent = `The ${
        omitted.join(' and ')} is too long for a link: the permalink names the presets only.`;
  }
}

async function copy(text, feedback) {
  const box = q(feedback);
  try {
    await navigator.clipboard.writeText(text);
    box.textContent = 'Copied';
  } catch (error) {
    box.textContent = `Not copied: ${error.message || 'the browser refused the clipboard'}`;
  }
  setTimeout(() => box.textContent === 'Copied' && (box.textContent = ''), 3000);
}

function stem() {
  const r = app.done && app.done.result;
  return r ? `${r.model.name}-${r.cluster.gpus}gpus` : 'plan';
}

async function readFile(file, kind) {
  const text = await file.text();
  app.state[kind] = {text, name: file.name};
  inputOption($(`plan-${kind}`), app.state[kind]);
  plan();
}

function wire() {
  const replan = () => plan();
  for (const id
           of ['plan-model', 'plan-cluster', 'plan-gpus', 'plan-batch', 'plan-seq', 'plan-fix',
               'plan-sweep']) {
    $(id).addEventListener('change', replan);
  }
  $('plan-run').addEventListener('click', replan);
  $('plan-stop').addEventListener('click', stop);
  $('plan-fix').addEventListener('keydown', (e) => e.key === 'Enter' && replan());
  for (const kind of ['model', 'cluster']) {
    $(`plan-${kind}-file`).addEventListener('change', (e) => {
      if (e.target.files[0]) readFile(e.target.files[0], kind);
    });
  }
  // Dropped models and cluster files reach the two file inputs through the
  // page's drop zone (../drop.mjs), which tells them apart by content.
  $('plan-layout-part').addEventListener('change', () => {
    app.state.part = $('plan-layout-part').value;
    showLayout();
  });
  q('plan-layout-box').addEventListener('toggle', () => showLayout());
  const done = () => app.done;
  $('plan-copy-megatron')
      .addEventListener(
          'click', () => done() && copy(done().megatron, 'plan-copy-megatron-feedback'));
  $('plan-copy-torchtitan')
      .addEventListener(
          'click', () => done() && copy(done().torchtitan, 'plan-copy-torchtitan-feedback'));
  $('plan-copy-json')
      .addEventListener('click', () => done() && copy(done().text, 'plan-share-feedback'));
  $('plan-copy-link')
      .addEventListener('click', () => app.link && copy(app.link, 'plan-share-feedback'));
  $('plan-save-megatron')
      .addEventListener(
          'click',
          () => done() &&
              saveText(`${done().megatron}\n`, `${stem()}-megatron.sh`, 'text/x-shellscript'));
  $('plan-save-torchtitan')
      .addEventListener(
          'click',
          () => done() &&
              saveText(done().torchtitan, `${stem()}-torchtitan.toml`, 'application/toml'));
  $('plan-save-json')
      .addEventListener(
          'click',
          () => done() && saveText(done().text, `${stem()}-plan.json`, 'application/json'));
}

// The answer stored for this request, shown at once ("restored from ...").
async function restore() {
  try {
    const stored = await loadPlan(await requestKey(app.state));
    if (!stored) return false;
    show({...stored, result: JSON.parse(stored.text)});
    const r = app.done.result;
    setStatus(
        'done',
        `restored: ${
            r.found ? (r.proven ? 'proven optimal' : `gap ${f.percent(r.gap, 2)}`) :
                                  'no plan fits'            }`);
    await remember(app.state);
    return true;
  } catch (error) {
    return false;
  }
}

export async function mount(section, shell, params) {
  app.root = section;
  app.shell = shell;
  setStatus('starting', 'starting');
  const link = await decodePlan(params);
  const s = app.state;
  for (const key of Object.keys(DEFAULTS)) {
    if (link[key] !== null && link[key] !== undefined && link[key] !== '') s[key] = link[key];
  }
  if (params.has('fix')) s.fix = link.fix;
  s.sweep = link.sweep;
  app.timeline = new Timeline($('plan-timeline'), $('plan-tooltip'), {
    formatTime: (us) => f.seconds(Number(us) * 1e-6),
    timeLabel: 'time',
    formatMemory: f.bytes,
  });
  wire();
  try {
    app.client = new PlanClient(new URL('./worker.js', import.meta.url).href, onRecord);
    const ready = await app.client.ready();
    $('plan-model').replaceChildren(...ready.models.map((name) => new Option(name, name)));
    $('plan-cluster').replaceChildren(...ready.clusters.map((name) => new Option(name, name)));
  } catch (error) {
    return showError(`The plan lab cannot start: ${error.message}`);
  }
  showState();
  if (await restore()) {
    try {
      await sendInputs();
    } catch (error) {
      showError(error.message);
    }
    return;
  }
  await plan();
}
