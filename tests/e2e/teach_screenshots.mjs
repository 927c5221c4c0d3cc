// Screenshots of the teaching views for docs/screenshots/ (not a test; run by hand):
// the system diagram, three pinned runs of the two-mass preset and the stability map
// computed on opening with the ΔT slider dragged, at 1280 x 800 and 390 x 844.
//
//   COSIM_BASE_URL=http://127.0.0.1:8092 node tests/e2e/teach_screenshots.mjs

import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch, openPage, runAndWait, waitForRunEnd } from './browser.mjs';

const DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'docs', 'screenshots');
const SIZES = [['1280x800', { width: 1280, height: 800 }], ['390x844', { width: 390, height: 844 }]];

async function shoot(page, selector, name) {
  const el = await page.$(selector);
  await el.evaluate((e) => e.scrollIntoView({ block: 'start' }));
  await page.waitForTimeout(300);
  await page.screenshot({ path: join(DIR, name) });
  console.log(`wrote docs/screenshots/${name}`);
}

for (const [label, viewport] of SIZES) {
  const b = await launch();
  try {
    // Diagram: the two-mass preset with an equation module added and connected.
    let page = await openPage(b.context, viewport, '#preset=two-mass-oscillator');
    await waitForRunEnd(page);
    await page.selectOption('#palette-model', 'Equations');
    await page.click('#palette-add');
    await page.waitForSelector('#diagram [data-port="eq.u"]');
    await page.focus('#diagram [data-key="out:mass1.s1"]');
    await page.keyboard.press('Enter');
    await page.focus('#diagram [data-key="in:eq.u"]');
    await page.keyboard.press('Enter');
    await page.waitForTimeout(400);
    await page.focus('#diagram [data-key="block:mass2"]');
    await shoot(page, '#diagram', `teach-diagram-${label}.png`);
    await page.close();

    // Pinned runs at ΔT = 3.16e-4 s, where the methods differ visibly: order 0, order 1,
    // order 0 corrected; one chart, so that the table fits below it.
    page = await openPage(b.context, viewport, '#preset=two-mass-oscillator');
    await waitForRunEnd(page);
    await page.fill('#master-fields [data-path="master.macro_step"]', '3.1622776601683794e-4');
    await page.uncheck('#plot-checkboxes input[value="mass2.Fk"]');
    const order = '[data-path="master.extrapolation_order"]';
    for (const [k, corrected] of [['0', false], ['1', false], ['0', true]]) {
      await page.selectOption(order, k);
      if (corrected) await page.check('[data-path="master.correction"]');
      await runAndWait(page);
      await page.click('#pin-run');
    }
    await page.evaluate(() => document.getElementById('about').removeAttribute('open'));
    await shoot(page, '#plots', `teach-pinned-runs-${label}.png`);
    await page.close();

    // Live map: computed on opening, then the ΔT slider dragged.
    page = await openPage(b.context, viewport, '#preset=analysis-stability-map');
    await page.waitForFunction(() => window.cosimAnalysis.timings?.coarse != null, null, { timeout: 300_000 });
    await page.waitForFunction(() => document.body.dataset.analysisState === 'done', null, { timeout: 600_000 });
    await page.$eval('#analysis-dt', (e) => {
      e.dispatchEvent(new Event('pointerdown'));
      e.value = String(Number(e.value) + 40);
      e.dispatchEvent(new Event('input', { bubbles: true }));
    });
    await page.waitForFunction(() => document.body.dataset.liveContour, null, { timeout: 60_000 });
    await shoot(page, '#analysis-figure', `teach-live-map-${label}.png`);
    await page.close();
  } finally {
    await b.close();
  }
}
