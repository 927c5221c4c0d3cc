// Compare runs (issue 12, item 2): three runs of the two-mass preset pinned (order 0,
// order 1, order 0 with model-based correction) draw as three co-simulation series plus
// the reference, in distinct styles, with labels naming what differs; the table lists
// each run's global error equal to the CLI's to 1e-12 (recomputed from `cosim run`'s CSV
// with the core's formula, and equal to its printed summary), macro-steps, rejections;
// the CSV export holds every pin; a reload and a shared link keep them.

import test from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launch, openPage, runAndWait, waitForRunEnd, OUT_DIR } from './browser.mjs';
import { cliPath, parseCsv, WWW_DIR } from './cli.mjs';

/** `cosim run` of a scenario: the CSV and the summary line's NRMSE and counters. */
function cliRun(scenario) {
  const dir = mkdtempSync(join(tmpdir(), 'cosim-pin-'));
  writeFileSync(join(dir, 's.json'), JSON.stringify(scenario));
  const r = spawnSync(cliPath(), ['run', join(dir, 's.json'), '--out', join(dir, 'out.csv')], { cwd: WWW_DIR, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const m = /(\d+) macro-steps, global NRMSE ([^;]+);.*; (\d+) rejected attempts/.exec(r.stderr);
  assert.ok(m, r.stderr);
  return { csv: readFileSync(join(dir, 'out.csv'), 'utf8'), steps: Number(m[1]), nrmse: m[2], rejected: Number(m[3]) };
}

/** The core's global NRMSE (analysis/nrmse.rs) over the CSV's outputs, rows after the first. */
function nrmseOf(csvText) {
  const { header, columns } = parseCsv(csvText);
  let sum = 0;
  let k = 0;
  for (const name of header.filter((h) => columns.has(`${h}:reference`))) {
    const r = columns.get(`${name}:reference`).slice(1);
    const c = columns.get(name).slice(1);
    const n = r.length;
    const mean = r.reduce((a, b) => a + b, 0) / n;
    const variance = r.reduce((a, v) => a + (v - mean) * (v - mean), 0) / n;
    if (!(variance > 0 && Number.isFinite(variance))) continue;
    const mse = r.reduce((a, v, i) => a + (c[i] - v) * (c[i] - v), 0) / n;
    const eps = Math.sqrt(mse) / Math.sqrt(variance);
    sum += eps * eps;
    k += 1;
  }
  return Math.sqrt(sum / k);
}

async function pinThree(page) {
  await page.selectOption('#preset', 'two-mass-oscillator');
  await page.evaluate(() => document.getElementById('pins-clear').click());
  const order = '[data-path="master.extrapolation_order"]';
  await page.selectOption(order, '0');
  assert.equal(await runAndWait(page), 'done');
  await page.click('#pin-run');
  await page.selectOption(order, '1');
  assert.equal(await runAndWait(page), 'done');
  await page.click('#pin-run');
  await page.selectOption(order, '0');
  await page.check('[data-path="master.correction"]');
  assert.equal(await runAndWait(page), 'done');
  await page.click('#pin-run');
}

const tableRows = (page) => page.$$eval('#pins-table tbody tr', (rows) => rows.map((r) => [...r.cells].map((c) => ({ text: c.textContent, value: c.dataset.value ?? null }))));
const chartSeries = (page) => page.evaluate(() => window.cosimPlayground.plotted().map((c) => ({ name: c.name, labels: c.series.map((s) => s.label) })));

async function assertPinned(page, what) {
  const pins = await page.evaluate(() => window.cosimPlayground.store.state.pins.map((p) => ({ scenario: p.scenario, globalNrmse: p.globalNrmse })));
  assert.equal(pins.length, 3, `${what}: three pins`);
  const rows = await tableRows(page);
  assert.equal(rows.length, 3, `${what}: three table rows`);
  for (const [k, pin] of pins.entries()) {
    const cli = cliRun(pin.scenario);
    const expected = nrmseOf(cli.csv);
    const shown = Number(rows[k][2].value);
    assert.ok(Math.abs(shown - expected) <= 1e-12 * expected, `${what} #${k + 1}: global error ${shown} vs CLI ${expected}`);
    assert.equal(Number(shown.toPrecision(4)), Number(cli.nrmse), `${what} #${k + 1}: the CLI's summary rounds the same`);
    assert.equal(Number(rows[k][3].text), cli.steps, `${what} #${k + 1}: macro-steps`);
    assert.equal(Number(rows[k][4].text), cli.rejected, `${what} #${k + 1}: rejected`);
    assert.match(rows[k][5].text, /^\d+ ms$/);
  }
  assert.match(rows[0][0].text, /order 0.*correction off/);
  assert.match(rows[1][0].text, /order 1/);
  assert.match(rows[2][0].text, /correction α 1/);
  assert.equal(rows[1][1].text, 'order 0 -> 1');
  assert.equal(rows[2][1].text, 'correction off -> α 1');
  // Each chart: the three pins and the reference (the last run is drawn once, as its pin).
  for (const c of await chartSeries(page)) {
    assert.deepEqual(c.labels.filter((l) => l.startsWith('#')).length, 3, `${what} ${c.name}: ${c.labels}`);
    assert.ok(c.labels.includes('reference'), `${what} ${c.name}: ${c.labels}`);
    assert.ok(!c.labels.includes('co-simulation'), `${what} ${c.name}: ${c.labels}`);
  }
  return pins;
}

test('three pinned runs of the two-mass preset: plot, table equal to the CLI, CSV, reload, link', async () => {
  const browser = await launch();
  let link;
  let before;
  try {
    const page = await openPage(browser.context);
    await pinThree(page);
    before = await assertPinned(page, 'pinned');
    // Distinct styles: colour and dash differ between every two pins.
    const styles = await page.evaluate(() => {
      const fig = document.querySelector('#plots figure');
      return [...fig.querySelectorAll('.u-legend .u-series')].map((s) => ({ label: s.textContent.trim(), swatch: getComputedStyle(s.querySelector('.u-marker')).borderColor }));
    });
    const pinStyles = styles.filter((s) => s.label.startsWith('#'));
    assert.equal(new Set(pinStyles.map((s) => s.swatch)).size, 3, JSON.stringify(styles));

    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#pins-csv')]);
    const csv = readFileSync(await download.path(), 'utf8');
    const lines = csv.trim().split('\n');
    assert.match(lines[0], /^pin,label,time,mass1\.s1,/);
    const counts = await page.evaluate(() => window.cosimPlayground.store.state.pins.map((p) => p.time.length));
    assert.equal(lines.length - 1, counts.reduce((a, b) => a + b, 0));
    assert.deepEqual([...new Set(lines.slice(1).map((l) => l.split(',')[0]))], ['1', '2', '3']);
    await page.screenshot({ path: join(OUT_DIR, 'pinned-runs-1280.png'), fullPage: false });

    await page.reload();
    await page.waitForFunction(() => window.cosimPlayground && document.querySelector('#run:not([disabled])'));
    await page.evaluate(() => window.cosimPlayground.ready);
    await assertPinned(page, 'after reload');

    await page.click('#copy-link');
    await page.waitForFunction(() => document.getElementById('share-link').value.includes('#s1.'));
    link = await page.inputValue('#share-link');
    assert.deepEqual(page.problems, []);
  } finally {
    await browser.close();
  }
  // A fresh browser (no stored pins): the link's variants are run and pinned on opening.
  const other = await launch();
  try {
    const page = await openPage(other.context, null, link.slice(link.indexOf('#')));
    await waitForRunEnd(page);
    const after = await assertPinned(page, 'from the link');
    after.forEach((p, k) => assert.equal(p.globalNrmse, before[k].globalNrmse, `link pin #${k + 1}`));
    assert.deepEqual(page.problems, []);
  } finally {
    await other.close();
  }
});
