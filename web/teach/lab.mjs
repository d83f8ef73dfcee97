// The teaching lab: edit a model (or pick a course example), generate its
// sharding instance (teachGenerate), solve it with the sharding lab's
// SolverClient (the same workers as any instance), and show the explained
// optimum (teachExplain; both in a worker of their own, teach()): each op's
// layout, the collectives paid, the textbook name, what changed since the last solve,
// forced strategies (chips, forces.mjs) against the free optimum, and the
// exports (the core's runnable JAX script, the explanation, instance,
// sidecar, model), each with Download and Copy. Messages appear next to
// the control that caused them (../feedback.mjs): a refused mesh beside the
// mesh, "Copied" beside Copy.
// data-status on #lab-teach (the test contract): idle, generating, solving,
// stopped (Stop pressed: the best plan so far is shown at once, with its
// cost and bound, and explained in a later task), done, error; data-solves
// counts finished runs (a stopped one once its explanation is shown). The
// time control comes from the solver's option schema. The state travels in
// the fragment (#v=3&lab=teach&ex=... or m=<deflated model text>, t, cm,
// f=NODE=STRATEGY;...) and the last model in IndexedDB.
import {baseName, saveText} from '../downloads.mjs';
import {clearNear, copyText, feedbackRegion, nearby, setReason, showNear} from '../feedback.mjs';
import {grouped} from '../format.mjs';
import {showLinkProblems} from '../link_notice.mjs';
import {applySchema, readOption, rowOf} from '../options_form.mjs';
import {OP} from '../protocol.mjs';
import {unwrap} from '../result.mjs';
import {SolverClient} from '../sharding/solver_client.mjs';
import {deflate, fromBase64Url, inflate, toBase64Url} from '../state.mjs';
import {getRecord, putRecord} from '../store.mjs';
import {stopSignal, untilStopped, WorkerHandle} from '../worker_client.mjs';

import {addForce, encodeForces, parseForces, renderChips} from './forces.mjs';
import {formatModel, parseMeshShape, parseModel, setBatch, setMemory, setMesh} from './model_edit.mjs';
import {forceText, formatNs} from './report.mjs';
import {clear, render} from './views.mjs';

export const EXAMPLES = Object.freeze([
  {file: 'mlp.json', label: '2-layer MLP on [8]: Megatron'},
  {file: 'data_parallel.json', label: 'Large batch, small weights: data parallel'},
  {file: 'transformer.json', label: 'Transformer block on [2, 4]: DP + TP'},
  {file: 'zero.json', label: 'Memory-tight MLP: ZeRO'},
  {file: 'moe.json', label: 'MoE layer: expert parallel'},
]);

const app = {
  root: null,
  shell: null,
  M: null,
  schema: null,  // the solver's option schema (core/sharding/options.def)
  client: null,
  stopAsked: false,  // Stop was pressed during this run
  name: 'mlp.json',  // the model's file name (errors name it)
  example: null,     // the example file the text came from, while unedited
  exampleText: '',
  generated: null,   // teachGenerate's last answer
  report: null,      // the last explanation shown
  free: null,        // the last free optimum: {key, cost, lower_bound}
  force: new Map(),  // node -> strategy, in the order they were forced
  queue: Promise.resolve(),
  stopSignal: null,         // the running solve's (../worker_client.mjs)
  busy: Promise.resolve(),  // the workers' read and run of the last solve
};
globalThis.shardlabTeach = app;  // for debugging

const $ = (id) => app.root.querySelector(`#${id}`);
const encoder = new TextEncoder();
const decoder = new TextDecoder();

function setStatus(status, text = status) {
  app.root.dataset.status = status;
  app.root.querySelector('[data-testid=teach-status-text]').textContent = text;
  $('teach-solve').disabled = status === 'generating' || status === 'solving';
  $('teach-stop').disabled = status !== 'solving';
}

function showError(message) {
  $('teach-error').textContent = message;
  $('teach-error').hidden = false;
  setStatus('error');
}

function options() {
  const out = {};
  if ($('teach-cost-model').value) out.cost_model = $('teach-cost-model').value;
  if (app.force.size) out.force = Object.fromEntries(app.force);
  return out;
}

function timeLimitS() {
  return app.schema ? readOption($('teach-time'), rowOf(app.schema, 'time_limit_s')) : 10;
}

// ---- the model's controls and the force selectors ----

function showModelInfo(info) {
  $('teach-mesh').value = info.mesh.shape.join('x');
  $('teach-batch').value = info.batch_size ? String(info.batch_size) : '';
  $('teach-batch').disabled = !info.batch_size;
  $('teach-memory').value = info.device_memory_GB === null ? '' : String(info.device_memory_GB);
}

function fillForce(sidecar) {
  const nodeSelect = $('teach-force-node');
  const keep = nodeSelect.value;
  nodeSelect.replaceChildren(
      ...sidecar.nodes.map((n) => new Option(`${n.name} (${n.kind})`, n.name)));
  if (sidecar.nodes.some((n) => n.name === keep)) nodeSelect.value = keep;
  fillStrategies();
}

function fillStrategies() {
  if (!app.generated) return;
  const node = app.generated.sidecar.nodes.find((n) => n.name === $('teach-force-node').value);
  $('teach-force-strategy')
      .replaceChildren(...(node ? node.strategies : []).map((s) => new Option(s, s)));
  if (node && app.force.has(node.name)) $('teach-force-strategy').value = app.force.get(node.name);
}

function showForces() {
  renderChips($('teach-forces'), app.force, (node) => {
    app.force.delete(node);
    showForces();
    // Focus stays in the panel: on the next chip's ×, or the add button.
    const next = $('teach-forces').querySelector('button') || $('teach-force');
    next.focus();
    showNear($('teach-force'), `Removed the force on ${node}; solving again`, 'info');
    solve();
  });
}

/**
 * Applies an edit to the model text (parse, change, write back) and solves;
 * a refused edit is shown next to its control and changes nothing.
 */
function editModel(control, change) {
  let model;
  try {
    model = parseModel($('teach-text').value);
    change(model);
  } catch (error) {
    return showNear(control, error.message, 'error');
  }
  clearNear(control);
  $('teach-text').value = formatModel(model);
  app.example = null;
  solve();
}

// What the exports hold (text), and the reason when there is nothing yet.
const EXPORTS = {
  jax: {
    what: 'JAX script',
    text: () => app.report && app.report.jax,
    file: () => `${app.report.model}_sharding.py`,
    type: 'text/x-python',
    none: 'solve a model first: the script holds its layout',
  },
  report: {
    what: 'explanation',
    ready: () => Boolean(app.report),  // without writing the whole report on every keystroke
    text: () => app.report && `${JSON.stringify(app.report, null, 1)}\n`,
    file: () => `${stem()}-explained.json`,
    type: 'application/json',
    none: 'solve a model first',
  },
  instance: {
    what: 'instance',
    ready: () => Boolean(app.generated),  // without decoding megabytes on every update
    text: () => app.generated && decoder.decode(app.generated.instance),
    file: () => `${stem()}-instance.json`,
    type: 'application/json',
    none: 'generate the model first (Generate and solve)',
  },
  sidecar: {
    what: 'sidecar',
    text: () => app.generated && app.generated.sidecarText,
    file: () => `${stem()}-instance.sidecar.json`,
    type: 'application/json',
    none: 'generate the model first (Generate and solve)',
  },
  model: {
    what: 'model',
    text: () => $('teach-text').value,
    file: () => `${stem()}.json`,
    type: 'application/json',
    none: 'the model text is empty',
  },
};

// Each export's buttons are enabled, or disabled with the reason.
function updateExports() {
  for (const [key, e] of Object.entries(EXPORTS)) {
    const reason = (e.ready ? e.ready() : e.text()) ? '' : e.none;
    setReason($(`teach-save-${key}`), reason && `Download the ${e.what}: ${reason}`);
    setReason($(`teach-copy-${key}`), reason && `Copy the ${e.what}: ${reason}`);
  }
  setReason(
      $('teach-copy-link'),
      app.link ? '' : 'Copy the permalink: it is written after the first solve');
}

// ---- generate, solve, explain ----

// Runs are queued; data-solves counts the finished ones (done or error), so
// tests wait for the next one without sleeping.
function solve() {
  const counted = () => runOnce().finally(() => {
    app.root.dataset.solves = String(Number(app.root.dataset.solves || 0) + 1);
  });
  app.queue = app.queue.then(counted, counted);
  return app.queue;
}

// A stop ends the solve at once, in the click's task, with the best plan
// so far (the client keeps what its engines report; the worker's quick
// plan comes right after the read), or null when there is none yet. A read
// still going on in the worker then ends without a run, and the next solve
// waits for it (app.busy).
async function solveBytes(generated, signal) {
  const previous = app.busy;
  let loaded = false;  // the client's best is of this instance only from then on
  const work = (async () => {
    await previous;
    if (signal.fired) return false;
    // A copy moves to the solver's worker; the generated bytes stay for the exports.
    await app.client.load({kind: 'bytes', bytes: generated.instance.slice(), name: app.name});
    loaded = true;
    if (signal.fired) return false;  // stopped during the read: its solve has ended
    const limit = timeLimitS();
    await app.client.start({seed: 1, time_limit_s: limit, exact_max_nodes: 200}, limit);
    return true;
  })();
  app.busy = work.catch(() => {});
  await untilStopped(work, signal, () => false);
  return loaded && app.client.best ? {
    plan: Array.from(app.client.best.plan),
    cost: app.client.best.cost,
    bound: app.client.bound
  } :
                                     null;
}

async function runOnce() {
  const text = $('teach-text').value;
  $('teach-error').hidden = true;
  app.stopAsked = false;
  const signal = stopSignal();
  app.stopSignal = signal;
  setStatus('generating');
  const opts = options();
  let generated;
  try {
    generated = await generate(text, opts);
  } catch (error) {
    // A force the model no longer takes: said beside the forces too.
    if (opts.force && error.code === 'InvalidArgument') {
      showNear($('teach-force'), `${error.message} (remove its chip below)`, 'error');
    }
    return showError(error.message);
  }
  app.generated = generated;
  showModelInfo(generated.model);
  fillForce(generated.sidecar);
  try {
    setStatus('solving');
    // A forced run is compared with the free optimum of the same model.
    const freeKey = JSON.stringify([text, opts.cost_model || '']);
    let free = app.free && app.free.key === freeKey ? app.free : null;
    if (opts.force && !free) {
      const freeOpts = {...opts};
      delete freeOpts.force;
      const best = await solveBytes(await generate(text, freeOpts), signal);
      if (best) free = app.free = {key: freeKey, cost: best.cost, lower_bound: best.bound};
    }
    // Stopped before the free optimum was known: the forced run is not started.
    const best = signal.fired && opts.force && !free ? null : await solveBytes(generated, signal);
    if (!best && signal.fired) {
      clear(app.root);
      app.report = null;
      updateExports();
      return setStatus('stopped', 'stopped before a plan was found');
    }
    if (!best) {
      return showError(
          `No plan fits: every layout of ${generated.model.name} needs more than ` +
          `the ${generated.model.device_memory_GB} GB per device the mesh has.`);
    }
    if (!opts.force && !app.stopAsked) {
      app.free = {key: freeKey, cost: best.cost, lower_bound: best.bound};
    }
    if (app.stopAsked) showStopped(best);
    const request = {
      source: app.name,
      options: opts,
      plan: best.plan,
      cost: best.cost,
      lower_bound: best.bound,
      seconds: app.client.elapsedS
    };
    if (opts.force && free) request.free = free;
    const explained = await teach({call: 'explain', text, request: JSON.stringify(request)});
    const report = JSON.parse(explained.report);
    render(app.root, report, app.report);
    app.report = report;
    app.root.querySelector('[data-testid=teach-force]').textContent = forceText(report);
    updateExports();
    // Saved first: a test (or a user) that sees 'done' or 'stopped' finds
    // the link written and the run counted in data-solves.
    await remember(text);
    const found = report.proven_optimal ? 'proven optimal' : 'best found';
    if (app.stopAsked)
      setStatus('stopped', `stopped: ${found}`);
    else
      setStatus('done', `done: ${found}`);
  } catch (error) {
    showError(error.message);
  }
}

// A stop takes effect before the plan is explained: the status turns
// 'stopped' with the plan's cost and bound, and the explanation (0.1 s or
// more on a deep model, in the teaching worker) comes after it.
// data-solves counts the run after it.
function showStopped(best) {
  const proven = BigInt(best.bound) >= BigInt(best.cost);
  const q = (testid) => app.root.querySelector(`[data-testid=${testid}]`);
  q('teach-cost').textContent = `${formatNs(best.cost)} (${grouped(best.cost)} ns)`;
  q('teach-bound').textContent = `${formatNs(best.bound)}${proven ? ' — proven optimal' : ''}`;
  setStatus('stopped', `stopped: ${proven ? 'proven optimal' : 'best found'} (explaining…)`);
}

// The teaching calls (OP.TEACH) go to a worker of their own, on the
// solver's script: a deep model's generation and explanation take hundreds
// of milliseconds, not the page's, and a stopped run's worker, still in its
// step or being replaced, never delays the explanation of its plan.
async function teach(payload) {
  await app.teacher.ready;
  return app.teacher.call(OP.TEACH, payload);
}

// The generated instance, with its sidecar (text, saved as it is) parsed for the views.
async function generate(text, opts) {
  const generated =
      await teach({call: 'generate', text, name: app.name, options: JSON.stringify(opts)});
  return {...generated, sidecarText: generated.sidecar, sidecar: JSON.parse(generated.sidecar)};
}

// Stop: the running solve ends with its best plan, which is explained.
async function stop() {
  if (app.root.dataset.status !== 'solving') return;
  app.stopAsked = true;
  app.stopSignal.fire();
  await app.client.stop();
}

// ---- state: fragment, IndexedDB, downloads ----

async function fragmentParams(text) {
  const p = new URLSearchParams();
  if (app.example && text === app.exampleText) {
    p.set('ex', app.example);
  } else {
    p.set('m', toBase64Url(await deflate(encoder.encode(text))));
    p.set('name', app.name);
  }
  if (timeLimitS() !== 10) p.set('t', String(timeLimitS()));
  if ($('teach-cost-model').value) p.set('cm', $('teach-cost-model').value);
  if (app.force.size) p.set('f', encodeForces(app.force));
  return p;
}

async function remember(text) {
  app.link = app.shell.setFragment('teach', await fragmentParams(text));
  updateExports();
  try {
    await putRecord('teach', {key: 'last', text, name: app.name, report: app.report});
  } catch (error) {
    // Private windows may refuse IndexedDB; the fragment still holds the state.
  }
}

async function loadExample(file) {
  const response = await fetch(new URL(`examples/${file}`, import.meta.url));
  if (!response.ok) throw new Error(`examples/${file}: ${response.status} ${response.statusText}`);
  const text = await response.text();
  app.example = file;
  app.exampleText = text;
  app.name = file;
  $('teach-example').value = file;
  $('teach-text').value = text;
}

async function initialModel(params) {
  if (params.has('m')) {
    $('teach-text').value = decoder.decode(await inflate(fromBase64Url(params.get('m'))));
    app.name = params.get('name') || 'model.json';
    return;
  }
  if (params.has('ex') && EXAMPLES.some((e) => e.file === params.get('ex'))) {
    return loadExample(params.get('ex'));
  }
  let last;
  try {
    last = await getRecord('teach', 'last');
  } catch (error) {
    last = undefined;
  }
  if (last && last.text) {
    $('teach-text').value = last.text;
    app.name = last.name || 'model.json';
    return;
  }
  return loadExample(EXAMPLES[0].file);
}

function stem() {
  return baseName(app.name);
}

// The mesh as typed, or null after showing why it is refused beside the input.
function meshShape() {
  const input = $('teach-mesh');
  try {
    return parseMeshShape(input.value);
  } catch (error) {
    showNear(input, `Mesh refused: ${error.message}`, 'error');
    return null;
  }
}

function forceNow() {
  const node = $('teach-force-node').value;
  const strategy = $('teach-force-strategy').value;
  const button = $('teach-force');
  if (!node || !strategy) return showNear(button, 'Pick a node and a strategy first', 'error');
  const {change, old} = addForce(app.force, node, strategy);
  if (change === 'same')
    return showNear(button, `${node} is already forced to ${strategy}`, 'info');
  showNear(
      button,
      change === 'replaced' ? `${node}: ${old} → ${strategy} (one strategy per node); solving` :
                              `Forced ${node} = ${strategy}; solving`,
      'info');
  showForces();
  solve();
}

// The exports the page shows, which a failed copy selects for Ctrl+C.
const SHOWN = {
  jax: 'teach-jax',
  model: 'teach-text'
};

function wireExports() {
  for (const [key, e] of Object.entries(EXPORTS)) {
    const save = $(`teach-save-${key}`);
    save.addEventListener('click', nearby(save, () => {
                            const file = e.file();
                            saveText(e.text(), file, e.type);
                            return file;
                          }, (file) => `Saved ${file}`));
    const copy = $(`teach-copy-${key}`);
    copy.addEventListener(
        'click', () => copyText(copy, e.text(), {source: SHOWN[key] ? $(SHOWN[key]) : null}));
  }
  const link = $('teach-copy-link');
  link.addEventListener(
      'click', () => copyText(link, app.link || location.href, {what: 'the link'}));
  for (const button of app.root.querySelectorAll('.exports button')) feedbackRegion(button);
  updateExports();
}

function wire() {
  $('teach-example').replaceChildren(...EXAMPLES.map((e) => new Option(e.label, e.file)));
  $('teach-example').addEventListener('change', async () => {
    app.force.clear();
    showForces();
    try {
      await loadExample($('teach-example').value);
    } catch (error) {
      return showError(error.message);
    }
    solve();
  });
  $('teach-solve').addEventListener('click', () => solve());
  $('teach-stop').addEventListener('click', () => stop());
  $('teach-text').addEventListener('input', updateExports);
  $('teach-text').addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) solve();
  });
  for (const id of ['teach-mesh', 'teach-batch', 'teach-memory', 'teach-force', 'teach-unforce']) {
    feedbackRegion($(id));
  }
  $('teach-batch')
      .addEventListener(
          'change',
          () => editModel(
              $('teach-batch'),
              (model) => setBatch(model, app.generated.model, Number($('teach-batch').value))));
  $('teach-mesh').addEventListener('change', () => {
    const shape = meshShape();
    if (shape) editModel($('teach-mesh'), (model) => setMesh(model, shape));
  });
  // A refusal goes as soon as the text is a mesh again.
  $('teach-mesh').addEventListener('input', () => {
    if ($('teach-mesh').getAttribute('aria-invalid') !== 'true') return;
    try {
      parseMeshShape($('teach-mesh').value);
      clearNear($('teach-mesh'));
    } catch (error) {
      // Still refused: the message stays until the change event.
    }
  });
  $('teach-memory')
      .addEventListener(
          'change',
          () => editModel(
              $('teach-memory'), (model) => setMemory(model, Number($('teach-memory').value))));
  $('teach-cost-model').addEventListener('change', () => solve());
  $('teach-force-node').addEventListener('change', fillStrategies);
  $('teach-force').addEventListener('click', forceNow);
  $('teach-unforce').addEventListener('click', () => {
    if (!app.force.size) return showNear($('teach-unforce'), 'Nothing is forced', 'info');
    const count = app.force.size;
    app.force.clear();
    showForces();
    showNear(
        $('teach-unforce'), `Removed ${count} force${count > 1 ? 's' : ''}; solving again`, 'info');
    solve();
  });
  wireExports();
}

/** A model file dropped on the page (../drop.mjs): it replaces the editor's text and is solved. */
export async function openFile(file) {
  const text = await file.text();
  app.force.clear();
  showForces();
  app.example = null;
  app.name = file.name;
  $('teach-text').value = text;
  return solve();
}

// What of a link this lab cannot apply: keys it does not have, an example
// that is not bundled (ex= fetches only EXAMPLES), a time that is not one.
function linkProblems(params) {
  const problems = [];
  const shown = (key) => `${key}=${params.get(key).slice(0, 60)}`;
  for (const key of new Set(params.keys())) {
    if (!['m', 'name', 'ex', 't', 'cm', 'f'].includes(key)) {
      problems.push(`${shown(key)}: the teaching lab has no key '${key}'; ignored`);
    }
  }
  if (params.has('ex') && !params.has('m') && !EXAMPLES.some((e) => e.file === params.get('ex'))) {
    problems.push(`${shown('ex')}: not one of the bundled examples (${
        EXAMPLES.map((e) => e.file).join(', ')}); not applied`);
  }
  if (params.has('t') && !(Number(params.get('t')) > 0)) {
    problems.push(`${shown('t')}: not a time limit in seconds; not applied`);
  }
  return problems;
}

export async function mount(section, shell, params) {
  app.root = section;
  app.shell = shell;
  setStatus('idle', 'starting');
  wire();
  clear(section);
  showLinkProblems(section, linkProblems(params));
  if (params.has('t') && Number(params.get('t')) > 0) $('teach-time').value = params.get('t');
  if (params.has('cm')) $('teach-cost-model').value = params.get('cm');
  app.force = parseForces(params.get('f'));
  showForces();
  try {
    await initialModel(params);
    updateExports();
    app.M = await shell.module();
    app.schema = unwrap(app.M.optionsSchema());
    applySchema(app.root, app.schema);
    const worker = new URL('../sharding/worker.js', import.meta.url).href;
    app.client = new SolverClient(worker, 1, {});
    // The same script under its own URL: a worker of its own, told apart
    // from the solver's in the browser's tools (and by tests that serve
    // the solver's script changed).
    app.teacher = new WorkerHandle(`${worker}?teach`, 0, () => {});
  } catch (error) {
    return showError(`The teaching lab cannot start: ${error.message}`);
  }
  await solve();
}
