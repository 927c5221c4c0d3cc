// Clocks, String/Binary outputs and typed parameter fields in the page:
// tests/fixtures/fmus/c_clocks.fmu (examples/fmus/c_clocks) twice, each output clock driving
// the other's input clock. The clock is drawn as steps, its SVG export and its pin too; the
// String and Binary outputs are listed under the charts; the page's CSV equals the CLI's.
// c_types.fmu's parameters get fields by their declared types, wrong input named at the field.

import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch, openPage, runAndWait } from './browser.mjs';
import { runCli } from './cli.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const dataUrl = (name) => `data:application/zip;base64,${readFileSync(join(here, '../fixtures/fmus', name)).toString('base64')}`;
const PLOT = ['a.tick', 'a.ticks', 'b.triggered'];

function clocks() {
  const source = dataUrl('c_clocks.fmu');
  return {
    schema_version: 1,
    title: 'Clocks',
    modules: [
      { name: 'a', model: 'Binary', source },
      { name: 'b', model: 'Binary', source, parameters: { period: 0.5 } },
    ],
    connections: [{ from: 'a.tick', to: 'b.trigger' }, { from: 'b.tick', to: 'a.trigger' }],
    master: { algorithm: 'jacobi', macro_step: 0.125 },
    run: { start: 0, stop: 1 },
    reference: false,
    plot: PLOT,
  };
}

/** [x, y] pairs of the first polyline of an SVG. */
function polyline(svg) {
  const m = svg.match(/<polyline [^>]*points="([^"]*)"/);
  return m[1].trim().split(' ').map((p) => p.split(',').map(Number));
}

let browser;
test.before(async () => { browser = await launch(); });
test.after(async () => { await browser?.close(); });

async function runJson(page, scenario) {
  const text = JSON.stringify(scenario, null, 2);
  await page.evaluate(() => { document.getElementById('json-details').open = true; });
  await page.fill('#scenario-json', text);
  assert.equal(await runAndWait(page, 120_000), 'done', await page.textContent('#message-text'));
  return text;
}

test('c_clocks.fmu: a clock drawn as steps (live, SVG, pinned), text outputs listed, CSV equals the CLI', async () => {
  const page = await openPage(browser.context);
  const text = await runJson(page, clocks());
  const cliCsv = runCli(text);
  const pageCsv = await page.evaluate(async () => (await fetch(document.getElementById('download-csv').href)).text());
  assert.equal(pageCsv, cliCsv, 'the page CSV equals the CLI CSV byte for byte');
  assert.ok(cliCsv.split('\n')[0].endsWith(',a.status,a.frame,b.status,b.frame'));

  const plotted = await page.evaluate(() => window.cosimPlayground.plotted());
  const tick = plotted.find((p) => p.name === 'a.tick');
  assert.equal(tick.type, 'Clock');
  assert.equal(tick.steps, true, 'a clock is drawn as steps');
  assert.deepEqual(tick.cosim, [0, 0, 1, 0, 1, 0, 1, 0, 1]);

  // The SVG export holds each value until the next point: vertical jumps at equal x.
  const svg = await page.evaluate(() => window.cosimPlayground.svgOf('a.ticks'));
  const pts = polyline(svg);
  assert.ok(pts.some(([x, y], k) => k > 0 && x === pts[k - 1][0] && y !== pts[k - 1][1]), 'steps in the SVG');
  assert.ok(!pts.some(([x, y], k) => k > 0 && x !== pts[k - 1][0] && y !== pts[k - 1][1]), 'no sloped segment');

  // String and Binary outputs: a table of value changes under the charts.
  assert.equal(await page.isVisible('#text-outputs'), true);
  const rows = await page.$$eval('#text-outputs tbody tr', (trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent)));
  assert.deepEqual(rows.find((r) => r[1] === 'a.status' && r[0] === '1'), ['1', 'a.status', 'tick 4, "trigger" 1']);
  assert.deepEqual(rows.find((r) => r[1].startsWith('b.frame') && r[0] === '1'), ['1', 'b.frame (Binary, hex)', 'ca0203']);
  // a.status changes at t = 0, at its ticks (0.25, 0.5, 0.75, 1) and when b's tick at 0.5 was counted (0.625).
  assert.deepEqual(rows.filter((r) => r[1] === 'a.status').map((r) => r[0]), ['0', '0.25', '0.5', '0.625', '0.75', '1']);

  // Pinned: the pin is drawn as steps too, live and in the SVG.
  await page.click('#pin-run');
  await page.waitForFunction(() => window.cosimPlayground.store.state.pins.length === 1);
  const pinned = await page.evaluate(() => window.cosimPlayground.plotted().find((p) => p.name === 'a.ticks'));
  assert.ok(pinned.series.some((s) => s.label.startsWith('#1')), JSON.stringify(pinned.series.map((s) => s.label)));
  const pinSvg = await page.evaluate(() => window.cosimPlayground.svgOf('a.ticks'));
  const pinPts = polyline(pinSvg);
  assert.ok(pinPts.some(([x, y], k) => k > 0 && x === pinPts[k - 1][0] && y !== pinPts[k - 1][1]), 'the pin as steps in the SVG');
  assert.deepEqual(page.problems, []);
  await page.close();
});

test('c_types.fmu: parameter fields by declared type, wrong input named at the field', async () => {
  const page = await openPage(browser.context);
  const source = dataUrl('c_types.fmu');
  await runJson(page, {
    schema_version: 1,
    modules: [
      { name: 'src', model: 'Equations', source: 'state x = 1\nder(x) = -x\noutput xo = x\n' },
      { name: 't', model: 'Binary', source },
    ],
    connections: [{ from: 'src.xo', to: 't.u' }, { from: 't.count', to: 't.k_in' }, { from: 't.arr', to: 't.arr_in' }],
    master: { algorithm: 'gauss_seidel', macro_step: 0.125 },
    run: { start: 0, stop: 1 },
    reference: false,
  });
  // The JSON view's text was applied by that run: from here on the form is the source.
  await page.evaluate(() => { window.cosimPlayground.store.state.jsonDirty = false; });
  const at = (name) => `#module-fields [data-path="modules[1].parameters.${name}"]`;
  await page.waitForSelector(at('flag'), { timeout: 30_000 });
  assert.equal(await page.getAttribute(at('flag'), 'type'), 'checkbox');
  assert.equal(await page.isChecked(at('flag')), true, 'start value true');
  const items = await page.$$eval(`${at('mode')} option`, (os) => os.map((o) => o.textContent));
  assert.deepEqual(items, ['off (1)', 'slow (2)', 'fast (3)']);
  assert.equal(await page.inputValue(at('mode')), '2');
  assert.equal(await page.inputValue(at('blob')), '0a0b0c');
  assert.equal(await page.inputValue(at('label')), 'types');

  await page.uncheck(at('flag'));
  await page.selectOption(at('mode'), '3');
  await page.fill(at('u64'), '18446744073709551615');
  const params = await page.evaluate(() => window.cosimPlayground.scenario.modules[1].parameters);
  assert.equal(params.flag, false);
  assert.equal(params.mode, 3);
  assert.equal(params.u64, '18446744073709551615', 'beyond 2^53 kept exact as text');

  await page.fill(at('u8'), '-1');
  assert.equal(await page.getAttribute(at('u8'), 'aria-invalid'), 'true');
  const error = await page.textContent(`${at('u8')} ~ .field-error`);
  assert.match(error, /modules\[1\]\.parameters\.u8: UInt8 expects a whole number in 0\.\.=255, got "-1"/);
  await page.fill(at('blob'), 'abc');
  assert.match(await page.textContent(`${at('blob')} ~ .field-error`), /Binary expects hexadecimal text/);
  await page.fill(at('u8'), '7');
  await page.fill(at('blob'), 'ff00');
  // big = u64 + count would pass 2^53 (no exact Float64): run with a small u64.
  await page.fill(at('u64'), '5');
  assert.equal(await runAndWait(page, 120_000), 'done', await page.textContent('#message-text'));
  const last = await page.evaluate(() => window.cosimPlayground.lastResult.scenario.modules[1].parameters);
  assert.deepEqual([last.u8, last.blob, last.u64], [7, 'ff00', 5]);
  assert.deepEqual(page.problems, []);
  await page.close();
});
