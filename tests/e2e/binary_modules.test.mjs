// Binary modules (.fmu with a wasm32 binary) in the page: the example presets plot what
// the CLI writes, to 1e-12; broken archives and modules (built in fmu_fixtures.mjs) end
// the run with the core's FmuError / trap message, and the page then runs a preset again;
// a .fmu picked or dropped becomes a module of the scenario. Also: a run with model-based
// correction shows where its Jacobians come from.

import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { launch, openPage, runAndWait } from './browser.mjs';
import { cliFailure, cliPath, runCli, parseCsv } from './cli.mjs';
import { deflateRawSync } from 'node:zlib';
import { lagFmu, lagScenario, dataUrl, zipStored, crc32, STEPS, LAG_XML_WITH_INPUT } from './fmu_fixtures.mjs';

const PRESETS = ['binary-rust-oscillator', 'binary-c-spring-damper'];

let browser;
test.before(async () => { browser = await launch(); });
test.after(async () => { await browser?.close(); });

/** |actual - expected| <= 1e-12 · max(1, |expected|) element-wise. */
function assertEqualTo1e12(actual, expected, what) {
  assert.equal(actual.length, expected.length, `${what}: ${actual.length} points, CLI has ${expected.length}`);
  const scale = Math.max(1, ...expected.map(Math.abs));
  actual.forEach((a, i) => {
    assert.ok(Math.abs(a - expected[i]) <= 1e-12 * scale, `${what}: row ${i}: ${a} vs ${expected[i]}`);
  });
}

/** Runs preset `id` in the page; its plotted series equal the CLI's CSV columns. */
async function presetMatchesCli(page, id) {
  await page.selectOption('#preset', id);
  const scenario = execFileSync(cliPath(), ['preset', id], { encoding: 'utf8' });
  const expected = parseCsv(runCli(scenario));
  assert.equal(await runAndWait(page), 'done', `${id}: ${await page.textContent('#message-text')}`);
  const plotted = await page.evaluate(() => window.cosimPlayground.plotted());
  assert.ok(plotted.length >= 1, `${id}: something is plotted`);
  for (const p of plotted) {
    assert.ok(expected.columns.has(p.name), `${id}: CLI CSV has a column ${p.name}`);
    assertEqualTo1e12(p.time, expected.columns.get('time'), `${id} ${p.name} time`);
    assertEqualTo1e12(p.cosim, expected.columns.get(p.name), `${id} ${p.name}`);
  }
}

test('example binary-module presets: the page plots the CLI CSV to 1e-12', async () => {
  const page = await openPage(browser.context);
  const ids = await page.$$eval('#preset option', (os) => os.map((o) => o.value));
  for (const id of PRESETS) {
    assert.ok(ids.includes(id), `preset ${id} is offered`);
    await presetMatchesCli(page, id);
  }
  assert.deepEqual(page.problems, []);
  await page.close();
});

/** Puts `scenario` into the JSON view and runs it. */
async function runJson(page, scenario) {
  await page.evaluate(() => { document.getElementById('json-details').open = true; });
  await page.fill('#scenario-json', JSON.stringify(scenario, null, 2));
  return runAndWait(page, 120_000);
}

/** A zip whose one deflated entry (1 MiB of spaces) declares 100 bytes: a small zip bomb. */
function zipBomb() {
  const le16 = (v) => { const b = Buffer.alloc(2); b.writeUInt16LE(v); return b; };
  const le32 = (v) => { const b = Buffer.alloc(4); b.writeUInt32LE(v >>> 0); return b; };
  const name = Buffer.from('modelDescription.xml');
  const data = Buffer.alloc(1 << 20, 0x20);
  const packed = deflateRawSync(data);
  // version 2.0, no flags, method 8 (deflate), time/date 0, sizes: packed and the lie.
  const common = Buffer.concat([le16(20), le16(0), le16(8), le16(0), le16(0), le32(crc32(data)),
    le32(packed.length), le32(100), le16(name.length), le16(0)]);
  const local = Buffer.concat([le32(0x04034b50), common, name, packed]);
  const central = Buffer.concat([le32(0x02014b50), le16(20), common, le16(0), le16(0), le16(0),
    le32(0), le32(0), name]);
  const end = Buffer.concat([le32(0x06054b50), le16(0), le16(0), le16(1), le16(1),
    le32(central.length), le32(local.length), le16(0)]);
  return new Uint8Array(Buffer.concat([local, central, end]));
}

const BROKEN = [
  ['a zip bomb (issue 16)', zipBomb(),
    /^modules\[0\]\.source: .*`modelDescription\.xml` inflates to more than the 100 bytes its header declares \(a zip bomb or a damaged archive\)/],
  ['random bytes', Uint8Array.from({ length: 200 }, (_, i) => (i * 73 + 11) & 0xff),
    /^modules\[0\]\.source: module `lag`: not a readable \.fmu \(zip\) archive/],
  ['a zip without modelDescription.xml', zipStored([['binaries/wasm32/lag.wasm', new Uint8Array([0, 0x61, 0x73, 0x6d])]]),
    /^modules\[0\]\.source: module `lag`: the \.fmu has no `modelDescription\.xml`/],
  ['a module missing fmi3Terminate', lagFmu({ omit: ['fmi3Terminate'] }),
    /^modules\[0\]\.source: module `lag`: the wasm binary does not export `fmi3Terminate`/],
  ['fmi3Terminate with the wrong signature', lagFmu({ retype: { fmi3Terminate: 1 } }),
    /^modules\[0\]\.source: module `lag`: the wasm export `fmi3Terminate` has type \(i32\); the FMI 3\.0 wasm32 ABI requires/],
  ['fmi3DoStep traps', lagFmu({ step: STEPS.trap }),
    /module `lag` at t = 0 s: module trapped: fmi3DoStep: wasm `unreachable` instruction executed/],
  // The browser's engine has no instruction budget: the watchdog (www/js/watchdog.js,
  // its deadline shortened below) replaces the silent worker and names the module.
  ['fmi3DoStep loops forever', lagFmu({ step: STEPS.endless }),
    /^module `lag` did not return within 3 s \(an endless loop in an FMI call\?\); the simulation worker was stopped and replaced/],
];

test('the fixture module itself runs (so the failures below are the breakage, not the fixture)', async () => {
  const page = await openPage(browser.context);
  assert.equal(await runJson(page, lagScenario(dataUrl(lagFmu()))), 'done', await page.textContent('#message-text'));
  assert.equal(await page.isVisible('#message'), false);
  await page.close();
});

for (const [what, bytes, expected] of BROKEN) {
  test(`broken binary module (${what}): a clear message, then a preset runs`, async () => {
    const page = await openPage(browser.context);
    await page.evaluate(() => { window.cosimWatchdogMs = 3000; });
    assert.equal(await runJson(page, lagScenario(dataUrl(bytes))), 'error');
    assert.equal(await page.isVisible('#message'), true, 'the message is shown');
    assert.match(await page.textContent('#message-text'), expected);
    await page.selectOption('#preset', PRESETS[0]);
    assert.equal(await runAndWait(page), 'done', await page.textContent('#message-text'));
    assert.deepEqual(page.problems, []);
    await page.close();
  });
}

/** The C preset with its .fmu embedded, plus c_table.fmu (`parameters`) fed by a decay. */
function withTable(parameters) {
  const fixture = (name) => readFileSync(new URL(`../fixtures/fmus/${name}`, import.meta.url));
  const scenario = JSON.parse(execFileSync(cliPath(), ['preset', 'binary-c-spring-damper'], { encoding: 'utf8' }));
  scenario.modules[1].source = dataUrl(fixture('c_spring_damper.fmu'));
  scenario.modules.push({ name: 'table', model: 'Binary', parameters, solver: { method: 'default' },
    source: dataUrl(fixture('c_table.fmu')) });
  scenario.modules.push({ name: 'decay', model: 'ReferenceFMU.Dahlquist', parameters: {}, solver: { method: 'default' } });
  scenario.connections.push({ from: 'decay.x', to: 'table.u' });
  return scenario;
}

// Two binary modules (one reads its resources with fopen: WASI files) next to a model
// with state events (the bouncing ball, built in): the CSV must not differ by one bit.
test('binary modules with WASI files, and events in the run: the page gives the CLI CSV to the last bit', async () => {
  const scenario = withTable({ gain: 2 });
  scenario.modules.push({ name: 'ball', model: 'ReferenceFMU.BouncingBall', parameters: {}, solver: { method: 'default' } });
  scenario.plot.push('table.y', 'ball.h');
  scenario.run.stop = 1.5;
  const expected = runCli(JSON.stringify(scenario));
  const page = await openPage(browser.context);
  assert.equal(await runJson(page, scenario), 'done', await page.textContent('#message-text'));
  const csv = await page.evaluate(() => window.cosimPlayground.lastResult.csv);
  assert.ok(csv.split('\n')[0].split(',').includes('table.y'), 'the table module is recorded');
  assert.equal(csv, expected);
  const h = parseCsv(csv).columns.get('ball.h');
  const floor = h.indexOf(Math.min(...h));
  assert.ok(h[floor] < 0.05 && floor < h.length - 1 && Math.max(...h.slice(floor)) > 0.1, 'the ball bounced (a state event)');
  assert.deepEqual(page.problems, []);
  await page.close();
});

// A module that opens a file for writing: the host refuses the WASI call and the run
// ends with the CLI's message naming the FMI call, not a trap; then a preset runs.
test('a binary module that writes a file: the page refuses the call with the CLI message', async () => {
  const scenario = withTable({ write_test: 1 });
  const expected = cliFailure(scenario).trim().replace(/^error: /, '');
  assert.match(expected, /fmi3EnterInitializationMode: WASI path_open of `\/resources\/out\.txt` for writing was refused/);
  const page = await openPage(browser.context);
  assert.equal(await runJson(page, scenario), 'error');
  const shown = await page.textContent('#message-text');
  assert.ok(shown.includes(expected), `page: ${shown}\nCLI: ${expected}`);
  await page.selectOption('#preset', PRESETS[0]);
  assert.equal(await runAndWait(page), 'done', await page.textContent('#message-text'));
  assert.deepEqual(page.problems, []);
  await page.close();
});

/** The module the page added last, from the JSON view. */
async function lastModule(page) {
  const s = JSON.parse(await page.inputValue('#scenario-json'));
  return s.modules[s.modules.length - 1];
}

test('Add binary module (.fmu)…: the file becomes a module, its unconnected input is named, it runs', async () => {
  const page = await openPage(browser.context);
  const bytes = lagFmu({ xml: LAG_XML_WITH_INPUT });
  await page.setInputFiles('#fmu-input', { name: 'lag.fmu', mimeType: 'application/octet-stream', buffer: Buffer.from(bytes) });
  await page.waitForFunction(() => /"model": "Binary"/.test(document.getElementById('scenario-json').value));
  const m = await lastModule(page);
  assert.equal(m.name, 'lag');
  assert.equal(m.model, 'Binary');
  assert.equal(m.source, dataUrl(bytes), 'the archive travels as its data: URL');
  assert.equal(await page.$eval('#json-details', (d) => d.open), true, 'the JSON view is open for the connections');
  // Validation names the module's declared input that still needs a connection.
  await page.waitForFunction(() => /lag\.u/.test(document.getElementById('message-text').textContent), null, { timeout: 10_000 });
  // Connected in the JSON view, it runs with the rest of the scenario.
  const s = JSON.parse(await page.inputValue('#scenario-json'));
  const force = s.connections.find((c) => /\.Fk$/.test(c.from));
  assert.ok(force, 'the default preset has a coupling force Fk');
  s.connections.push({ from: force.from, to: 'lag.u' });
  s.plot = [...s.plot, 'lag.x'];
  // Start-up from the exact history needs every module linear and exact, and
  // extrapolated inputs need input derivatives; the lag has neither.
  s.master.start_up = 'ramp_up';
  s.master.extrapolation_order = 0;
  assert.equal(await runJson(page, s), 'done', await page.textContent('#message-text'));
  assert.ok((await page.evaluate(() => window.cosimPlayground.lastResult.csv)).split('\n')[0].split(',').includes('lag.x'));
  assert.deepEqual(page.problems, []);
  await page.close();
});

test('a .fmu dropped on the page is added as a module too (second one gets a fresh name)', async () => {
  const page = await openPage(browser.context);
  const bytes = lagFmu();
  const drop = async () => {
    const dt = await page.evaluateHandle((b64) => {
      const t = new DataTransfer();
      t.items.add(new File([Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))], 'lag.fmu'));
      return t;
    }, Buffer.from(bytes).toString('base64'));
    await page.dispatchEvent('body', 'drop', { dataTransfer: dt });
  };
  const count = async () => JSON.parse(await page.inputValue('#scenario-json')).modules.length;
  const before = await count();
  await drop();
  await page.waitForFunction((n) => JSON.parse(document.getElementById('scenario-json').value).modules.length === n + 1, before);
  assert.equal((await lastModule(page)).name, 'lag');
  await drop();
  await page.waitForFunction((n) => JSON.parse(document.getElementById('scenario-json').value).modules.length === n + 2, before);
  const m = await lastModule(page);
  assert.equal(m.name, 'lag_2');
  assert.equal(m.source, dataUrl(bytes));
  // Without inputs the modules need no connections (start-up from the exact history needs
  // every module linear and exact; the lag is not).
  const s = JSON.parse(await page.inputValue('#scenario-json'));
  s.master.start_up = 'ramp_up';
  assert.equal(await runJson(page, s), 'done', await page.textContent('#message-text'));
  assert.deepEqual(page.problems, []);
  await page.close();
});

test('model-based correction: the page names where the Jacobians come from', async () => {
  const page = await openPage(browser.context);
  assert.equal(await page.isVisible('#jacobians'), false, 'no Jacobians line before a corrected run');
  await page.selectOption('#preset', 'two-mass-corrected');
  assert.equal(await runAndWait(page), 'done', await page.textContent('#message-text'));
  assert.equal(await page.isVisible('#jacobians'), true);
  assert.equal(await page.textContent('#jacobians'), 'directional derivatives');
  // A run without correction hides it again.
  await page.selectOption('#preset', PRESETS[0]);
  assert.equal(await runAndWait(page), 'done', await page.textContent('#message-text'));
  assert.equal(await page.isVisible('#jacobians'), false);
  assert.deepEqual(page.problems, []);
  await page.close();
});
