// The bundled examples (copied from examples/ into site/examples/ by
// wasm/CMakeLists.txt), listed in the page's menu; the one opened
// when the page is given nothing is marked `default`
// (G: the baseline engine already finds a plan for it, so every view shows). Source: google/iopddl,
// Apache-2.0.

export const EXAMPLES = Object.freeze([
  {file: 'example.json', title: 'example: the contest example (5 nodes, optimum 445)'},
  {file: 'asplos-2025-iopddl-B.json.gz', title: 'B: Transformer inference (816 nodes)'},
  {
    file: 'asplos-2025-iopddl-G.json.gz',
    title: 'G: Transformer inference (816 nodes)',
    default: true
  },
]);
