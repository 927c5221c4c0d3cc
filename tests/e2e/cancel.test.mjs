// Cancel stops a long run between chunks of macro-steps, and the page stays responsive:
// controls react at once and the next run completes.

import test from 'node:test';
import assert from 'node:assert/strict';
import { launch, openPage, runAndWait } from './browser.mjs';

const field = (path) => `[data-path="${path}"]`;

// Serves every page worker as a stand-in that announces itself ready (as `version`) and
// answers a run message `e` with the code `onRun`; returns how many it has served.
async function standInWorker(context, version, onRun) {
  let served = 0;
  await context.route('**/js/worker.js', (route) => {
    served += 1;
    route.fulfill({
      contentType: 'text/javascript',
      body: `import init, * as wasm from '../pkg/cosim_wasm.js';
          await init();
          postMessage({ type: 'ready', presets: wasm.presets(), catalog: wasm.catalog(), version: '${version}' });
          self.onmessage = (e) => {
            if (e.data.type !== 'run') return;
            ${onRun}
          };`,
    });
  });
  return () => served;
}

// The page loaded a second worker (within 5 s): the first was replaced.
async function assertReplaced(served, message) {
  for (let i = 0; i < 100 && served() < 2; i++) await new Promise((r) => setTimeout(r, 50));
  assert.equal(served(), 2, message);
}

test('Cancel stops a two-million-step run and the page keeps working', async () => {
  const browser = await launch();
  try {
    const page = await openPage(browser.context);
    await page.fill(field('master.macro_step'), '1e-6');
    // Two million steps (the most a run may take): at about 1.8M steps/s in Chromium
    // (docs/benchmarks.md), one million could finish between the first progress and the
    // click on a loaded machine (it did once in a full e2e run).
    await page.fill(field('run.stop'), '2');
    await page.evaluate(() => { delete document.body.dataset.runState; });
    await page.click('#run');
    // Wait for the first progress so the worker is really stepping.
    await page.waitForFunction(() => {
      const p = document.getElementById('progress');
      return p.value > 0 && p.value < 1;
    }, null, { timeout: 30_000, polling: 20 });
    assert.equal(await page.isDisabled('#run'), true, 'Run is disabled while running');
    assert.equal(await page.isEnabled('#cancel'), true, 'Cancel is enabled while running');

    // The main thread answers while the worker computes.
    const t0 = Date.now();
    await page.evaluate(() => 1 + 1);
    assert.ok(Date.now() - t0 < 5_000);

    await page.click('#cancel');
    await page.waitForFunction(() => document.body.dataset.runState, null, { timeout: 10_000 });
    assert.equal(await page.evaluate(() => document.body.dataset.runState), 'cancelled');
    assert.match(await page.textContent('#status'), /^Cancelled/);
    const progress = await page.$eval('#progress', (p) => p.value);
    assert.ok(progress < 1, `the run stopped early (progress ${progress})`);
    assert.equal(await page.evaluate(() => window.cosimPlayground.busy), false);
    assert.equal(await page.isEnabled('#run'), true);
    assert.equal(await page.isDisabled('#cancel'), true);

    // Still usable: edit back to a short run and complete it.
    await page.fill(field('master.macro_step'), '1e-4');
    await page.fill(field('run.stop'), '0.05');
    assert.equal(await runAndWait(page), 'done');
    const result = await page.evaluate(() => window.cosimPlayground.lastResult.stepsDone);
    assert.equal(result, 500);
    assert.deepEqual(page.problems, []);
  } finally {
    await browser.close();
  }
});

test('Cancel replaces a worker that hangs inside a chunk', async () => {
  const browser = await launch();
  try {
    // A stand-in worker that accepts a run and then never yields (a chunk that hangs).
    const served = await standInWorker(browser.context, 'hang', `
            postMessage({ type: 'started', id: e.data.id, signals: [], totalSteps: 10 });
            for (;;) { /* hung */ }`);
    const page = await openPage(browser.context);
    await page.evaluate(() => { delete document.body.dataset.runState; });
    await page.click('#run');
    await page.waitForFunction(() => /Running/.test(document.getElementById('status').textContent));
    await page.click('#cancel');
    await page.waitForFunction(() => document.body.dataset.runState, null, { timeout: 10_000 });
    assert.equal(await page.evaluate(() => document.body.dataset.runState), 'cancelled');
    assert.equal(await page.textContent('#status'), 'Cancelled (the worker was restarted).');
    assert.equal(await page.isEnabled('#run'), true);
    await assertReplaced(served, 'a fresh worker was started');
    assert.deepEqual(page.problems, []);
  } finally {
    await browser.close();
  }
});

test('a fatal worker error (a panic) is shown and the worker is replaced', async () => {
  const browser = await launch();
  try {
    // A stand-in worker whose run ends in the message the panic hook produces.
    const served = await standInWorker(browser.context, 'panic', `
            postMessage({ type: 'error', id: e.data.id, fatal: true,
              message: 'internal error (please report): panicked at core/src/x.rs:1:1' });`);
    const page = await openPage(browser.context);
    assert.equal(await runAndWait(page), 'error');
    assert.match(await page.textContent('#message-text'), /^internal error \(please report\): panicked at/);
    await assertReplaced(served, 'the unusable worker was replaced');
    assert.equal(await page.isEnabled('#run'), true);
  } finally {
    await browser.close();
  }
});
