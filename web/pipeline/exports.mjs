// The pipeline lab's downloads and imports: the shown schedule as the core's
// schedule JSON, as a Chrome trace (opens in ui.perfetto.dev) and as
// PyTorch pipelining's CSV (both written by the core in the pipeline
// worker's session, session_client.mjs), the problem JSON, the plots as one
// PNG (../downloads.mjs), and the import of a schedule file (a CSV, whose
// errors point at the offending row, or a schedule JSON, re-timed and checked).
import {savePlots, saveText} from '../downloads.mjs';

const withNewline = (text) =>
    (text.endsWith('\n') ? text : `${text}\n`);  // as the CLI writes files
const slug = (text) => String(text || 'schedule').replace(/[^A-Za-z0-9_.-]+/g, '-');

/** The file stem of a problem and schedule: "p4-m8-1F1B". */
export function fileStem(problemName, scheduleName) {
  return `${slug(problemName)}-${slug(scheduleName)}`;
}

export function downloadSchedule(entry, stem) {
  saveText(withNewline(entry.text), `${stem}.schedule.json`, 'application/json');
}

export async function downloadTrace(sessions, entry, stem) {
  const trace = await sessions.exportAs(entry.text, 'chrome-trace');
  saveText(withNewline(trace), `${stem}.trace.json`, 'application/json');
}

export async function downloadCsv(sessions, entry, stem) {
  const csv = await sessions.exportAs(entry.text, 'pytorch-csv');
  saveText(withNewline(csv), `${stem}.csv`, 'text/csv');
}

export function downloadProblem(problemText, stem) {
  saveText(withNewline(problemText), `${stem}.problem.json`, 'application/json');
}

export function downloadPlots(canvases, stem) {
  return savePlots(canvases.filter(([, c]) => c && c.width > 0 && c.height > 0), stem);
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
