// Energy monitoring and correction in the page (docs/methods.md §13): an energy preset's run
// shows the δP and E/E0 charts under the time response; the "energy is being created here"
// signal is raised on the uncorrected double oscillator (whose energy grows) and not on the
// corrected one, and on the crane's unstable run from its δP alone (reference switched off);
// the page's energy columns equal the CLI's CSV to the last bit and its summary equals
// `cosim energy`; an unlimited cap is flagged (the correction creates energy); the form
// edits μ and shows the core's messages at the fields for μ = 1.5,
// a cap of 0, a bond pairing two efforts and a module step not in a whole ratio; axe finds
// no serious violation in the energy panel and fields.

import test from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launch, openPage, runAndWait } from './browser.mjs';
import { cliPath, cosim, WWW_DIR } from './cli.mjs';

let browser;
test.before(async () => { browser = await launch(); });
test.after(async () => { await browser?.close(); });

/** The CLI's CSV of preset `id` as exact numbers per column, and `cosim energy`'s key=value lines. */
function cliOf(id) {
  const dir = mkdtempSync(join(tmpdir(), 'cosim-energy-'));
  const file = join(dir, 's.json');
  const out = join(dir, 'out.csv');
  spawnSync('sh', ['-c', '"$0" preset "$1" > "$2"', cliPath(), id, file]);
  const run = spawnSync(cliPath(), ['run', file, '--out', out], { cwd: WWW_DIR, encoding: 'utf8' });
  assert.equal(run.status, 0, `${id}: cosim run failed: ${run.stderr}`);
  const lines = readFileSync(out, 'utf8').trim().split('\n');
  const header = lines[0].split(',');
  const columns = new Map(header.map((h) => [h, []]));
  for (const line of lines.slice(1)) line.split(',').forEach((c, i) => columns.get(header[i]).push(Number(c)));
  const energy = Object.fromEntries(cosim(['energy', file]).trim().split('\n').map((l) => {
    const at = l.indexOf('=');
    return [l.slice(0, at), Number(l.slice(at + 1))];
  }));
  return { header, columns, energy };
}

/** Every entry of `actual` is the same double as in `expected` (Object.is: bit for bit, -0 too). */
function assertBits(actual, expected, what) {
  assert.equal(actual.length, expected.length, `${what}: ${actual.length} rows, CLI has ${expected.length}`);
  const at = expected.findIndex((v, i) => !Object.is(actual[i], v));
  assert.equal(at, -1, `${what}: row ${at} is ${actual[at]}, CLI has ${expected[at]}`);
}

async function openPreset(id) {
  const page = await openPage(browser.context);
  await page.selectOption('#preset', id);
  return page;
}

async function runPreset(page, id) {
  assert.equal(await runAndWait(page), 'done', `${id}: ${await page.textContent('#message-text')}`);
  const view = await page.evaluate(() => window.cosimPlayground.energyPlotted());
  assert.ok(view, `${id}: the energy panel is shown`);
  return view;
}

/** The page's energy columns and summary equal the CLI's CSV and `cosim energy` exactly. */
function assertMatchesCli(view, cli, id) {
  const csvNames = cli.header.filter((h) => /^(dP|dE|E)(\.|:|$)/.test(h));
  assert.deepEqual(view.names.filter((n) => n !== 'dP:left'), csvNames, `${id}: the energy columns of the CSV`);
  for (const name of csvNames) assertBits(view.columns[name], cli.columns.get(name), `${id} ${name}`);
  const s = view.summary;
  assert.ok(Object.is(s.meanDp, cli.energy.mean_dP), `${id}: mean dP ${s.meanDp} vs ${cli.energy.mean_dP}`);
  assert.ok(Object.is(s.deEnd, cli.energy.dE_T), `${id}: dE(T)`);
  if ('E0' in cli.energy) {
    assert.ok(Object.is(s.e0, cli.energy.E0) && Object.is(s.eEnd, cli.energy.E_T), `${id}: E0 and E(T)`);
    assert.ok(Object.is(s.eEnd / s.e0, cli.energy['E_T/E0']), `${id}: E(T)/E0`);
  }
}

test('the uncorrected double oscillator: dP and E/E0 charts, the creation signal, columns equal to the CLI', async () => {
  const id = 'energy-oscillator-drift';
  const page = await openPreset(id);
  const view = await runPreset(page, id);
  const cli = cliOf(id);
  assertMatchesCli(view, cli, id);
  // The δP chart plots the dP column; the E chart E/E0 and the reference's E_ref/E0.
  assert.deepEqual(view.charts.dP[0].values, view.columns.dP, 'the δP chart shows dP');
  const e0 = view.columns.E[0];
  assert.deepEqual(view.charts.E.map((s) => s.label), ['E/E0', 'E_ref/E0 (reference)']);
  assert.equal(view.charts.E[0].values.at(-1), view.columns.E.at(-1) / e0);
  // Energy grows (E(T)/E0 ≈ 1.69) and the page says so from δP.
  assert.ok(view.summary.eEnd / view.summary.e0 > 1.5);
  assert.ok(view.spans.length > 0, 'flagged stretches');
  assert.equal(await page.getAttribute('#energy', 'data-signal'), 'creating');
  assert.match(view.signalText, /^Energy is being created from t = /);
  assert.match(view.summaryText, /^mean δP = 1355 W · δE\(T\) = 13550 J · E\(T\)\/E0 = 1\.6867 · E_ref\(T\)\/E0 = 1$/);
  assert.deepEqual(page.problems, []);
  await page.close();
});

test('the corrected double oscillator: no creation signal, though δP itself stays positive', async () => {
  const id = 'energy-oscillator-corrected';
  const page = await openPreset(id);
  const view = await runPreset(page, id);
  assertMatchesCli(view, cliOf(id), id);
  assert.ok(view.summary.meanDp > 0, 'the residual of the uncorrected force is still there');
  assert.deepEqual(view.charts.dP.map((s) => s.label), ['δP (total)', 'μ·δP + f_corr·v (not removed)']);
  assert.deepEqual(view.spans, [], 'nothing flagged');
  assert.equal(await page.getAttribute('#energy', 'data-signal'), 'none');
  assert.match(view.signalText, /^No energy creation flagged/);
  assert.deepEqual(page.problems, []);
  await page.close();
});

test('the crane at h_M = 11.5 ms: the δP spike is flagged without a reference, where the response oscillates', async () => {
  const id = 'energy-crane-uncorrected';
  const page = await openPreset(id);
  await page.uncheck('[data-path="reference"]');
  const view = await runPreset(page, id);
  assert.ok(!view.names.includes('E:reference'), 'no reference energy');
  assert.ok(view.spans.length > 0, 'flagged');
  const first = view.spans[0][0];
  assert.ok(first > 1 && first < 3, `flagged from the onset of the oscillation (about 2 s), not before: ${first}`);
  const corrected = await openPreset('energy-crane-corrected');
  const calm = await runPreset(corrected, 'energy-crane-corrected');
  assert.deepEqual(calm.spans, [], 'the corrected crane (h_M = 10 ms) is not flagged');
  // Multi-rate with two modules' steps: the columns are the CLI's too.
  assertMatchesCli(calm, cliOf('energy-crane-corrected'), 'energy-crane-corrected');
  await page.close();
  await corrected.close();
});

test('two bonds (the pendula): a δP series per bond, columns equal to the CLI', async () => {
  const id = 'energy-pendula-uncorrected';
  const page = await openPreset(id);
  const view = await runPreset(page, id);
  assertMatchesCli(view, cliOf(id), id);
  assert.deepEqual(view.charts.dP.map((s) => s.label), ['δP (total)', 'δP pendulum2.fx', 'δP pendulum2.fy']);
  await page.close();
});

/** Types `text` into the field at `path` and waits for the core's message about it. */
async function expectFieldMessage(page, path, text, pattern) {
  const field = `[data-path="${path}"]`;
  if (text === null) {
    // A select: the value is chosen instead.
  } else {
    await page.fill(field, text);
  }
  await page.waitForFunction((p) => document.getElementById('message-text').textContent.startsWith(`${p}: `), path,
    { timeout: 10_000 });
  const message = await page.textContent('#message-text');
  assert.match(message, pattern, `${path}: the core's message`);
  assert.equal(await page.getAttribute(field, 'aria-invalid'), 'true', `${path}: the field is marked`);
  const atField = await page.$eval(field, (e) => e.closest('.field').querySelector('.field-error')?.textContent ?? null);
  assert.equal(atField, message, `${path}: the message is shown at the field`);
}

test('the form edits μ, ν, the cap, the bonds and the module steps; the core\'s messages land on the fields', async () => {
  const page = await openPreset('energy-oscillator-corrected');
  const open = await page.$eval('details.energy-fields', (d) => d.open);
  assert.ok(open, 'the energy section is open for an energy preset');
  const mu = '[data-path="master.energy_correction.mu"]';
  await page.fill(mu, '0.725');
  assert.equal(await page.evaluate(() => window.cosimPlayground.scenario.master.energy_correction.mu), 0.725);
  await expectFieldMessage(page, 'master.energy_correction.mu', '1.5', /expected a number from 0 to 1, got 1\.5/);
  await page.fill(mu, '');
  await page.waitForFunction(() => document.getElementById('message').hidden);
  assert.equal(await page.evaluate(() => 'mu' in window.cosimPlayground.scenario.master.energy_correction), false, 'blank μ: the rules');

  await expectFieldMessage(page, 'master.energy_correction.cap.fraction', '0', /expected a positive number, got 0/);
  await page.fill('[data-path="master.energy_correction.cap.fraction"]', '1');
  await page.waitForFunction(() => document.getElementById('message').hidden);

  await page.selectOption('[data-path="bonds[0].flow"]', 'm2.F');
  await expectFieldMessage(page, 'bonds[0].flow', null, /carries an effort \(N\), not a flow/);
  await page.selectOption('[data-path="bonds[0].flow"]', 'm1.v2');
  await page.waitForFunction(() => document.getElementById('message').hidden);

  await expectFieldMessage(page, 'master.module_steps.m2', '0.0003', /not a whole fraction of macro_step/);
  await page.fill('[data-path="master.module_steps.m2"]', '0.0001');
  await page.waitForFunction(() => document.getElementById('message').hidden);
  assert.deepEqual(await page.evaluate(() => window.cosimPlayground.scenario.master.module_steps), { m2: 0.0001 });
  // Multi-rate R = 10 with the rules' μ (0.725, ZOH): the run removes the drift.
  const view = await runPreset(page, 'edited');
  assert.ok(Math.abs(view.summary.eEnd / view.summary.e0 - 1) < 0.02, `E(T)/E0 = ${view.summary.eEnd / view.summary.e0}`);
  assert.deepEqual(view.spans, []);

  // Switching the correction off and on keeps what was typed.
  await page.uncheck('[data-path="master.energy_correction"]');
  assert.equal(await page.evaluate(() => window.cosimPlayground.scenario.master.energy_correction), undefined);
  await page.check('[data-path="master.energy_correction"]');
  assert.deepEqual(await page.evaluate(() => window.cosimPlayground.scenario.master.energy_correction), { nu: 0, cap: { fraction: 1 } });
  assert.deepEqual(page.problems, []);
  await page.close();
});

test('a scenario without bonds has no energy panel and a folded energy section', async () => {
  const page = await openPreset('two-mass-oscillator');
  assert.equal(await page.$eval('details.energy-fields', (d) => d.open), false);
  assert.equal(await runAndWait(page), 'done');
  assert.equal(await page.evaluate(() => window.cosimPlayground.energyPlotted()), null);
  assert.equal(await page.$eval('#energy', (e) => e.hidden), true);
  await page.close();
});

test('too large a cap: the unlimited correction on the nonlinear oscillator is itself flagged', async () => {
  const page = await openPreset('energy-nonlinear-nu-0');
  const limited = await runPreset(page, 'energy-nonlinear-nu-0');
  assert.deepEqual(limited.spans, [], 'cap 100 %: not flagged');
  await page.fill('[data-path="master.energy_correction.cap.fraction"]', '');
  await page.fill('[data-path="master.energy_correction.cap.absolute"]', '1e9');
  assert.deepEqual(await page.evaluate(() => window.cosimPlayground.scenario.master.energy_correction.cap), { absolute: 1e9 });
  const unlimited = await runPreset(page, 'unlimited cap');
  assert.ok(unlimited.spans.length > 0, 'flagged');
  assert.ok(unlimited.summary.eEnd / unlimited.summary.e0 > limited.summary.eEnd / limited.summary.e0 + 0.02,
    'and the energy error grows');
  await page.close();
});

test('axe: the energy panel with its signal and the energy fields with a message, light and dark', async () => {
  const axe = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
  for (const theme of ['light', 'dark']) {
    const page = await openPage(browser.context, null, '#preset=energy-oscillator-drift');
    await page.evaluate((t) => localStorage.setItem('cosim-theme', t), theme);
    await page.reload();
    await page.waitForFunction(() => window.cosimPlayground && document.querySelector('#run:not([disabled])'));
    await page.evaluate(() => window.cosimPlayground.ready);
    await runPreset(page, 'energy-oscillator-drift');
    await page.check('[data-path="master.energy_correction"]');
    await expectFieldMessage(page, 'master.energy_correction.nu', '2', /expected a number from 0 to 1, got 2/);
    await page.addScriptTag({ path: axe });
    const result = await page.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
    const serious = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .flatMap((v) => v.nodes.map((n) => `${v.id}: ${n.target.join(' ')}`));
    assert.deepEqual(serious, [], theme);
    assert.deepEqual(page.problems, []);
    await page.close();
  }
});
