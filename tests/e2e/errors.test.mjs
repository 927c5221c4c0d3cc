// Bad scenarios show a clear message that names the field, and the user's edits stay
// where they were typed: malformed JSON, an unknown model, an unconnected input, a NaN
// or negative parameter, and a macro-step <= 0. A run that starts and then fails (the
// nonlinear ZOH preset run until it overflows) is shown as a runtime failure instead: the
// core's message, where the run stopped, and the plot up to there; no field is blamed.

import test from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { launch, openPage, runAndWait } from './browser.mjs';
import { cliPath } from './cli.mjs';

let browser;
test.before(async () => { browser = await launch(); });
test.after(async () => { await browser?.close(); });

/** Opens the JSON view, replaces its text, and runs the text as written. */
async function runJson(page, text) {
  await page.evaluate(() => { document.getElementById('json-details').open = true; });
  await page.fill('#scenario-json', text);
  return runAndWait(page);
}

async function currentJson(page) {
  return JSON.parse(await page.inputValue('#scenario-json'));
}

async function message(page) {
  assert.equal(await page.isVisible('#message'), true, 'the message area is shown');
  assert.equal(await page.getAttribute('#message', 'role'), 'alert');
  return page.textContent('#message-text');
}

/** The form field for `path` (its data-path). */
const field = (path) => `[data-path="${path}"]`;

test('malformed JSON: message gives line and column, the text stays in the editor', async () => {
  const page = await openPage(browser.context);
  const text = '{\n  "schema_version": 1,\n  "modules": [,]\n}';
  assert.equal(await runJson(page, text), 'error');
  const m = await message(page);
  assert.match(m, /^Scenario JSON: malformed JSON: .*line 3 column/);
  assert.equal(await page.inputValue('#scenario-json'), text);
  assert.equal(await page.getAttribute('#scenario-json', 'aria-invalid'), 'true');
  // Apply reports the same problem without running.
  await page.click('#apply-json');
  await page.waitForFunction(() => /line 3/.test(document.getElementById('message-text').textContent));
  assert.equal(await page.inputValue('#scenario-json'), text);
  await page.close();
});

test('unknown model: message names modules[0].model, the JSON edit stays', async () => {
  const page = await openPage(browser.context);
  const s = await currentJson(page);
  s.modules[0].model = 'NoSuch.Model';
  const text = JSON.stringify(s, null, 2);
  assert.equal(await runJson(page, text), 'error');
  assert.match(await message(page), /^modules\[0\]\.model: unknown model `NoSuch\.Model`/);
  assert.equal(await page.inputValue('#scenario-json'), text);
  // The form shows the edited value and marks it.
  assert.equal(await page.inputValue(field('modules[0].model')), 'NoSuch.Model');
  assert.equal(await page.getAttribute(field('modules[0].model'), 'aria-invalid'), 'true');
  await page.close();
});

test('unconnected input: message names the input and points at the connections', async () => {
  const page = await openPage(browser.context);
  const s = await currentJson(page);
  const removed = s.connections.pop();
  const text = JSON.stringify(s, null, 2);
  assert.equal(await runJson(page, text), 'error');
  const m = await message(page);
  assert.match(m, /^connections: input `/);
  assert.ok(m.includes(removed.to), `${m} names ${removed.to}`);
  assert.equal(await page.getAttribute(field('connections'), 'aria-invalid'), 'true');
  assert.equal(await page.inputValue('#scenario-json'), text);
  await page.close();
});

test('NaN parameter: refused before running, naming the field; the typed text stays', async () => {
  const page = await openPage(browser.context);
  const path = 'modules[1].parameters.ck';
  await page.fill(field(path), 'NaN');
  assert.equal(await runAndWait(page), 'invalid');
  assert.match(await message(page), /^modules\[1\]\.parameters\.ck: expected a finite number in N\/m, got "NaN"/);
  assert.equal(await page.inputValue(field(path)), 'NaN');
  assert.equal(await page.getAttribute(field(path), 'aria-invalid'), 'true');
  // "Show the field" moves the keyboard focus to it.
  await page.click('#message-goto');
  assert.equal(await page.evaluate(() => document.activeElement.dataset.path), path);
  await page.close();
});

test('negative parameter: the core names the field, the typed value stays', async () => {
  const page = await openPage(browser.context);
  const path = 'modules[0].parameters.m1';
  await page.fill(field(path), '-5');
  assert.equal(await runAndWait(page), 'error');
  assert.match(await message(page), /^modules\[0\]\.parameters\.m1: /);
  assert.equal(await page.inputValue(field(path)), '-5');
  assert.equal(await page.getAttribute(field(path), 'aria-invalid'), 'true');
  assert.equal((await currentJson(page)).modules[0].parameters.m1, -5);
  await page.close();
});

for (const h of ['0', '-1e-4']) {
  test(`macro-step ${h}: message names master.macro_step, the typed value stays`, async () => {
    const page = await openPage(browser.context);
    const path = 'master.macro_step';
    await page.fill(field(path), h);
    assert.equal(await runAndWait(page), 'error');
    assert.match(await message(page), /^master\.macro_step: expected a positive number of seconds/);
    assert.equal(await page.inputValue(field(path)), h);
    assert.equal(await page.getAttribute(field(path), 'aria-invalid'), 'true');
    // A settings error: kind `scenario`, "Show the field" offered, no note about a run.
    assert.equal(await page.getAttribute('#message', 'data-kind'), 'scenario');
    assert.equal(await page.isVisible('#message-goto'), true);
    assert.equal(await page.isVisible('#message-note'), false);
    assert.equal(await page.textContent('#steps'), '–');
    // Fixing the field clears the mark and the run succeeds.
    await page.fill(field(path), '1e-4');
    assert.equal(await runAndWait(page), 'done');
    assert.equal(await page.isVisible('#message'), false);
    assert.equal(await page.getAttribute(field(path), 'aria-invalid'), null);
    await page.close();
  });
}

test('a run that overflows midway: runtime failure with the time it stopped, the partial plot stays', async () => {
  const page = await openPage(browser.context);
  await page.selectOption('#preset', 'nonlinear-zoh');
  // The response grows about 15 decades every 0.3 s; by t = 10 s it is no longer finite.
  await page.fill(field('run.stop'), '10');
  assert.equal(await runAndWait(page), 'error');

  // The same scenario in the CLI fails with the same message.
  const scenario = JSON.stringify(await page.evaluate(() => window.cosimPlayground.scenario));
  const cli = spawnSync(cliPath(), ['run', '-', '--out', '/dev/null'], { input: scenario, encoding: 'utf8' });
  assert.notEqual(cli.status, 0, 'the CLI run fails too');
  const expected = cli.stderr.trim().replace(/^error: /, '');
  assert.match(expected, /^module `mass2` at t = 6\.263 s: numerical failure: /);
  assert.equal(await message(page), expected);

  assert.equal(await page.getAttribute('#message', 'data-kind'), 'runtime');
  assert.equal(await page.textContent('#message-note'),
    'The run stopped at t = 6.263 s after 6,263 of 10,000 macro-steps; the plot shows the result up to there.');
  assert.equal(await page.isVisible('#message-goto'), false);
  assert.equal(await page.$$eval('[aria-invalid="true"]', (els) => els.length), 0, 'no field is marked');
  const failure = await page.evaluate(() => window.cosimPlayground.lastError);
  assert.equal(failure.kind, 'runtime');
  assert.equal(failure.run.stepsDone, 6263);
  assert.equal(failure.run.time, 6.263);
  assert.equal(await page.textContent('#steps'), '6,263 / 10,000');
  assert.equal(await page.textContent('#rejected'), '0');

  // The plot keeps every row up to the last communication point reached.
  const [plot] = await page.evaluate(() => window.cosimPlayground.plotted());
  assert.equal(plot.time.length, 6264);
  assert.equal(plot.time.at(-1), 6.263);
  assert.ok(plot.cosim.every(Number.isFinite));
  assert.deepEqual(page.problems, []);
  await page.close();
});
