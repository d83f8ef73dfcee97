// The pipeline core as the page sees it: the wasm module's pipeline* functions
// (wasm/pipeline_bindings.cpp, wasm/pipeline_planner_bindings.cpp) behind
// small methods that take and give JSON text, with the core's errors (JSON
// {"error": message}) turned into thrown Errors carrying that exact message.
// Used by lab.mjs on the page's own module; the planner runs in worker.js.

export class CoreError extends Error {}

/** The core's message when text is an {"error": ...} reply, else ''. */
export function errorOf(text) {
  if (typeof text !== 'string' || !/^\s*\{\s*"error"\s*:/.test(text)) return '';
  try {
    const parsed = JSON.parse(text);
    return Object.keys(parsed).length === 1 ? String(parsed.error) : '';
  } catch (error) {
    return '';
  }
}

export class PipelineCore {
  constructor(M) {
    this.M = M;
  }

  has(name) {
    return typeof this.M[name] === 'function';
  }

  call(name, ...args) {
    if (!this.has(name)) throw new CoreError(`this build of the module has no ${name}()`);
    const text = this.M[name](...args);
    const message = errorOf(text);
    if (message) throw new CoreError(message);
    return text;
  }

  json(name, ...args) {
    return JSON.parse(this.call(name, ...args));
  }

  // A schedule reply as {text, schedule}: the text is kept for downloads.
  schedule(name, ...args) {
    const text = this.call(name, ...args);
    return {text, schedule: JSON.parse(text)};
  }

  /** The problem with every default filled in; errors name sourceName (the file). */
  normalize(problem, sourceName = 'problem') {
    return this.call('pipelineNormalize', problem, sourceName);
  }

  /** [{name, applicable, reason, summary}] */
  schedules(problem) {
    return this.json('pipelineSchedules', problem);
  }

  simulate(problem, name) {
    return this.schedule('pipelineSimulate', problem, name);
  }

  check(problem, scheduleText) {
    return this.schedule('pipelineCheck', problem, scheduleText);
  }

  exportAs(problem, scheduleText, format) {
    return this.call('pipelineExport', problem, scheduleText, format);
  }

  importCsv(problem, csvText, sourceName) {
    return this.schedule('pipelineImportCsv', problem, csvText, sourceName);
  }

  emitLp(problem, options) {
    return this.call('pipelineEmitLp', problem, JSON.stringify(options));
  }

  /** The LP's column values of a schedule ({name: value}), or null without the binding. */
  mipStart(problem, options, scheduleText) {
    if (!this.has('pipelineMipStart')) return null;
    return this.json('pipelineMipStart', problem, JSON.stringify(options), scheduleText).columns;
  }

  scheduleFromMip(problem, options, columns) {
    return this.schedule(
        'pipelineScheduleFromMip', problem, JSON.stringify(options), JSON.stringify(columns));
  }
}
