// axe-core (npm) in the real page: no serious or critical violations on the start page,
// a computed map view and the diagram editor, in the light and the dark theme.

import test from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { launch, openPage, waitForRunEnd } from './browser.mjs';

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

/** Serious and critical violations inside `context` (a selector), as readable lines. */
async function violations(page, context) {
  await page.addScriptTag({ path: AXE });
  const result = await page.evaluate((ctx) => window.axe.run(ctx ?? document, { resultTypes: ['violations'] }), context);
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .flatMap((v) => v.nodes.map((n) => `${v.id} (${v.impact}): ${n.target.join(' ')}: ${n.failureSummary.split('\n').slice(1, 3).join(' ')}`));
}

async function inTheme(context, theme, hash) {
  const page = await openPage(context, null, hash);
  await page.evaluate((t) => localStorage.setItem('cosim-theme', t), theme);
  await page.reload();
  await page.waitForFunction(() => window.cosimPlayground && document.querySelector('#run:not([disabled])'));
  await page.evaluate(() => window.cosimPlayground.ready);
  assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), theme);
  return page;
}

for (const theme of ['light', 'dark']) {
  test(`axe: start page with a finished run and a pinned one (${theme})`, async () => {
    const browser = await launch();
    try {
      const page = await inTheme(browser.context, theme, '#preset=two-mass-oscillator');
      await waitForRunEnd(page);
      await page.click('#pin-run');
      await page.selectOption('#slider-choice', 'master.macro_step');
      await page.click('#slider-add');
      assert.deepEqual(await violations(page), []);
      assert.deepEqual(page.problems, []);
    } finally {
      await browser.close();
    }
  });

  test(`axe: stability map computed on opening (${theme})`, async () => {
    const browser = await launch();
    try {
      const page = await inTheme(browser.context, theme, '#preset=analysis-stability-map');
      await page.waitForFunction(() => window.cosimAnalysis.timings?.coarse != null, null, { timeout: 120_000 });
      assert.deepEqual(await violations(page, '#analysis'), []);
      assert.deepEqual(page.problems, []);
    } finally {
      await browser.close();
    }
  });

  test(`axe: diagram editor with a selected block, a pending connection and an error (${theme})`, async () => {
    const browser = await launch();
    try {
      const page = await inTheme(browser.context, theme, '');
      await page.waitForSelector('#diagram .block[data-module="mass2"]');
      await page.selectOption('#palette-model', 'Equations');
      await page.click('#palette-add');
      await page.waitForSelector('#diagram [data-port="eq.u"]');
      await page.focus('#diagram [data-key="out:mass1.v1"]');
      await page.keyboard.press('Enter');
      await page.focus('#diagram [data-key="in:eq.u"]');
      await page.keyboard.press('Enter');
      await page.waitForSelector('#diagram .wire-error');
      assert.deepEqual(await violations(page, '#diagram'), []);
      assert.deepEqual(page.problems, []);
    } finally {
      await browser.close();
    }
  });
}
