// Unit tests of the pipeline lab's pure readout helpers: numbers printed as
// the core gives them, the closed form's verdict (equal, differing, or its
// assumption failing), the compare table's rows (every schedule the core
// lists, inapplicable ones with their reason, the cap).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import {test} from 'node:test';
import {pathToFileURL} from 'node:url';

const SOURCE = path.resolve(process.env.SHARDLAB_SOURCE_DIR || '.');
const load = (rel) => import(pathToFileURL(path.join(SOURCE, rel)).href);
const R = await load('web/pipeline/readouts.mjs');
const C = await load('web/pipeline/compare.mjs');
const small = JSON.parse(
    fs.readFileSync(path.join(SOURCE, 'tests/web/data/pipeline_1f1b_p2m2.schedule.json'), 'utf8'));

test('numbers print as the core gives them, without float noise', () => {
  assert.equal(R.num(9), '9');
  assert.equal(R.num(31.2), '31.2');
  assert.equal(R.num(7.199999999999999), '7.2');
  assert.equal(R.num(0.1 + 0.2), '0.3');
  assert.equal(R.num(123456.789), '123,456.789');
  assert.equal(R.num(null), '\u2013');
  assert.equal(R.percent(0.3333333), '33.3%');
  assert.equal(R.percent(0.0004), '0.040%');
  assert.equal(R.percent(0), '0.0%');
});

test('the closed forms: equal, differing, or their assumption failing here', () => {
  const equal = R.closedFormVerdict(small);
  assert.equal(equal.state, 'match');
  assert.equal(equal.text, '(p-1)(F+B+W) = 3');
  assert.equal(
      equal.detail,
      'assumes every device\'s share takes F, B and W; holds here; simulated global ' +
          'bubble per device: 3 (equal) (total 6)');
  const cf = small.closed_form;
  const differs = R.closedFormVerdict({...small, closed_form: {...cf, value: 4, matches: false}});
  assert.equal(differs.state, 'differs', 'the core\'s own comparison is taken');
  const fails =
      R.closedFormVerdict({...small, closed_form: {...cf, holds: false, assumption: 'F = W'}});
  assert.equal(fails.state, 'not-applicable');
  assert.equal(
      fails.detail,
      'assumes F = W; that does not hold here (simulated global bubble per device: 3) (total 6)');
  // Without the core's "simulated" and "matches", the page compares the largest per-device idle.
  const bare = {...cf, simulated: undefined, matches: undefined};
  assert.equal(R.closedFormVerdict({...small, closed_form: {...bare, value: 3}}).state, 'match');
  assert.equal(R.closedFormVerdict({...small, closed_form: {...bare, value: 2}}).state, 'differs');
  assert.equal(
      R.closedFormVerdict({...small, closed_form: {...bare, metric: 'span', value: 3}}).state,
      'match', 'the span metric compares the largest span idle');
  assert.equal(R.closedFormVerdict({...small, closed_form: null}).state, 'none');
  assert.equal(R.peakVerdict(small), null, 'no peak formula in this schedule');
  const peak = R.peakVerdict({
    ...small,
    closed_form: {
      ...cf,
      peak_activation_formula: 'p',
      peak_activation_value: 2,
      peak_activation_assumption: 'identical stages',
      peak_activation_holds: true,
      peak_activation_simulated: 2,
      peak_activation_matches: true,
    },
  });
  assert.deepEqual(peak, {
    state: 'match',
    text: 'p = 2',
    detail: 'assumes identical stages; holds here; simulated peak activations: 2 (equal)',
  });
});

test('compare rows: every listed schedule, reasons for the others, extras last, the cap', () => {
  const list = [
    {name: 'GPipe', applicable: true, reason: '', summary: 'all F then all B'},
    {name: '1F1B', applicable: true, reason: ''},
    {
      name: 'DualPipe',
      applicable: false,
      reason: 'DualPipe needs an even number of devices; the problem has 3'
    },
    {name: 'ZBV', applicable: true, reason: ''},
  ];
  const over = {...small, name: 'GPipe', makespan: 10, peak_activation: [4, 1]};
  const schedules =
      new Map([['GPipe', over], ['1F1B', small], ['ZBV', {error: 'ZBV: internal error'}]]);
  const rows = C.compareRows(list, schedules, [{...small, name: 'planned', makespan: 8}]);
  assert.deepEqual(rows.map((r) => [r.name, r.ok, r.reason]), [
    ['GPipe', true, ''],
    ['1F1B', true, ''],
    ['DualPipe', false, 'DualPipe needs an even number of devices; the problem has 3'],
    ['ZBV', false, 'ZBV: internal error'],
    ['planned', true, ''],
  ]);
  assert.equal(rows[0].fits, false, 'peak 4 + params 1 is over the cap 4');
  assert.equal(rows[1].fits, true);
  assert.equal(rows[1].makespan, 9);
  assert.equal(rows[1].globalTotal, 6);
  assert.equal(rows[1].spanTotal, 3);
  assert.equal(rows[1].peakAct, 2);
  assert.equal(rows[0].summary, 'all F then all B');
  assert.equal(rows[4].makespan, 8);
  const uncapped = C.compareRows(
      [{name: '1F1B', applicable: true}], new Map([['1F1B', {...small, mem_cap: null}]]));
  assert.equal(uncapped[0].fits, null);
});
