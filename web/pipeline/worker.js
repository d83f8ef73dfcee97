// The pipeline lab's worker, in the shell of web/worker_shell.mjs: one wasm
// module and one session (wasm/pipeline_session.h), the problem parsed once
// per OPEN (which lists the schedules the core knows); every other op runs
// on it: one schedule simulated per SIMULATE (the page asks for them one by
// one, so a STOP or the next problem never waits behind all of them; the
// reply carries the schedule's numbers without the ops and, when asked, its
// timeline layout packed in typed arrays (layout.mjs): all made here, so the
// page never parses a schedule it draws, nor builds objects per op). The
// generated schedules' JSON stays here (kept, as UTF-8 bytes): the page asks
// for a layout (LAYOUT) when it draws one, for the bytes (EXPORT as
// 'schedule-json') when it downloads one, and names them in the calls that
// read one (OFFER, EXPORT, MIP_START: {name} instead of {schedule}), so it
// never holds 10 MB per schedule it does not draw. Also: a schedule file
// checked (CHECK), exports (EXPORT), a PyTorch CSV imported (IMPORT_CSV),
// the MIP's LP text and column maps (EMIT_LP, MIP_START, FROM_MIP), and the
// planner (PLAN) run in time slices until it proves optimality, reaches its
// time limit or gets a STOP, posting each better schedule (INCUMBENT) and
// the progress record (PROGRESS) at most 10 times a second. OFFER hands the
// planner a schedule found elsewhere (a permalink, IndexedDB, the MIP).
// Requests name the session they were made for, so a reply never applies to
// another problem.
//
importScripts('../worker_boot.js');

const SLICE_MS = 40;  // planner time between event-loop turns (a STOP gets through)
const STEP_WORK = 2000;

let P = null;  // protocol.mjs
let L = null;  // worker_loop.mjs
let R = null;  // result.mjs
let S = null;  // worker_shell.mjs
let Y = null;  // pipeline/layout.mjs
let M = null;  // the wasm module
let session = null;
let sessionId = 0;
let planner = null;
let held = [];         // schedules offered while no planner exists
let kept = new Map();  // the session's simulated schedules: name -> JSON as UTF-8 bytes

// The current session, if the request was made for it.
function current(req) {
  if (!session) throw new R.ShardLabError('InvalidArgument', 'no problem is open');
  if (req.session !== undefined && req.session !== sessionId) {
    throw new R.ShardLabError('InvalidArgument', 'the problem changed since this request was made');
  }
  return session;
}

function open(req) {
  const next = R.unwrap(
      req.flags ? M.PipelineSession.fromFlags(JSON.stringify(req.flags)) :
                  M.PipelineSession.open(req.text, req.source || 'problem'));
  if (session) session.delete();
  session = next;
  ++sessionId;
  held = [];
  kept = new Map();
  return {
    session: sessionId,
    normalized: session.normalized(),
    list: R.unwrap(session.schedules())
  };
}

// What the compare table, the readouts and the page's choices read of a
// schedule: all but its ops, units and memory profile (the bulk of a large
// schedule's JSON), with at most a few violations (violation_count says
// how many there are).
function summaryOf(schedule) {
  const summary = {...schedule};
  delete summary.ops;
  delete summary.units;
  delete summary.memory;
  if (Array.isArray(summary.violations)) {
    summary.violation_count = summary.violations.length;
    summary.violations = summary.violations.slice(0, 5);
  }
  return summary;
}

// Schedule JSON goes to the page as UTF-8 bytes in a transferred buffer
// (moving a 10 MB string would cost the page a long task to copy it in),
// with its summary and its packed layout (transferred too).
const encoder = new TextEncoder();
const decoder = new TextDecoder();

function packed(text) {
  const schedule = JSON.parse(text);
  const bytes = encoder.encode(text);
  const layout = Y.buildLayout(schedule);
  return {
    bytes,
    summary: summaryOf(schedule),
    layout,
    buffers: [bytes.buffer, ...Y.layoutBuffers(layout)]
  };
}

// A schedule JSON as a DONE payload: bytes, summary and layout, moved.
function reply(text) {
  const {bytes, summary, layout, buffers} = packed(text);
  return {bytes, summary, layout, [S.TRANSFER]: buffers};
}

// A generated schedule's JSON bytes, kept since its SIMULATE (a respawned
// worker, whose session was opened again, simulates it once more).
function keptBytes(req, name) {
  let bytes = kept.get(name);
  if (!bytes) {
    bytes = encoder.encode(R.unwrap(current(req).simulate(name)));
    kept.set(name, bytes);
  }
  return bytes;
}

// The schedule JSON a request names: {name} (a generated schedule kept
// here) or {schedule} (its text, or its UTF-8 bytes).
function scheduleText(req) {
  if (req.schedule === undefined && req.name !== undefined) {
    return decoder.decode(keptBytes(req, req.name));
  }
  return typeof req.schedule === 'string' ? req.schedule : decoder.decode(req.schedule);
}

// One schedule simulated: its numbers, and its layout when req.layout (the
// page draws it now); the JSON stays here.
function simulate(req) {
  const simulated = current(req).simulate(req.name);
  if (!simulated.ok) return {name: req.name, error: simulated.error.message};
  const schedule = JSON.parse(simulated.value);
  kept.set(req.name, encoder.encode(simulated.value));
  const summary = summaryOf(schedule);
  if (!req.layout) return {name: req.name, summary};
  const layout = Y.buildLayout(schedule);
  return {name: req.name, summary, layout, [S.TRANSFER]: Y.layoutBuffers(layout)};
}

// A kept schedule's layout, for the page to draw (it drops those it no
// longer draws).
function layoutOf(req) {
  const schedule = JSON.parse(scheduleText(req));
  const layout = Y.buildLayout(schedule);
  return {summary: summaryOf(schedule), layout, [S.TRANSFER]: Y.layoutBuffers(layout)};
}

// Exports: 'schedule-json' is the kept schedule's bytes (a copy: the
// original stays kept); the others are written by the core.
function exportAs(req) {
  if (req.format === 'schedule-json') {
    const bytes = keptBytes(req, req.name).slice();
    return {bytes, [S.TRANSFER]: [bytes.buffer]};
  }
  return {text: R.unwrap(current(req).exportAs(scheduleText(req), req.format))};
}

function snapshot(run, withSchedule, elapsedS, improvedS, steps) {
  const record = planner.progress(elapsedS);
  if (withSchedule && record.found) {
    const {bytes, summary, layout, buffers} = packed(R.unwrap(planner.bestJson()));
    run.post(
        P.MSG.INCUMBENT, {record, improvedS, steps, schedule: bytes, summary, layout}, buffers);
  } else {
    run.post(P.MSG.PROGRESS, {record, improvedS, steps});
  }
}

async function plan(req, run) {
  // The limit counts from the page's Start (req.startedAtMs, epoch ms), so
  // building the planner and taking the offers count too.
  const epochMs = () => performance.timeOrigin + performance.now();
  const startedAtMs = req.startedAtMs || epochMs();
  const elapsed = () => (epochMs() - startedAtMs) / 1000;
  // Building the planner (its first dives), taking the offers and packing
  // its first schedule cannot see a STOP (half a second on DualPipe's
  // example): the page ends a run stopped inside them at once
  // (worker_client.mjs). runSlices' first report says they have ended.
  run.post(P.MSG.PROGRESS, {busy: {phase: 'start'}});
  const made = R.unwrap(current(req).planner(JSON.stringify(req.options || {})));
  if (planner) planner.delete();
  planner = made;
  for (const schedule of held) planner.offer(schedule);
  held = [];
  const {reason, dirty, improvedS, steps} = await L.runSlices({
    engine: planner,
    run,
    timeLimitS: req.timeLimitS,
    elapsed,
    stepWork: STEP_WORK,
    sliceMs: SLICE_MS,
    dirty: planner.progress(0).found,
    report: (withBest, c) => snapshot(run, withBest, elapsed(), c.improvedS, c.steps),
  });
  // The best schedule goes out again only when the page has not seen it:
  // writing a large schedule's JSON takes seconds, and a STOP waits for it.
  snapshot(run, dirty, elapsed(), improvedS, steps);
  return {reason, elapsedS: elapsed()};
}

// A schedule that cannot be read is not taken; the reply says why.
function offer(req) {
  const text = scheduleText(req);
  if (!planner) {
    held.push(text);
    return {accepted: false, held: true, error: null};
  }
  const taken = planner.offer(text);
  return {accepted: taken.ok && taken.value, held: false, error: taken.ok ? null : taken.error};
}

shardlabWorker({
  name: 'the pipeline lab',
  root: '../',
  scripts: ['shardlab.js'],
  modules: {
    P: 'protocol.mjs',
    L: 'worker_loop.mjs',
    R: 'result.mjs',
    S: 'worker_shell.mjs',
    Y: 'pipeline/layout.mjs'
  },
  boot: async ({modules}) => {
    ({P, L, R, S, Y} = modules);
    M = await createShardLab(
        {locateFile: (file) => new URL(`../${file}`, self.location.href).href});
    return {version: R.unwrap(M.version()), planOptions: R.unwrap(M.pipelinePlanOptionsSchema())};
  },
  runs: ['plan'],
  ops: {
    open,
    simulate,
    check: (req) => reply(R.unwrap(current(req).check(scheduleText(req)))),
    export: exportAs,
    layout: layoutOf,
    'import-csv': (req) => reply(R.unwrap(current(req).importCsv(req.csv, req.source))),
    'emit-lp': (req) => ({lp: R.unwrap(current(req).emitLp(JSON.stringify(req.options || {})))}),
    'mip-start': (req) =>
        R.unwrap(current(req).mipStart(JSON.stringify(req.options || {}), scheduleText(req))),
    'from-mip': (req) => reply(R.unwrap(current(req).scheduleFromMip(
        JSON.stringify(req.options || {}), JSON.stringify(req.columns)))),
    plan,
    offer,
  },
});
