// Clocks, String/Binary outputs and typed parameter fields in the page:
// tests/fixtures/fmus/c_clocks.fmu (examples/fmus/c_clocks) twice, each output clock driving
// the other's input clock. The clock is drawn as steps, its SVG export and its pin too; the
// String and Binary outputs are listed under the charts; the page's CSV equals the CLI's.
// c_types.fmu's parameters get fields by their declared types, wrong input named at the field.
// c_clocks.fmu with its modelDescription.xml edited: an input clock declared periodic is
// ticked by the master (CSV equals the CLI's); clocks the master cannot serve (a clock
// array, a countdown clock without fmi3GetIntervalDecimal, a tick between communication
// points) are refused by name. c_timers.fmu (examples/fmus/c_timers): clocks timed by
// fmi3GetIntervalDecimal, the page's CSV equal to the CLI's.

import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch, openPage, runAndWait } from './browser.mjs';
import { runCli } from './cli.mjs';
import { zipStored } from './fmu_fixtures.mjs';

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

/** The entries ([name, bytes]) of a store-only zip (the fixtures `cargo xtask fmus` writes). */
function storedEntries(zip) {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  const out = [];
  for (let at = 0; view.getUint32(at, true) === 0x04034b50;) {
    const size = view.getUint32(at + 18, true);
    const nameLength = view.getUint16(at + 26, true);
    const start = at + 30 + nameLength + view.getUint16(at + 28, true);
    out.push([new TextDecoder().decode(zip.subarray(at + 30, at + 30 + nameLength)), zip.subarray(start, start + size)]);
    at = start + size;
  }
  return out;
}

/** c_clocks.fmu as a data: URL, its modelDescription.xml edited by `edit`. */
function editedClocks(edit) {
  const entries = storedEntries(readFileSync(join(here, '../fixtures/fmus/c_clocks.fmu')));
  const edited = entries.map(([name, bytes]) => {
    if (name !== 'modelDescription.xml') return [name, bytes];
    const xml = new TextDecoder().decode(bytes);
    const changed = edit(xml);
    assert.notEqual(changed, xml, 'the edit applies');
    return [name, changed];
  });
  return `data:application/zip;base64,${Buffer.from(zipStored(edited)).toString('base64')}`;
}

const TRIGGERED = 'intervalVariability="triggered" description="counted into triggered"';
const triggerAs = (attributes) => editedClocks((xml) => xml.replace(TRIGGERED, `${attributes} description="periodic"`));

function single(source, macroStep = 0.05) {
  return {
    schema_version: 1,
    modules: [{ name: 'a', model: 'Binary', source }],
    connections: [],
    master: { algorithm: 'jacobi', macro_step: macroStep },
    run: { start: 0, stop: 1 },
    reference: false,
    plot: ['a.triggered'],
  };
}

test('c_clocks.fmu with a periodic input clock: the master ticks it, the CSV equals the CLI', async () => {
  const page = await openPage(browser.context);
  const text = await runJson(page, single(triggerAs('intervalVariability="fixed" intervalDecimal="0.2" shiftDecimal="0.1"')));
  const cliCsv = runCli(text);
  const pageCsv = await page.evaluate(async () => (await fetch(document.getElementById('download-csv').href)).text());
  assert.equal(pageCsv, cliCsv, 'the page CSV equals the CLI CSV byte for byte');
  // Ticks at 0.1, 0.3, ..., 0.9 (rows 2, 6, ...), each counted from the next row on.
  const triggered = cliCsv.trim().split('\n').slice(1).map((l) => Number(l.split(',')[3]));
  assert.deepEqual(triggered, Array.from({ length: 21 }, (_, i) => Math.floor((i + 1) / 4)));
  const plotted = await page.evaluate(() => window.cosimPlayground.plotted().find((p) => p.name === 'a.triggered'));
  assert.equal(plotted.steps, true, 'an Int32 drawn as steps');
  assert.deepEqual(page.problems, []);
  await page.close();
});

test('c_timers.fmu: clocks timed by fmi3GetIntervalDecimal (tunable, countdown, changing) tick where the CLI ticks them', async () => {
  const page = await openPage(browser.context);
  const scenario = { ...single(dataUrl('c_timers.fmu')), plot: ['a.samples', 'a.alarms', 'a.pulses'] };
  const text = await runJson(page, scenario);
  const cliCsv = runCli(text);
  const pageCsv = await page.evaluate(async () => (await fetch(document.getElementById('download-csv').href)).text());
  assert.equal(pageCsv, cliCsv, 'the page CSV equals the CLI CSV byte for byte');
  // Ticks (rows of 0.05 s), each counted from the next row on: sample 0.05, 0.15, 0.25, then
  // every 0.2 s (the FMU doubled its interval); alarm 0.3, 0.55, 0.75, 0.95; pulse 0.2, 0.3,
  // 0.5, 0.6, 0.8, 0.9.
  const rows = cliCsv.trim().split('\n').slice(1).map((l) => l.split(','));
  const counted = (ticks) => Array.from({ length: 21 }, (_, i) => ticks.filter((j) => j < i).length);
  assert.deepEqual(rows.map((r) => Number(r[1])), counted([1, 3, 5, 9, 13, 17]));
  assert.deepEqual(rows.map((r) => Number(r[3])), counted([6, 11, 15, 19]));
  assert.deepEqual(rows.map((r) => Number(r[5])), counted([4, 6, 10, 12, 16, 18]));
  assert.deepEqual(page.problems, []);
  await page.close();
});

const REFUSED = [
  ['a clock array', editedClocks((xml) => xml.replace('description="ticks every period seconds"/>',
    'description="ticks every period seconds"><Dimension start="2"/></Clock>')), 0.05,
  /module `a`: modelDescription\.xml: <Clock name="tick"> has a <Dimension>: FMI 3\.0 restricts clocks to scalar variables/],
  ['a countdown input clock but no fmi3GetIntervalDecimal', triggerAs('intervalVariability="countdown"'), 0.05,
    /module `a`: the wasm binary does not export `fmi3GetIntervalDecimal` \(needed by input clock `trigger` \(intervalVariability="countdown"\): the master asks the FMU when it ticks\)/],
  ['a periodic tick between communication points', triggerAs('intervalVariability="constant" intervalDecimal="0.125"'), 0.05,
    /module `a`: periodic input clock `trigger` ticks every 0\.125 s from 0 s after the start, between the communication points of the 0\.05 s step/],
];

for (const [what, source, macroStep, expected] of REFUSED) {
  test(`c_clocks.fmu with ${what}: refused with a message naming the module and the clock`, async () => {
    const page = await openPage(browser.context);
    await page.evaluate(() => { document.getElementById('json-details').open = true; });
    await page.fill('#scenario-json', JSON.stringify(single(source, macroStep), null, 2));
    assert.equal(await runAndWait(page, 120_000), 'error');
    assert.match(await page.textContent('#message-text'), expected);
    await page.close();
  });
}
