// The equation-module editor: a module with model "Equations" shows its source in a
// monospace text area; edits there change the scenario, and a source error
// (`modules[i].source: line L, column C: ...`) highlights and quotes line L.

import test from 'node:test';
import assert from 'node:assert/strict';
import { launch, openPage, runAndWait } from './browser.mjs';

const PRESET = 'equation-module-mass1';
const AREA = 'textarea[data-path="modules[0].source"]';

let browser;
test.before(async () => { browser = await launch(); });
test.after(async () => { await browser?.close(); });

test('equation source: shown monospace, edited in place, the erroneous line highlighted', async () => {
  const page = await openPage(browser.context);
  await page.selectOption('#preset', PRESET);
  const source = JSON.parse(await page.inputValue('#scenario-json')).modules[0].source;
  assert.equal(await page.inputValue(AREA), source);
  assert.match(await page.$eval(AREA, (a) => getComputedStyle(a).fontFamily), /mono/i);
  assert.equal(await page.isVisible('textarea[data-path="modules[1].source"]'), false, 'built-in modules have no source');

  // Line 3 gets a stray operator: the core names line 3, the page highlights it.
  const lines = source.split('\n');
  lines[2] = `${lines[2]} +* oops`;
  await page.fill(AREA, lines.join('\n'));
  await page.waitForFunction((sel) => document.querySelector(sel).dataset.errorLine, AREA, { timeout: 10_000 });
  assert.match(await page.textContent('#message-text'), /^modules\[0\]\.source: line 3, column \d+: /);
  assert.equal(await page.$eval(AREA, (a) => a.dataset.errorLine), '3');
  assert.equal(await page.getAttribute(AREA, 'aria-invalid'), 'true');
  assert.equal(await page.$eval(AREA, (a) => getComputedStyle(a).backgroundImage !== 'none'), true, 'the line band is drawn');
  assert.equal(await page.textContent('.equation-error'), `line 3: ${lines[2]}`);
  // The JSON view carries the edit.
  assert.equal(JSON.parse(await page.inputValue('#scenario-json')).modules[0].source, lines.join('\n'));

  // Fixed again: the highlight goes, and the scenario runs.
  await page.fill(AREA, source);
  await page.waitForFunction((sel) => !document.querySelector(sel).dataset.errorLine, AREA, { timeout: 10_000 });
  assert.equal(await page.isVisible('.equation-error'), false);
  assert.equal(await runAndWait(page), 'done', await page.textContent('#message-text'));
  assert.deepEqual(page.problems, []);
  await page.close();
});
