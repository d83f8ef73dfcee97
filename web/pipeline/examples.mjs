// The pipeline lab's examples: parameter presets (uniform problems, with the
// schedules to show and the planner's placement) and problem files bundled from examples/pipeline/
// (the site serves them under examples/pipeline/). The first preset opens by default.

export const PRESETS = Object.freeze([
  {
    id: 'zb',
    title: '1F1B vs ZB-H1 (p 4, m 8, unit F/B/W)',
    params: {p: 4, m: 8, F: 1, B: 1, W: 1, FB: null, comm: 0, cap: null, v: 2},
    schedule: '1F1B',
    compare: 'ZB-H1',
  },
  {
    id: 'dualpipe',
    title: 'DualPipe\'s example (8 ranks, 20 micro-batches, F = B = W = 1, F&B = 3, cap PP+1)',
    params: {p: 8, m: 20, F: 1, B: 1, W: 1, FB: 3, comm: 0, cap: 9, v: 2},
    schedule: 'DualPipe',
    compare: null,
    placement: 'bidirectional',  // the planner plans on DualPipe's own placement
  },
  {
    id: 'interleaved',
    title: 'Interleaved 1F1B, v = 2 (p 4, m 8, comm 0.1)',
    params: {p: 4, m: 8, F: 1, B: 2, W: 1, FB: null, comm: 0.1, cap: null, v: 2},
    schedule: 'Interleaved1F1B',
    compare: '1F1B',
  },
  {
    id: 'zbv',
    title: 'ZBV and DualPipeV under a cap (p 4, m 8)',
    params: {p: 4, m: 8, F: 1, B: 1, W: 1, FB: null, comm: 0, cap: 8, v: 2},
    schedule: 'ZBV',
    compare: 'DualPipeV',
  },
]);

// Files in examples/pipeline/: [file, title].
export const FILES = Object.freeze([
  ['dualpipe_example.json', 'File: DualPipe\'s example (cap PP+1)'],
  ['uniform_4x8.json', 'File: a uniform 4 x 8 problem'],
  ['uneven_stages.json', 'File: four uneven stages with a delay and a cap'],
  ['two_towers.json', 'File: a DAG with two towers (operators)'],
  ['moe_layer.json', 'File: an MoE-like layer with flexible experts'],
]);
