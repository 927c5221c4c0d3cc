// Live parameters (issue 12, item 3): five quick moves of the macro-step slider leave
// exactly one run finishing (the worker skips or cancels the others), with the last
// value; an analysis preset opens with its map drawn without a click, coarse first and
// then refined; the stability map's ΔT slider redraws the ρ = 1 contour while dragging.

import test from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { launch, openPage, OUT_DIR } from './browser.mjs';

test('five quick macro-step slider moves: one finishing run, with the last value', async () => {
  const browser = await launch();
  try {
    const page = await openPage(browser.context, null, '#preset=two-mass-oscillator');
    await page.waitForFunction(() => document.body.dataset.runState === 'done' && !window.cosimPlayground.busy);
    await page.selectOption('#slider-choice', 'master.macro_step');
    await page.click('#slider-add');
    const slider = '#slider-list input[type=range][data-path="master.macro_step"]';
    assert.equal(await page.$eval(slider, (e) => e.labels[0].textContent), 'ΔT macro-step (s) · log');
    const counts = () => page.evaluate(() => ({ page: window.cosimPlayground.runsFinished, worker: window.cosimPlayground.workerResults }));
    const move = (steps) => page.$eval(slider, (input, n) => {
      input.value = String(Number(input.value) + n);
      input.dispatchEvent(new Event('input', { bubbles: true }));
    }, steps);
    const idle = () => page.waitForFunction(() => document.body.dataset.runState === 'done' && !window.cosimPlayground.busy, null, { timeout: 60_000 });

    // A move while a long run (50 s simulated, half a million macro-steps) is in flight cancels that run.
    await page.fill('#master-fields [data-path="run.stop"]', '50');
    let before = await counts();
    await page.evaluate(() => { delete document.body.dataset.runState; });
    await move(1);
    await page.waitForFunction(() => window.cosimPlayground.busy && Number(document.getElementById('progress').value) > 0);
    await move(1);
    await idle();
    let after = await counts();
    assert.deepEqual([after.page - before.page, after.worker - before.worker], [1, 1], 'the run in flight was cancelled, not finished');
    await page.fill('#master-fields [data-path="run.stop"]', '0.1');

    // Five quick moves (one task, as a fast drag or key repeat delivers them).
    before = await counts();
    await page.evaluate((sel) => {
      delete document.body.dataset.runState;
      const input = document.querySelector(sel);
      for (let k = 0; k < 5; k++) {
        input.value = String(Number(input.value) + 7);
        input.dispatchEvent(new Event('input', { bubbles: true }));
      }
    }, slider);
    await idle();
    await page.waitForTimeout(1500); // time for any stray run to finish (none may)
    after = await counts();
    assert.equal(after.page - before.page, 1, 'the page handled one result');
    assert.equal(after.worker - before.worker, 1, 'the worker finished one run: the four before it were skipped or cancelled');
    const r = await page.evaluate((sel) => {
      const s = window.cosimPlayground;
      const pos = Number(document.querySelector(sel).value);
      return { pos, ran: s.lastResult.scenario.master.macro_step, now: s.scenario.master.macro_step,
        dt: s.lastResult.time[2] - s.lastResult.time[1], field: document.querySelector('#master-fields [data-path="master.macro_step"]').value };
    }, slider);
    assert.equal(r.pos, 120 + 2 + 35, 'the slider moved 2 + 5 x 7 positions from the centre');
    const expected = 1e-4 * 10 ** ((2 * r.pos) / 240 - 1);
    assert.ok(Math.abs(r.ran / expected - 1) < 1e-12, `ran at ΔT ${r.ran}, expected ${expected}`);
    assert.equal(r.now, r.ran, 'the scenario holds the value that ran');
    assert.ok(Math.abs(r.dt / r.ran - 1) < 1e-9, `the run's time step ${r.dt} is the slider's ΔT`);
    assert.equal(Number(r.field), r.ran, 'the form shows the slider value');
    assert.deepEqual(page.problems, []);
  } finally {
    await browser.close();
  }
});

test('a stability-map preset opens with the map drawn, coarse then refined; the ΔT slider moves the contour', async () => {
  const browser = await launch();
  try {
    const page = await openPage(browser.context, null, '#preset=analysis-stability-map');
    // No click: the coarse map arrives first, then the refined one.
    await page.waitForFunction(() => window.cosimAnalysis.timings?.coarse != null, null, { timeout: 120_000 });
    const coarse = await page.evaluate(() => window.cosimAnalysis.timings.coarseSize[0]);
    await page.waitForFunction(() => document.body.dataset.analysisState === 'done', null, { timeout: 300_000 });
    const size = await page.evaluate(() => [window.cosimAnalysis.figure.data.x.values.length, window.cosimAnalysis.figure.data.y.values.length]);
    assert.ok(coarse <= 64, `coarse map first (${coarse} columns)`);
    assert.deepEqual(size, [256, 256], 'refined to 256 x 256 on a desktop');
    assert.equal(await page.inputValue('#analysis-x-points'), '256');
    assert.equal(await page.isVisible('#analysis-dt'), true, 'the ΔT slider is offered on the stability map');
    await page.$eval('#analysis-dt', (e) => {
      e.dispatchEvent(new Event('pointerdown'));
      e.value = String(Number(e.value) + 30);
      e.dispatchEvent(new Event('input', { bubbles: true }));
    });
    await page.waitForFunction(() => document.body.dataset.liveContour, null, { timeout: 60_000 });
    const overlay = await page.evaluate(() => window.cosimAnalysis.figure.overlays.find((o) => o.live));
    assert.match(overlay.label, /ρ = 1 at ΔT = .* \(dragging\)/);
    assert.ok(overlay.segments.length > 0, 'the dragged contour is drawn');
    await (await page.$('#analysis')).screenshot({ path: join(OUT_DIR, 'live-map-1280.png') });
    assert.deepEqual(page.problems, []);
  } finally {
    await browser.close();
  }
});
