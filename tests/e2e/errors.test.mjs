// Bad scenarios show a clear message that names the field, and the user's edits stay
// where they were typed: malformed JSON, an unknown model, an unconnected input, a NaN
// or negative parameter, and a macro-step <= 0.

import test from 'node:test';
import assert from 'node:assert/strict';
import { launch, openPage, runAndWait } from './browser.mjs';

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
    // Fixing the field clears the mark and the run succeeds.
    await page.fill(field(path), '1e-4');
    assert.equal(await runAndWait(page), 'done');
    assert.equal(await page.isVisible('#message'), false);
    assert.equal(await page.getAttribute(field(path), 'aria-invalid'), null);
    await page.close();
  });
}
