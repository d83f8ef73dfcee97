// Helpers for the browser tests and the browser benchmarks (not a test file):
// serves build/wasm/site with `python3 -m http.server` on 127.0.0.1, launches
// Debian's /usr/bin/chromium through playwright-core (never a downloaded
// browser), and waits on a lab section's data-status (#lab-sharding,
// #lab-pipeline, #lab-teach) instead of sleeping; table() prints a bench table.
import {spawn} from 'node:child_process';
import fs from 'node:fs';
import {createRequire} from 'node:module';
import path from 'node:path';
import {after, before} from 'node:test';
import {pathToFileURL} from 'node:url';

export {scratchDir} from '../wasm/scratch.mjs';

export const SOURCE = process.env.SHARDLAB_SOURCE_DIR || path.resolve('.');
export const SITE = process.env.SHARDLAB_SITE || path.join(SOURCE, 'build/wasm/site');
export const SHARED = process.env.SHARDLAB_SHARED_DIR || path.resolve(SOURCE, '../shared');
const {STOP_GRACE_MS} =
    await import(pathToFileURL(path.join(SOURCE, 'web/worker_client.mjs')).href);
export const CHROMIUM = process.env.SHARDLAB_CHROMIUM || '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'
];

export function loadPlaywright() {
  const require = createRequire(path.join(SOURCE, 'package.json'));
  try {
    return require('playwright-core');
  } catch (error) {
    throw new Error('playwright-core is missing: run `npm ci` at the repository root');
  }
}

/** Starts python3 -m http.server on a free port; resolves to {url, close}. */
export function serveSite(dir = SITE) {
  if (!fs.existsSync(path.join(dir, 'index.html'))) {
    throw new Error(`${dir}/index.html is missing: build with cmake --build --preset wasm`);
  }
  return new Promise((resolve, reject) => {
    const server = spawn(
        'python3', ['-u', '-m', 'http.server', '--bind', '127.0.0.1', '0', '-d', dir],
        {stdio: ['ignore', 'pipe', 'pipe']});
    let text = '';
    const timer = setTimeout(() => reject(new Error(`http.server did not start: ${text}`)), 15000);
    server.stdout.on('data', (chunk) => {
      text += chunk;
      const match = /port (\d+)/.exec(text);
      if (match) {
        clearTimeout(timer);
        resolve({url: `http://127.0.0.1:${match[1]}/`, close: () => server.kill()});
      }
    });
    server.stderr.on('data', () => {});  // request log
    server.on('exit', (code) => reject(new Error(`http.server exited with ${code}: ${text}`)));
  });
}

export async function launch() {
  if (!fs.existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install chromium`);
  const {chromium} = loadPlaywright();
  return chromium.launch({executablePath: CHROMIUM, args: CHROMIUM_ARGS});
}

/**
 * The site served and Chromium launched once for a test file: registers the
 * node:test hooks that start both before its first test and close both after
 * its last. Returns {url, browser}, filled in by the time tests run.
 */
export function useSite() {
  const site = {url: '', browser: null, server: null};
  before(async () => {
    site.server = await serveSite();
    site.url = site.server.url;
    site.browser = await launch();
  });
  after(async () => {
    if (site.browser) await site.browser.close();
    if (site.server) site.server.close();
  });
  return site;
}

/**
 * A fresh context and page; page errors are collected in page.errors.
 * `prepare(context)` runs before the page opens (routes, for example).
 */
export async function openPage(browser, url, {
  viewport = {
    width: 1360,
    height: 1000
  },
  prepare = null
} = {}) {
  const context = await browser.newContext({viewport, acceptDownloads: true});
  if (prepare) await prepare(context);
  const page = await context.newPage();
  page.errors = [];
  page.on('pageerror', (error) => page.errors.push(String(error)));
  page.on('console', (msg) => {
    if (msg.type() === 'error') page.errors.push(msg.text());
  });
  await page.goto(url);
  return page;
}

/** Waits until the lab's section has one of the statuses (sharding by default). */
export function waitStatus(page, statuses, timeout = 60000, lab = 'sharding') {
  const list = [].concat(statuses);
  return page.waitForFunction(({wanted, lab}) => {
    const section = document.getElementById(`lab-${lab}`);
    return section && wanted.includes(section.dataset.status);
  }, {wanted: list, lab}, {timeout, polling: 50});
}

/**
 * Waits until the sharding tab's link and stored record carry the end of
 * `runs` runs (data-saved: they are written just after the status shows it).
 */
export function waitSaved(page, runs = 1, timeout = 30000) {
  return page.waitForFunction(
      (n) => Number(document.getElementById('lab-sharding').dataset.saved || 0) >= n, runs,
      {timeout, polling: 50});
}

export function status(page, lab = 'sharding') {
  return page.getAttribute(`#lab-${lab}`, 'data-status');
}

export async function text(page, testid) {
  return (await page.textContent(`[data-testid=${testid}]`)).trim();
}

/** True when the canvas has data-drawn=true and is not blank. */
export function drawn(page, testid) {
  return page.$eval(`[data-testid=${testid}]`, (canvas) => {
    if (canvas.dataset.drawn !== 'true') return false;
    const ctx = canvas.getContext('2d');
    const {data} = ctx.getImageData(0, 0, canvas.width, canvas.height);
    let ink = 0;
    for (let i = 0; i < data.length; i += 4)
      if (data[i] < 200 || data[i + 1] < 200) ++ink;
    return ink > 500;
  });
}

/**
 * Drops a file on the page as a user would (dragenter, dragover, drop on the
 * body): `bytes` a Buffer or Uint8Array, `name` the file's name. Resolves once
 * the events are dispatched.
 */
export function dropFile(page, name, bytes, {leave = false} = {}) {
  const base64 = Buffer.from(bytes).toString('base64');
  return page.evaluate(({name, base64, leave}) => {
    const binary = atob(base64);
    const data = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; ++i) data[i] = binary.charCodeAt(i);
    const transfer = new DataTransfer();
    transfer.items.add(new File([data], name));
    const fire = (type) => document.body.dispatchEvent(
        new DragEvent(type, {bubbles: true, cancelable: true, dataTransfer: transfer}));
    fire('dragenter');
    fire('dragover');
    globalThis.overlayShown = !document.getElementById('drop-overlay')?.hidden;
    fire(leave ? 'dragleave' : 'drop');
  }, {name, base64, leave});
}

/** The active tab's name (#app[data-lab]). */
export function activeLab(page) {
  return page.getAttribute('#app', 'data-lab');
}

/**
 * The teaching lab's deep model (teach.test.mjs, page_responsive_bench.mjs):
 * twelve transformer blocks on 1 GB per device; natively the bound is still
 * 0.4% below the cost after 15 s, so a stop lands in a running solve.
 */
export function deepTransformer(source = SOURCE) {
  const base =
      JSON.parse(fs.readFileSync(path.join(source, 'examples/teach/transformer.json'), 'utf8'));
  const model = {...base, name: 'transformer_x12', mesh: {...base.mesh, device_memory_GB: 1}};
  model.tensors = {x: base.tensors.x};
  model.ops = [];
  let previous = 'x';
  for (let i = 0; i < 12; ++i) {
    for (const w of ['Wq', 'Wk', 'Wv', 'Wo', 'W1', 'W2'])
      model.tensors[`${w}_${i}`] = base.tensors[w];
    for (const op of base.ops) {
      const inputs = op.inputs.map((t) => (t === 'x' ? previous : `${t}_${i}`));
      model.ops.push({...op, name: `${op.name}_${i}`, inputs});
    }
    previous = `r2_${i}`;
  }
  return JSON.stringify(model, null, 1);
}

const STUCK_S = 300;  // far longer than any wait in the browser tests (90 s at most)

/**
 * For openPage's `prepare`: serves `script` (a worker's path under the site)
 * with a step that spins for STUCK_S right after `marker` (a line of it,
 * such as the one posting its first better plan), once (the first time
 * `when`, a JavaScript condition in the marker's scope, holds there):
 * workers started later get the real script. A Stop then lands while the
 * worker cannot answer (tests/browser/stop*.test.mjs).
 */
export function stuckWorker(script, marker, when = 'true') {
  let served = 0;
  return (context) => context.route(`**/${script}`, async (route) => {
    let response, body;
    try {
      response = await route.fetch();
      body = await response.text();
    } catch (error) {
      // A worker replaced after a Stop may still be fetching its script
      // when the test closes the page: nothing is left to serve.
      if (/disposed|closed/.test(String(error))) return;
      throw error;
    }
    if (served++ === 0) {
      if (!body.includes(marker)) throw new Error(`${script} no longer has: ${marker}`);
      body = body.replace(
          marker,
          `${marker}\nif (!self.stuckOnce && (${when})) { self.stuckOnce = true; ` +
              `const end = Date.now() + ${STUCK_S * 1000}; while (Date.now() < end) {} }`);
    }
    await route.fulfill({response, body}).catch((error) => {
      if (!/disposed|closed/.test(String(error))) throw error;
    });
  });
}

/** Prints a Markdown table under a title: the benchmarks' output (tests/bench/*.mjs). */
export function table(title, header, rows) {
  console.log(`\n${title}`);
  const all = [header, ...rows].map((r) => r.map(String));
  const widths = header.map((_, i) => Math.max(...all.map((r) => r[i].length)));
  const line = (r) => '| ' + r.map((c, i) => c.padEnd(widths[i])).join(' | ') + ' |';
  console.log(line(all[0]));
  console.log('|' + widths.map((w) => '-'.repeat(w + 2)).join('|') + '|');
  for (const r of all.slice(1)) console.log(line(r));
}

/**
 * For openPage's `prepare`: the page's timers of the stop's grace
 * (STOP_GRACE_MS, web/worker_client.mjs) never fire; window.heldGrace
 * counts them.
 */
export function holdGrace(context) {
  return context.addInitScript((graceMs) => {
    const real = window.setTimeout;
    window.heldGrace = 0;
    window.setTimeout = (fn, ms, ...rest) => {
      if (ms === graceMs) return ++window.heldGrace;
      return real(fn, ms, ...rest);
    };
  }, STOP_GRACE_MS);
}
