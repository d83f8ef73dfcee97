// The pipeline lab's downloads and imports: the shown schedule as the core's
// schedule JSON, as a Chrome trace (opens in ui.perfetto.dev) and as
// PyTorch pipelining's CSV (both written by the core in the pipeline
// worker's session, session_client.mjs), the problem JSON, the plots as one
// PNG (../downloads.mjs), and the import of a schedule file (a CSV, whose
// errors point at the offending row, or a schedule JSON, re-timed and checked).
// wireDownloads gives every button its feedback beside it (../feedback.mjs:
// "Saved …", "Copied", the core's refusal), and updateDownloads disables
// those that cannot serve the shown schedule, saying why.
import {saveBlob, savePlots, saveText} from '../downloads.mjs';
import {clearNear, copyText, feedbackRegion, nearby, setReason} from '../feedback.mjs';

const withNewline = (text) =>
    (text.endsWith('\n') ? text : `${text}\n`);  // as the CLI writes files
const slug = (text) => String(text || 'schedule').replace(/[^A-Za-z0-9_.-]+/g, '-');

/** The file stem of a problem and schedule: "p4-m8-1F1B". */
export function fileStem(problemName, scheduleName) {
  return `${slug(problemName)}-${slug(scheduleName)}`;
}

// The schedule's JSON as the core wrote it (text, or UTF-8 bytes from the
// worker: never decoded here), ending in a newline.
export async function downloadSchedule(sessions, entry, stem) {
  const json = await sessions.jsonOf(entry);
  const ends = typeof json === 'string' ? json.endsWith('\n') : json[json.length - 1] === 10;
  saveBlob(
      new Blob(ends ? [json] : [json, '\n'], {type: 'application/json'}), `${stem}.schedule.json`);
}

export async function downloadTrace(sessions, entry, stem) {
  const trace = await sessions.exportAs(entry, 'chrome-trace');
  saveText(withNewline(trace), `${stem}.trace.json`, 'application/json');
}

export async function downloadCsv(sessions, entry, stem) {
  const csv = await sessions.exportAs(entry, 'pytorch-csv');
  saveText(withNewline(csv), `${stem}.csv`, 'text/csv');
}

export function downloadProblem(problemText, stem) {
  saveText(withNewline(problemText), `${stem}.problem.json`, 'application/json');
}

export function downloadPlots(canvases, stem) {
  return savePlots(canvases.filter(([, c]) => c && c.width > 0 && c.height > 0), stem);
}

/**
 * Why PyTorch's CSV cannot hold a schedule, known before asking the core
 * (core/pipeline/export.cpp refuses the same two cases), or ''. The core's
 * own refusal of anything else shows beside the button when clicked.
 */
export function csvRefusal(schedule) {
  const problem = (schedule && schedule.problem) || {};
  if (problem.form === 'operators') {
    return 'PyTorch CSV: needs a chain of stages; an operator graph cannot be written in it';
  }
  if (problem.copies === 2) {
    return 'PyTorch CSV: needs a schedule whose stages run on one rank each ' +
        `(${schedule.name} runs two parameter copies in opposite directions; ` +
        'torch:DualPipeV is the form PyTorch runs)';
  }
  return '';
}

const SCHEDULE_BUTTONS = ['pl-download-json', 'pl-download-trace', 'pl-download-csv'];

/**
 * The share row's buttons (web/pipeline/panel.html): each download or copy
 * says what it did, or why it failed, beside itself. ctx: {entry() -> the
 * shown ScheduleEntry or null, stem() -> file stem, sessions() -> SessionClient,
 * problemText() -> text or null, canvases() -> [[name, canvas]], link() -> href}.
 */
export function wireDownloads(section, ctx) {
  const $ = (id) => section.querySelector(`#${id}`);
  const withEntry = (action) => () => {
    const entry = ctx.entry();
    if (!entry) throw new Error('no schedule is shown');
    return action(entry);
  };
  const saved = (suffix) => () => `Saved ${ctx.stem()}${suffix}`;
  const on = (id, action, done) => {
    const button = $(id);
    feedbackRegion(button);
    button.addEventListener('click', nearby(button, action, done));
  };
  on('pl-download-json', withEntry((e) => downloadSchedule(ctx.sessions(), e, ctx.stem())),
     saved('.schedule.json'));
  on('pl-download-trace', withEntry((e) => downloadTrace(ctx.sessions(), e, ctx.stem())),
     saved('.trace.json'));
  on('pl-download-csv', withEntry((e) => downloadCsv(ctx.sessions(), e, ctx.stem())),
     saved('.csv'));
  on('pl-download-problem', () => {
    const text = ctx.problemText();
    if (!text) throw new Error('no problem is open');
    downloadProblem(text, ctx.stem());
  }, saved('.problem.json'));
  on('pl-download-png', () => downloadPlots(ctx.canvases(), ctx.stem()), saved('-plots.png'));
  const copy = $('pl-copy-link');
  feedbackRegion(copy);
  copy.addEventListener('click', () => copyText(copy, ctx.link(), {what: 'the link'}));
  updateDownloads(section, null);
}

const lastEntry = new WeakMap();  // section -> the entry the buttons were set for

/**
 * Enables the buttons that can serve the shown entry; the others say why
 * not. Another schedule clears what the buttons said about the last one.
 */
export function updateDownloads(section, entry) {
  const $ = (id) => section.querySelector(`#${id}`);
  if (lastEntry.get(section) !== entry) {
    for (const id of SCHEDULE_BUTTONS) clearNear($(id));
    lastEntry.set(section, entry);
  }
  const none = entry ? '' : 'no schedule is shown yet';
  const names = {
    'pl-download-json': 'Schedule JSON',
    'pl-download-trace': 'Chrome trace',
    'pl-download-csv': 'PyTorch CSV'
  };
  for (const id of SCHEDULE_BUTTONS) setReason($(id), none && `${names[id]}: ${none}`);
  if (entry) setReason($('pl-download-csv'), csvRefusal(entry.summary || entry.schedule));
}

/** True when text is a schedule JSON (rather than a problem or a CSV). */
export function isScheduleJson(text) {
  return /"format"\s*:\s*"shardlab-pipeline-schedule"/.test(text.slice(0, 4096));
}

/**
 * Reads a schedule file against the problem: {text, schedule} named
 * 'imported', or throws the core's error (file, row or position, what is
 * wrong) as it gives it.
 */
export async function importSchedule(sessions, file) {
  const text = await file.text();
  return isScheduleJson(text) ? sessions.check(text) : sessions.importCsv(text, file.name);
}
