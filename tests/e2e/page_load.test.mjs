// Loading: the wasm binary is requested once per page load and compiled once; a replaced
// worker gets the compiled module instead of fetching it again. Light/dark theme: the
// toggle re-themes the page and the plots, and the choice survives a reload.

import test from 'node:test';
import assert from 'node:assert/strict';
import { launch, openPage, runAndWait } from './browser.mjs';

let browser;
test.before(async () => { browser = await launch(); });
test.after(async () => { await browser?.close(); });

test('the wasm binary is fetched once, also across worker replacements', async () => {
  const page = await browser.context.newPage();
  const wasmRequests = [];
  page.on('request', (r) => { if (r.url().endsWith('.wasm')) wasmRequests.push(r.url()); });
  page.problems = [];
  page.on('pageerror', (e) => page.problems.push(e.message));
  await page.goto(process.env.COSIM_BASE_URL || 'http://127.0.0.1:8000/');
  await page.waitForFunction(() => window.cosimPlayground && document.querySelector('#run:not([disabled])'), null, { timeout: 30_000 });
  assert.equal(await runAndWait(page), 'done');
  for (let i = 0; i < 2; i++) {
    await page.evaluate(() => window.cosimPlayground.restartWorker());
    assert.equal(await runAndWait(page), 'done', `run after replacement ${i + 1}`);
  }
  assert.equal(wasmRequests.length, 1, `wasm requests: ${wasmRequests.join(', ')}`);
  assert.deepEqual(page.problems, []);
  await page.close();
});

test('theme toggle: auto → light → dark re-themes page and plots; kept across a reload', async () => {
  const page = await openPage(browser.context);
  assert.equal(await runAndWait(page), 'done');
  const bg = () => page.evaluate(() => getComputedStyle(document.body.parentElement).backgroundColor);
  const axisColor = () => page.evaluate(() => {
    const c = document.querySelector('.chart canvas');
    return c ? c.getContext('2d').strokeStyle : null;
  });
  assert.equal(await page.textContent('#theme'), 'Theme: auto');
  await page.click('#theme');
  assert.equal(await page.getAttribute('html', 'data-theme'), 'light');
  const lightBg = await bg();
  await page.click('#theme');
  assert.equal(await page.getAttribute('html', 'data-theme'), 'dark');
  assert.notEqual(await bg(), lightBg, 'the page background changes');
  // The charts were rebuilt with the dark palette and still hold the run's data.
  const plotted = await page.evaluate(() => window.cosimPlayground.plotted());
  assert.ok(plotted.length >= 1 && plotted[0].cosim.length > 1, 'plots keep their data after re-theming');
  assert.ok(await axisColor() !== null);
  await page.reload();
  await page.waitForFunction(() => window.cosimPlayground && document.querySelector('#run:not([disabled])'));
  assert.equal(await page.getAttribute('html', 'data-theme'), 'dark');
  assert.equal(await page.textContent('#theme'), 'Theme: dark');
  await page.click('#theme');
  assert.equal(await page.textContent('#theme'), 'Theme: auto');
  await page.close();
});
