// HiGHS (npm `highs`, MIT: the wasm build copies its highs.js and highs.wasm
// to site/highs/) in its own Web Worker: the MIP mode of the pipeline lab.
// SOLVE_LP reads the CPLEX-LP text the core emits (pipelineEmitLp), takes the
// planner's incumbent as a start (column values by name), and runs the MIP
// with a time limit, posting each improving solution (INCUMBENT, the column
// values) and the bounds and gap (PROGRESS, at most 10 Hz). HiGHS's run()
// blocks this worker, so a stop is a terminate() from the page, which keeps
// the last incumbent it got.
//
// Call chain: lab.mjs -> mip_client.mjs -> postMessage -> highs_worker.js
//             -> highs.js (HiGHS compiled to wasm)
importScripts('../highs/highs.js');  // defines the factory `Module`

let P = null;  // protocol.mjs
let H = null;  // the HiGHS module

const booted = (async () => {
  P = await import('../protocol.mjs');
  H = await Module({locateFile: (file) => new URL(`../highs/${file}`, self.location.href).href});
  postMessage(P.reply(P.MSG.READY, 0, {version: H.version}));
})();

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

function solve(req) {
  const startedMs = performance.now();
  const seconds = () => (performance.now() - startedMs) / 1000;
  const model = H.createModel({format: 'lp', data: req.lp});
  try {
    model.options.set({output_flag: false, time_limit: Math.max(0.1, req.timeLimitS || 10)});
    const names = columnNames(model);
    const started = setStart(model, req.start);
    postMessage(P.reply(P.MSG.PROGRESS, req.id, {phase: 'model', names, start: started}));
    const throttle = new P.Throttle();
    const C = H.constants.callbackType;
    const progress = (data, force = false) => {
      if (!throttle.pass(performance.now(), force)) return;
      postMessage(P.reply(P.MSG.PROGRESS, req.id, {
        phase: 'solve',
        seconds: seconds(),
        primal: data.mip_primal_bound,
        dual: data.mip_dual_bound,
        gap: data.mip_gap,
        nodes: data.mip_node_count === undefined ? null : Number(data.mip_node_count),
      }));
    };
    model.run({
      [C.mipImprovingSolution](event) {
        const values = Float64Array.from(event.data.mip_solution);
        postMessage(
            P.reply(P.MSG.INCUMBENT, req.id, {
              seconds: seconds(),
              objective: event.data.objective_function_value,
              dual: event.data.mip_dual_bound,
              values,
            }),
            [values.buffer]);
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
    postMessage(
        P.reply(P.MSG.DONE, req.id, {
          status: statusName || String(status),
          seconds: seconds(),
          objective: values.length ? model.getObjectiveValue() : null,
          dual: info('mip_dual_bound'),
          gap: info('mip_gap'),
          nodes: info('mip_node_count'),
          values,
        }),
        [values.buffer]);
  } finally {
    model.dispose();
  }
}

const startFailure = (error) => `HiGHS could not start: ${error && error.message || error}`;
booted.catch((error) => postMessage({type: 'error', id: 0, message: startFailure(error)}));

self.onmessage = async (event) => {
  const req = event.data;
  try {
    await booted.catch((error) => {
      throw new Error(startFailure(error));
    });
    const problem = P.checkRequest(req);
    if (problem) throw new Error(problem);
    if (req.op !== P.OP.SOLVE_LP) throw new Error(`the HiGHS worker does not serve '${req.op}'`);
    solve(req);
  } catch (error) {
    postMessage(P.errorReply(req && req.id > 0 ? req.id : 0, error.message || String(error)));
  }
};
