// Unit tests of the pipeline lab's permalink keys (web/pipeline/permalink.mjs)
// and parameter form model (web/pipeline/params.mjs): every key survives a
// round trip through the fragment, long plans and problems are left out and
// said so, and the form's values become the core's uniform problem.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import {test} from 'node:test';
import {pathToFileURL} from 'node:url';

const SOURCE = path.resolve(process.env.SHARDLAB_SOURCE_DIR || '.');
const load = (rel) => import(pathToFileURL(path.join(SOURCE, rel)).href);
const L = await load('web/pipeline/permalink.mjs');
const Q = await load('web/pipeline/params.mjs');
const S = await load('web/state.mjs');
const small = JSON.parse(
    fs.readFileSync(path.join(SOURCE, 'tests/web/data/pipeline_1f1b_p2m2.schedule.json'), 'utf8'));

// Through the whole fragment, as the shell writes and reads it.
async function roundTrip(state) {
  const {params, omitted} = await L.encodePipeline(state);
  const fragment = S.writeFragment('pipeline', params);
  const read = await S.readFragment(fragment);
  assert.equal(read.lab, 'pipeline');
  return {decoded: await L.decodePipeline(read.params), fragment, omitted};
}

test('parameters, schedules, settings and view survive the fragment', async () => {
  const state = {
    params: {p: 8, m: 20, F: 1, B: 1, W: 1, FB: 3, comm: 0.25, cap: null, v: 2},
    schedule: 'DualPipe',
    compare: 'ZB-H1',
    timeS: 30,
    mip: true,
    zoom: [12.5, 40],
    memory: false,
  };
  const {decoded, fragment} = await roundTrip(state);
  assert.match(
      fragment,
      /^#v=3&lab=pipeline&p=8&m=20&F=1&B=1&W=1&FB=3&comm=0.25&cap=&ch=2&s=DualPipe&vs=ZB-H1&t=30&mip=1&z=12.5%2C40&mem=0$/);
  assert.deepEqual(decoded.params, state.params);
  assert.equal(decoded.schedule, 'DualPipe');
  assert.equal(decoded.compare, 'ZB-H1');
  assert.equal(decoded.timeS, 30);
  assert.equal(decoded.mip, true);
  assert.deepEqual(decoded.zoom, [12.5, 40]);
  assert.equal(decoded.memory, false);
  assert.equal(decoded.plan, null);
  assert.equal(decoded.example, null);
  assert.equal(decoded.problemText, null);
});

test('a typed problem travels deflated; an example by name', async () => {
  const problemText =
      JSON.stringify({devices: 3, microbatches: 6, stages: [{F: 1}, {F: 2}, {F: 1.5}]}, null, 2);
  const typed = await roundTrip({problemText, schedule: '1F1B'});
  assert.equal(typed.decoded.problemText, problemText);
  assert.deepEqual(typed.decoded.params, {});
  const example = await roundTrip({example: 'dualpipe_example.json', problemText});
  assert.equal(example.decoded.example, 'dualpipe_example.json');
  assert.equal(example.decoded.problemText, null, 'the example wins; its text is not repeated');
});

test(
    'a planned schedule packs its ops and comes back with the same identity and times',
    async () => {
      const {decoded} = await roundTrip({params: {p: 2, m: 2}, plan: small});
      const plan = decoded.plan;
      assert.equal(plan.format, 'shardlab-pipeline-schedule');
      assert.equal(plan.name, '1F1B');
      assert.equal(plan.ops.length, small.ops.length);
      assert.deepEqual(
          plan.problem, {chunks: 1}, 'the placement travels (this fixture names only chunks)');
      for (const [i, op] of plan.ops.entries()) {
        const want = small.ops[i];
        for (const key
                 of ['id', 'device', 'stage', 'chunk', 'direction', 'microbatch', 'kind', 'start',
                     'end']) {
          assert.equal(op[key], want[key], `op ${i} ${key}`);
        }
        assert.equal(op.deps, undefined, 'dependencies are the core\'s to recompute');
      }
      const fb = {
        name: 'planned',
        ops: [{
          id: 0,
          device: 0,
          stage: 0,
          chunk: 0,
          direction: 0,
          microbatch: 1,
          kind: 'FB',
          start: 0,
          end: 3,
          backward: {stage: 0, chunk: 0, direction: 1, microbatch: 0}
        }],
      };
      const back = await roundTrip({plan: fb});
      assert.deepEqual(
          back.decoded.plan.ops[0].backward, fb.ops[0].backward, 'an FB op keeps its backward');
    });

test('plans and problems too long for a link are left out and named', async () => {
  const ops = [];
  // Times that do not compress: a long pseudo-random sequence.
  let x = 1;
  for (let i = 0; i < 20000; ++i) {
    x = (x * 48271) % 2147483647;
    ops.push({
      id: i,
      device: i % 8,
      stage: i % 8,
      chunk: 0,
      direction: 0,
      microbatch: i,
      kind: 'F',
      start: x / 1e3,
      end: x / 1e3 + 1
    });
  }
  const {decoded, omitted} = await roundTrip({params: {p: 8}, plan: {name: 'planned', ops}});
  assert.deepEqual(omitted, ['plan']);
  assert.equal(decoded.plan, null);
  assert.equal(decoded.params.p, 8);
});

test('bad values in a link fall back rather than break the page', async () => {
  const decoded = await L.decodePipeline(new URLSearchParams('p=abc&m=&z=5,1&t=-&F=2'));
  assert.deepEqual(decoded.params, {p: null, m: null, F: 2});
  assert.equal(decoded.zoom, null);
  assert.equal(decoded.timeS, null);
  assert.equal(decoded.memory, true);
  assert.deepEqual(Q.normalizeParams(decoded.params), {...Q.DEFAULTS, F: 2});
});

test('the form\'s parameters become the core\'s uniform problem, and back', () => {
  const params = {p: 8, m: 20, F: 1, B: 1, W: 1, FB: 3, comm: 0, links: 0, cap: 9, v: 2};
  const problem = Q.problemFromParams(params);
  assert.deepEqual(problem, {
    format: 'shardlab-pipeline-problem',
    version: 1,
    devices: 8,
    microbatches: 20,
    F: 1,
    B: 1,
    W: 1,
    FB: 3,
    comm: 0,
    mem_cap: 9,
    chunks: 2,
  });
  assert.equal(
      Q.problemFromParams({...params, FB: null}).FB, undefined, 'no F&B: the core\'s default');
  assert.equal(Q.problemFromParams({...params, cap: ''}).mem_cap, null);
  assert.deepEqual(Q.paramsFromProblem(problem), params);
  assert.equal(
      Q.paramsFromProblem({devices: 2, microbatches: 2, stages: [{F: 1}, {F: 2}]}), null,
      'explicit stages are not a form');
  assert.equal(Q.paramsFromProblem({devices: 2, microbatches: 2, mem_cap: [1, 2]}), null);
  assert.deepEqual(
      Q.normalizeParams({p: '3.6', m: '7', F: '0.5', cap: '', FB: ''}),
      {...Q.DEFAULTS, p: 4, m: 7, F: 0.5});
  // Serial links: "links": "serial" in the problem (parallel, the core's
  // default, is left out), and back.
  const serial = Q.problemFromParams({...params, comm: 0.5, links: '1'});
  assert.equal(serial.links, 'serial');
  assert.equal(problem.links, undefined);
  assert.deepEqual(Q.paramsFromProblem(serial), {...params, comm: 0.5, links: 1});
});

test('serial links travel as ln=1; parallel ones stay out of the link', async () => {
  const params = {p: 4, m: 8, F: 1, B: 1, W: 1, FB: 2.5, comm: 0.5, links: 1, cap: 5, v: 2};
  const serial = await roundTrip({params, schedule: 'DualPipe'});
  assert.match(serial.fragment, /&comm=0\.5&ln=1&cap=5&/);
  assert.deepEqual(serial.decoded.params, params);
  const parallel = await roundTrip({params: {...params, links: 0}, schedule: 'DualPipe'});
  assert.doesNotMatch(parallel.fragment, /ln=/);
  assert.equal(parallel.decoded.params.links, undefined);
  assert.equal(Q.normalizeParams(parallel.decoded.params).links, 0);
});
