// The notice at the top of a lab's tab that names every part of a link that
// could not be applied (an unknown version, a key the lab does not have, a
// value out of range, an example that is not bundled). The shell (app.mjs)
// reports what the whole link got wrong, each lab what its own keys did
// (state.mjs, pipeline/permalink.mjs and the teaching lab decode them).

/**
 * Adds `problems` (sentences) to the notice of a lab's section, creating it
 * as the section's first child; nothing happens for an empty list. Returns
 * the notice element (or null).
 */
export function showLinkProblems(section, problems) {
  if (!section || !problems || !problems.length) return null;
  let box = section.querySelector(':scope > [data-testid=link-problems]');
  if (!box) {
    box = document.createElement('section');
    box.className = 'error link-problems';
    box.setAttribute('role', 'alert');
    box.dataset.testid = 'link-problems';
    const title = document.createElement('p');
    title.textContent = 'Parts of this link could not be applied:';
    box.append(title, document.createElement('ul'));
    section.prepend(box);
  }
  const list = box.querySelector('ul');
  for (const problem of problems) {
    const item = document.createElement('li');
    item.textContent = problem;
    list.append(item);
  }
  return box;
}
