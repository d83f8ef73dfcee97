// The bundled examples (copied from examples/ into site/examples/ by
// wasm/CMakeLists.txt), listed in the page's menu. The one marked `default`
// opens when the page is given nothing: B, a contest instance with a proven
// optimum, so every view and reference line shows. Source: google/iopddl.

export const EXAMPLES = Object.freeze([
  {file: 'example.json', title: 'example: the contest example (5 nodes, optimum 445)'},
  {
    file: 'asplos-2025-iopddl-B.json.gz',
    title: 'B: Transformer inference (816 nodes)',
    default: true
  },
  {file: 'asplos-2025-iopddl-G.json.gz', title: 'G: Transformer inference (816 nodes)'},
]);
