// HiGHS (npm `highs`, MIT: the wasm build copies its highs.js and highs.wasm
// to site/highs/) in its own Web Worker, in the shell of web/worker_shell.mjs:
// the MIP mode of the pipeline lab. SOLVE_LP reads the CPLEX-LP text the
// core emits (the session's emitLp), takes the planner's incumbent as a
// start (column values by name), and runs the MIP with a time limit,
// posting each improving solution (INCUMBENT: the column values with the
// progress record) and the record (PROGRESS, at most 10 Hz: HiGHS's primal
// and dual bounds as incumbent and bound, its nodes as a counter). HiGHS's
// run() blocks this worker, so a stop is a terminate() from the page, which
// keeps the last incumbent it got.
//
// Call chain: lab.mjs -> mip_client.mjs -> postMessage -> highs_worker.js
//             -> highs.js (HiGHS compiled to wasm)
importScripts('../worker_boot.js');

let P = null;  // protocol.mjs
let S = null;  // worker_shell.mjs
let H = null;  // the HiGHS module

function columnNames(model) {
  const {numCols} = model.getDimensions();
  const names = new Array(numCols);
  for (let i = 0; i < numCols; ++i) names[i] = model.getColName(i);
  return names;
}

// Passes the start (planner's incumbent) by column index; names the LP does
// not have are counted, not fatal (HiGHS checks the start's feasibility).
function setStart(model, start) {
  if (!start || !start.names || !start.names.length) return {given: 0, missing: 0};
  const indices = [];
  const values = [];
  let missing = 0;
  start.names.forEach((name, k) => {
    let col = -1;
    try {
      col = model.getColByName(name);
    } catch (error) {
      col = -1;
    }
    if (col >= 0) {
      indices.push(col);
      values.push(start.values[k]);
    } else {
      ++missing;
    }
  });
  if (indices.length) model.setSolution({indices, values});
  return {given: indices.length, missing};
}

// HiGHS's callback data as the one progress record (no bound yet: 0).
function recordOf(seconds, data, extra = {}) {
  const primal = data.mip_primal_bound;
  const dual = data.mip_dual_bound;
  const nodes = data.mip_node_count === undefined ? null : Number(data.mip_node_count);
  return P.makeRecord({
    elapsedS: seconds,
    incumbent: Number.isFinite(primal) && Math.abs(primal) < 1e300 ? primal : null,
    bound: Number.isFinite(dual) && Math.abs(dual) < 1e300 ? dual : 0,
    counters: {nodes, highs_gap: Number.isFinite(data.mip_gap) ? data.mip_gap : null, ...extra},
  });
}

function solve(req, run) {
  const startedMs = performance.now();
  const seconds = () => (performance.now() - startedMs) / 1000;
  const model = H.createModel({format: 'lp', data: req.lp});
  try {
    model.options.set({output_flag: false, time_limit: Math.max(0.1, req.timeLimitS || 10)});
    const names = columnNames(model);
    const started = setStart(model, req.start);
    run.post(P.MSG.PROGRESS, {model: {names, start: started}});
    const throttle = new P.Throttle();
    const C = H.constants.callbackType;
    const progress = (data) => {
      if (throttle.pass(performance.now()))
        run.post(P.MSG.PROGRESS, {record: recordOf(seconds(), data)});
    };
    model.run({
      [C.mipImprovingSolution](event) {
        const values = Float64Array.from(event.data.mip_solution);
        const data = {...event.data, mip_primal_bound: event.data.objective_function_value};
        run.post(P.MSG.INCUMBENT, {record: recordOf(seconds(), data), values}, [values.buffer]);
      },
      [C.mipLogging](event) {
        progress(event.data);
      },
      [C.mipInterrupt](event) {
        progress(event.data);
      },
    });
    const status = model.getModelStatus();
    const statusName =
        Object.keys(H.constants.modelStatus).find((k) => H.constants.modelStatus[k] === status);
    const solution = model.getSolution();
    const info = (key) => {
      try {
        return Number(model.info.get(key));
      } catch (error) {
        return null;
      }
    };
    const values = Float64Array.from(solution.colValue || []);
    return {
      status: statusName || String(status),
      seconds: seconds(),
      objective: values.length ? model.getObjectiveValue() : null,
      dual: info('mip_dual_bound'),
      gap: info('mip_gap'),
      nodes: info('mip_node_count'),
      values,
      [S.TRANSFER]: [values.buffer],
    };
  } finally {
    model.dispose();
  }
}

shardlabWorker({
  name: 'HiGHS',
  root: '../',
  scripts: ['highs/highs.js'],  // defines the factory `Module`
  modules: {P: 'protocol.mjs', S: 'worker_shell.mjs'},
  boot: async ({modules}) => {
    ({P, S} = modules);
    H = await Module({locateFile: (file) => new URL(`../highs/${file}`, self.location.href).href});
    return {version: String(H.version ?? '')};
  },
  runs: ['solve-lp'],
  ops: {'solve-lp': solve},
});
