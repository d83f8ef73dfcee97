// The teaching lab: edit a model (or pick a course example), generate its
// sharding instance in the page's module (teachGenerate), solve the bytes
// with the sharding lab's SolverClient (the same workers as any instance),
// and show the explained optimum (teachExplain): each op's layout, the
// collectives paid, the textbook name, what changed since the last solve,
// a forced strategy against the free optimum, JAX PartitionSpecs.
// data-status on #lab-teach (the test contract): idle, generating, solving,
// stopped (Stop pressed: the best plan so far is explained), done, error;
// data-solves counts finished runs. The time control comes from the solver's
// option schema. The state travels in the fragment (#v=3&lab=teach&ex=...
// or m=<deflated model text>, t, cm, f) and the last model in IndexedDB.
import {baseName, saveText} from '../downloads.mjs';
import {showLinkProblems} from '../link_notice.mjs';
import {applySchema, readOption, rowOf} from '../options_form.mjs';
import {unwrap} from '../result.mjs';
import {SolverClient} from '../sharding/solver_client.mjs';
import {deflate, fromBase64Url, inflate, toBase64Url} from '../state.mjs';
import {getRecord, putRecord} from '../store.mjs';

import {formatModel, parseMeshShape, parseModel, setBatch, setMemory, setMesh} from './model_edit.mjs';
import {forceText, jaxSpecs} from './report.mjs';
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
  generated: null,  // teachGenerate's last answer
  report: null,     // the last explanation shown
  free: null,       // the last free optimum: {key, cost, lower_bound}
  force: {},        // node -> strategy
  queue: Promise.resolve(),
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
  if (Object.keys(app.force).length) out.force = {...app.force};
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
  if (node && app.force[node.name]) $('teach-force-strategy').value = app.force[node.name];
}

/** Applies an edit to the model text (parse, change, write back) and solves. */
function editModel(change) {
  let model;
  try {
    model = parseModel($('teach-text').value);
    change(model);
  } catch (error) {
    return showError(`${app.name}: ${error.message}`);
  }
  $('teach-text').value = formatModel(model);
  app.example = null;
  solve();
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

// After a stop, a run still builds its engine and takes its first plan
// (teaching instances are small), as the CLI's solve_model does.
async function solveBytes(generated) {
  await app.client.load({kind: 'bytes', bytes: encoder.encode(generated.instance), name: app.name});
  const limit = app.stopAsked ? 0 : timeLimitS();
  await app.client.start({seed: 1, time_limit_s: limit, exact_max_nodes: 200}, limit);
  return app.client.best ? {
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
  setStatus('generating');
  const opts = options();
  let generated;
  try {
    generated = generate(text, opts);
  } catch (error) {
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
      const best = await solveBytes(generate(text, freeOpts));
      if (best) free = app.free = {key: freeKey, cost: best.cost, lower_bound: best.bound};
    }
    const best = await solveBytes(generated);
    if (!best) {
      return showError(
          `No plan fits: every layout of ${generated.model.name} needs more than ` +
          `the ${generated.model.device_memory_GB} GB per device the mesh has.`);
    }
    if (!opts.force && !app.stopAsked) {
      app.free = {key: freeKey, cost: best.cost, lower_bound: best.bound};
    }
    const request = {
      source: app.name,
      options: opts,
      plan: best.plan,
      cost: best.cost,
      lower_bound: best.bound,
      seconds: app.client.elapsedS
    };
    if (opts.force && free) request.free = free;
    const report = JSON.parse(unwrap(app.M.teachExplain(text, JSON.stringify(request))));
    render(app.root, report, app.report);
    app.report = report;
    app.root.querySelector('[data-testid=teach-force]').textContent = forceText(report);
    const found = report.proven_optimal ? 'proven optimal' : 'best found';
    if (app.stopAsked)
      setStatus('stopped', `stopped: ${found}`);
    else
      setStatus('done', `done: ${found}`);
    await remember(text);
  } catch (error) {
    showError(error.message);
  }
}

// The generated instance, with its sidecar (text, saved as it is) parsed for the views.
function generate(text, opts) {
  const generated = unwrap(app.M.teachGenerate(text, app.name, JSON.stringify(opts)));
  return {...generated, sidecarText: generated.sidecar, sidecar: JSON.parse(generated.sidecar)};
}

// Stop: the running solve ends with its best plan, which is explained.
async function stop() {
  if (app.root.dataset.status !== 'solving') return;
  app.stopAsked = true;
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
  const forced = Object.entries(app.force).map(([n, s]) => `${n}=${s}`).join(';');
  if (forced) p.set('f', forced);
  return p;
}

async function remember(text) {
  app.link = app.shell.setFragment('teach', await fragmentParams(text));
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

function wire() {
  $('teach-example').replaceChildren(...EXAMPLES.map((e) => new Option(e.label, e.file)));
  $('teach-example').addEventListener('change', async () => {
    app.force = {};
    try {
      await loadExample($('teach-example').value);
    } catch (error) {
      return showError(error.message);
    }
    solve();
  });
  $('teach-solve').addEventListener('click', () => solve());
  $('teach-stop').addEventListener('click', () => stop());
  $('teach-text').addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) solve();
  });
  $('teach-batch')
      .addEventListener(
          'change',
          () => editModel(
              (model) => setBatch(model, app.generated.model, Number($('teach-batch').value))));
  $('teach-mesh').addEventListener('change', () => editModel((model) => {
                                               const shape = parseMeshShape($('teach-mesh').value);
                                               setMesh(model, shape);
                                             }));
  $('teach-memory')
      .addEventListener(
          'change', () => editModel((model) => setMemory(model, Number($('teach-memory').value))));
  $('teach-cost-model').addEventListener('change', () => solve());
  $('teach-force-node').addEventListener('change', fillStrategies);
  $('teach-force').addEventListener('click', () => {
    app.force = {[$('teach-force-node').value]: $('teach-force-strategy').value};
    solve();
  });
  $('teach-unforce').addEventListener('click', () => {
    app.force = {};
    solve();
  });
  const report = () => app.report;
  $('teach-save-jax')
      .addEventListener(
          'click',
          () => report() && saveText(jaxSpecs(report()), `${stem()}_specs.py`, 'text/x-python'));
  $('teach-save-report')
      .addEventListener(
          'click',
          () => report() &&
              saveText(
                    JSON.stringify(report(), null, 1), `${stem()}-explained.json`,
                    'application/json'));
  $('teach-save-instance')
      .addEventListener(
          'click',
          () => app.generated &&
              saveText(app.generated.instance, `${stem()}-instance.json`, 'application/json'));
  $('teach-save-sidecar')
      .addEventListener(
          'click',
          () => app.generated &&
              saveText(
                    app.generated.sidecarText, `${stem()}-instance.sidecar.json`,
                    'application/json'));
  $('teach-save-model')
      .addEventListener(
          'click', () => saveText($('teach-text').value, `${stem()}.json`, 'application/json'));
  $('teach-copy-link').addEventListener('click', async () => {
    if (app.link && navigator.clipboard)
      await navigator.clipboard.writeText(app.link).catch(() => {});
  });
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
  for (const pair of (params.get('f') || '').split(';').filter(Boolean)) {
    const at = pair.indexOf('=');
    if (at > 0) app.force[pair.slice(0, at)] = pair.slice(at + 1);
  }
  try {
    await initialModel(params);
    app.M = await shell.module();
    app.schema = unwrap(app.M.optionsSchema());
    applySchema(app.root, app.schema);
    app.client = new SolverClient(new URL('../sharding/worker.js', import.meta.url).href, 1, {});
  } catch (error) {
    return showError(`The teaching lab cannot start: ${error.message}`);
  }
  await solve();
}
