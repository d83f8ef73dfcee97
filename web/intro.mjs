// The start-here card app.mjs puts at the top of every tab: what to do first,
// a short glossary of the words the readouts and legends use (winner, best
// known, lower bound, gap, ...), and the course hand-outs (examples/teach/
// *.md beside the chosen teaching example, examples/plan/*.md in the plan
// tab) rendered by markdown.mjs. The card is a <details>; whether it is open
// is remembered per tab in localStorage.
import {renderMarkdown} from './markdown.mjs';

const GLOSSARY = {
  cost: ['best cost', 'the total cost of the best plan found so far (lower is better)'],
  bound: [
    'lower bound',
    'no plan can cost less than this; the solver proves it as it runs, ' +
        'and a plan that reaches it is optimal'
  ],
  gap: ['gap', '(best cost − lower bound) / best cost: how far from proven optimal, at most'],
  bestKnown: ['best known', 'the lowest cost anyone has published for this contest instance'],
  winner: ['winner', 'the cost the contest\'s winning team reached on this instance'],
  xla: ['XLA', 'the cost of the plan XLA\'s own auto-sharding finds (the contest\'s baseline)'],
  bubble: ['bubble', 'time a device waits idle inside the step'],
  makespan: ['makespan', 'the time from the first operation to the last: one training step'],
  strategy: ['strategy', 'how one op splits its tensors over the mesh axes'],
  collective:
      ['collective', 'communication every device takes part in (all-reduce, all-gather, ...)'],
  stepTime: ['step time', 'one training step of the whole global batch on the cluster'],
  parallel: [
    'tp, pp, dp, ep',
    'tensor, pipeline, data and expert parallel degrees; ZeRO shards ' +
        'the optimiser state (1), gradients (2) and parameters (3) over data parallelism'
  ],
};

const CARDS = {
  sharding: {
    first: 'The page opened B, a bundled contest instance, and is solving it: the curve falls ' +
        'as better plans arrive and the lower bound rises to meet them. Press Stop at any ' +
        'time, pick another example in Example, or open your own instance (.json or .json.gz).',
    terms: ['cost', 'bound', 'gap', 'bestKnown', 'winner', 'xla'],
  },
  pipeline: {
    first: 'The tab opened a preset pipeline problem. Choose a schedule under Schedule to see ' +
        'its timeline, stack another under it to compare, change p, m or the op times, ' +
        'or press Plan to search for a better schedule with a proven lower bound.',
    terms: ['makespan', 'bubble', 'bound', 'gap'],
  },
  teach: {
    first: 'Pick a course example in Example: the solver lays out every op on the mesh and ' +
        'names the textbook strategy it found. Read the example\'s hand-out below, then edit ' +
        'the model or the mesh and press Generate and solve.',
    terms: ['strategy', 'collective', 'cost', 'bound', 'gap'],
    handouts: 'teach',
  },
  plan: {
    first: 'Choose a model and a cluster, the GPU count and the global batch, and press Plan: ' +
        'the planner chooses the parallel degrees, ZeRO, recomputation and the schedule ' +
        'together and proves how far its plan can be from the best.',
    terms: ['stepTime', 'parallel', 'bound', 'gap'],
    handouts: 'plan',
  },
};

// The plan lab's hand-outs (examples/plan/README.md's table).
export const PLAN_HANDOUTS = Object.freeze([
  ['tp_inside_node.md', 'Why does tensor parallelism stay inside a node? (GPT-3 175B)'],
  ['when_pipelining_pays.md', 'When does pipelining pay? (GPT 1.7B to 175B)'],
  ['recompute_memory.md', 'What does recomputation buy? (GPT-3 175B)'],
  ['zero_vs_tp.md', 'ZeRO or tensor parallelism? (Llama 3 8B on one DGX)'],
]);

const storageKey = (lab) => `shardlab.intro.${lab}`;

function remembered(lab) {
  try {
    return localStorage.getItem(storageKey(lab)) !== 'closed';
  } catch (error) {
    return true;
  }
}

function el(tag, props = {}, ...children) {
  const node = Object.assign(document.createElement(tag), props);
  node.append(...children);
  return node;
}

/** Fetches examples/<dir>/<file> and renders it into `box`. */
async function showHandout(box, dir, file) {
  const url = new URL(`examples/${dir}/${file}`, document.baseURI);
  box.dataset.handout = file;
  box.replaceChildren(el('p', {className: 'hint', textContent: `Loading ${file}…`}));
  try {
    const response = await fetch(url);
    if (!response.ok) throw new Error(`the server answered ${response.status}`);
    const text = await response.text();
    if (box.dataset.handout !== file) return;
    box.replaceChildren(
        renderMarkdown(document, text, url.href),
        el('p', {className: 'hint'}, el('a', {href: url.href, textContent: `${file} as text`})));
  } catch (error) {
    box.replaceChildren(
        el('p', {className: 'hint', textContent: `${file} could not be loaded: ${error.message}`}));
  }
  box.dispatchEvent(new Event('handout'));
}

// Teach: the hand-out of the example chosen in #teach-example, following it.
function followTeachExample(section, box) {
  let shown = null;
  const sync = () => {
    const select = section.querySelector('#teach-example');
    const file = select && select.value ? select.value.replace(/\.json$/, '.md') : null;
    if (!file || file === shown) return;
    shown = file;
    showHandout(box, 'teach', file);
  };
  section.addEventListener('change', (e) => e.target.id === 'teach-example' && sync());
  new MutationObserver(sync).observe(section, {attributes: true, attributeFilter: ['data-status']});
}

function planChooser(box) {
  const select = el('select', {id: 'intro-plan-handout'});
  select.dataset.testid = 'handout-plan-choice';
  select.append(new Option('choose a hand-out…', ''));
  for (const [file, title] of PLAN_HANDOUTS) select.append(new Option(title, file));
  select.addEventListener('change', () => select.value && showHandout(box, 'plan', select.value));
  return el('label', {}, 'Hand-out ', select);
}

/** The start-here card of a lab's tab (section: the lab's section). */
export function introCard(lab) {
  const card = CARDS[lab];
  const details = el('details', {className: 'intro', open: remembered(lab)});
  details.dataset.testid = `intro-${lab}`;
  details.addEventListener('toggle', () => {
    try {
      localStorage.setItem(storageKey(lab), details.open ? 'open' : 'closed');
    } catch (error) {
      // Private windows may refuse storage; the card still toggles.
    }
  });
  const terms = el('dl', {className: 'glossary'});
  terms.dataset.testid = `glossary-${lab}`;
  for (const key of card.terms) {
    const [term, meaning] = GLOSSARY[key];
    terms.append(el('div', {}, el('dt', {textContent: term}), el('dd', {textContent: meaning})));
  }
  details.append(
      el('summary', {textContent: 'Start here'}), el('p', {textContent: card.first}), terms);
  if (card.handouts) {
    const box = el('section', {className: 'handout'});
    box.dataset.testid = `handout-${lab}`;
    box.setAttribute('aria-label', 'Hand-out');
    box.tabIndex = 0;  // it scrolls: keyboards must reach it
    if (card.handouts === 'plan') {
      details.append(planChooser(box), box);
    } else {
      details.append(box);
      queueMicrotask(() => followTeachExample(details.closest('.lab'), box));
    }
  }
  return details;
}
