// The plan card and its numbers: the decisions of the winning plan (t, p,
// v, d, ZeRO, EP, SP, schedule, micro-batch size and count, recomputation,
// the layers of each stage) and what the cost model predicts for it (step
// time, tokens/s, TFLOP/s per GPU, MFU, the certified lower bound and the
// gap). cardRows() and numberRows() read the core's plan JSON
// (core/plan/report.cpp plan_json) into [testid, label, text] rows: pure,
// the browser tests compare them with the CLI's (tests/browser/plan.test.mjs);
// renderRows() fills a <dl>.
import * as f from '../format.mjs';

/** "5/5/6/6" of a plan's stage layers, or "–". */
export function stagesText(stages) {
  return stages && stages.length ? stages.join('/') : '–';
}

/** The decisions of a plan (the core's plan object) as [testid, label, text] rows. */
export function cardRows(plan) {
  return [
    ['plan-tp', 'tensor parallel t', String(plan.tp)],
    ['plan-sp', 'sequence parallel', plan.sequence_parallel ? 'on' : 'off'],
    ['plan-pp', 'pipeline stages p', String(plan.pp)],
    ['plan-vpp', 'chunks per device v', String(plan.vpp)],
    ['plan-dp', 'data parallel d', String(plan.dp)],
    ['plan-zero', 'ZeRO stage', String(plan.zero)],
    ['plan-ep', 'expert parallel', String(plan.ep)],
    ['plan-schedule', 'schedule', plan.schedule],
    ['plan-mbs', 'micro-batch size', f.grouped(plan.microbatch_size)],
    ['plan-microbatches', 'micro-batches', f.grouped(plan.microbatches)],
    ['plan-recompute', 'recomputation', plan.recompute],
    ['plan-stages', 'layers per stage', stagesText(plan.stages)],
  ];
}

/** What the plan is predicted to do, as [testid, label, text] rows. */
export function numberRows(result) {
  const proven = result.proven ? ' (proven optimal)' : '';
  return [
    ['plan-step-time', 'step time', f.seconds(result.step_time_s)],
    ['plan-tokens', 'throughput', f.tokensPerS(result.tokens_per_s)],
    ['plan-tflops', 'model TFLOP/s per GPU', f.tflops(result.tflops_per_gpu)],
    ['plan-mfu', 'MFU', f.percent(result.mfu)],
    ['plan-bound', 'lower bound', f.seconds(result.lower_bound_s)],
    ['plan-gap', 'gap to the bound', `${f.percent(result.gap, 2)}${proven}`],
  ];
}

/** The one-line summary of a plan ("t 8 · p 8 · d 1 · 1F1B ..."), as the tables show it. */
export function planSummary(plan) {
  const parts = [`t ${plan.tp}`, `p ${plan.pp}`, `d ${plan.dp}`];
  if (plan.vpp > 1) parts.push(`v ${plan.vpp}`);
  if (plan.ep > 1) parts.push(`ep ${plan.ep}`);
  if (plan.sequence_parallel) parts.push('SP');
  if (plan.zero) parts.push(`ZeRO-${plan.zero}`);
  parts.push(plan.schedule, `mbs ${plan.microbatch_size} × ${plan.microbatches}`);
  if (plan.recompute !== 'none') parts.push(`recompute ${plan.recompute}`);
  return parts.join(' · ');
}

/** Fills a <dl> with rows: <dt>label</dt><dd data-testid=...>text</dd>. */
export function renderRows(dl, rows) {
  const items = [];
  for (const [testid, label, text] of rows) {
    const dt = document.createElement('dt');
    dt.textContent = label;
    const dd = document.createElement('dd');
    dd.dataset.testid = testid;
    dd.textContent = text;
    items.push(dt, dd);
  }
  dl.replaceChildren(...items);
}

/** The sentence under the card when no plan fits: what the least-memory plan needs. */
export function noFitText(result) {
  const gpus = result.cluster ? result.cluster.gpus : '?';
  const limit = result.cluster ? f.bytes(result.cluster.memory_GB * 1e9) : 'the limit';
  if (!result.needs_bytes) return `No plan of the decision space runs on ${gpus} GPUs.`;
  return `No plan fits on ${f.grouped(gpus)} GPUs: the least memory any plan needs is ` +
      `${f.bytes(result.needs_bytes)} per GPU (${planSummary(result.needs_plan)}), ` +
      `against ${limit}.`;
}
