// Downloads from the page: the result JSON (built by the core's result_json,
// the same format as `shardlab solve --out`), the contest-style solution
// line, and a PNG of the plots. Called by app.mjs's buttons.
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

// One PNG with the plots stacked (one download: browsers question several).
export async function savePlots(canvases, stem) {
  const width = Math.max(...canvases.map(([, c]) => c.width));
  const height = canvases.reduce((sum, [, c]) => sum + c.height, 0);
  const sheet = document.createElement('canvas');
  sheet.width = width;
  sheet.height = height;
  const ctx = sheet.getContext('2d');
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, width, height);
  let y = 0;
  for (const [, canvas] of canvases) {
    ctx.drawImage(canvas, 0, y);
    y += canvas.height;
  }
  const blob = await canvasToPngBlob(sheet);
  if (blob) saveBlob(blob, `${stem}-plots.png`);
}
