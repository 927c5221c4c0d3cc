// Drives www/bench_map.html in headless Chromium for `cargo xtask bench` and prints one
// line `BENCH_MAP <json>`. Env: COSIM_BASE_URL (served www/), COSIM_CHROMIUM, BENCH_MAP_N.
import { chromium } from 'playwright-core';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const base = process.env.COSIM_BASE_URL;
const n = process.env.BENCH_MAP_N ?? '256';
const profile = mkdtempSync(join(tmpdir(), 'cosim-bench-map-'));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: process.env.COSIM_CHROMIUM ?? '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
try {
  const page = await context.newPage();
  page.on('console', (m) => console.log(`[page] ${m.text()}`));
  await page.goto(`${base}/bench_map.html?n=${n}`);
  await page.waitForFunction(() => window.benchMapResult !== undefined, null, { timeout: 1_800_000, polling: 500 });
  const result = await page.evaluate(() => window.benchMapResult);
  result.browser = context.browser()?.version() ?? (await page.evaluate(() => navigator.userAgent));
  console.log(`BENCH_MAP ${JSON.stringify(result)}`);
  if (result.error) process.exitCode = 1;
} finally {
  await context.close();
  rmSync(profile, { recursive: true, force: true });
}
