// Screenshots of the energy view for docs/screenshots/ (not a test; run by hand): the
// uncorrected double oscillator (energy created, flagged), the same corrected (not flagged)
// and the crane at h_M = 11.5 ms (the δP spike flagged where the response oscillates), each
// run on opening, at 1280 x 800, scrolled so the energy panel ends at the bottom of the window.
//
//   COSIM_BASE_URL=http://127.0.0.1:8213 COSIM_CHROMIUM=$(command -v chromium) node tests/e2e/energy_screenshots.mjs

import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch, openPage, waitForRunEnd } from './browser.mjs';

const DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'docs', 'screenshots');
const SHOTS = [
  ['energy-oscillator-drift', 'energy-drift-1280x800.png'],
  ['energy-oscillator-corrected', 'energy-corrected-1280x800.png'],
  ['energy-crane-uncorrected', 'energy-crane-1280x800.png'],
];

const b = await launch();
try {
  for (const [id, name] of SHOTS) {
    const page = await openPage(b.context, { width: 1280, height: 800 }, `#preset=${id}`);
    await waitForRunEnd(page);
    await page.$eval('#energy', (e) => e.scrollIntoView({ block: 'end' }));
    await page.waitForTimeout(400);
    await page.screenshot({ path: join(DIR, name) });
    console.log(`wrote docs/screenshots/${name}`);
    await page.close();
  }
} finally {
  await b.close();
}
