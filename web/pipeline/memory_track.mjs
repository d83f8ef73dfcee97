// The memory tracks under a schedule's timeline: one thin strip per device on
// the timeline's time axis, parameters as a grey band, activations stacked on
// top as a step function, the cap as a red line and any excess in red. The
// axis is shared by every device (memoryMax), so strips compare at a glance.
// Called by timeline.mjs inside its own draw.
import {capOf, memoryMax, memorySteps, stepEnvelope} from './layout.mjs';

const PARAM = '#cbd5e1';
const ACT = '#a5b4c8';
const ACT_LINE = '#475569';
const OVER = '#dc2626';
const LABEL_PX = 12;  // an 11 px label's height with a pixel between two

// The activation area above the parameters: the exact steps when they are
// few, else their per-pixel envelope (peaks kept).
function stepPath(ctx, t, v, x, y, base, [t0, t1], [left, right]) {
  ctx.beginPath();
  ctx.moveTo(x(t0), y(base));
  if (t.length * 2 > right - left) {
    const hi = stepEnvelope(t, v, x, left, right, t1);
    for (let c = 0; c < hi.length; ++c) {
      const value = hi[c] === -Infinity ? 0 : hi[c];
      ctx.lineTo(left + c, y(base + value));
      ctx.lineTo(left + c + 1, y(base + value));
    }
  } else {
    let prev = 0;
    for (let i = 0; i < t.length; ++i) {
      if (t[i] > t1) break;
      const px = x(Math.max(t[i], t0));
      ctx.lineTo(px, y(base + prev));
      ctx.lineTo(px, y(base + v[i]));
      prev = v[i];
    }
    ctx.lineTo(x(t1), y(base + prev));
  }
  ctx.lineTo(x(t1), y(base));
  ctx.closePath();
}

/**
 * Draws the strips of every device of a schedule: `info` its numbers (peaks,
 * cap: the schedule or its summary), `layout` its packed layout (the steps,
 * layout.mjs), box {left, right, top},
 * trackHeight per device, x the time scale, [t0, t1] the visible domain;
 * a device's peak is written by `format` (a plain number by default) at the
 * strip's left, on every strip while they are at least LABEL_PX tall and on
 * every k-th one below that (p >= 32), so labels never overlap. [d0, d1):
 * the devices to draw (all by default; the timeline spreads them over
 * tasks). Returns the labels' y positions.
 */
export function drawMemoryTracks(
    ctx, info, layout, box, trackHeight, x, [t0, t1], format = fmt, [d0, d1] = [0, Infinity]) {
  const devices = layout.memDevices;
  const top = memoryMax(info);
  const caps = capOf(info);
  const params = info.peak_parameter || [];
  const peaks = info.peak_activation || [];
  const every = Math.ceil(LABEL_PX / trackHeight);
  const labels = [];
  ctx.save();
  for (let d = d0; d < Math.min(d1, devices); ++d) {
    const y0 = box.top + d * trackHeight;
    const h = trackHeight - 3;
    const y = (v) => y0 + h - (v / top) * h;
    ctx.save();
    ctx.beginPath();
    ctx.rect(box.left, y0, box.right - box.left, h + 1);
    ctx.clip();
    ctx.fillStyle = '#f8fafc';
    ctx.fillRect(box.left, y0, box.right - box.left, h);
    const param = params[d] || 0;
    if (param > 0) {
      ctx.fillStyle = PARAM;
      ctx.fillRect(box.left, y(param), box.right - box.left, y(0) - y(param));
    }
    const {t, v} = memorySteps(layout, d);
    ctx.fillStyle = ACT;
    stepPath(ctx, t, v, x, y, param, [t0, t1], [box.left, box.right]);
    ctx.fill();
    ctx.strokeStyle = ACT_LINE;
    ctx.lineWidth = 1;
    ctx.stroke();
    const cap = caps ? caps[Math.min(d, caps.length - 1)] : null;
    if (cap !== null && cap !== undefined) {
      if (param + (peaks[d] || 0) > cap) {  // the excess, drawn over the step area
        ctx.save();
        ctx.beginPath();
        ctx.rect(box.left, y0, box.right - box.left, y(cap) - y0);
        ctx.clip();
        ctx.fillStyle = OVER;
        stepPath(ctx, t, v, x, y, param, [t0, t1], [box.left, box.right]);
        ctx.fill();
        ctx.restore();
      }
      ctx.strokeStyle = OVER;
      ctx.lineWidth = 1;
      ctx.setLineDash([4, 3]);
      ctx.beginPath();
      ctx.moveTo(box.left, Math.round(y(cap)) + 0.5);
      ctx.lineTo(box.right, Math.round(y(cap)) + 0.5);
      ctx.stroke();
      ctx.setLineDash([]);
    }
    ctx.restore();
    if (d % every) continue;
    ctx.fillStyle = '#6b7280';
    ctx.textAlign = 'right';
    ctx.textBaseline = 'middle';
    ctx.fillText(format(param + (peaks[d] || 0)), box.left - 4, y0 + h / 2);
    labels.push(y0 + h / 2);
  }
  ctx.restore();
  return labels;
}

function fmt(v) {
  return String(Number(v.toPrecision(4)));
}

/** The legend entries of the tracks ([color, label] for drawLegend). */
export const MEMORY_LEGEND =
    [[PARAM, 'parameters'], [ACT, 'activations'], [OVER, 'cap / over cap']];
