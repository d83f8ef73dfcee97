// Unit tests of the one worker shell (web/worker_boot.js, web/worker_shell.mjs)
// against a fake worker scope: messages that arrive while the modules load
// are kept and answered, handlers' results become DONE and their errors
// ERROR with the core's code, STOP ends the running run, a second run is
// refused while one runs but waits for a stopped one, and a boot that fails is reported once and
// then for every request.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import {test} from 'node:test';
import {pathToFileURL} from 'node:url';

const WEB = path.resolve(process.env.SHARDLAB_SOURCE_DIR || '.', 'web');
const S = await import(pathToFileURL(path.join(WEB, 'worker_shell.mjs')).href);
const P = await import(pathToFileURL(path.join(WEB, 'protocol.mjs')).href);
const R = await import(pathToFileURL(path.join(WEB, 'result.mjs')).href);

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// A worker's global scope as the shell sees it, in a lab folder of web/.
function fakeScope() {
  const scope = {
    location: {href: pathToFileURL(path.join(WEB, 'lab', 'worker.js')).href},
    posted: [],
    scripts: [],
    postMessage(msg, transfer = []) {
      assert.equal(P.checkReply(msg), '', JSON.stringify(msg));
      this.posted.push({msg, transfer});
    },
    importScripts(url) {
      this.scripts.push(url);
    },
    send(data) {
      this.onmessage({data});
    },
  };
  return scope;
}

const replies = (scope, id) => scope.posted.map((p) => p.msg).filter((m) => m.id === id);
const waitFor = async (scope, id, type) => {
  for (let i = 0; i < 200; ++i) {
    const hit = replies(scope, id).find((m) => m.type === type);
    if (hit) return hit;
    await sleep(5);
  }
  throw new Error(`no ${type} for request ${id}`);
};

function spec(overrides = {}) {
  return {
    name: 'the test lab',
    root: '../',
    scripts: ['shardlab.js'],
    modules: {P: 'protocol.mjs'},
    boot: async ({modules}) => {
      assert.equal(modules.P.MSG.DONE, 'done', 'modules are imported under root');
      await sleep(20);
      return {version: '1.2.3'};
    },
    runs: ['plan'],
    ops: {
      echo: (req) => ({echo: req.text}),
      fail: () => {
        throw new R.ShardLabError('InvalidInput', 'p.json:1:2 (byte 1): boom');
      },
      crash: () => {
        throw new TypeError('x is not a function');
      },
      plan: async (req, run) => {
        run.post(P.MSG.PROGRESS, {record: P.makeRecord({elapsedS: 0, bound: 1})});
        while (!run.stop) await sleep(2);
        return {reason: 'stopped'};
      },
      give: () => {
        const buffer = new ArrayBuffer(4);
        return {buffer, [S.TRANSFER]: [buffer], [S.AFTER]: () => scopeAfter.push('after')};
      },
    },
    ...overrides,
  };
}
const scopeAfter = [];

test(
    'requests kept during boot are answered after READY; results and errors keep their codes',
    async () => {
      const scope = fakeScope();
      const kept = [{data: P.request(1, P.OP.OPEN, {})}];
      const booted =
          S.serve(scope, {...spec(), ops: {...spec().ops, open: (req) => ({opened: true})}}, kept);
      scope.send(P.request(2, P.OP.CHECK, {}));  // no handler for check in this lab
      await booted.booted;
      assert.deepEqual(scope.scripts, [pathToFileURL(path.join(WEB, 'shardlab.js')).href]);
      assert.equal(scope.posted[0].msg.type, P.MSG.READY);
      assert.equal(scope.posted[0].msg.version, '1.2.3');
      assert.deepEqual((await waitFor(scope, 1, P.MSG.DONE)).opened, true);
      const refused = await waitFor(scope, 2, P.MSG.ERROR);
      assert.deepEqual(
          refused.error,
          {code: 'InvalidArgument', message: 'the test lab does not serve \'check\''});
    });

test('a handler\'s error becomes ERROR with its code; a plain throw is Internal', async () => {
  const scope = fakeScope();
  S.serve(
      scope, {...spec(), ops: {...spec().ops, check: spec().ops.fail, export: spec().ops.crash}});
  scope.send(P.request(3, P.OP.CHECK, {}));
  scope.send(P.request(4, P.OP.EXPORT, {}));
  scope.send({op: 'nonsense', id: 5});
  assert.deepEqual(
      (await waitFor(scope, 3, P.MSG.ERROR)).error,
      {code: 'InvalidInput', message: 'p.json:1:2 (byte 1): boom'});
  assert.deepEqual(
      (await waitFor(scope, 4, P.MSG.ERROR)).error,
      {code: 'Internal', message: 'x is not a function'});
  assert.match((await waitFor(scope, 5, P.MSG.ERROR)).error.message, /unknown op 'nonsense'/);
});

test('STOP ends the running run; a second run is refused while one runs', async () => {
  const scope = fakeScope();
  S.serve(scope, spec());
  scope.send(P.request(6, P.OP.STOP, {}));
  assert.deepEqual((await waitFor(scope, 6, P.MSG.DONE)).wasRunning, false);
  scope.send(P.request(7, P.OP.PLAN, {}));
  await waitFor(scope, 7, P.MSG.PROGRESS);
  scope.send(P.request(8, P.OP.PLAN, {}));
  assert.deepEqual(
      (await waitFor(scope, 8, P.MSG.ERROR)).error,
      {code: 'InvalidArgument', message: 'the test lab is already running'});
  scope.send(P.request(9, P.OP.STOP, {}));
  assert.equal((await waitFor(scope, 9, P.MSG.DONE)).wasRunning, true);
  assert.equal((await waitFor(scope, 7, P.MSG.DONE)).reason, 'stopped');
  scope.send(P.request(10, P.OP.PLAN, {}));  // a new run after the stop is served
  await waitFor(scope, 10, P.MSG.PROGRESS);
  scope.send(P.request(11, P.OP.STOP, {}));
  await waitFor(scope, 10, P.MSG.DONE);
});

// A stopped run may still be inside a long step when the page (which ends
// a stopped run itself after a grace, worker_client.mjs) sends the next
// request: a resume must not be refused, a new problem must not find the
// engine in use. Both wait until the stopped run has ended.
test(
    'after a STOP, the next run and any other request wait for the stopped run to end',
    async () => {
      const scope = fakeScope();
      const order = [];
      const slow = {
        ...spec(),
        ops: {
          ...spec().ops,
          plan: async (req, run) => {
            order.push(`plan ${req.id} starts`);
            while (!run.stop) await sleep(2);
            await sleep(40);  // the step it was in when the stop came
            order.push(`plan ${req.id} ends`);
            return {reason: 'stopped'};
          },
          open: () => {
            order.push('open');
            return {};
          },
        },
      };
      S.serve(scope, slow);
      scope.send(P.request(20, P.OP.PLAN, {}));
      await sleep(30);
      scope.send(P.request(21, P.OP.STOP, {}));
      scope.send(P.request(22, P.OP.OPEN, {}));
      scope.send(P.request(23, P.OP.PLAN, {}));
      assert.equal((await waitFor(scope, 21, P.MSG.DONE)).wasRunning, true);
      await waitFor(scope, 22, P.MSG.DONE);
      for (let i = 0; i < 200 && order.length < 4; ++i) await sleep(5);
      scope.send(P.request(24, P.OP.STOP, {}));
      assert.deepEqual(replies(scope, 23).filter((m) => m.type === P.MSG.ERROR), []);
      assert.deepEqual(
          order.slice(0, 4), ['plan 20 starts', 'plan 20 ends', 'open', 'plan 23 starts']);
      assert.equal((await waitFor(scope, 23, P.MSG.DONE)).reason, 'stopped');
    });

test('a handler can transfer buffers and work right after DONE', async () => {
  const scope = fakeScope();
  S.serve(scope, {...spec(), ops: {...spec().ops, load: spec().ops.give}});
  scope.send(P.request(12, P.OP.LOAD, {}));
  const done = await waitFor(scope, 12, P.MSG.DONE);
  const posted = scope.posted.find((p) => p.msg === done);
  assert.deepEqual(posted.transfer, [done.buffer]);
  assert.deepEqual(scopeAfter, ['after']);
});

test('a boot that fails is reported once with id 0, then for every request', async () => {
  const scope = fakeScope();
  const served = S.serve(scope, spec({
                           boot: async () => {
                             throw new Error('Failed to fetch');
                           }
                         }));
  scope.send(P.request(13, P.OP.OFFER, {}));
  await served.booted.catch(() => {});
  const want = {code: 'Internal', message: 'the test lab could not start: Failed to fetch'};
  assert.deepEqual((await waitFor(scope, 0, P.MSG.ERROR)).error, want);
  assert.deepEqual((await waitFor(scope, 13, P.MSG.ERROR)).error, want);
  assert.equal(scope.posted.filter((p) => p.msg.type === P.MSG.READY).length, 0);
});

test(
    'worker_boot.js keeps messages from its first moment and hands them to the shell', async () => {
      const scope = fakeScope();
      const code = fs.readFileSync(path.join(WEB, 'worker_boot.js'), 'utf8');
      new Function('self', code)(scope);
      assert.equal(typeof scope.onmessage, 'function', 'onmessage is set synchronously');
      scope.send(P.request(14, P.OP.OPEN, {text: 'kept'}));
      scope.shardlabWorker({...spec(), ops: {open: (req) => ({text: req.text})}});
      assert.equal((await waitFor(scope, 14, P.MSG.DONE)).text, 'kept');
      const broken = fakeScope();
      new Function('self', code)(broken);
      broken.send(P.request(15, P.OP.OPEN, {}));
      broken.shardlabWorker({...spec(), root: '../no-such-folder/'});
      const want = /^the test lab could not start: /;
      assert.match((await waitFor(broken, 0, P.MSG.ERROR)).error.message, want);
      assert.match((await waitFor(broken, 15, P.MSG.ERROR)).error.message, want);
    });
