// Shared set-up for the page's end-to-end tests: headless Chromium from the system
// (/usr/bin/chromium, no downloaded browsers) driven by playwright-core, a fresh profile
// per launch, and the served page's base URL from COSIM_BASE_URL.

import { chromium } from 'playwright-core';
import { mkdtempSync, rmSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

export const BASE_URL = (process.env.COSIM_BASE_URL || 'http://127.0.0.1:8000/').replace(/\/?$/, '/');
export const OUT_DIR = join(dirname(fileURLToPath(import.meta.url)), 'out');
mkdirSync(OUT_DIR, { recursive: true });

const ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

/** Launches Chromium with a throw-away profile; `close()` removes the profile too. */
export async function launch() {
  const profile = mkdtempSync(join(tmpdir(), 'cosim-e2e-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.COSIM_CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ARGS,
    viewport: { width: 1280, height: 800 },
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/**
 * Opens the page (with the address fragment `hash`, e.g. `#s1.…`, if given) and waits
 * until the worker reported 'ready' (presets loaded) and the address was acted on.
 * Collects uncaught page errors and console errors into `page.problems`.
 */
export async function openPage(context, viewport, hash = '') {
  const page = await context.newPage();
  if (viewport) await page.setViewportSize(viewport);
  page.problems = [];
  page.on('pageerror', (e) => page.problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error') page.problems.push(`console: ${m.text()}`); });
  await page.goto(BASE_URL + hash);
  await page.waitForFunction(() => window.cosimPlayground && document.querySelector('#run:not([disabled])'), null, { timeout: 30_000 });
  await page.evaluate(() => window.cosimPlayground.ready);
  return page;
}

/** Waits for a run started by the page itself (e.g. on opening a link) to end. */
export async function waitForRunEnd(page, timeout = 60_000) {
  await page.waitForFunction(() => document.body.dataset.runState && !window.cosimPlayground.busy, null, { timeout });
  return page.evaluate(() => document.body.dataset.runState);
}

/** Clicks Run and waits for the run to end; returns the body's run state. */
export async function runAndWait(page, timeout = 60_000) {
  await page.evaluate(() => { delete document.body.dataset.runState; });
  await page.click('#run');
  await page.waitForFunction(() => document.body.dataset.runState, null, { timeout });
  return page.evaluate(() => document.body.dataset.runState);
}
