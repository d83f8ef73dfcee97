// Wall-clock limits in the page (issue 26): how far the sharding tab's runs
// overshoot their time limit, counted from Start (from the moment the tab
// turns to "solving" to the moment it turns to done/stopped), on contest
// instances chosen as a user would. Prints a table; never passes or fails on
// time (the bar is an overrun of at most 0.5 s or 5%). Headless Debian
// Chromium via playwright-core against python3 -m http.server on
// build/wasm/site; instances from ../shared/benchmarks.
//   node tests/bench/page_limits_bench.mjs [--instances A,B] [--limits 10] [--workers 1] [--runs 1]
import fs from 'node:fs';
import path from 'node:path';
import {parseArgs} from 'node:util';

import {launch, openPage, serveSite, SHARED, table, waitStatus} from '../browser/harness.mjs';

const {values: args} = parseArgs({
  options: {
    instances: {type: 'string', default: 'A,B'},
    limits: {type: 'string', default: '10'},
    workers: {type: 'string', default: '1'},
    runs: {type: 'string', default: '1'},
  }
});
const FINAL = ['done', 'stopped', 'error'];
const instance = (id) => path.join(SHARED, `benchmarks/asplos-2025-iopddl-${id}.json.gz`);

// One run: the file chosen with the limit set, which starts solving on load.
async function run(browser, url, id, limitS, workers) {
  const page =
      await openPage(browser, `${url}?time=${limitS}&workers=${workers}#v=2&ex=example.json&t=1`);
  await waitStatus(page, FINAL);
  await page.evaluate(() => {
    const root = document.getElementById('lab-sharding');
    const now = () => performance.timeOrigin + performance.now();
    window.benchTimes = {};
    new MutationObserver(() => {
      const s = root.dataset.status;
      if (s === 'solving' && !window.benchTimes.start) window.benchTimes.start = now();
      if (window.benchTimes.start && ['done', 'stopped', 'error'].includes(s) &&
          !window.benchTimes.end) {
        window.benchTimes.end = now();
      }
    }).observe(root, {attributes: true, attributeFilter: ['data-status']});
  });
  await page.setInputFiles('[data-testid=file-input]', instance(id));
  await page.waitForFunction(() => window.benchTimes.end, null, {timeout: 600000, polling: 20});
  const out =
      await page.evaluate(() => ({
                            wallS: (window.benchTimes.end - window.benchTimes.start) / 1000,
                            workerS: window.shardlab.client.elapsedS,
                            shown: document.querySelector('[data-testid=elapsed]').textContent,
                            status: document.getElementById('lab-sharding').dataset.status,
                            cost: document.querySelector('[data-testid=best-cost]').textContent,
                            readS: window.shardlab.load.seconds,
                          }));
  await page.context().close();
  return out;
}

async function main() {
  const missing = args.instances.split(',').filter((id) => !fs.existsSync(instance(id)));
  if (missing.length) {
    console.log(`${SHARED}/benchmarks lacks ${missing.join(', ')}: nothing to measure`);
    return;
  }
  const server = await serveSite();
  const browser = await launch();
  const rows = [];
  try {
    for (const id of args.instances.split(',')) {
      for (const limitS of args.limits.split(',').map(Number)) {
        for (let i = 0; i < Number(args.runs); ++i) {
          const r = await run(browser, server.url, id, limitS, Number(args.workers));
          const over = r.wallS - limitS;
          const allowed = Math.max(0.5, 0.05 * limitS);
          rows.push([
            id, limitS, args.workers, r.readS.toFixed(2), r.wallS.toFixed(2), r.workerS.toFixed(2),
            over.toFixed(2), over <= allowed ? 'yes' : 'NO', r.shown, r.status, r.cost
          ]);
        }
      }
    }
  } finally {
    await browser.close();
    server.close();
  }
  table(
      'Sharding tab: wall time from Start to the end of the run (limit counted from Start)',
      [
        'instance', 'limit s', 'workers', 'parse s', 'wall s', 'worker s', 'overrun s',
        'within 0.5 s or 5%', 'page shows', 'status', 'cost'
      ],
      rows);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
