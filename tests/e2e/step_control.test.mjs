// Variable macro-steps in the page: a defect-controlled run (seed 003) shows the
// macro-steps panel, whose H series equals the CLI's CSV column H, and the run summary's
// accepted and rejected steps equal the CLI summary; the step-control form keeps a typed
// tolerance when the method is switched away and back; a tolerance of 0 shows the core's
// message at the field master.step_control.tol; a fixed-step preset has no panel; the
// error-control fields monitor and corrector.newton reach the scenario and the run, and a
// refused combination is named at its field.

import test from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launch, openPage, runAndWait } from './browser.mjs';
import { cliPath, cosim, WWW_DIR } from './cli.mjs';

const PRESET = 'two-mass-oscillator';
const TOL = 10;
/** Stop time of the chain runs of the monitored-states test (s). */
const CHAIN_STOP = 2e-5;

let browser;
test.before(async () => { browser = await launch(); });
test.after(async () => { await browser?.close(); });

/**
 * The two-mass oscillator under defect control, monitoring the connection defects (the
 * exact masses give input derivatives but no midpoint samples); tol in the units of the
 * coupling force (N), as the CLI's defect test does.
 */
function defectScenario() {
  const s = JSON.parse(cosim(['preset', PRESET]));
  s.title = 'Two-mass oscillator, defect-controlled';
  s.master = {
    algorithm: 'jacobi', macro_step: 1e-5, extrapolation_order: 0, sequence: [], start_up: 'ramp_up',
    defects: { input_order: 2, output_order: 0, monitored: 'connection' },
    step_control: { method: 'defect', tol: TOL },
  };
  return JSON.stringify(s, null, 2);
}

/** Runs scenario text with the CLI: {csv (header + numeric columns, NaN for empty cells), stderr}. */
function runCli(text) {
  const dir = mkdtempSync(join(tmpdir(), 'cosim-cli-'));
  const file = join(dir, 's.json');
  const out = join(dir, 'out.csv');
  writeFileSync(file, text);
  const run = spawnSync(cliPath(), ['run', file, '--out', out], { cwd: WWW_DIR, encoding: 'utf8' });
  assert.equal(run.status, 0, `cosim run failed: ${run.stderr}`);
  const lines = readFileSync(out, 'utf8').trim().split('\n');
  const header = lines[0].split(',');
  const columns = new Map(header.map((h) => [h, []]));
  for (const line of lines.slice(1)) {
    line.split(',').forEach((c, i) => columns.get(header[i]).push(c === '' ? NaN : Number(c)));
  }
  return { columns, stderr: run.stderr };
}

/** Puts scenario text into the form through the JSON view. */
async function applyJson(page, text) {
  await page.evaluate(() => { document.getElementById('json-details').open = true; });
  await page.fill('#scenario-json', text);
  await page.click('#apply-json');
}

const field = (path) => `[data-path="${path}"]`;

test('defect-controlled run: the macro-steps panel plots the CLI H column, the summary has its counts', async () => {
  const text = defectScenario();
  const cli = runCli(text);
  const h = cli.columns.get('H');
  assert.ok(h && h.some(Number.isFinite), 'the CLI CSV has an H column');
  const page = await openPage(browser.context);
  await applyJson(page, text);
  assert.equal(await runAndWait(page), 'done', await page.textContent('#message-text'));

  assert.equal(await page.isVisible('#macro-steps'), true, 'the macro-steps panel is shown');
  const plotted = await page.evaluate(() => window.cosimPlayground.stepsPlotted());
  assert.ok(plotted?.H, 'an H series is plotted');
  assert.equal(plotted.H.length, h.length, 'one H value per communication point');
  let compared = 0;
  plotted.H.forEach((v, i) => {
    // The start point has H = 0 (no step ends there): a gap on the log axis.
    if (!(h[i] > 0)) { assert.equal(v, null, `row ${i}: no step in the CLI, a gap in the plot`); return; }
    assert.ok(Math.abs(v - h[i]) <= 1e-12 * Math.abs(h[i]), `row ${i}: H ${v} vs CLI ${h[i]}`);
    compared += 1;
  });
  assert.ok(compared > 10, `${compared} steps compared`);
  assert.ok(new Set(plotted.H.filter((v) => v !== null)).size > 1, 'the step size varies');
  assert.ok(plotted.defect, 'the controlled defect is plotted');
  assert.equal(plotted.tol, TOL, 'with the tolerance line');
  assert.equal(await page.isVisible('.step-chart[data-series="defect"]'), true);

  // The CLI's summary line and the page's figures.
  const accepted = /^(\d+) macro-steps/m.exec(cli.stderr);
  const rejected = /(\d+) rejected attempts rolled back/.exec(cli.stderr);
  assert.ok(accepted && rejected, `the CLI summary has the counts: ${cli.stderr}`);
  assert.equal(await page.textContent('#steps-label'), 'Accepted macro-steps');
  assert.equal((await page.textContent('#steps')).replaceAll(',', ''), accepted[1], 'accepted steps');
  assert.equal(await page.textContent('#rejected'), rejected[1], 'rejected attempts');
  assert.equal(Number(accepted[1]), compared, 'one H per accepted step');
  const finite = h.filter((v) => v > 0);
  const [mean, min, max] = (await page.textContent('#step-size')).split(', ').map(Number);
  assert.ok(Math.abs(min - Math.min(...finite)) <= 0.01 * min && Math.abs(max - Math.max(...finite)) <= 0.01 * max, 'H range');
  assert.ok(mean >= min && mean <= max, 'mean H within the range');
  assert.equal(await page.isVisible('#rms-defects'), true, 'the RMS defect table is shown');
  const rows = await page.$$eval('#rms-defects tbody tr', (trs) => trs.map((tr) => tr.cells[0].textContent));
  assert.ok(rows.some((r) => r.startsWith('connection ')), `connection defects listed: ${rows}`);
  assert.match(await page.textContent('#status'), /^Done/);
  assert.deepEqual(page.problems, []);
  await page.close();
});

test('step-control form: a typed tol survives switching to error control and back; tol 0 is named at the field', async () => {
  const page = await openPage(browser.context);
  await applyJson(page, defectScenario());
  const method = field('master.step_control.method');
  const tol = field('master.step_control.tol');
  assert.equal(await page.inputValue(method), 'defect');
  await page.fill(tol, '0.0025');
  await page.selectOption(method, 'error');
  assert.equal(await page.isVisible(tol), false, 'the defect fields are gone');
  assert.equal(await page.isVisible(field('master.step_control.rtol')), true, 'error-control fields are shown');
  assert.equal(await page.isVisible(field('master.step_control.estimator')), true);
  let master = await page.evaluate(() => window.cosimPlayground.scenario.master);
  assert.equal(master.step_control.method, 'error');
  assert.equal(master.defects, undefined, 'no defects object with error control');
  await page.selectOption(method, 'defect');
  assert.equal(await page.inputValue(tol), '0.0025', 'the typed tol is back');
  master = await page.evaluate(() => window.cosimPlayground.scenario.master);
  assert.deepEqual(master.step_control, { method: 'defect', tol: 0.0025 });
  assert.equal(master.defects.monitored, 'connection', 'the defect settings are back');
  // Fixed and back: the extrapolation order the defect method needs is restored too.
  await page.selectOption(method, 'fixed');
  master = await page.evaluate(() => window.cosimPlayground.scenario.master);
  assert.equal(master.step_control, undefined);
  await page.selectOption(method, 'defect');
  assert.equal(await page.inputValue(tol), '0.0025');

  await page.fill(tol, '0');
  await page.waitForFunction(() => /master\.step_control\.tol/.test(document.getElementById('message-text').textContent),
    null, { timeout: 10_000 });
  const text = await page.textContent('#message-text');
  assert.match(text, /^master\.step_control\.tol: must be > 0/);
  assert.equal(await page.getAttribute(tol, 'aria-invalid'), 'true', 'the field is marked');
  const atField = await page.$eval(tol, (input) => input.closest('.field').querySelector('.field-error')?.textContent ?? null);
  assert.equal(atField, text, 'the message is shown at the field');
  assert.deepEqual(page.problems, []);
  await page.close();
});

test('fixed-step preset: no macro-steps panel, the figures as before', async () => {
  const page = await openPage(browser.context);
  await page.selectOption('#preset', PRESET);
  assert.equal(await runAndWait(page), 'done');
  assert.equal(await page.isVisible('#macro-steps'), false);
  assert.equal(await page.evaluate(() => window.cosimPlayground.stepsPlotted()), null);
  assert.equal(await page.textContent('#steps-label'), 'Macro-steps');
  assert.equal(await page.isVisible('#step-size-item'), false);
  assert.equal(await page.isVisible('#rms-defects'), false);
  assert.equal(await page.inputValue(field('master.step_control.method')), 'fixed');
  assert.deepEqual(page.problems, []);
  await page.close();
});

test('defect study E3: log-log charts per port with the slopes `cosim defects E3` fits', async () => {
  // `cosim defects E3 --slaves euler --init consistent`: one slope line per order.
  const report = cosim(['defects', 'E3', '--slaves', 'euler', '--init', 'consistent', '--out', '/dev/null']);
  const lines = [...report.matchAll(/order (\d): output defect \[([^\]]*)\]\s+connection defect \[([^\]]*)\]\s+error \[([^\]]*)\]/g)];
  assert.equal(lines.length, 3, `three orders in the CLI report: ${report}`);
  const page = await openPage(browser.context);
  await page.selectOption('#study-experiment', 'E3');
  await page.selectOption('#study-slaves', 'euler');
  await page.selectOption('#study-init', 'consistent');
  await page.click('#study-compute');
  await page.waitForFunction(() => /runs in/.test(document.getElementById('study-status').textContent), null, { timeout: 120_000 });
  const charts = await page.$$eval('#study-figure figure', (fs) => fs.map((f) => ({
    title: f.dataset.chart, labels: [...f.querySelectorAll('.u-legend .u-series:not(:first-child) .u-label')].map((l) => l.textContent),
  })));
  const byTitle = new Map(charts.map((c) => [c.title, c.labels]));
  for (const [, order, , connection, error] of lines) {
    const [tau, omegaIn] = connection.split(', ');
    const [omega, errTau] = error.split(', ');
    const want = [['RMS connection defect t2o.tau', tau], ['RMS connection defect o2t.omega_in', omegaIn],
      ['RMS error t2o.omega', omega], ['RMS error o2t.tau', errTau]];
    for (const [title, slope] of want) {
      const labels = byTitle.get(title);
      assert.ok(labels, `a chart ${title}: ${[...byTitle.keys()]}`);
      assert.ok(labels.includes(`order ${order}, slope ${slope === '-' ? '–' : slope}`), `${title} order ${order}: ${labels} (CLI ${slope})`);
    }
  }
  assert.deepEqual(page.problems, []);
  await page.close();
});

test('error-controlled preset (seed 002 order control): the page plots the CLI H and k columns', async () => {
  const id = 'contact-oscillator-order-control';
  const cli = runCli(cosim(['preset', id]));
  const [h, k] = [cli.columns.get('H'), cli.columns.get('k')];
  assert.ok(h && k, 'the CLI CSV has H and k columns');
  const page = await openPage(browser.context);
  await page.selectOption('#preset', id);
  assert.equal(await runAndWait(page), 'done', await page.textContent('#message-text'));
  const plotted = await page.evaluate(() => window.cosimPlayground.stepsPlotted());
  assert.ok(plotted?.H && plotted?.k, 'H and k are plotted');
  assert.equal(plotted.k.length, k.length, 'one k per communication point');
  for (let i = 1; i < k.length; i++) {
    assert.equal(plotted.k[i], k[i], `row ${i}: k`);
    assert.ok(Math.abs(plotted.H[i] - h[i]) <= 1e-12 * h[i], `row ${i}: H ${plotted.H[i]} vs ${h[i]}`);
  }
  // The order falls at the impact and climbs back.
  const ks = k.slice(1);
  const low = ks.indexOf(Math.min(...ks.slice(ks.indexOf(Math.max(...ks)))));
  assert.ok(Math.max(...ks.slice(low)) > ks[low], `k climbs back after its drop: ${ks.join(' ')}`);
  const rejected = /(\d+) rejected attempts rolled back/.exec(cli.stderr);
  assert.equal(await page.textContent('#rejected'), rejected[1], 'rejected attempts as the CLI');
  assert.deepEqual(page.problems, []);
  await page.close();
});

test('error-control form: rtol 0 is named at its field as the CLI names it; k_max offers no degree above 5', async () => {
  const page = await openPage(browser.context);
  await applyJson(page, defectScenario());
  await page.selectOption(field('master.step_control.method'), 'error');
  const rtol = field('master.step_control.rtol');
  await page.fill(rtol, '0');
  await page.waitForFunction(() => document.getElementById('message-text').textContent.startsWith('master.step_control.rtol'),
    null, { timeout: 10_000 });
  const text = await page.textContent('#message-text');
  assert.match(text, /^master\.step_control\.rtol: /);
  assert.equal(await page.getAttribute(rtol, 'aria-invalid'), 'true', 'the field is marked');
  const atField = await page.$eval(rtol, (el) => el.closest('.field').querySelector('.field-error')?.textContent ?? null);
  assert.equal(atField, text, 'the message is shown at the field');
  // k_max 6 (refused by the core, cli/tests/error_control.rs) cannot be chosen in the form.
  const degrees = await page.$$eval(`${field('master.step_control.order.variable.k_max')} option`, (os) => os.map((o) => Number(o.value)));
  assert.ok(degrees.length > 0 && Math.max(...degrees) === 5, `k_max options ${degrees}`);
  assert.deepEqual(page.problems, []);
  await page.close();
});

/** Preset `id` as scenario text, changed by `edit(scenario)`. */
function presetWith(id, edit) {
  const s = JSON.parse(cosim(['preset', id]));
  edit(s);
  return JSON.stringify(s, null, 2);
}

/** The core's message for `path` is shown at that field, which is marked. */
async function namedAtField(page, path) {
  await page.waitForFunction((p) => document.getElementById('message-text').textContent.startsWith(p),
    path, { timeout: 10_000 });
  const text = await page.textContent('#message-text');
  assert.equal(await page.getAttribute(field(path), 'aria-invalid'), 'true', `${path} is marked`);
  const atField = await page.$eval(field(path), (el) => el.closest('.field').querySelector('.field-error')?.textContent ?? null);
  assert.equal(atField, text, `the message is shown at ${path}`);
  return text;
}

test('error-control form: monitored states set in the form change the scenario and the run; with ExSLocal the field is named', async () => {
  // The low-damping chain with ExLocal: its segments have interior masses, so only the end
  // masses (where the cut forces act) are coupling bodies (110 against 120 steps here).
  const text = presetWith('mass-chain-explicit-low-damping', (s) => {
    s.master.step_control.estimator = 'ex_local';
    s.run.stop = CHAIN_STOP;
  });
  const page = await openPage(browser.context);
  await applyJson(page, text);
  const monitor = field('master.step_control.monitor');
  assert.equal(await page.inputValue(monitor), 'all_states');
  assert.equal(await runAndWait(page), 'done', await page.textContent('#message-text'));
  const allStates = (await page.textContent('#steps')).replaceAll(',', '');

  await page.selectOption(monitor, 'coupling_bodies');
  const scenario = await page.evaluate(() => window.cosimPlayground.scenario);
  assert.equal(scenario.master.step_control.monitor, 'coupling_bodies', 'the scenario JSON has it');
  assert.equal(await runAndWait(page), 'done', await page.textContent('#message-text'));
  const bodies = (await page.textContent('#steps')).replaceAll(',', '');
  assert.notEqual(bodies, allStates, 'the run summary changes');
  const cli = runCli(JSON.stringify(scenario));
  assert.equal(bodies, /^(\d+) macro-steps/m.exec(cli.stderr)?.[1], 'accepted steps as the CLI on the same scenario');

  // Coupling-variable estimators compare no states: the core refuses the option there.
  await page.selectOption(field('master.step_control.estimator'), 'ex_s_local');
  assert.match(await namedAtField(page, 'master.step_control.monitor'), /coupling variables, not states/);
  assert.deepEqual(page.problems, []);
  await page.close();
});

test('error-control form: the corrector Newton set in the form changes the scenario and the iterations; full with one iteration is named', async () => {
  // Example 1 with ImMilne before the first impact (the cubic coupling), a tight corrector test.
  const text = presetWith('contact-oscillator-im-milne', (s) => {
    s.run.stop = 0.015;
    s.master.step_control.corrector = { tolerance_fraction: 1e-6, max_iterations: 8 };
  });
  const page = await openPage(browser.context);
  await applyJson(page, text);
  const newton = field('master.step_control.corrector.newton');
  assert.equal(await page.inputValue(newton), 'simplified');
  assert.equal(await runAndWait(page), 'done', await page.textContent('#message-text'));
  const perStep = (xs) => xs.slice(1).reduce((a, b) => a + b, 0) / (xs.length - 1);
  const simplified = perStep((await page.evaluate(() => window.cosimPlayground.stepsPlotted())).iterations);

  await page.selectOption(newton, 'full');
  const scenario = await page.evaluate(() => window.cosimPlayground.scenario);
  assert.deepEqual(scenario.master.step_control.corrector, { tolerance_fraction: 1e-6, max_iterations: 8, newton: 'full' });
  assert.equal(await runAndWait(page), 'done', await page.textContent('#message-text'));
  const iterations = (await page.evaluate(() => window.cosimPlayground.stepsPlotted())).iterations;
  const cli = runCli(JSON.stringify(scenario)).columns.get('iterations');
  assert.equal(iterations.length, cli.length, 'one value per communication point');
  iterations.forEach((v, i) => { if (i > 0) assert.equal(v, cli[i], `row ${i}: iterations as the CLI`); });
  const full = perStep(iterations);
  assert.ok(full < simplified, `full Newton needs fewer corrector runs per step: ${full} vs ${simplified}`);

  // Full Newton re-evaluates the Jacobian between iterations: one iteration is refused there.
  await applyJson(page, presetWith('contact-oscillator-im-milne', (s) => {
    s.master.step_control.corrector = { newton: 'full', max_iterations: 1 };
  }));
  assert.match(await namedAtField(page, 'master.step_control.corrector.newton'), /max_iterations/);
  assert.deepEqual(page.problems, []);
  await page.close();
});
