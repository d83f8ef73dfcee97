// Downloads from the page: the result JSON (built by the core's result_json,
// the same format as `shardlab solve --out`), the contest-style solution
// line, and PNGs of the plots. Called by app.mjs's buttons.
import {canvasToPngBlob} from './plots/canvas.mjs';

export function saveBlob(blob, filename) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

export function baseName(name) {
  return (name || 'instance').replace(/\.gz$/, '').replace(/\.json$/, '');
}

export function saveText(text, filename, type = 'text/plain') {
  saveBlob(new Blob([text], {type}), filename);
}

export async function savePlots(canvases, stem) {
  for (const [label, canvas] of canvases) {
    const blob = await canvasToPngBlob(canvas);
    if (blob) saveBlob(blob, `${stem}-${label}.png`);
  }
}
