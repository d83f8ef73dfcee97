// The teaching lab's forced strategies ("why not data parallel here?"): they
// accumulate, one per node, as removable chips (node = strategy, ×), and
// travel in the tab's fragment as f=NODE=STRATEGY;NODE=STRATEGY (the CLI's
// repeated --force NODE=STRATEGY). lab.mjs keeps the map and re-solves on
// every change; the fragment's form is checked by tests/web/teach_forces.test.mjs.

/** "h=b:x;y=b:x" -> Map {h => b:x, y => b:x}; pairs without a node are skipped. */
export function parseForces(text) {
  const forces = new Map();
  for (const pair of String(text || '').split(';')) {
    const at = pair.indexOf('=');
    if (at > 0 && at < pair.length - 1) forces.set(pair.slice(0, at), pair.slice(at + 1));
  }
  return forces;
}

/** Map -> "h=b:x;y=b:x" (insertion order, as the chips show them). */
export function encodeForces(forces) {
  return [...forces].map(([node, strategy]) => `${node}=${strategy}`).join(';');
}

/**
 * Adds a force; one strategy per node, so forcing a forced node again
 * replaces its strategy. Returns what happened, for the message beside
 * the button: 'added', 'replaced' (with the old strategy) or 'same'.
 */
export function addForce(forces, node, strategy) {
  const old = forces.get(node);
  if (old === strategy) return {change: 'same'};
  forces.set(node, strategy);
  return old === undefined ? {change: 'added'} : {change: 'replaced', old};
}

/**
 * Draws the chips into list (a <ul>): each names node and strategy and has
 * an × button (aria-label "Remove the force NODE = STRATEGY") that calls
 * onRemove(node).
 */
export function renderChips(list, forces, onRemove) {
  const doc = list.ownerDocument;
  list.replaceChildren(...[...forces].map(([node, strategy]) => {
    const item = doc.createElement('li');
    item.className = 'chip';
    item.dataset.node = node;
    const label = doc.createElement('span');
    label.textContent = `${node} = ${strategy}`;
    const remove = doc.createElement('button');
    remove.type = 'button';
    remove.textContent = '×';
    remove.dataset.testid = 'teach-force-remove';
    remove.setAttribute('aria-label', `Remove the force ${node} = ${strategy}`);
    remove.title = `Remove the force ${node} = ${strategy} and solve again`;
    remove.addEventListener('click', () => onRemove(node));
    item.append(label, remove);
    return item;
  }));
  list.hidden = forces.size === 0;
}
