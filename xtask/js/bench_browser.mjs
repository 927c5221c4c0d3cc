// Drives www/bench.html in headless Chromium for `cargo xtask bench` and prints one line
// `BENCH <json>`. Env: COSIM_BASE_URL (served www/), COSIM_CHROMIUM, BENCH_STEPS, BENCH_RUNS,
// BENCH_QUERY (more query parameters, e.g. `mode=to-end&preset=ID`).
import { chromium } from 'playwright-core';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const base = process.env.COSIM_BASE_URL;
const steps = process.env.BENCH_STEPS ?? '10000';
const runs = process.env.BENCH_RUNS ?? '5';
const extra = process.env.BENCH_QUERY ? `&${process.env.BENCH_QUERY}` : '';
const profile = mkdtempSync(join(tmpdir(), 'cosim-bench-'));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: process.env.COSIM_CHROMIUM ?? '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
try {
  const page = await context.newPage();
  page.on('console', (m) => console.log(`[page] ${m.text()}`));
  await page.goto(`${base}/bench.html?steps=${steps}&runs=${runs}${extra}`);
  await page.waitForFunction(() => window.benchResult !== undefined, null, { timeout: 600_000 });
  const result = await page.evaluate(() => window.benchResult);
  result.browser = context.browser()?.version() ?? (await page.evaluate(() => navigator.userAgent));
  console.log(`BENCH ${JSON.stringify(result)}`);
  if (result.error) process.exitCode = 1;
} finally {
  await context.close();
  rmSync(profile, { recursive: true, force: true });
}
