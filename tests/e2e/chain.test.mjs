// Chains in the page (issue 17, item 4): the 10^4-mass preset co-simulates in the worker
// with progress and cancel while the page answers clicks and typing; its charts are the
// watched masses and the coupling forces, with H(t) and k(t); the form edits the chain
// (watched masses, cuts); a chain above the page's limit is refused with the limit and the
// CLI command that runs it; the whole 10^4-mass chain integrates as the reference.

import test from 'node:test';
import assert from 'node:assert/strict';
import { launch, openPage, runAndWait } from './browser.mjs';

const field = (path) => `[data-path="${path}"]`;

/** Names of the time-response charts. */
const chartNames = (page) => page.evaluate(() => window.cosimPlayground.plotted().map((c) => c.name));

test('a 10,000-mass chain runs in the worker: progress, a page that answers, the chosen charts, cancel', async () => {
  const browser = await launch();
  try {
    const page = await openPage(browser.context);
    await page.selectOption('#preset', 'chain-10000-masses');
    assert.equal(await page.inputValue(field('chain.masses')), '10000');
    assert.equal(await page.inputValue(field('chain.watch')), '3000, 6891');
    await page.evaluate(() => { delete document.body.dataset.runState; });
    await page.click('#run');
    // Progress moves: the worker has stepped the chain and sent rows.
    await page.waitForFunction(() => {
      const p = document.getElementById('progress');
      return p.value > 0 && p.value < 1 && window.cosimPlayground.plotted().length > 0;
    }, null, { timeout: 120_000, polling: 50 });
    assert.equal(await page.isEnabled('#cancel'), true, 'Cancel is enabled while running');

    // While the chain runs, a click and typing are answered: the JSON view opens and the
    // watched-masses field takes the keys typed.
    const clicked = await page.evaluate(async () => {
      const t0 = performance.now();
      document.getElementById('json-details').querySelector('summary').click();
      await new Promise((r) => requestAnimationFrame(() => r()));
      return { open: document.getElementById('json-details').open, ms: performance.now() - t0 };
    });
    assert.equal(clicked.open, true, 'the click opened the JSON view');
    assert.ok(clicked.ms < 1000, `the click was answered in ${clicked.ms.toFixed(0)} ms`);
    const t0 = Date.now();
    await page.fill(field('chain.watch'), '');
    await page.type(field('chain.watch'), '3000, 5000');
    assert.equal(await page.inputValue(field('chain.watch')), '3000, 5000');
    assert.deepEqual(await page.evaluate(() => window.cosimPlayground.scenario.chain.watch), [3000, 5000]);
    assert.ok(Date.now() - t0 < 10_000, `typing was answered in ${Date.now() - t0} ms`);
    assert.equal(await page.evaluate(() => window.cosimPlayground.busy), true, 'the chain was still running');

    // The charts of the run in flight: watched masses (x, v) and the three cut forces.
    const names = await chartNames(page);
    // Masses 3000 and 6891 are in segments 57 and 132 (68 segments of 53 masses, then 52).
    for (const n of ['s57.x_watch', 's57.v_watch', 's132.x_watch', 's132.v_watch', 'c1.lambda', 'c130.lambda', 'c131.lambda']) {
      assert.ok(names.includes(n), `${n} is plotted (${names.join(', ')})`);
    }
    assert.ok(!names.some((n) => /_(first|last)$/.test(n)), 'coupling-body states stay in the CSV');

    await page.click('#cancel');
    await page.waitForFunction(() => document.body.dataset.runState, null, { timeout: 60_000 });
    assert.equal(await page.evaluate(() => document.body.dataset.runState), 'cancelled');
    assert.equal(await page.evaluate(() => window.cosimPlayground.busy), false);
    assert.deepEqual(page.problems, []);
  } finally {
    await browser.close();
  }
});

test('a short chain run shows H(t), k(t) and the masses the form watches', async () => {
  const browser = await launch();
  try {
    const page = await openPage(browser.context);
    await page.selectOption('#preset', 'chain-1000-masses');
    await page.fill(field('chain.watch'), '500');
    await page.fill(field('chain.cuts'), '2, 19');
    await page.fill(field('run.stop'), '1e-6');
    assert.equal(await runAndWait(page, 180_000), 'done', await page.textContent('#message-text'));
    const names = await chartNames(page);
    assert.deepEqual(names, ['s10.x_watch', 's10.v_watch', 'c2.lambda', 'c19.lambda']);
    const steps = await page.evaluate(() => window.cosimPlayground.stepsPlotted());
    assert.ok(steps?.H && steps?.k, 'H and k are plotted');
    assert.ok(steps.H.filter((h) => h > 0).length >= 5, 'several macro-steps');
    const result = await page.evaluate(() => window.cosimPlayground.lastResult);
    assert.ok(Number.isFinite(result.globalNrmse) && result.globalNrmse > 0, `global error ${result.globalNrmse}`);
    assert.ok(Number.isFinite(result.couplingBodyError) && result.couplingBodyError > 0, `eqn 36 ${result.couplingBodyError}`);
    assert.match(await page.textContent('#global-error'), /; coupling bodies \(eqn 36\) \d\.\d{3}e[-+]\d+$/);
    assert.deepEqual(page.problems, []);
  } finally {
    await browser.close();
  }
});

test('a chain above the page limit is refused with the limit and the CLI command', async () => {
  const browser = await launch();
  try {
    const page = await openPage(browser.context);
    await page.selectOption('#preset', 'chain-10000-masses');
    await page.fill(field('chain.masses'), '100000');
    await page.fill(field('chain.watch'), '');
    assert.equal(await runAndWait(page), 'error');
    const text = await page.textContent('#message-text');
    assert.match(text, /chain\.masses/);
    assert.match(text, /100000 masses is more than the page runs \(10000\)/);
    assert.match(text, /cosim run chain\.json --threads N/);
    assert.equal(await page.getAttribute(field('chain.masses'), 'aria-invalid'), 'true', 'the masses field is marked');
    assert.equal(await page.evaluate(() => window.cosimPlayground.busy), false);
  } finally {
    await browser.close();
  }
});

test('the whole 10,000-mass chain as its reference runs in the page and gives eqn 36', async () => {
  const browser = await launch();
  try {
    const page = await openPage(browser.context);
    await page.selectOption('#preset', 'chain-10000-masses');
    await page.check(field('reference'));
    await page.fill(field('run.stop'), '2e-7');
    assert.equal(await runAndWait(page, 300_000), 'done', await page.textContent('#message-text'));
    const result = await page.evaluate(() => window.cosimPlayground.lastResult);
    assert.ok(result.signals.every((s) => s.reference !== null), 'every recorded output has a reference');
    assert.ok(Number.isFinite(result.couplingBodyError), `eqn 36 ${result.couplingBodyError}`);
    assert.deepEqual(page.problems, []);
  } finally {
    await browser.close();
  }
});
