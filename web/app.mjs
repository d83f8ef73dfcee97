// The page shell: one tab per lab (sharding, pipeline, teach, plan). It reads the
// URL fragment (#v=3&lab=NAME&<the lab's keys>, older sharding links too),
// shows that lab's tab, and mounts a lab the first time its tab opens: it
// inserts web/LAB/panel.html into the lab's section (the sharding lab's
// markup is already in index.html), links web/LAB/style.css, imports
// web/LAB/lab.mjs and calls its
//   export async function mount(section, shell, params)
// once, with params the lab's own fragment keys (URLSearchParams, maybe empty).
// A lab gets `shell`:
//   shell.module()                 the page's wasm module (one, shared), a Promise
//   shell.setFragment(lab, params) records the lab's state; the address bar
//                                  shows it while the lab is active; returns the
//                                  absolute permalink for it
//   shell.active                   the lab whose tab is shown
//   shell.linkProblems             what of the opening link could not be read
//                                  (already shown at the top of its tab)
//   shell.open(lab)                shows a lab's tab; resolves, once it is
//                                  mounted, to {lab, module, section}
// A lab module may also export openFile(file, kind): the page-wide drop
// zone (drop.mjs) calls it for a tab that has no file input for that kind.
// The shell adds to every tab the drop hint, a start-here card with its
// glossary and hand-outs (intro.mjs), and one small live region that
// announces the tab's data-status changes only (never its figures).
// Labs query their own section and prefix their element ids with their name
// (the sharding lab's ids predate the tabs). Each section's data-status is
// the test contract; #app[data-lab] names the active tab.
import {dropHint, installDropZone} from './drop.mjs';
import {warmUp as warmFormats} from './format.mjs';
import {introCard} from './intro.mjs';
import {showLinkProblems} from './link_notice.mjs';
import {LABS, readLink, writeFragment} from './state.mjs';

const app = document.getElementById('app');
const sectionOf = (lab) => document.getElementById(`lab-${lab}`);
const fragments = new Map();        // lab -> its last recorded URLSearchParams
const mounted = new Map();          // lab -> the Promise of its mount
const pendingProblems = new Map();  // lab -> what of the opening link it could not apply
const modules = new Map();          // lab -> its imported lab.mjs
const scrollChecks = new Map();     // lab -> schedules its focusableScrollers()
let modulePromise = null;
const SCROLL_CHECK_MS = 250;  // see watchStatus

const shell = {
  active: null,

  module() {
    if (!modulePromise) {
      modulePromise = createShardLab().catch((error) => {
        throw new Error(`the solver could not start: ${error.message || error}`);
      });
    }
    return modulePromise;
  },

  setFragment(lab, params) {
    const p = new URLSearchParams(params);
    fragments.set(lab, p);
    const fragment = writeFragment(lab, p);
    if (shell.active === lab) history.replaceState(null, '', fragment);
    return `${location.origin}${location.pathname}${fragment}`;
  },

  async open(lab) {
    await activate(lab);
    return {lab, module: modules.get(lab) || {}, section: sectionOf(lab)};
  },
};
globalThis.shardlabShell = shell;  // for debugging and tests

// Inserts a lab's panel and stylesheet (labs other than sharding) and calls
// its mount(). A lab that cannot load shows why in its own section.
async function mountLab(lab, params) {
  const section = sectionOf(lab);
  try {
    if (lab !== 'sharding') {
      const response = await fetch(`${lab}/panel.html`);
      if (!response.ok)
        throw new Error(`${lab}/panel.html: the server answered ${response.status}`);
      section.innerHTML = await response.text();
      const style = document.createElement('link');
      style.rel = 'stylesheet';
      style.href = `${lab}/style.css`;
      document.head.append(style);
    }
    decorate(lab, section);
    showLinkProblems(section, pendingProblems.get(lab));
    const module = await import(`./${lab}/lab.mjs`);
    modules.set(lab, module);
    await module.mount(section, shell, params);
  } catch (error) {
    section.dataset.status = 'error';
    const box = document.createElement('section');
    box.className = 'error';
    box.setAttribute('role', 'alert');
    box.dataset.testid = `${lab}-mount-error`;
    box.textContent = `The ${lab} lab could not start: ${error.message || error}`;
    section.prepend(box);
  }
}

const TAB_NAMES = {
  sharding: 'Sharding',
  pipeline: 'Pipeline',
  teach: 'Teach',
  plan: 'Plan'
};

// The live region of a lab's tab: says its data-status when it changes, and
// nothing else, so a screen reader hears "solving", "done", not every figure.
function watchStatus(lab, section) {
  const live = document.createElement('p');
  live.className = 'visually-hidden';
  live.setAttribute('role', 'status');
  live.dataset.testid = `live-${lab}`;
  section.append(live);
  let said = null;
  const say = () => {
    const status = section.dataset.status;
    if (status === said) return;
    said = status;
    live.textContent = `${TAB_NAMES[lab]} lab: ${status}`;
  };
  // Checked once the content has been quiet for SCROLL_CHECK_MS: a tab
  // filling row by row (the pipeline's compare table) would otherwise force
  // a layout of the whole page every frame.
  let checking = null;
  const check = () => {
    clearTimeout(checking);
    checking = setTimeout(() => {
      checking = null;
      if (!section.hidden) requestAnimationFrame(() => focusableScrollers(section));
    }, SCROLL_CHECK_MS);
  };
  new MutationObserver(check).observe(section, {childList: true, subtree: true});
  scrollChecks.set(lab, check);
  window.addEventListener('resize', check);
  new MutationObserver(say).observe(section, {attributes: true, attributeFilter: ['data-status']});
  say();
}

// A region that scrolls (a wide table on a phone, a long export) must be reachable
// by keyboard: each one in the section that has nothing focusable inside
// gets tabindex=0 (checked once the tab's content has stopped changing, and
// on resize). Every element is measured before any is changed, so the page
// is laid out once. What sits inside a table cell is not a region (a
// 12-block teaching model's tables hold a thousand small divs, and reading
// every one's style took 65 ms).
const REGIONS = ['table', 'pre', 'div', 'section'].map((tag) => `${tag}:not(td *, th *)`).join();

function focusableScrollers(section) {
  const found = [];
  for (const el of section.querySelectorAll(REGIONS)) {
    if (el.hasAttribute('tabindex')) continue;
    const style = getComputedStyle(el);
    const sideways = /auto|scroll/.test(style.overflowX) && el.scrollWidth > el.clientWidth + 1;
    const down = /auto|scroll/.test(style.overflowY) && el.scrollHeight > el.clientHeight + 1;
    if (!sideways && !down) continue;
    if (el.querySelector('a[href], button, input, select, textarea, [tabindex]')) continue;
    found.push(el);
  }
  for (const el of found) el.tabIndex = 0;
}

// What the shell adds to every tab: the drop hint and the start-here card
// below the tab's heading, and its live region.
function decorate(lab, section) {
  const head = section.querySelector('.lab-head');
  const extras = [dropHint(lab), introCard(lab)];
  if (head) {
    head.after(...extras);
  } else {
    section.prepend(...extras);
  }
  watchStatus(lab, section);
}

/** Shows a lab's tab; mounts it first when needed (params: its fragment keys). */
function activate(lab, params = null) {
  shell.active = lab;
  app.dataset.lab = lab;
  for (const name of LABS) {
    sectionOf(name).hidden = name !== lab;
    const tab = app.querySelector(`[role=tab][data-lab=${name}]`);
    tab.setAttribute('aria-selected', String(name === lab));
    tab.tabIndex = name === lab ? 0 : -1;
  }
  if (scrollChecks.has(lab)) scrollChecks.get(lab)();
  if (params) fragments.set(lab, params);
  const state = fragments.get(lab);
  history.replaceState(
      null, '', state ? writeFragment(lab, state) : location.pathname + location.search);
  if (!mounted.has(lab)) mounted.set(lab, mountLab(lab, state || new URLSearchParams()));
  return mounted.get(lab);
}

function wireTabs() {
  const tabs = [...app.querySelectorAll('[role=tab]')];
  for (const tab of tabs) tab.addEventListener('click', () => activate(tab.dataset.lab));
  // Arrow keys move between tabs, as the ARIA tabs pattern expects.
  app.querySelector('[role=tablist]').addEventListener('keydown', (e) => {
    const step = {ArrowRight: 1, ArrowLeft: -1}[e.key];
    if (!step) return;
    const at = tabs.findIndex((t) => t.dataset.lab === shell.active);
    const next = tabs[(at + step + tabs.length) % tabs.length];
    next.focus();
    activate(next.dataset.lab);
  });
  // A fragment typed or followed by hand opens afresh (the shell itself
  // only ever replaces the fragment, which fires no hashchange).
  window.addEventListener('hashchange', () => location.reload());
}

async function boot() {
  // The number formats' first use is costly: paid in a task of its own
  // while the page loads (before any lab has mounted), never by a Stop.
  setTimeout(warmFormats, 0);
  wireTabs();
  installDropZone(shell);
  // A link that cannot be read is named at the top of the tab it opens.
  const link = await readLink(location.hash);
  const lab = link.lab || 'sharding';
  shell.linkProblems = link.problems;
  pendingProblems.set(lab, link.problems);
  await activate(lab, link.lab ? link.params : null);
}

boot();
